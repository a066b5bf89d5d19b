"""Issue 15: a search that never met the path, only the NIC model or a loaded machine, reports no
rate instead of an NDR of 0, and bench/run.py exits 4; a rate found on a loaded machine is marked
as a lower bound; a 0 the path itself set (nothing limited but its losses) stays a 0 and exit 0."""
from gnfbench import cli
from reportcheck import check_report, searched_rate, tables

TABLE = "Throughput by frame size (median over repetitions)"


def sweep(fake_gnf, tmp_path):
    out = tmp_path / "results"
    rc = cli.main(["sweep", "--quick", "--sizes", "64", "--gnf", fake_gnf.path, "--out", str(out)])
    folder = sorted(p for p in out.iterdir() if p.is_dir())[-1]
    md, rj = check_report(str(folder))
    return rc, tables(md)[TABLE][1], md, rj


def test_no_passing_rate_on_a_loaded_machine_is_not_measured_and_exits_4(fake_gnf, tmp_path, capsys):
    fake_gnf.set(capacity_pps=1, host_loaded=1)  # every trial loses frames, every trial waited for cores
    rc, row, md, rj = sweep(fake_gnf, tmp_path)
    assert rc == 4
    assert row[2] == "not measured (host-loaded)" and row[5] == "not measured (host-loaded)", row
    assert all(s["unmeasured"] and s["host_loaded"] and s["rate_pps"] == 0 for s in rj["searches"]), rj["searches"]
    assert "Their NDR/PDR is not 0 but not measured" in md and "ran on a loaded machine" in md
    assert "found no rate the path forwards" in capsys.readouterr().err


def test_no_passing_rate_against_a_busy_nic_model_is_not_measured_either(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=1, nic_busy_above_pps=0)
    rc, row, _, rj = sweep(fake_gnf, tmp_path)
    assert rc == 4 and row[2] == "not measured (model-bound)", row
    assert all(s["unmeasured"] and s["model_bound"] and not s["host_loaded"] for s in rj["searches"])


def test_a_rate_found_on_a_loaded_machine_is_a_lower_bound(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=2e6, host_loaded=1)
    rc, row, _, rj = sweep(fake_gnf, tmp_path)
    assert rc == 0
    assert row[2].endswith(" (host-loaded)") and row[2].startswith("≥ "), row
    rate, lower_bound = searched_rate(row[2])
    assert lower_bound and 0 < rate <= 2.0, row
    assert not any(s["unmeasured"] for s in rj["searches"])


def test_a_zero_the_path_set_on_an_idle_machine_stays_a_measured_zero(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=1)
    rc, row, _, rj = sweep(fake_gnf, tmp_path)
    assert rc == 0
    assert searched_rate(row[2]) == (0.0, False), row
    assert not any(s["unmeasured"] for s in rj["searches"])
