#!/usr/bin/env python3
"""Writes tests/data/router.pcap: what a host (10.0.0.2 / 2001:db8::2, MAC 02:aa:00:00:00:02) on the
router's west port sends, for configs/l3fwd-pcap.toml and tests/e2e/test_router.py. Each frame is a
case with the outcome the test expects (CASES); the file is committed so gnf runs without scapy.
"""
import os
import sys

from scapy.all import ARP, ICMP, IP, UDP, Ether, ICMPv6EchoRequest, ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6, \
    IPv6ExtHdrDestOpt, Raw, wrpcap

HOST_MAC, WEST_MAC = "02:aa:00:00:00:02", "02:00:00:00:01:00"
HOST4, HOST6 = "10.0.0.2", "2001:db8::2"


def eth():
    return Ether(src=HOST_MAC, dst=WEST_MAC)


def udp4(dst, ttl=64, **ip):
    return eth() / IP(src=HOST4, dst=dst, ttl=ttl, **ip) / UDP(sport=4000, dport=5000) / Raw(b"x" * 18)


def udp6(dst, hlim=64):
    return eth() / IPv6(src=HOST6, dst=dst, hlim=hlim) / UDP(sport=4000, dport=5000) / Raw(b"x" * 18)


def bad_checksum():
    p = IP(bytes(udp4("198.19.0.9")[IP]))
    p.chksum ^= 0x0101
    return eth() / p


def truncated_extension():
    # A destination-options header that claims 80 bytes in a payload of 16.
    raw = bytearray(bytes(eth() / IPv6(src=HOST6, dst="2001:db8:19::9", nh=60) / Raw(b"\x11\x09" + b"\0" * 14)))
    return Ether(bytes(raw))


# (name, frame, where it should come out: "east", "west" (an answer), or a counter of l3fwd)
CASES = [
    ("arp request for the router", eth().__class__(src=HOST_MAC, dst="ff:ff:ff:ff:ff:ff") /
     ARP(op=1, hwsrc=HOST_MAC, psrc=HOST4, pdst="10.0.0.1"), "west"),
    ("ping the router", eth() / IP(src=HOST4, dst="10.0.0.1") / ICMP(id=7, seq=1) / Raw(b"ping"), "west"),
    ("ping the router's east address", eth() / IP(src=HOST4, dst="10.0.1.1") / ICMP(id=7, seq=2), "west"),
    ("neighbour solicitation for the router",
     Ether(src=HOST_MAC, dst="33:33:ff:00:00:01") / IPv6(src=HOST6, dst="ff02::1:ff00:1", hlim=255) /
     ICMPv6ND_NS(tgt="2001:db8::1") / ICMPv6NDOptSrcLLAddr(lladdr=HOST_MAC), "west"),
    ("ping6 the router", eth() / IPv6(src=HOST6, dst="2001:db8::1") / ICMPv6EchoRequest(id=7, seq=3), "west"),
    ("dpdk route", udp4("198.18.1.1"), "east"),
    ("gateway route", udp4("198.19.0.9"), "east"),
    ("connected and resolved", udp4("10.0.1.2"), "east"),
    ("dpdk route v6", udp6("2001:db8:18::1"), "east"),
    ("gateway route v6", udp6("2001:db8:19::9"), "east"),
    ("ttl expires", udp4("198.19.0.9", ttl=1), "west"),
    ("hop limit expires", udp6("2001:db8:19::9", hlim=1), "west"),
    ("no route", udp4("203.0.113.9"), "west"),
    ("no route v6", udp6("2001:db8:99::9"), "west"),
    ("connected, unresolved", udp4("10.0.1.77"), "held"),
    ("connected, unresolved v6", udp6("2001:db8:1::77"), "held"),
    ("blackhole", udp4("192.0.2.1"), "drop_blackhole"),
    ("bad checksum", bad_checksum(), "drop_bad_checksum"),
    ("ihl 4", Ether(bytes(udp4("198.19.0.9"))[:14] + bytes([0x44]) + bytes(udp4("198.19.0.9"))[15:]), "drop_bad_header"),
    ("total length past the frame", udp4("198.19.0.9", len=400), "drop_bad_length"),
    ("truncated extension header", truncated_extension(), "drop_bad_ext_header"),
    ("another host's mac", Ether(src=HOST_MAC, dst="02:00:00:00:99:99") / IP(src=HOST4, dst="198.19.0.9") / UDP(), "drop_other_host"),
    ("loopback source", eth() / IP(src="127.0.0.1", dst="198.19.0.9") / UDP(), "drop_martian"),
]


def padded(frame):
    """As a sender's MAC pads: to the 60-byte Ethernet minimum (the NIC counts shorter frames as runts)."""
    raw = bytes(frame)
    return Ether(raw + bytes(max(0, 60 - len(raw))))


def frames():
    return [padded(frame) for _, frame, _ in CASES]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "router.pcap")
    wrpcap(out, frames())
    print("wrote %d frames to %s" % (len(CASES), out))


if __name__ == "__main__":
    main()
