"""The router (l3fwd + slow path) end to end on the cpu path: tests/data/router.pcap's cases go in on
the west port; each must come out where make_router_pcap.CASES says, rewritten as a router rewrites,
or be counted under its drop cause. Checksums are checked by scapy, not by gnf's own code."""
import os
import sys

import pytest
from scapy.all import ARP, ICMP, IP, UDP, Ether, ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6ND_NA, ICMPv6ND_NS, \
    ICMPv6TimeExceeded, IPv6, rdpcap, wrpcap

from checks import assert_balanced

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "data"))
import make_router_pcap as cases  # noqa: E402

EAST_MAC = "02:00:00:00:01:01"
CONFIG = """
path = "cpu"
[driver]
drop_en = false
tx_full = "wait"
[[port]]
name = "west"
mac = "02:00:00:00:01:00"
ipv4 = "10.0.0.1/24"
ipv6 = "2001:db8:0::1/64"
[port.source]
type = "pcap"
file = "{west_in}"
[port.sink]
pcap = "{west_out}"
[[port]]
name = "east"
mac = "02:00:00:00:01:01"
ipv4 = "10.0.1.1/24"
ipv6 = "2001:db8:1::1/64"
{east_source}
[port.sink]
pcap = "{east_out}"
[[nf]]
type = "l3fwd"
routes = "{configs}/l3fwd-routes.txt"
neighbours = "{configs}/l3fwd-neighbours.txt"
"""


def run_router(gnf, tmp_path, west_frames, east_frames=None):
    west_in = tmp_path / "west-in.pcap"
    wrpcap(str(west_in), west_frames)
    east_source = ""
    if east_frames:
        wrpcap(str(tmp_path / "east-in.pcap"), east_frames)
        east_source = '[port.source]\ntype = "pcap"\nfile = "%s"\ntiming = "original"' % (tmp_path / "east-in.pcap")
    config = tmp_path / "router.toml"
    config.write_text(CONFIG.format(west_in=west_in, west_out=tmp_path / "west.pcap", east_out=tmp_path / "east.pcap",
                                    east_source=east_source, configs=os.path.join(REPO, "configs")))
    result = gnf("--config", config, timeout=60)
    assert result.returncode == 0, result.stderr
    assert_balanced(result.summary)
    return rdpcap(str(tmp_path / "west.pcap")), rdpcap(str(tmp_path / "east.pcap")), result.summary


def checksums_hold(frame):
    """scapy recomputes every checksum of a copy with them cleared; they must equal what gnf wrote."""
    rebuilt = frame.copy()
    for layer in (IP, UDP, ICMP):
        if layer in rebuilt:
            del rebuilt[layer].chksum
    for layer in (ICMPv6EchoReply, ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6TimeExceeded, ICMPv6DestUnreach):
        if layer in rebuilt:
            del rebuilt[layer].cksum
    return bytes(Ether(bytes(rebuilt))) == bytes(frame)


def test_every_case_comes_out_where_a_router_sends_it(gnf, tmp_path):
    west, east, summary = run_router(gnf, tmp_path, cases.frames())
    counters = summary["nf"][0]["counters"]
    for name, _, outcome in cases.CASES:
        if outcome.startswith("drop_"):
            assert counters[outcome] >= 1, (name, counters)
    expected_drops = sum(1 for _, _, o in cases.CASES if o.startswith("drop_"))
    assert sum(v for k, v in counters.items() if k.startswith("drop_")) == expected_drops, counters

    for frame in list(west) + list(east):
        assert checksums_hold(frame), frame.show2(dump=True)

    # West: the answers, all to the host's MAC from the west port's.
    assert all(f[Ether].dst == cases.HOST_MAC and f[Ether].src == "02:00:00:00:01:00" for f in west)
    arp = [f for f in west if ARP in f]
    assert len(arp) == 1 and arp[0][ARP].op == 2 and arp[0][ARP].psrc == "10.0.0.1" and arp[0][ARP].pdst == cases.HOST4
    echo = sorted(f[IP].src for f in west if ICMP in f and f[ICMP].type == 0)
    assert echo == ["10.0.0.1", "10.0.1.1"]
    assert [f[ICMP].payload.load[:4] for f in west if ICMP in f and f[IP].src == "10.0.0.1" and f[ICMP].type == 0] == [b"ping"]
    assert len([f for f in west if ICMPv6EchoReply in f and f[IPv6].src == "2001:db8::1"]) == 1
    na = [f for f in west if ICMPv6ND_NA in f]
    assert len(na) == 1 and na[0][ICMPv6ND_NA].tgt == "2001:db8::1" and na[0][IPv6].hlim == 255
    exceeded = [f for f in west if ICMP in f and f[ICMP].type == 11]
    assert len(exceeded) == 1 and exceeded[0][IP].src == "10.0.0.1" and exceeded[0]["IPerror"].dst == "198.19.0.9"
    assert len([f for f in west if ICMPv6TimeExceeded in f]) == 1
    unreachable = [f for f in west if ICMP in f and f[ICMP].type == 3]
    assert len(unreachable) == 1 and unreachable[0][ICMP].code == 0 and unreachable[0]["IPerror"].dst == "203.0.113.9"
    assert len([f for f in west if ICMPv6DestUnreach in f]) == 1

    # East: forwarded packets with TTL / hop limit one less, from the east MAC to the next hop's.
    forwarded = {(f[IP].dst if IP in f else f[IPv6].dst): f for f in east if UDP in f}
    assert set(forwarded) == {"198.18.1.1", "198.19.0.9", "10.0.1.2", "2001:db8:18::1", "2001:db8:19::9"}
    for dst, f in forwarded.items():
        assert f[Ether].src == EAST_MAC
        assert (f[IP].ttl if IP in f else f[IPv6].hlim) == 63, dst
    assert forwarded["198.18.1.1"][Ether].dst == "02:00:00:00:00:01"  # DPDK-style route: the port's fixed MAC
    assert forwarded["2001:db8:18::1"][Ether].dst == "02:00:00:00:00:01"
    for dst in ("198.19.0.9", "10.0.1.2", "2001:db8:19::9"):
        assert forwarded[dst][Ether].dst == "02:bb:00:00:00:02", dst
    # And the router asks for the unresolved neighbours.
    asks = [f for f in east if ARP in f]
    assert len(asks) == 1 and asks[0][ARP].op == 1 and asks[0][ARP].pdst == "10.0.1.77" and asks[0][ARP].psrc == "10.0.1.1"
    ns = [f for f in east if ICMPv6ND_NS in f]
    assert len(ns) == 1 and ns[0][ICMPv6ND_NS].tgt == "2001:db8:1::77" and ns[0][IPv6].dst == "ff02::1:ff00:77"

    slow = summary["slow_path"]
    assert slow["held"] == 2 and slow["arp_replies"] == 1 and slow["echo_replies"] == 3, slow
    assert slow["malformed"] == 0 and slow["unhandled"] == 0 and slow["tx_failed"] == 0, slow
    assert summary["driver"]["host_tx"] == len(west) + 2


def test_held_packets_leave_once_the_neighbour_answers(gnf, tmp_path):
    held = [cases.padded(cases.udp4("10.0.1.77")), cases.padded(cases.udp6("2001:db8:1::77"))]
    b_mac = "02:cc:00:00:00:77"
    arp_reply = Ether(src=b_mac, dst=EAST_MAC) / ARP(op=2, hwsrc=b_mac, psrc="10.0.1.77", hwdst=EAST_MAC, pdst="10.0.1.1")
    na = Ether(src=b_mac, dst=EAST_MAC) / IPv6(src="2001:db8:1::77", dst="2001:db8:1::1", hlim=255) / \
        ICMPv6ND_NA(tgt="2001:db8:1::77", R=0, S=1, O=1)
    # The answers come 0.3 s after the east port starts (a first frame, for another host, sets the
    # clock): by then the packets are held.
    east_in = [cases.padded(f) for f in (Ether(src=b_mac, dst="02:00:00:00:99:99") / IP(src="10.0.1.77", dst="10.0.1.9"),
                                         arp_reply, na)]
    east_in[0].time, east_in[1].time, east_in[2].time = 1000.0, 1000.3, 1000.3
    west, east, summary = run_router(gnf, tmp_path, held, east_in)
    delivered = [f for f in east if UDP in f]
    assert {(f[IP].dst if IP in f else f[IPv6].dst) for f in delivered} == {"10.0.1.77", "2001:db8:1::77"}
    assert all(f[Ether].dst == b_mac and f[Ether].src == EAST_MAC for f in delivered)
    slow = summary["slow_path"]
    assert slow["held"] == 2 and slow["held_forwarded"] == 2 and slow["neighbours_learnt"] == 2, slow
