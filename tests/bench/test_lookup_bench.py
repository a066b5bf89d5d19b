"""The real gnf-lookup-bench on small synthetic tables, a few seconds (CTest `lookup_bench`, label
bench): every implementation is measured on every address set, all of them agreed before any was
timed, and the JSON holds what the `lookups` scenario reads. Skips where the binary is not built
(no libdpdk) or DPDK's EAL cannot start.

Needs --lookup-bench=PATH or GNF_LOOKUP_BENCH (default <repo>/build/bench/lookup/gnf-lookup-bench)."""
import json
import subprocess

import pytest

from gnfbench.scenarios.lookups import check_doc

SETS = ["uniform", "routed", "working-set"]
CPU_IMPLEMENTATIONS = {
    "ipv4": {("lpm4_lookup", "scalar", 0), ("lpm4_lookup", "batch", 32), ("lpm4_lookup", "batch", 64),
             ("rte_lpm_lookup", "scalar", 0), ("rte_lpm_lookup_bulk", "batch", 32),
             ("rte_lpm_lookup_bulk", "batch", 64), ("rte_lpm_lookupx4", "x4", 4),
             ("rte_fib_lookup_bulk", "batch", 32), ("rte_fib_lookup_bulk", "batch", 64)},
    "ipv6": {("lpm6_lookup", "scalar", 0), ("lpm6_lookup", "batch", 32), ("lpm6_lookup", "batch", 64),
             ("rte_fib6_lookup_bulk", "batch", 32), ("rte_fib6_lookup_bulk", "batch", 64)},
}


def run(binary, *args):
    proc = subprocess.run([binary] + list(args), capture_output=True, text=True, timeout=240)
    if proc.returncode == 77:
        pytest.skip(proc.stdout.strip())
    return proc


def test_every_implementation_is_measured_on_every_set_after_all_agreed(real_lookup_bench, tmp_path):
    out = tmp_path / "lookups.json"
    proc = run(real_lookup_bench, "--ipv4", "synthetic:20k", "--ipv6", "synthetic:20k", "--count", "100000",
               "--working-set", "4096", "--repetitions", "5", "--min-repetition-s", "0.01", "--json", str(out))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    check_doc(doc)
    assert [(v["family"], v["address_set"]) for v in doc["verification"] if "against" not in v] == [
        (f, s) for f in ("ipv4", "ipv6") for s in SETS]
    assert all(v["agree"] and v["mismatches"] == 0 for v in doc["verification"])
    routed = {(v["family"], v["address_set"]): v["routed"] for v in doc["verification"] if "routed" in v}
    assert routed[("ipv4", "routed")] == routed[("ipv6", "routed")] == 100000  # every lookup finds a route
    for family, expected in CPU_IMPLEMENTATIONS.items():
        for s in SETS:
            measured = [m for m in doc["measurements"] if (m["family"], m["address_set"], m["device"]) ==
                        (family, s, "cpu")]
            found = {(m["implementation"], m["variant"], m["batch"]) for m in measured}
            # AVX-512 variants come on top where the CPU has AVX-512.
            assert expected <= found and all("avx512" in f[0] for f in found - expected), (family, s, found)
            for m in measured:
                assert len(m["seconds"]) == 5 and m["lookups"] >= 100000 and m["lookups_per_s_best"] > 0
    assert doc["tables"]["ipv4"]["routes"] == 20000 and doc["tables"]["ipv4"]["implementations"][0]["tbl8_groups"] > 0
    assert "synthetic:20k" in proc.stdout or "20000 routes" in proc.stdout  # the human-readable table


@pytest.mark.parametrize("args, message", [
    (["--ipv4", "none", "--ipv6", "none"], "nothing to measure"),
    (["--ipv4", "synthetic:lots", "--ipv6", "none"], "want synthetic:N"),
    (["--ipv4", "synthetic:100", "--ipv6", "none", "--sets", "everything"], "unknown address set")])
def test_bad_flags_exit_1_with_a_message(real_lookup_bench, args, message):
    proc = run(real_lookup_bench, "--count", "10", "--no-gpu", *args)
    assert proc.returncode == 1 and message in proc.stderr
