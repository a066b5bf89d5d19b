#!/usr/bin/env python3
"""Runs the router's RFC-conformance table (table.py, written out under data/) through gnf on the
paths asked for, and checks each row: its counters, the frames each port sent, and that every path
sent the cpu path's frames byte for byte and counted what it counted.

Only the standard library and gnf: this runs on the GPU machine, which has no scapy. table.py
(scapy) writes data/; tests/e2e/test_conformance.py holds data/ to the table and runs this.

Usage: check.py --gnf BIN [--out DIR] [--row NAME]... [VARIANT ...]
VARIANT: cpu (always run first: the others are compared with it), staged, staged-copy,
staged-persistent, bypass. Prints one line per row and variant; exits 1 if any failed.

Each row runs alone (its own pcaps and config): rows change the router's state (learnt and held
neighbours, the ICMP rate limit), and a row's counters are only its own that way.

IPv4 timestamps the router writes (RFC 791: milliseconds since midnight UT) differ from run to run:
a row names where they lie in the frames a port sends ("stamps"), and each must fall within the
run; they are then zeroed (the header checksum, right as sent, made anew) as the table writes them.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
COUNTER_GROUPS = ("l3fwd", "slow_path")
# name: (path, [driver] lines)
VARIANTS = {
    "cpu": ("cpu", ""),
    "staged": ("staged", 'staged_mode = "zero-copy"'),
    "staged-copy": ("staged", 'staged_mode = "copy"'),
    "staged-persistent": ("staged", 'staged_mode = "persistent"'),
    "bypass": ("bypass", ""),
}
NO_GPU = "needs a CUDA GPU"

# West takes jumbo frames (MTU 9000), east does not (MTU 1500): what west sends may be too big for
# east. Lossless (no DROP_EN, tx waits) so that every frame is the router's to account for.
CONFIG = """path = "{path}"
[driver]
{driver}
drop_en = false
tx_full = "wait"
slot_size = 10240
rx_ring = 64
tx_ring = 64
{ports}[[nf]]
type = "l3fwd"
routes = "{data}/routes.txt"
neighbours = "{data}/neighbours.txt"
"""
# name: (MAC, max_frame, IPv4, IPv6)
PORTS = {"west": ("02:00:00:00:01:00", 9018, "10.0.0.1/24", "2001:db8::1/64"),
         "east": ("02:00:00:00:01:01", 1518, "10.0.1.1/24", "2001:db8:1::1/64")}
PORT = """[[port]]
name = "{name}"
mac = "{mac}"
max_frame = {max_frame}
ipv4 = "{ipv4}"
ipv6 = "{ipv6}"
{source}[port.sink]
pcap = "{sink}"
"""
# What a port receives, at the pcap's times (a port the row sends nothing to has no source).
SOURCE = """[port.source]
type = "pcap"
file = "{file}"
timing = "original"
"""


def write_pcap(path, frames):
    """A classic microsecond pcap of (seconds after the first, frame bytes) pairs: the same bytes
    for the same frames on every run."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for at, frame in frames:
            micros = 1_700_000_000_000_000 + round(at * 1e6)
            f.write(struct.pack("<IIII", micros // 1_000_000, micros % 1_000_000, len(frame), len(frame)))
            f.write(frame)


def read_pcap(path):
    """The frames of a classic little-endian pcap, in file order (none if there is no such file:
    the table writes no empty pcaps)."""
    if not os.path.exists(path):
        return []
    data = open(path, "rb").read()
    frames, at = [], 24
    while at < len(data):
        length = struct.unpack_from("<I", data, at + 8)[0]
        frames.append(data[at + 16:at + 16 + length])
        at += 16 + length
    return frames


def load_rows():
    with open(os.path.join(DATA, "manifest.json")) as f:
        return json.load(f)["rows"]


class Outcome:
    """What one row did on one variant: the frames each port sent (sorted: the slow path's answers
    and forwarded frames may interleave differently on each path) and the router's counters, or
    why gnf did not run."""

    def __init__(self, sent=None, counters=None, error=None, problems=None):
        self.sent = sent or {}
        self.counters = counters or {}
        self.error = error
        self.problems = problems or []  # timestamps out of the run's time


MS_PER_DAY = 86_400_000


def ms_since_midnight(seconds):
    return int(seconds * 1000) % MS_PER_DAY


def ipv4_header_checksum(header):
    total = sum(int.from_bytes(header[i:i + 2], "big") for i in range(0, len(header), 2))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def unstamped(frame, offsets, first_ms, last_ms):
    """(the frame with the IPv4 timestamps at `offsets` zeroed and its header checksum made anew,
    problems): each stamp must be milliseconds since midnight UT within [first_ms, last_ms] (the day
    may turn between), and the header checksum right as sent."""
    raw = bytearray(frame)
    header = slice(14, 14 + (raw[14] & 0xf) * 4)
    problems = [] if ipv4_header_checksum(raw[header]) == 0 else ["header checksum wrong: %s" % frame.hex()]
    for at in offsets:
        stamp = int.from_bytes(raw[at:at + 4], "big")
        if (stamp - first_ms) % MS_PER_DAY > (last_ms - first_ms) % MS_PER_DAY:
            problems.append("timestamp %d at byte %d is not within the run (%d-%d ms after midnight UT)" %
                            (stamp, at, first_ms, last_ms))
        raw[at:at + 4] = bytes(4)
    raw[24:26] = bytes(2)
    raw[24:26] = ipv4_header_checksum(raw[header]).to_bytes(2, "big")
    return bytes(raw), problems


def run_row(gnf, row, variant, out):
    path, driver = VARIANTS[variant]
    out = os.path.join(out, variant)
    os.makedirs(out, exist_ok=True)
    config = os.path.join(out, row["name"] + ".toml")
    ports = ""
    for port, (mac, max_frame, ipv4, ipv6) in PORTS.items():
        source = os.path.join(DATA, "%s-%s.pcap" % (row["name"], port))
        ports += PORT.format(name=port, mac=mac, max_frame=max_frame, ipv4=ipv4, ipv6=ipv6,
                             source=SOURCE.format(file=source) if os.path.exists(source) else "",
                             sink=os.path.join(out, "%s-%s.pcap" % (row["name"], port)))
    with open(config, "w") as f:
        f.write(CONFIG.format(path=path, driver=driver, data=DATA, ports=ports))
    summary_file = os.path.join(out, row["name"] + ".json")
    first_ms = ms_since_midnight(time.time())
    try:
        proc = subprocess.run([gnf, "run", "--config", config, "--json", summary_file, "--quiet"],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return Outcome(error="gnf ran past 120 s")
    last_ms = ms_since_midnight(time.time()) + 1  # the clock read after gnf's last read, truncated
    if proc.returncode != 0:
        return Outcome(error="gnf exited %d: %s" % (proc.returncode, proc.stderr.strip()[-2000:]))
    with open(summary_file) as f:
        summary = json.load(f)
    counters = {"l3fwd." + k: v for k, v in summary["nf"][0]["counters"].items() if v}
    counters.update({"slow_path." + k: v for k, v in summary.get("slow_path", {}).items() if v})
    sent, problems = {}, []
    for port in PORTS:
        frames = read_pcap(os.path.join(out, "%s-%s.pcap" % (row["name"], port)))
        offsets = row.get("stamps", {}).get(port)
        if offsets:
            frames = [unstamped(f, offsets, first_ms, last_ms) for f in frames]
            problems += [p for _, frame_problems in frames for p in frame_problems]
            frames = [f for f, _ in frames]
        sent[port] = sorted(frames)
    return Outcome(sent, counters, problems=problems)


def expected_problems(row, outcome):
    """How the outcome differs from the row: counters (every nonzero one of l3fwd and the slow path
    named, at its value) and each port's frames, byte for byte."""
    problems = list(outcome.problems)
    if outcome.counters != row["counters"]:
        problems.append("counters %s, expected %s" % (outcome.counters, row["counters"]))
    for port in PORTS:
        expected = sorted(read_pcap(os.path.join(DATA, "%s-%s.expected.pcap" % (row["name"], port))))
        if outcome.sent[port] != expected:
            problems.append("%s sent %s, expected %s" % (port, describe(outcome.sent[port]), describe(expected)))
    return problems


def describe(frames):
    return "%d frame(s) [%s]" % (len(frames), ", ".join(f.hex() for f in frames))


def differences(outcome, baseline):
    """How a variant's outcome differs from the cpu path's."""
    problems = []
    if outcome.counters != baseline.counters:
        problems.append("counters %s, cpu counted %s" % (outcome.counters, baseline.counters))
    for port in PORTS:
        if outcome.sent[port] != baseline.sent[port]:
            problems.append("%s sent %s, cpu sent %s" % (port, describe(outcome.sent[port]),
                                                          describe(baseline.sent[port])))
    return problems


def verdict(row, outcome, baseline=None):
    """(word, problems): PASS, XFAIL (a known deviation, the row says why), FAIL or NOGPU."""
    if outcome.error and NO_GPU in outcome.error:
        return "NOGPU", [outcome.error]
    if baseline is not None and not outcome.error:
        problems = differences(outcome, baseline)
        if problems:
            return "FAIL", problems
    problems = [outcome.error] if outcome.error else expected_problems(row, outcome)
    if row.get("xfail"):
        return ("XFAIL", [row["xfail"]]) if problems else ("FAIL", ["passes: take its xfail off"])
    return ("FAIL" if problems else "PASS"), problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gnf", required=True)
    parser.add_argument("--out", help="folder for configs, captures and summaries (default: a temporary one)")
    parser.add_argument("--row", action="append", help="only this row (again for more)")
    parser.add_argument("variants", nargs="*", help="of: %s (cpu always)" % ", ".join(VARIANTS))
    args = parser.parse_args(argv)
    unknown = set(args.variants) - set(VARIANTS)
    if unknown:
        parser.error("no such variant: %s (there are: %s)" % (", ".join(sorted(unknown)), ", ".join(VARIANTS)))
    out = args.out or tempfile.mkdtemp(prefix="gnf-conformance-")
    rows = [r for r in load_rows() if not args.row or r["name"] in args.row]
    variants = ["cpu"] + [v for v in args.variants if v != "cpu"]
    failed = 0
    for row in rows:
        baseline = run_row(args.gnf, row, "cpu", out)
        for variant in variants:
            outcome = baseline if variant == "cpu" else run_row(args.gnf, row, variant, out)
            word, problems = verdict(row, outcome, None if variant == "cpu" else baseline)
            failed += word in ("FAIL", "NOGPU")
            print("%-5s %-17s %-40s %s" % (word, variant, row["name"], row["clause"]))
            for problem in problems:
                print("      " + problem)
    print("%d row(s) x %d variant(s), %d failed; captures in %s" % (len(rows), len(variants), failed, out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
