#!/usr/bin/env python3
"""A stand-in for gnf-lookup-bench (bench/lookup/) with known rates: it writes the JSON the real one
writes (bench/lookup/README.md), for the `lookups` scenario's tests, in no time and without DPDK.

Rates, lookups/s: gnf FAKE_LOOKUP_GNF_RATE (default 100e6) per call of one address, twice that in
batches; DPDK's at 80 % of gnf's; the GPU's write kernel 6e9, the sum kernel 8e9 (IPv6: half).
Knobs (environment): FAKE_LOOKUP_EXIT=77 (EAL did not start) or 3 (answers disagree), FAKE_LOOKUP_NO_GPU=1,
FAKE_LOOKUP_LOG=FILE (appends each argv as a JSON line)."""
import argparse
import json
import os
import sys


def measurement(family, device, implementation, library, variant, batch, address_set, rate, repetitions, detail=None):
    lookups = 1 << 24
    seconds = [lookups / rate * (1 + 0.01 * r) for r in range(repetitions)]
    median = sorted(seconds)[len(seconds) // 2]
    name = ("gnf " if library == "gnf" else "") + implementation
    if device == "gpu":
        label = "%s kernel, %s results, %d threads/block" % (name, variant, batch)
    elif variant == "x4":
        label = name + ", 4 per call (SSE)"
    else:
        label = "%s, %d per call" % (name, batch) if batch else name + ", 1 per call"
    return {"family": family, "device": device, "implementation": implementation, "library": library,
            "variant": variant, "batch": batch, "address_set": address_set, "label": label, "lookups": lookups,
            "seconds": seconds, "seconds_best": seconds[0], "seconds_median": median,
            "lookups_per_s_best": lookups / seconds[0], "lookups_per_s_median": lookups / median,
            "ns_per_lookup_best": seconds[0] * 1e9 / lookups, "ns_per_lookup_median": median * 1e9 / lookups,
            "detail": detail or {"passes": 1}}


def cpu_lookups(family):
    """(implementation, library, variant, batch, share of gnf's rate) as the real binary measures them."""
    if family == "ipv4":
        return [("lpm4_lookup", "gnf", "scalar", 0, 1.0), ("lpm4_lookup", "gnf", "batch", 32, 2.0),
                ("lpm4_lookup", "gnf", "batch", 64, 2.0), ("rte_lpm_lookup", "dpdk", "scalar", 0, 0.8),
                ("rte_lpm_lookup_bulk", "dpdk", "batch", 32, 1.6), ("rte_lpm_lookup_bulk", "dpdk", "batch", 64, 1.6),
                ("rte_lpm_lookupx4", "dpdk", "x4", 4, 1.6), ("rte_fib_lookup_bulk", "dpdk", "batch", 32, 1.6),
                ("rte_fib_lookup_bulk", "dpdk", "batch", 64, 1.6)]
    return [("lpm6_lookup", "gnf", "scalar", 0, 1.0), ("lpm6_lookup", "gnf", "batch", 32, 2.0),
            ("lpm6_lookup", "gnf", "batch", 64, 2.0), ("rte_fib6_lookup_bulk", "dpdk", "batch", 32, 1.6),
            ("rte_fib6_lookup_bulk", "dpdk", "batch", 64, 1.6)]


def table_costs(family):
    gnf = {"implementation": "gnf lpm%s" % family[-1], "build_s": 1.0, "allocated_bytes": 128 << 20,
           "lookup_bytes": 66 << 20, "rss_delta_bytes": 64 << 20, "tbl24_pages_written": 0.7,
           "dpdk_heap_bytes": 0, "detail": "fake"}
    if os.environ.get("FAKE_LOOKUP_NO_GPU") != "1":
        gnf["device_bytes"] = 128 << 20
    dpdk = [{"implementation": "rte_lpm", "build_s": 50.0, "allocated_bytes": 132 << 20, "lookup_bytes": 66 << 20,
             "rss_delta_bytes": 52 << 20, "tbl24_pages_written": 0.7, "dpdk_heap_bytes": 132 << 20, "detail": "fake"},
            {"implementation": "rte_fib (DIR24_8, 4 B)", "build_s": 0.4, "allocated_bytes": 327 << 20,
             "lookup_bytes": None, "rss_delta_bytes": 265 << 20, "dpdk_heap_bytes": 327 << 20, "detail": "fake"}]
    if family == "ipv6":
        dpdk = [{"implementation": "rte_fib6 (TRIE, 4 B)", "build_s": 0.5, "allocated_bytes": 150 << 20,
                 "lookup_bytes": None, "rss_delta_bytes": 110 << 20, "dpdk_heap_bytes": 150 << 20, "detail": "fake"}]
    return [gnf] + dpdk


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ipv4", default="ipasn_20140513.dat.gz")
    p.add_argument("--ipv6", default="ipasn6_20151101.dat.gz")
    p.add_argument("--sets", default="uniform,routed,working-set")
    p.add_argument("--count", type=int, default=1 << 24)
    p.add_argument("--repetitions", type=int, default=5)
    p.add_argument("--min-repetition-s", type=float, default=0.2)
    p.add_argument("--core", type=int, default=1)
    p.add_argument("--json")
    args = p.parse_args()
    if os.environ.get("FAKE_LOOKUP_LOG"):
        with open(os.environ["FAKE_LOOKUP_LOG"], "a") as f:
            f.write(json.dumps(sys.argv[1:]) + "\n")
    code = int(os.environ.get("FAKE_LOOKUP_EXIT", "0"))
    if code == 77:
        print("gnf-lookup-bench: SKIP: DPDK's EAL did not initialise: Permission denied")
        return 77
    gpu = os.environ.get("FAKE_LOOKUP_NO_GPU") != "1"
    sets = args.sets.split(",")
    gnf_rate = float(os.environ.get("FAKE_LOOKUP_GNF_RATE", "100e6"))
    doc = {"kind": "gnf-lookup-bench", "schema": 1, "gnf_version": "0.1.0",
           "environment": {"hostname": "fakehost", "cpu_model": "Fake CPU", "cpu_cores": 2, "kernel": "Linux fake",
                           "gpu": {"name": "Fake GPU", "driver": "1", "cuda_driver": 13000, "cuda_runtime": 13000,
                                   "memory_total_mib": 81559} if gpu else None,
                           "build": {"type": "RelWithDebInfo", "cuda": True}},
           "options": {"ipv4": args.ipv4, "ipv6": args.ipv6, "address_sets": sets, "count": args.count,
                       "working_set": 65536, "batches": [32, 64], "core": args.core,
                       "repetitions": args.repetitions, "min_repetition_s": args.min_repetition_s, "seed": 2026,
                       "rte_lpm_limit_s": 120, "gpu": gpu, "gpu_lookups": 1 << 28, "block_sizes": [128, 256]},
           "cpu": {"core": args.core, "pinned": "fake", "variants": {"scalar": "one", "batch": "many"},
                   "timing": "fake", "load_average_start": [0.1, 0.2, 0.3], "load_average_end": [0.1, 0.2, 0.3]},
           "gpu": {"name": "Fake GPU", "kernels": "fake", "tables": "fake"} if gpu else None,
           "tables": {}, "address_sets": [], "verification": [], "measurements": [],
           "notes": [] if gpu else ["GPU part not run: no usable CUDA device here"]}
    for family, spec in (("ipv4", args.ipv4), ("ipv6", args.ipv6)):
        if spec == "none":
            continue
        scale = 1.0 if family == "ipv4" else 0.5
        doc["tables"][family] = {"source": spec, "routes": 512621 if family == "ipv4" else 27700,
                                 "tbl8_capacity": 65536, "implementations": table_costs(family)}
        for s in sets:
            doc["address_sets"].append({"family": family, "name": s, "addresses": args.count,
                                        "distinct": args.count})
            lookups = cpu_lookups(family)
            doc["verification"].append({"family": family, "address_set": s, "addresses": args.count,
                                        "routed": args.count // 2, "implementations": [l[0] for l in lookups],
                                        "mismatches": 0, "agree": code != 3})
            if code == 3:
                print("gnf-lookup-bench: %s %s: 7 answers differ between implementations" % (family, s),
                      file=sys.stderr)
                json.dump(doc, open(args.json, "w"))
                return 3
            for impl, lib, variant, batch, share in lookups:
                doc["measurements"].append(measurement(family, "cpu", impl, lib, variant, batch, s,
                                                       gnf_rate * share * scale, args.repetitions))
            for variant, rate in (("write", 6e9), ("sum", 8e9)) if gpu else ():
                for block in (128, 256):
                    doc["measurements"].append(measurement(
                        family, "gpu", "lpm%s_lookup" % family[-1], "gnf", variant, block, s, rate * scale,
                        args.repetitions, {"grid": args.count // block, "block": block, "launches": 16}))
    with open(args.json, "w") as f:
        json.dump(doc, f)
    print("fake gnf-lookup-bench: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
