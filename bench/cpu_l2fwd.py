#!/usr/bin/env python3
"""l2fwd at 64 B through softnic + the cpu path: Mpps, and Mpps per busy driver core.

Runs `gnf run` with the generator offering 64 B frames at 100 GbE line rate (148.8 Mpps, far
above what one core forwards), for a fixed frame count, several times, and writes every run's
JSON plus a summary (summary.json, summary.md) into bench/results/<date>-cpu-l2fwd-<host>/.

What the numbers mean:
- forwarded_mpps: frames out of the port per wall second. On the cpu path the NIC model thread
  (wire in, RSS, DMA, wire out) usually saturates first: it is reported separately.
- driver_mpps_per_busy_core: packets the driver handled per second of driver-thread time spent in
  rounds that moved packets (poll-mode threads spin, so their CPU time is the wall time).
Usage: bench/cpu_l2fwd.py [--gnf build/gnf] [--runs 3] [--count 5000000] [--queues 1] [--nic-threads 1]
"""
import argparse
import datetime
import json
import os
import platform
import socket
import statistics
import subprocess
import sys

def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()

def one_run(gnf, count, queues, nic_threads, out_json):
    cmd = [gnf, "run", "--gen", "--size", "64", "--speed", "100", "--queues", str(queues), "--flows", "64",
           "--count", str(count), "--nic-threads", str(nic_threads), "--json", out_json, "--quiet"]
    subprocess.run(cmd, check=True, timeout=600)
    j = json.load(open(out_json))
    port = j["ports"][0]
    drivers = [t for t in j["threads"] if t["role"] == "driver"]
    nics = [t for t in j["threads"] if t["role"] == "nic"]
    driver_busy = sum(t["busy_s"] for t in drivers)
    nic_busy = sum(t["busy_s"] for t in nics)
    return {
        "command": " ".join(cmd),
        "duration_s": j["duration_s"],
        "offered_frames": j["generated"]["frames"],
        "forwarded_frames": port["tx_packets"],
        "forwarded_mpps": port["tx_pps"] / 1e6,
        "loss_ratio": j["generated"]["loss_ratio"],
        "drops": port["drops"],
        "driver_threads": len(drivers),
        "driver_mpps_per_busy_core": j["driver"]["rx_packets"] / driver_busy / 1e6 if driver_busy else None,
        "nic_model_mpps_per_busy_core": port["rx_packets"] / nic_busy / 1e6 if nic_busy else None,
        "balanced": j["accounting"]["balanced"],
    }

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gnf", default="build/gnf")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--count", type=int, default=5_000_000)
    ap.add_argument("--queues", type=int, default=1)
    ap.add_argument("--nic-threads", type=int, default=1)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    host = socket.gethostname().split(".")[0]
    out = a.out or os.path.join("bench", "results", f"{datetime.date.today()}-cpu-l2fwd-{host}")
    os.makedirs(out, exist_ok=True)
    runs = [one_run(a.gnf, a.count, a.queues, a.nic_threads, os.path.join(out, f"run{i}.json")) for i in range(a.runs)]
    def med(key):
        return statistics.median(r[key] for r in runs)
    summary = {
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "kernel": platform.release(), "host": host},
        "method": "gnf run --gen, 64 B frames offered at 100 GbE line rate, l2fwd reflect, cpu path; median of runs",
        "fidelity": "softnic models the NIC in software: on the cpu path its DMA is a memcpy in host memory, "
                    "which favours the CPU baseline over paths whose memory sits behind PCIe",
        "runs": runs,
        "median": {k: med(k) for k in ["forwarded_mpps", "driver_mpps_per_busy_core", "nic_model_mpps_per_busy_core"]},
    }
    json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=2)
    m = summary["median"]
    lines = [
        f"# l2fwd 64 B, cpu path — {summary['machine']['cpu']}, {summary['machine']['cores']} cores",
        "",
        f"Command: `{runs[0]['command']}` ({a.runs} runs, median).",
        "",
        "| metric | median | runs |",
        "|---|---|---|",
    ]
    for k in ["forwarded_mpps", "driver_mpps_per_busy_core", "nic_model_mpps_per_busy_core"]:
        lines.append(f"| {k} | {m[k]:.2f} | {', '.join(f'{r[k]:.2f}' for r in runs)} |")
    lines += ["", summary["fidelity"] + ".", ""]
    open(os.path.join(out, "summary.md"), "w").write("\n".join(lines))
    print("\n".join(lines))
    print(f"results in {out}")
    return 0 if all(r["balanced"] for r in runs) else 1

if __name__ == "__main__":
    sys.exit(main())
