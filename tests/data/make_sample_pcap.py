#!/usr/bin/env python3
"""Writes tests/data/sample.pcap: the bundled default traffic for `gnf run` and the e2e tests.

A deterministic mix a router sees: UDP and TCP over IPv4 and IPv6 in 32 flows, ICMP echo, ARP,
and sizes from 60 to 1514 bytes (frames are padded to the Ethernet minimum, as a sender's MAC
does). Run it again after changing it; the file is committed so that no test needs scapy to run gnf.
"""
import random
import sys

from scapy.all import ARP, ICMP, IP, TCP, UDP, Ether, IPv6, Raw, wrpcap

def frames(count=2000, seed=1):
    rng = random.Random(seed)
    out = []
    for i in range(count):
        flow = rng.randrange(32)
        eth = Ether(src="02:00:00:00:00:%02x" % (flow + 16), dst="02:00:00:00:01:00")
        kind = rng.choices(["udp4", "tcp4", "udp6", "tcp6", "icmp", "arp"], [40, 25, 15, 10, 5, 5])[0]
        payload = Raw(bytes(rng.randrange(256) for _ in range(rng.choice([0, 18, 100, 512, 1400]))))
        if kind == "udp4":
            p = eth / IP(src="198.18.0.%d" % flow, dst="198.19.0.1") / UDP(sport=1024 + flow, dport=5001) / payload
        elif kind == "tcp4":
            p = eth / IP(src="198.18.1.%d" % flow, dst="198.19.0.2") / TCP(sport=2048 + flow, dport=80, seq=i) / payload
        elif kind == "udp6":
            p = eth / IPv6(src="2001:db8:1::%x" % flow, dst="2001:db8:2::1") / UDP(sport=1024 + flow, dport=5001) / payload
        elif kind == "tcp6":
            p = eth / IPv6(src="2001:db8:1::%x" % flow, dst="2001:db8:2::2") / TCP(sport=3000 + flow, dport=443) / payload
        elif kind == "icmp":
            p = eth / IP(src="198.18.2.%d" % flow, dst="198.19.0.3") / ICMP(id=flow, seq=i)
        else:
            p = Ether(src="02:00:00:00:00:%02x" % (flow + 16), dst="ff:ff:ff:ff:ff:ff") / ARP(
                psrc="198.18.3.%d" % flow, pdst="198.18.3.254")
        raw = bytes(p)
        if len(raw) > 1514:
            raw = raw[:1514]
        raw = raw.ljust(60, b"\0")
        ether = Ether(raw)
        ether.time = 1_700_000_000 + i * 1e-5
        out.append(ether)
    return out

if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/sample.pcap"
    wrpcap(path, frames())
    print(path)
