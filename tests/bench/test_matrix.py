"""The `matrix` and `staged-modes` scenarios through bench/run.py with the fake gnf, whose capacity
per path, staged mode and ring count is known: the NDRs, the ratios, the headline, the trial count
against the estimate, and NDRs the NIC model, not the path, set (model-bound).

Hand-computed numbers below: at 10 Gbit/s, 64 B line rate is 14.881 Mpps; with a 10 % resolution
the search halves [0, line rate] four times (widths line/2 ... line/16 = 0.930 Mpps), so an NDR is a
multiple of 0.930 Mpps: capacity 1 Mpps -> 0.930, 2 -> 1.860, 4 -> 3.720, 8 -> 7.440."""
import re

import pytest

from conftest import make_fake_gnf
from gnfbench import cli, search, trial
from gnfbench.scenarios.staged_modes import fastest
from gnfbench.scenarios.throughput import Point, limit_seen
from reportcheck import check_report, searched_rate, tables
from test_scenarios import run_cli

TABLE_64 = "64 B: NDR, its cost and latency at low load, per path and ring count"
RATIOS = "bypass against cpu and staged: NDR measured in this run"
STAGED = "Staged modes: NDR, its cost and latency at low load"
OVERLOAD = "No collapse: each point offered more than its NDR"


def rows_by(md, title, *keys):
    """{(cells of the key columns): {header: cell}} for the table titled `title`."""
    rows = tables(md)[title]
    out = {}
    for row in rows[1:]:
        cells = dict(zip(rows[0], row))
        out[tuple(cells[k] for k in keys)] = cells
    return out


def estimate(*args):
    scenario, options = cli.resolve(list(args))
    return scenario.estimate_trials(options)


def search_and_low_load_calls(calls):
    return [c for c in calls if "--calibrate" not in c]


class QuickRun:
    """One `matrix --quick` run with the fake: its exit code, folder, report and the fake's calls."""

    def __init__(self, fake, root):
        self.rc, self.folder = run_cli(fake, root, "matrix", "--quick")
        self.calls = fake.calls()
        self.md = (self.folder / "report.md").read_text()


@pytest.fixture(scope="module")
def quick_matrix(tmp_path_factory):
    """cpu 1, staged 2, bypass 4 Mpps per ring: one quick run, read by several tests."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        root = tmp_path_factory.mktemp("quick-matrix")
        fake = make_fake_gnf(monkeypatch, root / "fake")
        fake.set(capacity_pps=1e6, capacity_scale="bypass=4,staged=2")
        return QuickRun(fake, root)


def test_quick_matrix_is_small_and_runs_exactly_the_estimated_trials(quick_matrix):
    assert quick_matrix.rc == 0
    calls = quick_matrix.calls
    _, quick = cli.resolve(["matrix", "--quick"])
    assert (quick.sizes, quick.rings, quick.repetitions, quick.trial_s) == ([64], [1, 2], 1, 0.3)
    # Every search bisects (no capacity reaches line rate), so the estimate is exact: 3 paths x 2
    # rings x (1 + 4 halvings + verification + the low-load trial), and the floor.
    assert len(calls) == estimate("matrix", "--quick") == 43
    assert {c[c.index("--size") + 1] for c in calls} == {"64"}
    assert {c[c.index("--queues") + 1] for c in calls} == {"1", "2"}
    _, rj = check_report(str(quick_matrix.folder))
    assert [f["file"] for f in rj["figures"]] == ["ndr_vs_rings.png", "latency_low_load.png"]


def test_the_matrix_tables_hold_the_ndr_its_cost_and_latency_at_low_load(quick_matrix):
    rows = rows_by(quick_matrix.md, TABLE_64, "path", "rings")
    ndr = {key: row["NDR Mpps"] for key, row in rows.items() if key[0] in ("cpu", "staged", "bypass")}
    assert ndr == {("cpu", "1"): "0.930", ("cpu", "2"): "1.860", ("staged", "1"): "1.860",
                   ("staged", "2"): "3.720", ("bypass", "1"): "3.720", ("bypass", "2"): "7.440"}
    bypass = rows[("bypass", "2")]
    assert bypass["NDR % of line"] == "50.0" and bypass["NDR Gbit/s L1"] == "5.000"
    # The fake: 64 + 16 B to memory, 16 more from it; bypass has no driver threads; 1 % reordered
    # per extra ring on bypass; latency 5120 + 128 k ns (k < 100): p50 11392, p99 17664 ns.
    assert (bypass["PCIe B/packet to memory"], bypass["PCIe B/packet from memory"]) == ("80.0", "96.0")
    assert bypass["driver cores"] == "0.00" and rows[("cpu", "2")]["driver cores"] == "2.00"
    assert bypass["reordered % at NDR"] == "1.000" and rows[("bypass", "1")]["reordered % at NDR"] == "0.000"
    assert (bypass["low-load p50 µs"], bypass["low-load p99 µs"]) == ("11.39", "17.66")
    assert bypass["limit above the NDR"] == "nic_rx_buffer (100 % of drops)"
    floor = [row for key, row in rows.items() if "calibration floor" in key[1]]
    assert len(floor) == 1 and floor[0]["low-load p50 µs"] == "8.32"  # 2048 + 49 x 128 ns
    low_load = [c for c in quick_matrix.calls if "--load" in c]  # 6 points and the floor
    assert len(low_load) == 7 and all(c[c.index("--load") + 1] == "1" for c in low_load)


def test_the_ratio_table_divides_bypass_by_each_other_path_at_the_same_size_and_rings(quick_matrix):
    ratios = rows_by(quick_matrix.md, RATIOS, "size", "rings")
    assert ratios[("64 B", "1")] == {"size": "64 B", "rings": "1", "bypass NDR Mpps": "3.720", "cpu NDR Mpps": "0.930",
                                     "bypass / cpu": "4.00", "staged NDR Mpps": "1.860", "bypass / staged": "2.00"}
    assert (ratios[("64 B", "2")]["bypass / cpu"], ratios[("64 B", "2")]["bypass / staged"]) == ("4.00", "2.00")


def test_the_headline_states_the_best_bypass_ndr_against_line_rate_ratios_and_reordering(quick_matrix):
    _, rj = check_report(str(quick_matrix.folder))
    # bypass with 2 rings reorders 1 %: its three zero-loss trials (7.440 Mpps, its verification,
    # the low-load trial); with 1 ring its three are in order.
    assert rj["headline"] == (
        "bypass 64 B: best NDR 7.440 Mpps with 2 ring(s), 50.0 % of the goal, line rate (14.881 Mpps at 10 Gbit/s); "
        "limit above it: nic_rx_buffer (100 % of drops); low-load p50 11.39 µs (goal ≤ 8); bypass/cpu 4.00×; "
        "bypass/staged 2.00×; zero-loss trials with reordering: bypass 3 of 6")
    rows = rows_by(quick_matrix.md, "Reordering in zero-loss trials", "path")
    assert [(r["zero-loss trials"], r["with reordering"]) for r in rows.values()] == [
        ("6", "0"), ("6", "0"), ("6", "3")]


def test_ratios_at_a_fine_resolution_are_the_quotients_of_the_tables_ndrs(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=1e6, capacity_scale="bypass=3,staged=1.7")
    _, folder = run_cli(fake_gnf, tmp_path, "matrix", "--quick", "--resolution", "0.5%", "--rings", "1")
    md = (folder / "report.md").read_text()
    ndr = {key[0]: float(row["NDR Mpps"]) for key, row in rows_by(md, TABLE_64, "path", "rings").items()
           if key[1] == "1"}
    # Each NDR within the resolution (74 kpps) below its capacity.
    for path, capacity in (("cpu", 1.0), ("staged", 1.7), ("bypass", 3.0)):
        assert capacity - 0.075 < ndr[path] <= capacity
    row = rows_by(md, RATIOS, "size", "rings")[("64 B", "1")]
    assert float(row["bypass / staged"]) == pytest.approx(ndr["bypass"] / ndr["staged"], abs=0.006)
    assert float(row["bypass / cpu"]) == pytest.approx(ndr["bypass"] / ndr["cpu"], abs=0.006)


def test_the_goal_is_line_rate_at_the_runs_speed(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=1e8, capacity_scale="bypass=2")  # bypass reaches 100 GbE line rate with 1 ring
    _, folder = run_cli(fake_gnf, tmp_path, "matrix", "--quick", "--speed", "100", "--paths", "cpu,bypass",
                        "--rings", "1")
    _, rj = check_report(str(folder))
    assert rj["headline"].startswith("bypass 64 B: best NDR 148.810 Mpps with 1 ring(s), 100.0 % of the goal, "
                                     "line rate (148.810 Mpps at 100 Gbit/s); limit above it: none: line rate passed")


def lower_bound(cell):
    """The rate in a cell that says "≥ rate (model-bound)"."""
    rate, model_bound = searched_rate(cell)
    assert model_bound, cell
    return rate


def cpu_at_one_ring(fake_gnf, tmp_path):
    """A quick matrix of the cpu path with 1 ring at 1 % resolution: (report.md, report.json, its 64 B row)."""
    _, folder = run_cli(fake_gnf, tmp_path, "matrix", "--quick", "--paths", "cpu", "--rings", "1",
                        "--resolution", "1%")
    md, rj = check_report(str(folder))
    return md, rj, rows_by(md, TABLE_64, "path", "rings")[("cpu", "1")]


def test_late_frames_of_the_nic_model_make_the_ndr_a_model_bound_lower_bound(fake_gnf, tmp_path):
    # Above 0.5 Mpps the fake's NIC model takes (rate - 0.5 Mpps) x duration frames late, losing
    # none: the search still passes up to the path's 3 Mpps, but the model was the limit there, so
    # the NDR is only a lower bound; the tables say how late the model was.
    fake_gnf.set(capacity_pps=3e6, late_above_pps=5e5)
    md, rj, row = cpu_at_one_ring(fake_gnf, tmp_path)
    ndr = lower_bound(row["NDR Mpps"])
    assert 3 - 0.149 < ndr <= 3
    assert lower_bound(row["NDR % of line"]) == pytest.approx(100 * ndr / 14.881, abs=0.1)
    assert float(row["NIC-model late % at NDR"]) == pytest.approx(100 * (ndr - 0.5) / ndr, abs=0.01)
    limit = row["limit above the NDR"]
    assert limit.startswith("nic_rx_buffer (100 % of drops), model-bound: NIC model late on ") and \
        limit.endswith("% of those sent)")
    assert "No ratio table" in md
    assert rj["headline"].startswith("cpu 64 B: best NDR ≥ %.3f Mpps (model-bound) with 1 ring(s), " % ndr)
    assert "; at the NDR the NIC model was late on %.1f %% of frames;" % (100 * (ndr - 0.5) / ndr) in rj["headline"]
    assert not any("late" in n for n in rj["notes"])  # 1 % of line rate (0.149 Mpps) is below 0.5 Mpps
    [answer] = rj["searches"]
    assert (answer["label"], answer["criterion"], answer["model_bound"]) == ("cpu-64-1rings", "NDR", True)
    assert answer["rate_pps"] / 1e6 == pytest.approx(ndr, abs=0.0005)


def test_a_model_bound_failure_above_the_ndr_makes_it_a_lower_bound_too(fake_gnf, tmp_path):
    # The path forwards 3 Mpps; above 2.95 Mpps the NIC-model thread is 95 % busy, so the lowest
    # failing trial (3.022 Mpps: the search ends on [2.906, 3.022)) measured the model as much as the
    # path, while the answer's own trials did not.
    fake_gnf.set(capacity_pps=3e6, nic_busy_above_pps=2.95e6)
    md, rj, row = cpu_at_one_ring(fake_gnf, tmp_path)
    assert 3 - 0.149 < lower_bound(row["NDR Mpps"]) <= 3
    assert row["limit above the NDR"] == "nic_rx_buffer (100 % of drops), model-bound: NIC-model threads 95 % busy"
    assert " (model-bound) with 1 ring(s)" in rj["headline"]


def test_a_model_that_keeps_up_leaves_the_ndr_as_the_paths_capacity(fake_gnf, tmp_path):
    # The model is busy only far above the path's capacity: the search's answer and the failure
    # just above it were the path's, so the NDR is reported as its capacity, unmarked.
    fake_gnf.set(capacity_pps=3e6, nic_busy_above_pps=6e6)
    md, rj, row = cpu_at_one_ring(fake_gnf, tmp_path)
    assert 3 - 0.149 < float(row["NDR Mpps"]) <= 3
    assert row["limit above the NDR"] == "nic_rx_buffer (100 % of drops)"
    assert "model-bound" not in rj["headline"]
    assert [s["model_bound"] for s in rj["searches"]] == [False]


def failing(where, driver_busy=0.5, on_schedule=True, reasons=()):
    """A trial as limit_seen reads it: drops by place, 2 driver threads this busy, the model's verdict."""
    doc = {"result": {"loss": {"where": where}, "on_schedule": on_schedule,
                      "cpu": {"wall_s": 2.0, "driver": {"threads": 2, "busy_s": 4.0 * driver_busy},
                              "nic": {"threads": 1, "busy_s": 1.0}},
                      "model_bound": {"bound": bool(reasons), "nic_busy_share": 0.5, "busy_threshold": 0.9,
                                      "late_frames": 0, "late_share_threshold": 0.01,
                                      "reasons": list(reasons)}}}
    return trial.Trial("synthetic", {}, [], "synthetic.json", doc)


def test_the_limit_above_the_ndr_names_the_drops_busy_driver_threads_and_the_models_reasons():
    where = {"nic_rx_buffer": 0, "rx_ring": 30, "tx_ring": 10}
    assert limit_seen(failing(where, driver_busy=0.95)) == "rx_ring (75 % of drops), driver threads 95 % busy"
    assert limit_seen(failing(where, reasons=["NIC-model threads 97 % busy"])) == \
        "rx_ring (75 % of drops), model-bound: NIC-model threads 97 % busy"
    behind = failing(dict.fromkeys(where, 0), on_schedule=False,
                     reasons=["generator behind schedule: the load was not offered"])
    assert limit_seen(behind) == "model-bound: generator behind schedule: the load was not offered"
    assert limit_seen(failing(dict.fromkeys(where, 0))) == "loss the counters did not see"


def test_frames_lost_or_late_at_low_load_are_noted(fake_gnf, tmp_path):
    # Both below 1 % of 64 B line rate (0.149 Mpps): 44642 frames sent in 0.3 s, 14642 of them late.
    fake_gnf.set(capacity_pps=1e5, late_above_pps=1e5)
    _, folder = run_cli(fake_gnf, tmp_path, "matrix", "--quick", "--paths", "cpu", "--rings", "1")
    _, rj = check_report(str(folder))
    assert "At low load (1 % of line rate) frames were lost, or the generator fell behind, at: cpu 64 B 1 ring(s). " \
           "There the low-load latency includes queueing." in rj["notes"]
    assert "At low load (1 % of line rate) the NIC model took up to 32.80 % (cpu) of frames off the wire late; " \
           "their latency includes that wait." in rj["notes"]
    assert rj["headline"].startswith("cpu 64 B: no rate passed with zero loss at any ring count")


def test_the_estimate_counts_every_search_low_load_and_floor_trial(fake_gnf, tmp_path):
    # Every NDR between line/32 at 64 B (0.465 Mpps) and line rate at 300 B (3.906 Mpps): every
    # search bisects all the way. (With verification: the quick run above.)
    fake_gnf.set(capacity_pps=6e5, capacity_scale="bypass=3")
    args = ["matrix", "--paths", "cpu,bypass", "--sizes", "64,300", "--rings", "1,2", "--repetitions", "2",
            "--trial-s", "0.1", "--warmup-s", "0", "--resolution", "5%", "--no-verify"]
    rc, _ = run_cli(fake_gnf, tmp_path, *args)
    assert rc == 0
    calls = fake_gnf.calls()
    # 2 paths x 2 sizes x 2 rings x 2 repetitions = 16 searches of 1 + 5 halvings, as many
    # low-load trials, twice as many overload trials (the default 150 and 300 %), and a floor per
    # size and repetition.
    assert len(search_and_low_load_calls(calls)) == 16 * (6 + 1 + 2)
    assert len(calls) == estimate(*args) == 16 * (6 + 1 + 2) + 4


def test_without_a_gpu_the_matrix_still_reports_the_cpu_path(fake_gnf, tmp_path):
    fake_gnf.set(no_gpu=1, capacity_pps=1e6)
    rc, folder = run_cli(fake_gnf, tmp_path, "matrix", "--quick")
    assert rc == 0
    md, rj = check_report(str(folder))
    rows = rows_by(md, TABLE_64, "path", "rings")
    assert rows[("cpu", "1")]["NDR Mpps"] == "0.930" and rows[("bypass", "1")]["NDR Mpps"] == "–"
    assert rows_by(md, RATIOS, "size", "rings")[("64 B", "1")]["bypass / cpu"] == "–"
    assert rj["headline"] == "bypass not measured at 64 B (see Notes)"
    assert sum("--path" in c and c[c.index("--path") + 1] != "cpu" for c in fake_gnf.calls()) == 2


@pytest.fixture
def modes_known(fake_gnf):
    """Per ring: zero-copy 1, copy 2, persistent 1.5 Mpps; 300 B line rate (3.906 Mpps) is above all."""
    fake_gnf.set(capacity_pps=1e6, capacity_scale="copy=2,persistent=1.5")
    return fake_gnf


def test_staged_modes_runs_each_mode_on_the_staged_path_and_says_which_is_fastest(modes_known, tmp_path):
    args = ["staged-modes", "--sizes", "64,300", "--repetitions", "1", "--trial-s", "0.1", "--warmup-s", "0",
            "--resolution", "1%"]
    rc, folder = run_cli(modes_known, tmp_path, *args)
    assert rc == 0
    md, rj = check_report(str(folder))
    calls = search_and_low_load_calls(modes_known.calls())
    assert {(c[c.index("--path") + 1], c[c.index("--queues") + 1]) for c in calls} == {("staged", "1")}
    assert sorted({c[c.index("--staged-mode") + 1] for c in calls}) == ["copy", "persistent", "zero-copy"]
    assert len(modes_known.calls()) == estimate(*args)
    rows = rows_by(md, STAGED, "size", "mode")
    for size, resolution in (("64 B", 0.149), ("300 B", 0.040)):
        for mode, capacity in (("zero-copy", 1.0), ("copy", 2.0), ("persistent", 1.5)):
            assert capacity - resolution < float(rows[(size, mode)]["NDR Mpps"]) <= capacity
    assert rj["headline"].startswith("highest NDR: 64 B copy (%s Mpps), 300 B copy (%s Mpps); lowest p50 at low "
                                     "load: 64 B zero-copy = copy = persistent 11.39 µs" % (
                                         rows[("64 B", "copy")]["NDR Mpps"], rows[("300 B", "copy")]["NDR Mpps"]))
    assert sum("calibration floor" in key[1] for key in rows) == 2
    assert [f["file"] for f in rj["figures"]] == ["ndr_vs_size.png", "latency_low_load.png"]


def test_staged_modes_the_search_cannot_tell_apart_are_a_tie(fake_gnf, tmp_path):
    # 10 %: at 64 B copy (2 Mpps) and persistent (2.5) both pass 1.860 and fail 2.790 Mpps, zero-copy
    # (1) fails 1.860: it is slower, the other two tie. At 1500 B all three pass line rate.
    fake_gnf.set(capacity_pps=1e6, capacity_scale="copy=2,persistent=2.5")
    _, folder = run_cli(fake_gnf, tmp_path, "staged-modes", "--quick", "--sizes", "64,1500")
    _, rj = check_report(str(folder))
    assert rj["headline"].startswith("highest NDR: 64 B copy ≈ persistent (1.860 Mpps), "
                                     "1500 B zero-copy ≈ copy ≈ persistent (0.822 Mpps, line rate);")


def test_staged_modes_without_a_gpu_measures_nothing_and_says_so(fake_gnf, tmp_path):
    fake_gnf.set(no_gpu=1)
    rc, folder = run_cli(fake_gnf, tmp_path, "staged-modes", "--quick")
    assert rc == 0
    md, rj = check_report(str(folder))
    assert rj["headline"] == "staged path not measured here (see Notes)" and "Path `staged` was skipped" in md
    assert len(fake_gnf.calls()) == 2  # the refused first trial, and the floor


def point_with(*brackets):
    """A Point whose searches (one per repetition) ended in these (NDR, lowest failing rate) brackets."""
    point = Point.__new__(Point)
    point.searches = [search.SearchResult(search.NDR, lo, hi, [], 0, True, 1.0) for lo, hi in brackets]
    return point


def test_a_mode_is_faster_only_where_the_brackets_do_not_overlap():
    # zero-copy's NDR is lower, but its bracket reaches copy's NDR: the search cannot tell them apart.
    modes = {"zero-copy": point_with((1.0e6, 1.5e6)), "copy": point_with((1.2e6, 1.4e6)),
             "persistent": point_with((0.8e6, 1.2e6))}
    assert fastest(modes) == (["zero-copy", "copy"], 1.2e6)
    # Line rate passed (no failing rate): only another that passed it ties.
    modes = {"copy": point_with((5e6, None)), "persistent": point_with((4.9e6, 5e6))}
    assert fastest(modes) == (["copy"], 5e6)
    # Medians over repetitions.
    modes = {"copy": point_with((2e6, 3e6), (1e6, 2e6), (2e6, 3e6)), "persistent": point_with((1e6, 2e6))}
    assert fastest(modes) == (["copy"], 2e6)
    assert fastest({"copy": point_with()}) == ([], None)  # not measured


def overload_call(argv):
    """Whether a call of the fake was an overload trial (Point's "-overloadPCT" labels name its JSON)."""
    return any(re.search(r"-overload\d+-rep", part) for part in argv)


def test_overload_trials_say_whether_a_point_keeps_its_ndr_and_loses_only_at_the_nic_input(fake_gnf, tmp_path):
    # Capacity 1 Mpps, NDR 0.930: offered 150 % (1.395 Mpps) and 300 % (2.790), 1 Mpps comes out
    # (108 % of the NDR), and the rest is lost at the NIC's rx buffer.
    fake_gnf.set(capacity_pps=1e6)
    args = ("matrix", "--quick", "--paths", "cpu", "--rings", "1", "--overload", "150,300")
    rc, folder = run_cli(fake_gnf, tmp_path / "input", *args)
    assert rc == 0
    md, _ = check_report(str(folder))
    row = rows_by(md, OVERLOAD, "size", "path", "rings")[("64 B", "cpu", "1")]
    assert (row["NDR Mpps"], row["150 %: Mpps"], row["150 %: % of NDR"], row["300 %: Mpps"]) == (
        "0.930", "1.000", "108", "1.000")
    assert row["150 %: loss at NIC input %"] == row["300 %: loss at NIC input %"] == "100"
    assert row["150 %: ≥ 90 % kept, loss at input"] == row["300 %: ≥ 90 % kept, loss at input"] == "yes"
    offered = sorted(float(c[c.index("--rate-pps") + 1]) for c in fake_gnf.calls() if overload_call(c))
    assert offered == pytest.approx([0.93006e6 * 1.5, 0.93006e6 * 3], abs=2), offered
    assert len(fake_gnf.calls()) == estimate(*args)

    # The same rates, lost in the rx rings: the bar is not met.
    fake_gnf.set(loss_at="rx_ring")
    rc, folder = run_cli(fake_gnf, tmp_path / "rings", *args)
    assert rc == 0
    row = rows_by(check_report(str(folder))[0], OVERLOAD, "size", "path", "rings")[("64 B", "cpu", "1")]
    assert row["300 %: loss at NIC input %"] == "0" and row["300 %: ≥ 90 % kept, loss at input"] == "no"


def test_overload_above_line_rate_is_offered_line_rate(fake_gnf, tmp_path):
    # 10 G, 64 B: line rate 14.881 Mpps. An NDR near 9 Mpps at 300 % would be 27 Mpps, which gnf bench
    # refuses ("above the line rate"): that point is offered line rate instead; 150 % stays 150 %.
    fake_gnf.set(capacity_pps=9e6)
    args = ("matrix", "--quick", "--paths", "cpu", "--rings", "1", "--overload", "150,300")
    rc, folder = run_cli(fake_gnf, tmp_path, *args)
    assert rc == 0
    ndr = float(rows_by(check_report(str(folder))[0], OVERLOAD, "size", "path", "rings")[("64 B", "cpu", "1")]["NDR Mpps"])
    offered = sorted(float(c[c.index("--rate-pps") + 1]) for c in fake_gnf.calls() if overload_call(c))
    assert offered == pytest.approx([ndr * 1.5e6, 14880952], rel=1e-3), offered


def test_quick_matrix_runs_no_overload_trials_unless_asked(quick_matrix):
    assert OVERLOAD not in tables(quick_matrix.md)
    assert not [c for c in quick_matrix.calls if overload_call(c)]


def test_the_cores_table_scales_each_paths_driver_busy_cores_to_line_rate(quick_matrix):
    rows = rows_by(quick_matrix.md, "CPU cores each path needs for 10 Gbit/s", "size", "rings", "path")
    assert set(rows) == {("64 B", str(r), p) for r in (1, 2) for p in ("cpu", "staged", "bypass")}
    for cells in rows.values():
        gbps, _ = searched_rate(cells["NDR Gbit/s L1"])
        busy = float(cells["driver busy cores"])
        assert float(cells["driver busy cores for 10 G"]) == pytest.approx(busy * 10 / gbps, abs=0.06)
