"""The nids scenario with the fake gnf: every path and size searched on configs/nids-bench.toml with
latency at low load, the cores at the NDR, gnf-nids-bench's figures beside them (GPU over Hyperscan,
the automaton's memory and build time, what is missing said so), the nids counters' note; and the
config and rule set themselves: an NDR config whose contents the generator's payload never holds."""
import json
import os
import re
import tomllib

from gnfbench import cli, rates
from reportcheck import check_report, searched_rate, tables

from test_scenarios import run_cli

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHAIN = "The nids chain: NDR, its cost and latency at low load, per size and path"
CORES = "The cores the nids chain spends at its NDR"
MATCHING = ("Matching alone: Gbit/s on the GPU (Fake H100) beside Hyperscan on 1 and 16 cores, per pattern count and "
            "payload size")
AUTOMATON = "The automaton's memory and build time per rule-set size"
CPU_1500 = ["--paths", "cpu", "--sizes", "1500", "--speed", "10", "--resolution", "2%"]


def rows_by(table, keys):
    return {tuple(r[k] for k in keys): dict(zip(table[0], r)) for r in table[1:]}


def nids_json(tmp_path, **top):
    def row(patterns, size, thread, warp, one, all_cores, **more):
        rates_gbps = {"gpu_thread_per_packet": thread, "gpu_warp_per_packet": warp, "hyperscan_1_core": one,
                      "hyperscan_all_cores": all_cores}
        return dict({"patterns": patterns, "size": size, "pattern_source": "generated",
                     "automaton_bytes": 24 * (1 << 20), "automaton_states": 30000, "hyperscan_build_ms": 49.5},
                    **{key: {"gbps": value, "mpps": 1} for key, value in rates_gbps.items()}, **more)
    doc = dict({"tool": "gnf-nids-bench", "gpu": "Fake H100", "cpu_threads": 16, "gpu_skipped": "", "results": [
        row(2000, "1500", 939.0, 882.0, 6.6, 105.0, build_ms=50.4),
        row(2000, "64", 300.0, 386.0, 3.0, 47.0, build_ms=50.4)]}, **top)
    path = tmp_path / "nids.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_every_path_and_size_is_searched_on_the_bench_config_with_latency_at_low_load(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=3e5)
    rc, folder = run_cli(fake_gnf, tmp_path, "nids", "--quick", *CPU_1500, "--sizes", "64,1500")
    assert rc == 0
    md, rj = check_report(str(folder))
    rows = rows_by(tables(md)[CHAIN], (0, 1))
    resolution = 0.02 * rates.line_rate_pps(10, 64)
    ndr = searched_rate(rows[("64 B", "cpu")]["NDR Mpps"])[0] * 1e6
    assert 3e5 - resolution <= ndr <= 3e5
    assert rows[("1500 B", "cpu")]["low-load p50 µs"] != "–"
    configs = {os.path.basename(argv[argv.index("--config") + 1]) for argv in fake_gnf.calls()}
    assert configs == {"nids-bench.toml"}
    # The burst and rings come from the config, not the command line.
    assert not [a for a in fake_gnf.calls() if "--burst" in a or "--rx-ring" in a]
    assert [a for a in fake_gnf.calls() if "--load" in a and "--calibrate" not in a]
    assert rj["headline"].startswith("nids chain NDR at 1500 B: cpu ")
    assert "matching" not in rj["headline"]


def test_the_cores_table_scales_the_busy_cores_and_the_matcher_tables_put_the_gpu_beside_hyperscan(
        fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=3e5)
    rc, folder = run_cli(fake_gnf, tmp_path, "nids", "--quick", *CPU_1500, "--nids-json", nids_json(tmp_path))
    assert rc == 0
    md, rj = check_report(str(folder))
    cores = rows_by(tables(md)[CORES], (0, 1))[("1500 B", "cpu")]
    gbps, busy = searched_rate(cores["NDR Gbit/s L1"])[0], float(cores["driver busy cores"])
    assert abs(float(cores["driver busy cores for 200 G"]) - busy * 200 / gbps) <= 0.1 + 0.05 * busy * 200 / gbps
    matching = rows_by(tables(md)[MATCHING], (0, 1))
    # The faster GPU shape over Hyperscan on all cores: 939 / 105 at 1500 B, the warp's 386 / 47 at 64 B.
    assert matching[("2000", "1500 B")]["GPU / Hyperscan 16 cores"] == "8.9× (GPU thread/packet)"
    assert matching[("2000", "64 B")]["GPU / Hyperscan 16 cores"] == "8.2× (GPU warp/packet)"
    assert (matching[("2000", "1500 B")]["Hyperscan 1 core Gbit/s"], matching[("2000", "1500 B")]
            ["Hyperscan 16 cores Gbit/s"]) == ("6.6", "105.0")
    assert tables(md)[AUTOMATON][1:] == [["2000", "generated", "30000", "24.0", "50.4", "49.5"]]
    assert "no build time" not in md
    assert rj["headline"].endswith("; matching 2000 patterns at 1500 B: GPU 939.0 Gbit/s (GPU thread/packet), "
                                   "8.9× Hyperscan on 16 cores")
    assert "matching_gbps.png" in md


def test_a_matcher_json_without_build_time_or_gpu_says_so(fake_gnf, tmp_path):
    doc = json.loads(open(nids_json(tmp_path)).read())
    for row in doc["results"]:
        del row["build_ms"], row["gpu_thread_per_packet"], row["gpu_warp_per_packet"]
    path = tmp_path / "hyperscan-only.json"
    path.write_text(json.dumps(dict(doc, gpu_skipped="no CUDA device")))
    fake_gnf.set(capacity_pps=3e5)
    rc, folder = run_cli(fake_gnf, tmp_path, "nids", "--quick", *CPU_1500, "--nids-json", str(path))
    assert rc == 0
    md, _ = check_report(str(folder))
    row = rows_by(tables(md)[MATCHING], (0, 1))[("2000", "1500 B")]
    assert (row["GPU thread/packet Gbit/s"], row["GPU / Hyperscan 16 cores"]) == ("–", "–")
    assert tables(md)[AUTOMATON][1][4] == "–"
    assert "gnf-nids-bench's JSON has no build time" in md
    assert "gnf-nids-bench measured Hyperscan alone: \"no CUDA device\"" in md


def test_nids_counters_beyond_clean_packets_are_noted(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=3e5, nids_alerted=5)
    rc, folder = run_cli(fake_gnf, tmp_path, "nids", "--quick", *CPU_1500)
    assert rc == 0
    text = (folder / "report.md").read_text()
    assert "alerted in " in text and "alerts in " in text and "clean in " not in text


def test_nids_options_are_defaulted():
    _, quick = cli.resolve(["nids", "--quick"])
    assert (quick.paths, quick.sizes, quick.speed, quick.load, quick.nids_json) == (
        ["cpu", "staged", "bypass"], [1500], 200, 1, None)
    _, full = cli.resolve(["nids", "--nids-json", "x.json"])
    assert (full.sizes, full.nids_json) == ([64, 512, 1500, "imix"], "x.json")


def test_the_bench_config_is_an_ndr_config_with_nf_blocks_for_bypass():
    with open(os.path.join(REPO, "configs", "nids-bench.toml"), "rb") as f:
        config = tomllib.load(f)
    assert config["driver"] == {"drop_en": True, "tx_full": "drop", "burst": 256, "rx_ring": 1024, "tx_ring": 1024,
                                "nf_blocks": 3}
    assert [p["flow_control"] for p in config["port"]] == [False, False]
    assert [nf["type"] for nf in config["nf"]] == ["nids", "l2fwd"]
    assert "source" not in config["port"][0]  # `gnf bench`'s generator feeds it


def rule_contents(path):
    """(bytes, nocase) of every content of a rule file (content:"text |hex| text"; nocase;)."""
    contents = []
    with open(path) as f:
        for line in f:
            for text, modifiers in re.findall(r'content:"((?:[^"\\]|\\.)*)";((?:\s*(?!content:)[a-z_]+(?::[^;]*)?;)*)',
                                              line):
                data = b"".join(bytes.fromhex(part) if i % 2 else part.encode()
                                for i, part in enumerate(text.split("|")))
                contents.append((data, "nocase;" in modifiers))
    return contents


def test_no_content_of_the_bench_rules_occurs_in_the_generators_payload():
    contents = rule_contents(os.path.join(REPO, "configs", "nids-bench.rules"))
    assert len(contents) >= 2000 and len(set(contents)) >= 2000  # the benchmark set

    def fold(data):
        return bytes(b + 32 if 65 <= b <= 90 else b for b in data)
    # wire/generator_plan.cpp: behind the stamp (its magic "nf" last; "ng" and 8 bytes once departed
    # on bypass) each byte is its frame offset mod 256; IPv4 payloads start at 42, IPv6 at 62.
    payloads = [magic + bytes(i & 0xFF for i in range(start, 1514)) for magic, start in
                ((b"nf", 60), (b"", 68), (b"nf", 80), (b"", 88))]
    for data, nocase in contents:
        for payload in payloads:
            assert (fold(data) not in fold(payload)) if nocase else (data not in payload), (data, nocase)
