"""Every named scenario, end to end through bench/run.py with the fake gnf: the report, its
tables against the fake's known capacity, skipping without a GPU, refusals, failures, the index."""
import os
import re

import pytest

from gnfbench import cli, rates, report
from reportcheck import check_report, searched_rate, tables

PAPER_NUMBERS = {"rings": "74.78", "tail-batching": "8.14", "writeback": "15.79", "one-way": "3.37",
                 "paths": "11.2", "sweep": None, "calibrate": None, "matrix": None, "staged-modes": None,
                 "ipsec": None, "nids": None, "streams": "8.32"}


def run_cli(fake_gnf, root, *args):
    """bench/run.py ARGS with the fake gnf and results under ROOT/results; (exit code, run folder)."""
    out = root / "results"
    rc = cli.main(list(args) + ["--gnf", fake_gnf.path, "--out", str(out)])
    folders = sorted(p for p in out.iterdir() if p.is_dir()) if out.exists() else []
    return rc, folders[-1] if folders else None


@pytest.mark.parametrize("scenario", sorted(PAPER_NUMBERS))
def test_every_scenario_writes_a_complete_report(fake_gnf, tmp_path, scenario):
    fake_gnf.set(capacity_pps=3e6)
    rc, folder = run_cli(fake_gnf, tmp_path, scenario, "--quick")
    assert rc == 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\d-" + scenario, folder.name)
    md, rj = check_report(str(folder))
    assert rj["scenario"] == scenario and rj["headline"]
    if PAPER_NUMBERS[scenario]:
        assert PAPER_NUMBERS[scenario] in md
    index = (tmp_path / "results" / "RESULTS.md").read_text()
    assert "| %s | [%s](%s/report.md) | fakehost |" % (scenario, folder.name, folder.name) in index


def test_sweep_finds_the_fakes_capacity_within_the_resolution(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=2e6)
    rc, folder = run_cli(fake_gnf, tmp_path, "sweep", "--quick", "--sizes", "64,1518", "--resolution", "2%")
    assert rc == 0
    rows = {(r[0], r[1]): r for r in tables((folder / "report.md").read_text())["Throughput by frame size (median "
                                                                                "over repetitions)"][1:]}
    ndr_64 = float(rows[("64 B", "cpu")][2]) * 1e6
    assert 2e6 - 0.02 * rates.line_rate_pps(10, 64) <= ndr_64 <= 2e6
    assert rows[("1518 B", "cpu")][4] == "100.0"  # 0.81 Mpps of line rate is below the capacity


def test_sweep_marks_rates_the_nic_model_set_and_leaves_the_others(fake_gnf, tmp_path):
    # 64 B: the path forwards 2 Mpps and the model takes frames late above 1 Mpps, so both answers
    # passed with late frames (model-bound); 1518 B: line rate, 0.81 Mpps, the model keeps up.
    fake_gnf.set(capacity_pps=2e6, late_above_pps=1e6)
    rc, folder = run_cli(fake_gnf, tmp_path, "sweep", "--quick", "--sizes", "64,1518", "--resolution", "2%")
    assert rc == 0
    md, rj = check_report(str(folder))
    table = tables(md)["Throughput by frame size (median over repetitions)"]
    rows = {(r[0], r[1]): dict(zip(table[0], r)) for r in table[1:]}
    for column in ("NDR Mpps", "NDR Gbit/s L1", "NDR % of line", "PDR Mpps", "PDR Gbit/s L1"):
        rate, model_bound = searched_rate(rows[("64 B", "cpu")][column])
        assert model_bound and rate > 0, column
        assert searched_rate(rows[("1518 B", "cpu")][column])[1] is False, column
    assert rows[("1518 B", "cpu")]["NDR % of line"] == "100.0"
    assert rj["headline"].startswith("NDR at 64 B: cpu ≥ ") and rj["headline"].endswith(" Mpps (model-bound)")
    assert {(s["size"], s["criterion"]): s["model_bound"] for s in rj["searches"]} == {
        (64, "NDR"): True, (64, "PDR"): True, (1518, "NDR"): False, (1518, "PDR"): False}


def test_tables_of_fixed_load_trials_count_the_model_bound_ones(fake_gnf, tmp_path):
    # The calibration (the model measuring itself) at 50 % of 64 B line rate, 7.44 Mpps: model-bound
    # where the model takes frames late above 5 Mpps, not where it keeps up.
    fake_gnf.set(late_above_pps=5e6)
    _, folder = run_cli(fake_gnf, tmp_path, "calibrate", "--quick", "--sizes", "64,1518", "--repetitions", "2")
    table = tables((folder / "report.md").read_text())["Calibration floor by frame size"]
    assert table[0][-1] == "model-bound"
    assert {row[0]: row[-1] for row in table[1:]} == {"calibration floor (64 B)": "2 of 2",
                                                      "calibration floor (1518 B)": "0 of 2"}


def test_sweep_offers_rates_in_pps_and_calibrates_at_the_ndr(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=1e6)
    run_cli(fake_gnf, tmp_path, "sweep", "--quick", "--sizes", "64")
    calls = fake_gnf.calls()
    assert all("--rate-pps" in c for c in calls)
    calibrations = [c for c in calls if "--calibrate" in c]
    assert len(calibrations) == 1 and "--path" not in calibrations[0]
    ndr_rate = float(calibrations[0][calibrations[0].index("--rate-pps") + 1])
    assert ndr_rate <= 1e6


def test_repetitions_run_every_point_again_and_show_the_spread(fake_gnf, tmp_path):
    rc, folder = run_cli(fake_gnf, tmp_path, "one-way", "--quick", "--repetitions", "3", "--paths", "cpu")
    assert rc == 0
    # 3 directions + the calibration, 3 times each
    assert len(fake_gnf.calls()) == 4 * 3
    assert os.path.exists(folder / "latency_cdf.png")


def test_without_a_gpu_the_gpu_paths_are_skipped_with_a_note(fake_gnf, tmp_path):
    fake_gnf.set(no_gpu=1, capacity_pps=3e6)
    rc, folder = run_cli(fake_gnf, tmp_path, "paths", "--quick")
    assert rc == 0
    md, _ = check_report(str(folder))
    assert "Path `staged` was skipped" in md and "Path `bypass` was skipped" in md and "needs a CUDA GPU" in md
    rows = tables(md)["Throughput by frame size (median over repetitions)"][1:]
    assert all(r[2] != "–" for r in rows if r[1] == "cpu")
    assert all(r[2] == "–" for r in rows if r[1] in ("staged", "bypass"))
    # Once a path says it needs a GPU, it is not asked again.
    assert sum("bypass" in c for c in fake_gnf.calls()) == 1


def test_a_refused_option_is_noted_and_the_run_exits_1(fake_gnf, tmp_path):
    fake_gnf.set(refuse="one-way", capacity_pps=3e6)
    rc, folder = run_cli(fake_gnf, tmp_path, "one-way", "--quick")
    assert rc == 1
    md, _ = check_report(str(folder))
    assert "was not measured: `gnf bench` refused it: \"gnf: error: --one-way is not supported yet\"" in md
    rows = tables(md)["One-way delays, ours beside the FPGA paper's"][1:]
    assert rows[0][2] != "–" and rows[1][2] == "–" and rows[2][2] == "–"


def test_a_failing_trial_stops_the_run_without_a_report(fake_gnf, tmp_path, capsys):
    fake_gnf.set(exit=3)
    rc, folder = run_cli(fake_gnf, tmp_path, "calibrate", "--quick")
    assert rc == 3
    assert not (folder / "report.md").exists()
    assert "exited with 3" in capsys.readouterr().err


def test_a_missing_binary_is_reported_before_any_folder_is_made(tmp_path, capsys):
    assert cli.main(["calibrate", "--gnf", str(tmp_path / "none"), "--out", str(tmp_path / "r")]) == 2
    assert "no gnf binary" in capsys.readouterr().err and not (tmp_path / "r").exists()


def test_a_second_run_the_same_day_gets_its_own_folder_and_the_index_moves_to_it(fake_gnf, tmp_path):
    run_cli(fake_gnf, tmp_path, "calibrate", "--quick")
    _, second = run_cli(fake_gnf, tmp_path, "calibrate", "--quick", "--sizes", "64")
    run_cli(fake_gnf, tmp_path, "sweep", "--quick", "--sizes", "1518")
    assert second.name.endswith("-calibrate-2")
    index = (tmp_path / "results" / "RESULTS.md").read_text()
    lines = [l for l in index.splitlines() if l.startswith("| ") and "report.md" in l]
    assert len(lines) == 2
    assert "(%s/report.md)" % second.name in [l for l in lines if l.startswith("| calibrate")][0]


def test_options_override_the_scenario_defaults():
    _, o = cli.resolve(["rings", "--rings", "1,8", "--sizes", "300", "--pdr-loss", "0.5", "--trial-s", "4"])
    assert (o.rings, o.sizes, o.pdr_loss, o.trial_s, o.verify_s, o.paths) == ([1, 8], [300], 0.005, 4.0, 4.0,
                                                                             ["bypass"])
    _, quick = cli.resolve(["sweep", "--quick"])
    assert quick.repetitions == 1 and quick.sizes == [64, "imix"] and quick.resolution == "10%"


def test_the_matrix_spreads_1024_flows_over_its_rings_unless_told():
    assert cli.resolve(["matrix"])[1].flows == 1024
    assert cli.resolve(["matrix", "--flows", "64"])[1].flows == 64
    assert cli.resolve(["matrix", "--quick"])[1].flows == 64
    assert cli.resolve(["rings"])[1].flows == 64  # the papers' scenarios keep their traffic


@pytest.mark.parametrize("args", [["sweep", "--paths", "gpu"], ["sweep", "--sizes", "32"], ["nonsense"]])
def test_bad_options_are_refused(args, capsys):
    with pytest.raises(SystemExit) as e:
        cli.resolve(args)
    assert e.value.code == 2


def test_a_latency_table_without_a_floor_row_cannot_be_made():
    with pytest.raises(ValueError, match="no calibration floor"):
        report.Table("lat", ["a", "mean µs"], [["x", "1"]], latency=True)
    with pytest.raises(ValueError, match="has 1 cells for 2 columns"):
        report.Table("t", ["a", "b"], [["x"]])


def test_a_report_refuses_a_figure_that_was_never_drawn(tmp_path):
    r = report.Report("x", "X", "", ["bench/run.py", "x"])
    r.figure("missing", "missing.png")
    with pytest.raises(FileNotFoundError):
        r.write(str(tmp_path), [], {})


def test_the_fidelity_statement_is_design_mds_word_for_word():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "..", "..", "DESIGN.md"),
                  os.path.join(here, "..", "..", "..", "shared", "DESIGN.md")]
    design = next((p for p in candidates if os.path.exists(p)), None)
    if design is None:
        pytest.skip("DESIGN.md is not beside this checkout")
    section = open(design).read().split("## Fidelity and honesty", 1)[1].split("\n## ", 1)[0]
    assert " ".join(section.split()) == " ".join(report.FIDELITY.split())


def test_a_refused_calibration_stops_the_run_because_every_latency_table_needs_it(fake_gnf, tmp_path, capsys):
    fake_gnf.set(refuse="calibrate")
    rc, folder = run_cli(fake_gnf, tmp_path, "one-way", "--quick", "--paths", "cpu")
    assert rc == 3 and not (folder / "report.md").exists()
    assert "--calibrate is not supported yet" in capsys.readouterr().err


def test_the_index_keeps_its_row_order_and_the_notes_below_the_table(tmp_path):
    index = tmp_path / "RESULTS.md"
    index.write_text(report.INDEX_HEADER + "| zeta | [a](a/report.md) | h | g | z |\n"
                     "| alpha | [b](b/report.md) | h | g | a |\n\nNotes written by hand.\n\n- more\n")
    md = tmp_path / "2026-01-01-mu" / "report.md"
    report.update_index(str(index), "mu", str(md), [], "new")
    report.update_index(str(index), "alpha", str(md), [], "again")
    text = index.read_text()
    rows = [l.split("|")[1].strip() for l in text.splitlines() if l.startswith("| ") and "report.md" in l]
    assert rows == ["mu", "zeta", "alpha"]  # "mu" before the first name that sorts after it
    assert "| alpha | [2026-01-01-mu](2026-01-01-mu/report.md) | ? | none | again |" in text
    assert text.endswith("\nNotes written by hand.\n\n- more\n")


def test_streams_searches_the_staged_path_at_each_depth_with_the_seeds_gateway(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=3e5)
    rc, folder = run_cli(fake_gnf, tmp_path, "streams", "--quick", "--depths", "1,2,8")
    assert rc == 0
    md, rj = check_report(str(folder))
    table = tables(md)["Bursts in flight: NDR, its cost and latency at low load"]
    assert [(r[0], r[1]) for r in table[1:4]] == [("1518 B", "1"), ("1518 B", "2"), ("1518 B", "8")]
    calls = fake_gnf.calls()
    floor = [c for c in calls if "--calibrate" in c]
    assert len(floor) == 1
    calls = [c for c in calls if "--calibrate" not in c]
    assert {c[c.index("--path") + 1] for c in calls} == {"staged"}
    assert {c[c.index("--staged-depth") + 1] for c in calls} == {"1", "2", "8"}
    assert {os.path.basename(c[c.index("--config") + 1]) for c in calls} == {"ipsec-bench-cbc-tunnel.toml"}
    _, options = cli.resolve(["streams", "--quick", "--depths", "1,2,8"])
    assert len(calls) + len(floor) == cli.SCENARIOS["streams"].estimate_trials(options)
    assert rj["headline"].startswith("1518 B: ") and "with 1 burst(s) in flight" in rj["headline"]
