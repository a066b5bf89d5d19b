#!/usr/bin/env python3
"""A stand-in for `gnf bench` (bench/SCHEMA.md) with a known capacity, for the harness's tests.

It parses exactly the flags SCHEMA.md lists (anything else is an error, as in the real binary),
and writes schema-valid JSON at once (no waiting) whose numbers follow simple rules:
- forwarded rate = min(offered, capacity), capacity = $FAKE_GNF_CAPACITY_PPS (default 1e6) per
  queue, unlimited with --calibrate, times $FAKE_GNF_CAPACITY_SCALE's factors for the path and the
  staged mode ("bypass=4,staged=2,copy=0.5": staged in copy mode has 1x); loss = the rest, all at
  the NIC's rx buffer, or at $FAKE_GNF_LOSS_AT (e.g. rx_ring);
- the NIC model takes (offered - $FAKE_GNF_LATE_ABOVE_PPS) x duration frames off the wire late
  when that is positive (`result.nic_model.late_frames`; never, by default), losing none of them;
- the NIC-model thread is busy half the trial, or 95 % of it when offered > $FAKE_GNF_NIC_BUSY_ABOVE_PPS
  (never, by default); `result.model_bound` follows SCHEMA.md's rule (busy >= 0.9 or late frames);
- latency: 100 values base + k * step, base = 2048 ns (calibrate) or 5120 ns (+ 50176 ns when
  overloaded), step = 128 ns x tail batch; reordering 1 % per extra queue on bypass without
  --tx-writeback-fc.
- `result.host_load`: a machine that gave the poll-mode threads their cores, or with
  $FAKE_GNF_HOST_LOADED=1 one that gave them half (loaded).
- the summary (whole trial, warm-up included): the frames generated, those delivered to port 1's
  sink, stamped or (FAKE_GNF_UNSTAMPED=TEXT, for trials whose --config contains TEXT: the ipsec
  gateway's ESP) not, when result.received is 0 and every window frame lost to the stamps; with
  FAKE_GNF_IPSEC_DROP=N an ipsec element whose drop_replayed counter is N; and, for a --config that
  names nids, a nids element whose packets are clean but FAKE_GNF_NIDS_ALERTED (default 0).
Environment: FAKE_GNF_NO_GPU=1 refuses staged/bypass like a machine without a GPU;
FAKE_GNF_REFUSE=FLAG refuses a flag (e.g. one-way) as "not supported yet"; FAKE_GNF_EXIT=N exits N
after writing nothing; FAKE_GNF_BAD_SCHEMA=1 drops result.loss; FAKE_GNF_LOG=FILE appends each argv.
Its arithmetic is written out here on purpose, not imported from the harness under test.
"""
import argparse
import json
import math
import os
import sys

IMIX = ((64, 7), (594, 4), (1518, 1))


def parse(argv):
    p = argparse.ArgumentParser(prog="gnf")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bench")
    b.add_argument("--config")
    b.add_argument("--path", choices=["cpu", "staged", "bypass"], default="cpu")
    b.add_argument("--calibrate", action="store_true")
    b.add_argument("--ports", type=int, choices=[1, 2], default=2)
    b.add_argument("--speed", type=float, choices=[10, 25, 40, 100, 200, 400], default=100)
    b.add_argument("--queues", type=int, default=1)
    b.add_argument("--size", type=int, nargs="+")
    b.add_argument("--imix", action="store_true")
    b.add_argument("--flows", type=int, default=64)
    b.add_argument("--ip", type=int, choices=[4, 6], default=4)
    rate = b.add_mutually_exclusive_group()
    rate.add_argument("--load", type=float)
    rate.add_argument("--rate-pps", type=float)
    rate.add_argument("--rate-gbps", type=float)
    b.add_argument("--warmup", type=float, default=0.5)
    b.add_argument("--duration", type=float, default=2.0)
    for flag in ("--burst", "--rx-ring", "--tx-ring", "--nic-threads", "--driver-threads"):
        b.add_argument(flag, type=int)
    b.add_argument("--rx-tail-batch", type=int, default=1)
    b.add_argument("--tx-tail-batch", type=int, default=1)
    b.add_argument("--tail-timeout-ns", type=int, default=2500)
    b.add_argument("--tx-completion", choices=["auto", "writeback", "head", "head-writeback", "none"], default="auto")
    b.add_argument("--tx-full", choices=["drop", "wait"], default="drop")
    b.add_argument("--no-drop-en", action="store_true")
    b.add_argument("--staged-mode", choices=["zero-copy", "copy", "persistent"])
    b.add_argument("--staged-depth", type=int)
    b.add_argument("--nf-blocks", type=int, default=0)
    b.add_argument("--tx-writeback-fc", action="store_true")
    b.add_argument("--one-way", choices=["rx", "tx"])
    b.add_argument("--json", required=True)
    b.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def fail(message):
    sys.stderr.write("gnf: error: %s\n" % message)
    sys.exit(1)


def main():
    if os.environ.get("FAKE_GNF_LOG"):
        with open(os.environ["FAKE_GNF_LOG"], "a") as log:
            log.write(json.dumps(sys.argv[1:]) + "\n")
    a = parse(sys.argv[1:])
    if os.environ.get("FAKE_GNF_EXIT"):
        sys.stderr.write("gnf: internal error: packet counters do not add up\n")
        sys.exit(int(os.environ["FAKE_GNF_EXIT"]))
    path = "calibrate" if a.calibrate else a.path
    if path in ("staged", "bypass") and os.environ.get("FAKE_GNF_NO_GPU"):
        fail("<command line>: path '%s' needs a CUDA GPU, and none is usable here" % path)
    refused = os.environ.get("FAKE_GNF_REFUSE")
    if refused and getattr(a, refused.replace("-", "_"), None):
        fail("--%s is not supported yet" % refused)

    sizes = [s for s, _ in IMIX] if a.imix else (a.size or [64])
    weights = [n for _, n in IMIX] if a.imix else [1] * len(sizes)
    mean_size = sum(s * w for s, w in zip(sizes, weights)) / sum(weights)
    line_pps = a.speed * 1e9 / 8 / (mean_size + 20)
    if a.rate_pps is not None:
        offered = a.rate_pps
    elif a.rate_gbps is not None:
        offered = a.rate_gbps * 1e9 / 8 / (mean_size + 20)
    else:
        offered = line_pps * (100.0 if a.load is None else a.load) / 100
    scale = dict((k, float(v)) for k, v in (item.split("=") for item in
                                           os.environ.get("FAKE_GNF_CAPACITY_SCALE", "").split(",") if item))
    capacity = math.inf if a.calibrate else (float(os.environ.get("FAKE_GNF_CAPACITY_PPS", "1e6")) * a.queues
                                             * scale.get(a.path, 1.0) * scale.get(a.staged_mode, 1.0))
    late_above = float(os.environ.get("FAKE_GNF_LATE_ABOVE_PPS", "inf"))
    late = int((offered - late_above) * a.duration) if offered > late_above else 0
    wall_s = a.warmup + a.duration
    nic_busy_share = 0.95 if offered > float(os.environ.get("FAKE_GNF_NIC_BUSY_ABOVE_PPS", "inf")) else 0.5
    sent = int(offered * a.duration)
    received = int(min(offered, capacity) * a.duration)
    unstamped = os.environ.get("FAKE_GNF_UNSTAMPED")
    delivered = int(min(offered, capacity) * wall_s)
    summary = {"generated": {"frames": int(offered * wall_s)},
               "sinks": [{"port": "port1", "stamped_frames": delivered, "foreign_frames": 0}],
               "nf": [{"type": "ipsec", "counters": {"out_protected": delivered,
                                                     "drop_replayed": int(os.environ.get("FAKE_GNF_IPSEC_DROP", 0))}}]}
    if "nids" in os.path.basename(a.config or ""):
        alerted = int(os.environ.get("FAKE_GNF_NIDS_ALERTED", 0))
        summary["nf"].insert(0, {"type": "nids", "counters": {"clean": delivered - alerted, "alerted": alerted,
                                                              "dropped": 0, "alerts": alerted}})
    if unstamped and unstamped in (a.config or ""):
        received = 0
        summary["sinks"][0].update(stamped_frames=0, foreign_frames=delivered)
    lost = sent - received

    batch = max(a.rx_tail_batch, a.tx_tail_batch)
    base = 2048 if a.calibrate else 5120 + (50176 if lost else 0)
    values = [base + k * 128 * batch for k in range(100)]
    counts = [received // 100 + (1 if k < received % 100 else 0) for k in range(100)]
    latency = latency_summary(values, counts)
    reordered = 0
    if path == "bypass" and a.queues > 1 and not a.tx_writeback_fc:
        reordered = received * (a.queues - 1) // 100
    seconds = max(1, math.ceil(a.duration))
    per_second = [{"t": t, "sent": sent // seconds, "received": received // seconds, "lost": lost // seconds,
                   "latency_p50": latency["p50"], "latency_p99": latency["p99"], "latency_max": latency["max"]}
                  for t in range(seconds)]
    gpu = None if os.environ.get("FAKE_GNF_NO_GPU") else {
        "name": "Fake GPU", "driver": "1.0", "cuda_driver": 13000, "cuda_runtime": 13000, "memory_total_mib": 1024}
    threads = 0 if path in ("bypass", "calibrate") else a.driver_threads or a.queues  # SCHEMA.md: none there
    doc = {
        "kind": "gnf-bench", "schema": 1, "gnf_version": "0.0.0-fake",
        "environment": {"hostname": "fakehost", "cpu_model": "Fake CPU", "cpu_cores": 2, "kernel": "Linux fake",
                        "gpu": gpu, "build": {"type": "Fake", "cuda": gpu is not None}},
        "trial": {
            "path": path, "staged_mode": a.staged_mode, "nf": ["l2fwd"], "ports": a.ports, "queues": a.queues,
            "speed_gbps": a.speed, "sizes": sizes, "imix": a.imix, "flows": a.flows, "ip": a.ip,
            "offered": {"pps": offered, "gbps_l1": offered * 8 * (mean_size + 20) / 1e9,
                        "gbps_l2": offered * 8 * mean_size / 1e9, "load_pct": 100 * offered / line_pps},
            "warmup_s": a.warmup, "duration_s": a.duration,
            "driver": None if a.calibrate else {
                "burst": a.burst or 32, "rx_ring": a.rx_ring or 512, "tx_ring": a.tx_ring or 512,
                "rx_tail_batch": a.rx_tail_batch, "tx_tail_batch": a.tx_tail_batch,
                "tail_timeout_ns": a.tail_timeout_ns, "tx_completion": a.tx_completion, "tx_full": a.tx_full,
                "drop_en": not a.no_drop_en, "nf_blocks": a.nf_blocks, "threads": threads},
            "nic_threads": a.nic_threads or 1,
            "threads_pinned": True,
            "idle": "spin",
        },
        "result": {
            "sent": sent, "on_schedule": True, "received": received,
            "forwarded": {"pps": received / a.duration, "gbps_l1": received / a.duration * 8 * (mean_size + 20) / 1e9,
                          "gbps_l2": received / a.duration * 8 * mean_size / 1e9},
            "loss": {"count": lost, "ratio": lost / sent if sent else 0.0,
                     "where": dict({"nic_rx_buffer": 0, "rx_ring": 0, "tx_ring": 0, "nf_drop": 0, "to_host": 0,
                                    "other": 0}, **{os.environ.get("FAKE_GNF_LOSS_AT", "nic_rx_buffer"): lost})},
            "reordering": {"reordered": reordered, "ratio": reordered / received if received else 0.0,
                           "extent_max": 3 if reordered else 0, "extent_mean": 1.5 if reordered else 0.0,
                           "duplicates": 0},
            "latency": latency,
            "per_second": per_second,
            "cpu": {"driver": None if a.calibrate else {"threads": threads, "cpu_s": threads * a.duration,
                                                        "busy_s": threads * a.duration / 2, "slept_s": 0.0,
                                                        "cores": float(threads)},
                    "nic": {"threads": 1, "cpu_s": a.duration, "busy_s": nic_busy_share * wall_s, "slept_s": 0.0,
                            "cores": 1.0},
                    "wall_s": wall_s},
            "gpu": None if path in ("cpu", "calibrate") or gpu is None else
            {"utilization_pct": 99.0, "memory_used_mib": 100, "samples": seconds},
            "pcie": {"bytes_per_packet": {"to_memory": mean_size + 16, "from_memory": mean_size + 16 + 16 / batch,
                                          "total": 2 * mean_size + 32 + 16 / batch},
                     "packet_bytes": {"to_memory": 0, "from_memory": 0},
                     "descriptor_bytes": {"to_memory": 0, "from_memory": 0}},
            "tail_writes_per_packet": 2.0 / batch,
            "nic_model": {"late_frames": late, "held_frames": 0, "late_threshold_ns": 10000, "max_lag_ns": 20000 if late else 800,
                          "tx_stalls": 0, "tx_stalled_frames": 0, "tx_stall_max_ns": 0},
            "model_bound": model_bound(nic_busy_share, late, sent),
            "host_load": host_load(bool(os.environ.get("FAKE_GNF_HOST_LOADED"))),
        },
        "summary": summary,
    }
    if os.environ.get("FAKE_GNF_BAD_SCHEMA"):
        del doc["result"]["loss"]
    with open(a.json, "w") as f:
        json.dump(doc, f)


def model_bound(nic_busy_share, late, sent):
    """SCHEMA.md's `result.model_bound` (the fake's generator is always on schedule)."""
    reasons = []
    if nic_busy_share >= 0.9:
        reasons.append("NIC-model threads %.0f %% busy" % (100 * nic_busy_share))
    if late and late / sent >= 0.01:
        reasons.append("NIC model late on %d frames (%.2f %% of those sent)" % (late, 100 * late / sent))
    return {"bound": bool(reasons), "nic_busy_share": nic_busy_share, "busy_threshold": 0.9, "late_frames": late,
            "late_share_threshold": 0.01, "tx_stalls": 0, "reasons": reasons}


def host_load(loaded):
    """SCHEMA.md's `result.host_load`: the NIC-model threads ran half the time on a loaded machine."""
    return {"loaded": loaded, "cpu_share": 0.5 if loaded else 1.0, "threshold": 0.8,
            "reasons": ["NIC-model threads ran 50 % of the time"] if loaded else []}


def latency_summary(values, counts):
    """Exact statistics of a weighted sample, as a histogram with one bucket per value: the
    values are multiples of 128 ns below 2^18 ns, where the sink's buckets are at most 128 ns wide,
    so each value is the low edge of its own bucket. Percentiles here are the values themselves."""
    n = sum(counts)
    if n == 0:
        return {"count": 0, "unit": "ns", "min": 0, "p50": 0, "p90": 0, "p99": 0, "p99_9": 0, "max": 0, "mean": 0.0,
                "stddev": 0.0, "histogram": []}

    def rank_value(q):
        rank = max(1, math.ceil(round(q * n / 100, 9)))
        seen = 0
        for v, c in zip(values, counts):
            seen += c
            if seen >= rank:
                return v

    mean = sum(v * c for v, c in zip(values, counts)) / n
    var = sum(c * (v - mean) ** 2 for v, c in zip(values, counts)) / n
    used = [(v, c) for v, c in zip(values, counts) if c]
    return {"count": n, "unit": "ns", "min": used[0][0], "p50": rank_value(50), "p90": rank_value(90),
            "p99": rank_value(99), "p99_9": rank_value(99.9), "max": used[-1][0], "mean": mean,
            "stddev": math.sqrt(var), "histogram": [[v, c] for v, c in used]}


if __name__ == "__main__":
    main()
