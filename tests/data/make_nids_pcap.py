#!/usr/bin/env python3
"""Writes tests/data/nids.pcap: payloads planted for configs/nids.rules, for configs/nids-pcap.toml and
tests/e2e/test_nids.py. Each frame is a case with the alert it must raise (CASES: sid, EVE action) or
None; the file is committed so gnf runs without scapy.
"""
import os
import sys

from scapy.all import ARP, IP, TCP, UDP, Ether, IPv6, Raw, wrpcap


def eth(**fields):
    return Ether(src="02:aa:00:00:00:02", dst="02:00:00:00:01:00", **fields)


def truncated_tcp():
    """An IPv4 header that announces 40 bytes, followed by 10 bytes of a 20-byte TCP header."""
    ip = bytes(IP(src="198.18.0.9", dst="10.0.0.5", proto=6, len=40))
    return eth(type=0x0800) / Raw(ip + b"\0" * 10)


CASES = [
    # (what it is, frame, (sid, action) of the alert it raises or None)
    ("cmd.exe in a GET, from the first byte", eth() / IP(src="198.18.0.1", dst="10.0.0.5") /
     TCP(sport=40000, dport=80, flags="PA") / Raw(b"GET /scripts/CMD.EXE?/c+dir HTTP/1.1\r\nHost: x\r\n\r\n"),
     (1001, "allowed")),
    ("GET past depth 4", eth() / IP(src="198.18.0.1", dst="10.0.0.5") / TCP(sport=40001, dport=80, flags="PA") /
     Raw(b"xGET /cmd.exe"), None),
    ("a bad DNS marker: dropped", eth() / IP(src="198.18.0.2", dst="198.19.0.1") / UDP(sport=5353, dport=53) /
     Raw(b"\x12\x34\xde\xad"), (1002, "blocked")),
    ("passwd at the last byte", eth() / IP(src="198.18.0.3", dst="10.0.0.7") / UDP(sport=1000, dport=69) /
     Raw(b"RRQ /etc/passwd"), (1004, "allowed")),
    ("a trusted scanner: passed, no alert", eth() / IP(src="10.9.1.1", dst="10.0.0.5") /
     TCP(sport=40002, dport=80, flags="PA") / Raw(b"GET /cmd.exe /etc/passwd"), None),
    ("passwd over IPv6", eth() / IPv6(src="2001:db8::9", dst="2001:db8::5") / UDP(sport=2000, dport=2001) /
     Raw(b"cat /etc/passwd;"), (1004, "allowed")),
    ("clean", eth() / IP(src="198.18.0.4", dst="10.0.0.5") / UDP(sport=1, dport=2) / Raw(b"nothing here"), None),
    ("no payload", eth() / IP(src="198.18.0.4", dst="10.0.0.5") / TCP(sport=3, dport=80, flags="S"), None),
    ("not IP", eth() / ARP(psrc="10.0.0.2", pdst="10.0.0.1"), None),
    ("truncated TCP header: malformed", truncated_tcp(), None),
]


def frames():
    out = []
    for _, frame, _ in CASES:
        raw = bytes(frame)
        out.append(Ether(raw + b"\0" * max(0, 60 - len(raw))))
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "nids.pcap")
    wrpcap(out, frames())
    print("wrote %d frames to %s" % (len(CASES), out))


if __name__ == "__main__":
    main()
