"""The `lookups` scenario through bench/run.py with fake_lookup_bench.py (known rates): its tables,
ratios, GPU rows and goal, figure, index line; a machine without a GPU or DPDK; a disagreement."""
import json
import os

import pytest

from gnfbench import cli
from gnfbench.report import FIDELITY
from gnfbench.scenarios import lookups
from reportcheck import tables


def run_lookups(fake, root, *args):
    """bench/run.py lookups ARGS with the fake; (exit code, run folder or None)."""
    out = root / "results"
    rc = cli.main(["lookups", "--lookup-bench", fake, "--out", str(out)] + list(args))
    folders = sorted(p for p in out.iterdir() if p.is_dir()) if out.exists() else []
    return rc, folders[-1] if folders else None


def test_a_run_reports_rates_ratios_gpu_memory_and_agreement(fake_lookup_bench, tmp_path):
    rc, folder = run_lookups(fake_lookup_bench, tmp_path, "--quick")
    assert rc == 0
    md = (folder / "report.md").read_text()
    for heading in ("## Environment", "## Method", "## Fidelity", "## Results", "## Trials"):
        assert heading in md
    assert FIDELITY in md and "1 run(s) of gnf-lookup-bench" in md
    t = tables(md)
    cpu = t["real, IPv4: %s, 512621 routes: Mlookups/s on one CPU core, best (median) of 5" % lookups.route_file(
        "ipv4", None)]
    assert cpu[0] == ["implementation", "uniform", "routed", "working-set"]
    assert cpu[1][0] == "gnf lpm4_lookup, 1 per call" and cpu[1][1].startswith("100.0 (")
    ratios = {r[1]: r[2:] for r in t["real: gnf's lookups/s over DPDK's, same calls, same core: best/best "
                                    "(median/median)"][1:]}
    assert ratios["gnf lpm4_lookup, 1 per call / rte_lpm_lookup, 1 per call"][0] == "1.25 (1.25)"
    assert ratios["gnf lpm4_lookup, 64 per call / rte_fib_lookup_bulk, 64 per call"][1] == "1.25 (1.25)"
    assert ratios["gnf lpm6_lookup, 32 per call / rte_fib6_lookup_bulk, 32 per call"][2] == "1.25 (1.25)"
    assert not any("x4" in k for k in ratios)  # no gnf call of 4 to compare with
    gpu = [k for k in t if "Glookups/s on the GPU" in k and "IPv4" in k]
    assert gpu and t[gpu[0]][1][:3] == ["gnf lpm4_lookup kernel, write results, 128 threads/block", "8192",
                                        "6.0 (5.9)"]
    memory = t["real: table memory and build time"]
    assert memory[1][:4] == ["ipv4", "gnf lpm4", "1.00", "128.0"] and memory[1][-1] == "128.0"
    assert all(r[-1] == "yes" for r in t["real: every implementation's answers agree before anything is timed"][1:])
    assert "tbl24 pages that hold no route: gnf lpm4 30.0 %, rte_lpm 30.0 %, gnf lpm6 30.0 %" in md
    assert (folder / "lookups_real.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rj = json.loads((folder / "report.json").read_text())
    assert rj["runs"][0]["label"] == "real" and rj["runs"][0]["json"] == "runs/real.json"
    assert "GPU 6.00 G/s (goal ≥ 5 G/s: met)" in rj["headline"] and "rte_fib 160 M/s" in rj["headline"]
    index = (tmp_path / "results" / "RESULTS.md").read_text()
    assert "| lookups | [%s](%s/report.md) | fakehost | Fake GPU |" % (folder.name, folder.name) in index


def test_each_table_kind_is_one_run_with_its_tables(fake_lookup_bench, tmp_path, monkeypatch):
    log = tmp_path / "argv.log"
    monkeypatch.setenv("FAKE_LOOKUP_LOG", str(log))
    rc, _ = run_lookups(fake_lookup_bench, tmp_path, "--tables", "real,synthetic", "--routes4", "/x/v4.gz",
                        "--repetitions", "7", "--trial-s", "0.3", "--core", "3", "--count", "1000")
    assert rc == 0
    real, synthetic = [json.loads(line) for line in log.read_text().splitlines()]
    assert real[real.index("--ipv4") + 1] == "/x/v4.gz" and real[real.index("--ipv6") + 1].endswith("ipasn6_20151101.dat.gz")
    assert synthetic[synthetic.index("--ipv4") + 1] == "synthetic:1M"
    assert synthetic[synthetic.index("--ipv6") + 1] == "synthetic:220k"
    for argv in (real, synthetic):
        assert [argv[argv.index(f) + 1] for f in ("--repetitions", "--min-repetition-s", "--core", "--count")] == [
            "7", "0.3", "3", "1000"]


def test_without_a_gpu_there_are_no_gpu_rows_and_the_report_says_so(fake_lookup_bench, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_LOOKUP_NO_GPU", "1")
    rc, folder = run_lookups(fake_lookup_bench, tmp_path, "--quick")
    assert rc == 0
    md = (folder / "report.md").read_text()
    assert not any("on the GPU" in k for k in tables(md))
    assert "GPU not measured" in md and "GPU part not run: no usable CUDA device here" in md


def test_where_dpdk_cannot_start_the_run_is_noted_not_failed(fake_lookup_bench, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_LOOKUP_EXIT", "77")
    rc, folder = run_lookups(fake_lookup_bench, tmp_path, "--quick")
    assert rc == 0
    md = (folder / "report.md").read_text()
    assert "not measured here: The real tables were not measured: gnf-lookup-bench: SKIP: DPDK's EAL" in md


def test_implementations_that_disagree_stop_the_run_without_a_report(fake_lookup_bench, tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.setenv("FAKE_LOOKUP_EXIT", "3")
    rc, folder = run_lookups(fake_lookup_bench, tmp_path, "--quick")
    assert rc == 3 and not (folder / "report.md").exists()
    assert "answers differ between implementations" in capsys.readouterr().err


def test_a_missing_lookup_bench_is_reported_before_any_folder_is_made(tmp_path, capsys):
    assert cli.main(["lookups", "--lookup-bench", str(tmp_path / "none"), "--out", str(tmp_path / "r")]) == 2
    assert "no gnf-lookup-bench binary" in capsys.readouterr().err and not (tmp_path / "r").exists()


def test_a_document_without_what_the_report_reads_is_refused(fake_lookup_bench, tmp_path):
    path = tmp_path / "doc.json"
    os.system("%s --sets routed --json %s >/dev/null" % (fake_lookup_bench, path))
    doc = json.loads(path.read_text())
    lookups.check_doc(doc)
    del doc["measurements"][0]["lookups_per_s_median"]
    with pytest.raises(ValueError, match="measurements\\[\\] has no 'lookups_per_s_median'"):
        lookups.check_doc(doc)
