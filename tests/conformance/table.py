#!/usr/bin/env python3
"""The router's RFC-conformance table: one row per clause, with what goes in on which port, the
counters l3fwd and the slow path must show (every nonzero one, by name) and the frames each port
must send, built here with scapy, independently of gnf's own code.

The router (check.py's CONFIG): port west 10.0.0.1/24, 2001:db8::1/64, MTU 9000 (a host A at
10.0.0.2 / 2001:db8::2 behind it); port east 10.0.1.1/24, 2001:db8:1::1/64, MTU 1500, with a
permanent neighbour B (10.0.1.2, 2001:db8:1::2) that routes 198.19.0.0/16 and 2001:db8:19::/48
lead to (data/routes.txt, data/neighbours.txt).

`table.py [DIR]` writes the rows into DIR (default: data/ beside this file): per row NAME-PORT.pcap
(what the port receives, at the times given) and NAME-PORT.expected.pcap (what it must send), none
where there are no frames, and manifest.json. The files are committed, so that check.py needs
neither scapy nor this file.
"""
import json
import os
import sys

from scapy.all import ARP, ICMP, IP, UDP, Ether, ICMPv6DestUnreach, ICMPv6EchoReply, ICMPv6EchoRequest, \
    ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr, ICMPv6PacketTooBig, ICMPv6ParamProblem, \
    ICMPv6TimeExceeded, IPOption, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, Raw, \
    HBHOptUnknown, PadN, RouterAlert
from scapy.utils import checksum
from scapy.utils6 import in6_getnsma, in6_getnsmac, in6_mactoifaceid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check import write_pcap  # noqa: E402

WEST_MAC, EAST_MAC = "02:00:00:00:01:00", "02:00:00:00:01:01"
W4, W6, E4, E6 = "10.0.0.1", "2001:db8::1", "10.0.1.1", "2001:db8:1::1"
A_MAC, A4, A6 = "02:aa:00:00:00:02", "10.0.0.2", "2001:db8::2"
B_MAC, B4, B6 = "02:bb:00:00:00:02", "10.0.1.2", "2001:db8:1::2"
FAR4, FAR6 = "198.19.0.9", "2001:db8:19::9"  # routed via B
SPOOF_MAC = "02:ee:00:00:00:66"
EAST_MTU = 1500
ROUTES = ("# Routes for the conformance table (check.py's CONFIG).\n"
          "198.19.0.0/16 10.0.1.2\n2001:db8:19::/48 2001:db8:1::2\n")
NEIGHBOURS = ("# Permanent neighbours for the conformance table.\n"
              "10.0.1.2 02:bb:00:00:00:02\n2001:db8:1::2 02:bb:00:00:00:02\n")


def padded(frame, fill=b"\0"):
    """As a sender's MAC pads: to the 60-byte Ethernet minimum."""
    raw = bytes(frame)
    return raw + fill * max(0, 60 - len(raw))


def from_a():
    return Ether(src=A_MAC, dst=WEST_MAC)


def udp4(dst=FAR4, ttl=64, payload=18, options=None, src=A4, **ip):
    return padded(from_a() / IP(src=src, dst=dst, ttl=ttl, options=options or [], **ip) / UDP(sport=4000, dport=5000) /
                  Raw(bytes(i % 251 for i in range(payload))))


def udp6(dst=FAR6, hlim=64, payload=18, ext=None):
    ip = IPv6(src=A6, dst=dst, hlim=hlim)
    if ext is not None:
        ip = ip / ext
    return padded(from_a() / ip / UDP(sport=4000, dport=5000) / Raw(bytes(i % 251 for i in range(payload))))


def datagram(frame):
    """The IP datagram in a frame, without the Ethernet padding behind it."""
    p = Ether(frame)
    return bytes(p[IP])[:p[IP].len] if IP in p else bytes(p[IPv6])[:40 + p[IPv6].plen]


def forwarded(frame, mac=B_MAC):
    """The frame as the router forwards it out of east: TTL / hop limit one less (the IPv4 header
    checksum computed anew), from east's MAC to the next hop's, padding kept."""
    raw = bytearray(frame)
    raw[0:12] = bytes.fromhex(mac.replace(":", "") + EAST_MAC.replace(":", ""))
    if raw[12:14] == b"\x08\x00":
        raw[22] -= 1
        ihl = (raw[14] & 0xf) * 4
        raw[24:26] = b"\0\0"
        raw[24:26] = checksum(bytes(raw[14:14 + ihl])).to_bytes(2, "big")
    else:
        raw[21] -= 1
    return bytes(raw)


def icmp4_from(port_ip, to_mac, to_ip, icmp, port_mac=WEST_MAC):
    """An ICMP message the router sends: TTL 64, identification 0, no flags (what gnf writes)."""
    return padded(Ether(dst=to_mac, src=port_mac) / IP(src=port_ip, dst=to_ip, ttl=64, id=0, flags=0, proto=1) /
                  Raw(icmp))


def icmp4_error(about, type_, code, rest=0):
    """ICMP error to A about `about` (RFC 792): as much of the datagram as fits in 576 bytes (RFC 1812
    4.3.2.3), never the Ethernet padding."""
    body = bytearray(bytes([type_, code, 0, 0]) + rest.to_bytes(4, "big") + datagram(about)[:576 - 28])
    body[2:4] = checksum(bytes(body)).to_bytes(2, "big")
    return icmp4_from(W4, A_MAC, A4, bytes(body))


def icmp6_error(about, message):
    """ICMPv6 error to A (RFC 4443 2.4(c)): as much of the datagram as fits in 1280 bytes."""
    quoted = datagram(about)[:1280 - 48]
    return bytes(Ether(dst=A_MAC, src=WEST_MAC) / IPv6(src=W6, dst=A6, hlim=64) / message / Raw(quoted))


def arp(op, eth_src, eth_dst, hwsrc, psrc, pdst, hwdst="00:00:00:00:00:00"):
    return padded(Ether(src=eth_src, dst=eth_dst) / ARP(op=op, hwsrc=hwsrc, psrc=psrc, hwdst=hwdst, pdst=pdst))


def clock(port):
    """A first frame for a port whose row frames come later (pcap timing starts at a port's first
    frame): to another host's MAC, so l3fwd drops it (drop_other_host)."""
    src = A_MAC if port == "west" else B_MAC
    return padded(Ether(src=src, dst="02:00:00:00:99:99") / IP(src=A4, dst=B4) / UDP())


def ipv4_fragments(frame, mtu, first_options=None, later_options=None):
    """RFC 791 fragmentation of a frame's datagram for an MTU: pieces of a multiple of 8 bytes, MF on
    all but the last (which keeps the datagram's MF), offsets added to the datagram's own; options
    as given (the first fragment's, the later ones')."""
    p = Ether(frame)
    ip = p[IP]
    payload = bytes(ip.payload)[:ip.len - ip.ihl * 4]
    piece = (mtu - ip.ihl * 4) // 8 * 8
    out = []
    for at in range(0, len(payload), piece):
        last = at + piece >= len(payload)
        flags = ip.flags.value & 1 if last else 1  # MF
        options = (first_options if at == 0 else later_options) if first_options is not None else ip.options
        f = Ether(src=EAST_MAC, dst=B_MAC) / IP(version=4, tos=ip.tos, id=ip.id, flags=flags, frag=ip.frag + at // 8,
                                                ttl=ip.ttl - 1, proto=ip.proto, src=ip.src, dst=ip.dst,
                                                options=options) / Raw(payload[at:at + piece])
        out.append(padded(f))
    return out


class Row:
    def __init__(self, name, clause, what, send, counters, out=None, xfail=None, stamps=None):
        self.name, self.clause, self.what = name, clause, what
        self.send = [s if len(s) == 3 else (s[0], s[1], 0.0) for s in send]  # (port, frame, seconds)
        self.counters = counters
        self.out = out or {}
        self.xfail = xfail
        self.stamps = stamps  # port: frame offsets of the timestamps the router writes (zero in `out`)


def west(frame):
    return [("west", frame)]


def forwards(name, clause, what, frame):
    """A row whose frame, sent to west, leaves east as a router forwards it."""
    counter = "l3fwd.forwarded_ipv4" if frame[12:14] == b"\x08\x00" else "l3fwd.forwarded_ipv6"
    return Row(name, clause, what, west(frame), {counter: 1}, {"east": [forwarded(frame)]})


def ns(target, lladdr_option=True, hlim=255, zero_length_option=False):
    msg = ICMPv6ND_NS(tgt=target)
    if zero_length_option:
        msg = msg / Raw(b"\x01\x00" + b"\0" * 6)
    elif lladdr_option:
        msg = msg / ICMPv6NDOptSrcLLAddr(lladdr=A_MAC)
    return bytes(Ether(src=A_MAC, dst=in6_getnsmac(in6_getnsma(_n(target)))) /
                 IPv6(src=A6, dst=_p(in6_getnsma(_n(target))), hlim=hlim) / msg)


def _n(address):
    import socket
    return socket.inet_pton(socket.AF_INET6, address)


def _p(packed):
    import socket
    return socket.inet_ntop(socket.AF_INET6, packed)


def link_local(mac):
    return "fe80::" + in6_mactoifaceid(mac).lower()


def echo4(dst=W4, ttl=64, spoil=False, **ip):
    icmp = bytearray(bytes(ICMP(type=8, id=7, seq=1) / Raw(b"conformance")))
    if spoil:
        icmp[2] ^= 0x01
    return padded(from_a() / IP(src=A4, dst=dst, ttl=ttl, proto=1, **ip) / Raw(bytes(icmp)))


def echo4_reply(request):
    icmp = bytearray(datagram(request)[20:])
    icmp[0] = 0
    icmp[2:4] = b"\0\0"
    icmp[2:4] = checksum(bytes(icmp)).to_bytes(2, "big")
    return icmp4_from(W4, A_MAC, A4, bytes(icmp))


def echo6(dst=W6, spoil=False):
    p = Ether(bytes(from_a() / IPv6(src=A6, dst=dst) / ICMPv6EchoRequest(id=7, seq=1, data=b"conformance")))
    raw = bytearray(bytes(p))
    if spoil:
        raw[56] ^= 0x01
    return bytes(raw)


def hbh(*options):
    return IPv6ExtHdrHopByHop(options=list(options))


def ip4(address):
    return bytes(int(b) for b in address.split("."))


def with_option(option):
    """A UDP packet to FAR4 with one IPv4 option (bytes), padded with end-of-list."""
    return udp4(options=[IPOption(option)])


def acted_on(name, clause, what, option, result, stamps=None):
    """A row whose option the slow path fills in (`result`, timestamps zero) and forwards out of east."""
    return Row(name, clause, what, west(with_option(option)),
               {"l3fwd.to_host_options": 1, "slow_path.options_forwarded": 1},
               {"east": [forwarded(with_option(result))]}, stamps={"east": stamps} if stamps else None)


def hop_by_hop_patched(at, value):
    """A UDP packet to FAR6 behind a Hop-by-Hop header of one PadN option (frame bytes 54-61), its
    byte `at` set to `value`."""
    raw = bytearray(udp6(ext=hbh(PadN(optdata=b"\0" * 4))))
    raw[at] = value
    return bytes(raw)


def rows():
    request4 = echo4()
    request6 = echo6()
    ttl1 = udp4(ttl=1)
    ttl0 = udp4(ttl=0)
    ttl2 = udp4(ttl=2)
    hlim1 = udp6(hlim=1)
    no_route4, no_route6 = udp4(dst="203.0.113.9"), udp6(dst="2001:db8:99::9")
    first_fragment = udp4(ttl=1, flags="MF", payload=64)
    later_fragment = udp4(ttl=1, frag=8, payload=64)
    v6_later_fragment = udp6(hlim=1, ext=IPv6ExtHdrFragment(offset=8, m=0, id=77))
    icmp_error_in_transit = padded(from_a() / IP(src=A4, dst=FAR4, ttl=1) / ICMP(type=3, code=1) /
                                   Raw(datagram(udp4(dst=A4))))
    echo_in_transit = echo4(dst=FAR4, ttl=1)
    icmp6_error_behind_ext = bytes(from_a() / IPv6(src=A6, dst=FAR6, hlim=1) / IPv6ExtHdrDestOpt() /
                                   ICMPv6DestUnreach(code=3) / Raw(datagram(udp6(dst=A6))))
    short_padded = udp4(ttl=1, payload=2)
    short_padded = short_padded[:44] + b"\xee" * 16  # 16 bytes of Ethernet padding that are not datagram
    unknown_option = [IPOption(b"\x9e\x04\xab\xcd"), IPOption(b"\x1e\x04\x12\x34")]  # RFC 4727 experiments
    with_unknown_option = udp4(options=unknown_option)
    with_nops = udp4(options=[IPOption(b"\x01\x01\x01\x00")])
    router_alert4 = udp4(options=[IPOption(b"\x94\x04\x00\x00")])
    lsrr = udp4(options=[IPOption(b"\x83\x07\x04\x0a\x00\x01\x02\x00")])
    ssrr = udp4(options=[IPOption(b"\x89\x07\x04\x0a\x00\x01\x02\x00")])
    rr_bad_pointer = with_option(b"\x07\x07\x03" + bytes(4))
    ts_wraps = with_option(b"\x44\x08\x09\xf0" + bytes(4))  # full, overflow 15
    hbh_option_too_long = hop_by_hop_patched(57, 5)  # PadN of 5 bytes where 4 are left
    hbh_past_packet = hop_by_hop_patched(55, 4)  # 40 bytes in a payload of 34
    bad_option = udp4(options=[IPOption(b"\x1e\x10\x00\x00")])  # 16 bytes long, in 4
    hbh_pad = udp6(ext=hbh(PadN(optdata=b"\0" * 4)))
    hbh_skip = udp6(ext=hbh(HBHOptUnknown(otype=0x1e, optdata=b"ab")))
    hbh_alert = udp6(ext=hbh(RouterAlert(value=0)))
    hbh_discard = udp6(ext=hbh(HBHOptUnknown(otype=0x5e, optdata=b"ab")))
    hbh_discard_icmp = udp6(ext=hbh(HBHOptUnknown(otype=0x9e, optdata=b"ab")))
    hbh_long_padding = udp6(ext=hbh(PadN(optdata=b"\0" * 12)))
    hbh_padn_not_zeros = udp6(ext=hbh(PadN(optdata=b"\0\x01\0\0")))
    echo6_long_padding = padded(from_a() / IPv6(src=A6, dst=W6) /
                                IPv6ExtHdrDestOpt(options=[PadN(optdata=b"\0" * 12)]) /
                                ICMPv6EchoRequest(id=7, seq=1, data=b"conformance"))
    df_big = udp4(flags="DF", payload=2000 - 28)
    fits = udp4(flags="DF", payload=EAST_MTU - 28)
    non_df_big = udp4(payload=4000 - 28)
    non_df_options = udp4(payload=4000 - 32, options=[IPOption(b"\x1e\x04\x12\x34")])
    fragment_big = udp4(payload=3000 - 28, flags="MF", frag=100)
    v6_big = udp6(payload=3000 - 48)
    gratuitous_spoof = arp(1, SPOOF_MAC, "ff:ff:ff:ff:ff:ff", SPOOF_MAC, B4, B4)
    na_spoof = bytes(Ether(src=SPOOF_MAC, dst="33:33:00:00:00:01") / IPv6(src=B6, dst="ff02::1", hlim=255) /
                     ICMPv6ND_NA(tgt=B6, R=0, S=0, O=1) / ICMPv6NDOptDstLLAddr(lladdr=SPOOF_MAC))
    to_b4, to_b6 = udp4(dst=B4), udp6(dst=B6)
    to_new4, to_new6 = udp4(dst="10.0.1.77"), udp6(dst="2001:db8:1::77")
    new_mac = "02:cc:00:00:00:77"
    arp_who_has_new = arp(1, EAST_MAC, "ff:ff:ff:ff:ff:ff", EAST_MAC, E4, "10.0.1.77")
    ns_new = bytes(Ether(src=EAST_MAC, dst="33:33:ff:00:00:77") /
                   IPv6(src=link_local(EAST_MAC), dst="ff02::1:ff00:77", hlim=255) /
                   ICMPv6ND_NS(tgt="2001:db8:1::77") / ICMPv6NDOptSrcLLAddr(lladdr=EAST_MAC))
    new_answers_arp = arp(2, new_mac, EAST_MAC, new_mac, "10.0.1.77", E4, hwdst=EAST_MAC)
    new_answers_na = bytes(Ether(src=new_mac, dst=EAST_MAC) / IPv6(src="2001:db8:1::77", dst=link_local(EAST_MAC),
                                                                   hlim=255) /
                           ICMPv6ND_NA(tgt="2001:db8:1::77", R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=new_mac))
    gratuitous_new = arp(1, new_mac, "ff:ff:ff:ff:ff:ff", new_mac, "10.0.1.77", "10.0.1.77")
    arp_request = arp(1, A_MAC, "ff:ff:ff:ff:ff:ff", A_MAC, A4, W4)
    arp_reply = arp(2, WEST_MAC, A_MAC, WEST_MAC, W4, A4, hwdst=A_MAC)
    na_reply = bytes(Ether(src=WEST_MAC, dst=A_MAC) / IPv6(src=W6, dst=A6, hlim=255) /
                     ICMPv6ND_NA(tgt=W6, R=1, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=WEST_MAC))
    echo6_reply = bytes(Ether(src=WEST_MAC, dst=A_MAC) / IPv6(src=W6, dst=A6, hlim=64) /
                        ICMPv6EchoReply(id=7, seq=1, data=b"conformance"))
    local = {"l3fwd.to_host_local": 1}
    refused = {"slow_path.neighbours_refused": 1}
    return [
        # Forwarding and the plain answers.
        forwards("forward_ipv4", "RFC 1812 5.2.1, 5.3.1", "a routed IPv4 packet leaves east, TTL one less", udp4()),
        forwards("forward_ipv6", "RFC 8200 3", "a routed IPv6 packet leaves east, hop limit one less", udp6()),
        forwards("forward_connected", "RFC 1812 5.2.1", "to a host on east's network, at its neighbour entry", to_b4),
        Row("arp_reply", "RFC 826", "ARP request for the router's address: a reply from the port's MAC",
            west(arp_request), {**local, "slow_path.arp_replies": 1, **refused}, {"west": [arp_reply]}),
        Row("nd_advertisement", "RFC 4861 7.2.4", "neighbour solicitation for the router: a solicited NA, router flag",
            west(ns(W6)), {**local, "slow_path.nd_advertisements": 1, **refused}, {"west": [na_reply]}),
        Row("echo_ipv4", "RFC 792, RFC 1122 3.2.2.6", "echo request to the router: echo reply with its data",
            west(request4), {**local, "slow_path.echo_replies": 1}, {"west": [echo4_reply(request4)]}),
        Row("echo_ipv6", "RFC 4443 4.2", "ICMPv6 echo request to the router: echo reply with its data",
            west(request6), {**local, "slow_path.echo_replies": 1}, {"west": [echo6_reply]}),
        Row("no_route_ipv4", "RFC 1812 5.2.7.1", "no route: destination unreachable (net)",
            west(no_route4), {"l3fwd.to_host_no_route": 1, "slow_path.unreachable": 1},
            {"west": [icmp4_error(no_route4, 3, 0)]}),
        Row("no_route_ipv6", "RFC 4443 3.1", "no route: destination unreachable (no route)",
            west(no_route6), {"l3fwd.to_host_no_route": 1, "slow_path.unreachable": 1},
            {"west": [icmp6_error(no_route6, ICMPv6DestUnreach(code=0))]}),
        # TTL and hop limit.
        Row("ttl_1", "RFC 1812 5.3.1, 4.3.2.3", "TTL 1: time exceeded in transit, quoting the datagram",
            west(ttl1), {"l3fwd.to_host_ttl": 1, "slow_path.time_exceeded": 1}, {"west": [icmp4_error(ttl1, 11, 0)]}),
        Row("ttl_0", "RFC 1812 5.3.1", "TTL 0: time exceeded in transit",
            west(ttl0), {"l3fwd.to_host_ttl": 1, "slow_path.time_exceeded": 1}, {"west": [icmp4_error(ttl0, 11, 0)]}),
        forwards("ttl_2", "RFC 1812 5.3.1", "TTL 2 is forwarded, with TTL 1", ttl2),
        Row("ttl_1_to_the_router", "RFC 1812 5.3.1", "TTL 1 to the router is answered (checked only when forwarding)",
            west(echo4(ttl=1)), {**local, "slow_path.echo_replies": 1}, {"west": [echo4_reply(echo4(ttl=1))]}),
        Row("hop_limit_1", "RFC 4443 3.3", "hop limit 1: time exceeded",
            west(hlim1), {"l3fwd.to_host_ttl": 1, "slow_path.time_exceeded": 1},
            {"west": [icmp6_error(hlim1, ICMPv6TimeExceeded(code=0))]}),
        Row("ttl_1_first_fragment", "RFC 1812 4.3.2.7", "a first fragment gets time exceeded",
            west(first_fragment), {"l3fwd.to_host_ttl": 1, "slow_path.time_exceeded": 1},
            {"west": [icmp4_error(first_fragment, 11, 0)]}),
        Row("ttl_1_later_fragment", "RFC 1812 4.3.2.7", "no ICMP error about a non-initial fragment",
            west(later_fragment), {"l3fwd.to_host_ttl": 1, "slow_path.unhandled": 1}),
        Row("hop_limit_1_later_fragment", "RFC 4443 3.3, 2.4(e)",
            "IPv6 has no fragment exception: a non-initial fragment gets time exceeded too",
            west(v6_later_fragment), {"l3fwd.to_host_ttl": 1, "slow_path.time_exceeded": 1},
            {"west": [icmp6_error(v6_later_fragment, ICMPv6TimeExceeded(code=0))]}),
        Row("ttl_1_icmp_error", "RFC 1812 4.3.2.7", "no ICMP error about an ICMP error",
            west(icmp_error_in_transit), {"l3fwd.to_host_ttl": 1, "slow_path.unhandled": 1}),
        Row("ttl_1_echo_in_transit", "RFC 1812 4.3.2.7", "an ICMP query in transit gets time exceeded",
            west(echo_in_transit), {"l3fwd.to_host_ttl": 1, "slow_path.time_exceeded": 1},
            {"west": [icmp4_error(echo_in_transit, 11, 0)]}),
        Row("hop_limit_1_icmpv6_error_behind_extension", "RFC 4443 2.4(e)",
            "no ICMPv6 error about an ICMPv6 error, behind a destination-options header too",
            west(icmp6_error_behind_ext), {"l3fwd.to_host_ttl": 1, "slow_path.unhandled": 1}),
        Row("padding_not_quoted", "RFC 792, RFC 1812 4.3.2.3", "the error quotes the datagram, not the padding",
            west(short_padded), {"l3fwd.to_host_ttl": 1, "slow_path.time_exceeded": 1},
            {"west": [icmp4_error(short_padded, 11, 0)]}),
        # Martian sources.
        Row("source_subnet_broadcast", "RFC 1812 5.3.7", "from a network's directed broadcast address: dropped",
            west(udp4(src="10.0.0.255")), {"l3fwd.drop_martian": 1}),
        Row("source_own_address", "RFC 1812 5.3.7 (Linux: martian source)", "from the router's own address: dropped",
            west(udp4(src=E4)), {"l3fwd.drop_martian": 1}),
        Row("source_loopback", "RFC 1812 5.3.7", "from 127/8: dropped",
            west(udp4(src="127.0.0.1")), {"l3fwd.drop_martian": 1}),
        # Echo requests the router does not answer.
        Row("echo_bad_checksum", "RFC 1122 3.2.2", "an echo request with a wrong ICMP checksum: no reply",
            west(echo4(spoil=True)), {**local, "slow_path.unhandled": 1}),
        Row("echo6_bad_checksum", "RFC 4443 2.3", "an ICMPv6 echo request with a wrong checksum: no reply",
            west(echo6(spoil=True)), {**local, "slow_path.malformed": 1}),
        Row("echo_fragment", "RFC 791 3.2, RFC 1122 3.2.2.6", "a fragment of an echo request (no reassembly): no reply",
            west(echo4(flags="MF")), {**local, "slow_path.unhandled": 1}),
        # Neighbour discovery and ARP the router ignores.
        Row("ns_zero_length_option", "RFC 4861 7.1.1", "a solicitation with a zero-length option: silently dropped",
            west(ns(W6, zero_length_option=True)), {**local, "slow_path.malformed": 1}),
        Row("ns_hop_limit_not_255", "RFC 4861 7.1.1", "a solicitation from off the link (hop limit 254): dropped",
            west(ns(W6, hlim=254)), {**local, "slow_path.malformed": 1}),
        Row("arp_from_multicast_mac", "RFC 1812 3.3.2", "an ARP request from a multicast sender MAC: no reply",
            west(arp(1, "01:00:5e:00:00:01", "ff:ff:ff:ff:ff:ff", "01:00:5e:00:00:01", A4, W4)),
            {**local, "slow_path.malformed": 1}),
        Row("arp_for_network_address", "RFC 1812 3.3.2 (Linux: no local route)", "ARP for 10.0.0.0: no reply",
            west(arp(1, A_MAC, "ff:ff:ff:ff:ff:ff", A_MAC, A4, "10.0.0.0")), {**local, **refused}),
        Row("arp_for_broadcast_address", "RFC 1812 3.3.2 (Linux: no local route)", "ARP for 10.0.0.255: no reply",
            west(arp(1, A_MAC, "ff:ff:ff:ff:ff:ff", A_MAC, A4, "10.0.0.255")), {**local, **refused}),
        # Options and extension headers.
        forwards("ipv4_unknown_options_forwarded", "RFC 1812 5.3.13.1", "unknown IPv4 options are forwarded unchanged",
                 with_unknown_option),
        forwards("ipv4_nop_options_forwarded", "RFC 791, RFC 1812 5.3.13.1", "no-operation and end-of-list: forwarded",
                 with_nops),
        Row("ipv4_router_alert", "RFC 2113 2.0, RFC 6398 3", "router alert in transit: forwarded (no use for it here)",
            west(router_alert4), {"l3fwd.to_host_options": 1, "slow_path.options_forwarded": 1},
            {"east": [forwarded(router_alert4)]}),
        Row("ipv4_source_route", "RFC 7126 4.3-4.4 (Linux: accept_source_route 0)", "loose source route: dropped",
            west(lsrr), {"l3fwd.to_host_options": 1, "slow_path.source_routes_dropped": 1}),
        Row("ipv4_strict_source_route", "RFC 7126 4.4 (Linux: accept_source_route 0)", "strict source route: dropped",
            west(ssrr), {"l3fwd.to_host_options": 1, "slow_path.source_routes_dropped": 1}),
        acted_on("ipv4_record_route", "RFC 1812 5.3.13.5, RFC 791 3.1",
                 "record route: east's address in the next slot, the pointer on by 4",
                 b"\x07\x0b\x04" + bytes(8), b"\x07\x0b\x08" + ip4(E4) + bytes(4)),
        forwards("ipv4_record_route_full", "RFC 791 3.1", "record route with no room left: forwarded unchanged",
                 with_option(b"\x07\x07\x08" + ip4(A4))),
        Row("ipv4_record_route_bad_pointer", "RFC 1812 4.3.3.5, RFC 791 3.1",
            "record route pointer below 4: parameter problem at the pointer",
            west(rr_bad_pointer), {"l3fwd.to_host_options": 1, "slow_path.parameter_problem": 1},
            {"west": [icmp4_error(rr_bad_pointer, 12, 0, 22 << 24)]}),
        acted_on("ipv4_timestamp", "RFC 1812 5.3.13.6, RFC 791 3.1", "timestamp flag 0: the time, the pointer on by 4",
                 b"\x44\x0c\x05\x00" + bytes(8), b"\x44\x0c\x09\x00" + bytes(8), [38]),
        acted_on("ipv4_timestamp_with_address", "RFC 1812 5.3.13.6, RFC 791 3.1 (Linux: the address facing the source)",
                 "timestamp flag 1: west's address and the time, the pointer on by 8",
                 b"\x44\x0c\x05\x01" + bytes(8), b"\x44\x0c\x0d\x01" + ip4(W4) + bytes(4), [42]),
        acted_on("ipv4_timestamp_prespecified_ours", "RFC 1812 5.3.13.6, RFC 791 3.1",
                 "timestamp flag 3, the next address the router's: the time after it",
                 b"\x44\x14\x05\x03" + ip4(E4) + bytes(4) + ip4(FAR4) + bytes(4),
                 b"\x44\x14\x0d\x03" + ip4(E4) + bytes(4) + ip4(FAR4) + bytes(4), [42]),
        acted_on("ipv4_timestamp_prespecified_theirs", "RFC 1812 5.3.13.6, RFC 791 3.1",
                 "timestamp flag 3, the next address another router's: unchanged",
                 b"\x44\x0c\x05\x03" + ip4(B4) + bytes(4), b"\x44\x0c\x05\x03" + ip4(B4) + bytes(4)),
        acted_on("ipv4_timestamp_overflow", "RFC 791 3.1", "timestamp with no room left: its overflow counter goes up",
                 b"\x44\x08\x09\x30" + bytes(4), b"\x44\x08\x09\x40" + bytes(4)),
        Row("ipv4_timestamp_overflow_wraps", "RFC 791 3.1, RFC 1812 4.3.3.5 (Linux)",
            "timestamp whose overflow counter would wrap: parameter problem at it",
            west(ts_wraps), {"l3fwd.to_host_options": 1, "slow_path.parameter_problem": 1},
            {"west": [icmp4_error(ts_wraps, 12, 0, 23 << 24)]}),
        Row("ipv4_bad_option", "RFC 1812 4.3.3.5, RFC 792", "a malformed option: parameter problem pointing at it",
            west(bad_option), {"l3fwd.to_host_options": 1, "slow_path.parameter_problem": 1},
            {"west": [icmp4_error(bad_option, 12, 0, 20 << 24)]}),
        forwards("hop_by_hop_padding_forwarded", "RFC 8200 4.3", "a Hop-by-Hop header of padding is forwarded",
                 hbh_pad),
        forwards("hop_by_hop_unknown_skip_forwarded", "RFC 8200 4.2", "unknown option, action 00: skipped, forwarded",
                 hbh_skip),
        Row("hop_by_hop_router_alert", "RFC 2711, RFC 6398 3", "router alert in transit: forwarded",
            west(hbh_alert), {"l3fwd.to_host_options": 1, "slow_path.options_forwarded": 1},
            {"east": [forwarded(hbh_alert)]}),
        Row("hop_by_hop_unknown_discard", "RFC 8200 4.2", "an unknown option of action 01: silently dropped",
            west(hbh_discard), {"l3fwd.to_host_options": 1, "slow_path.unhandled": 1}),
        Row("hop_by_hop_unknown_discard_icmp", "RFC 8200 4.2", "unknown option, action 10: parameter problem 2",
            west(hbh_discard_icmp), {"l3fwd.to_host_options": 1, "slow_path.parameter_problem": 1},
            {"west": [icmp6_error(hbh_discard_icmp, ICMPv6ParamProblem(code=2, ptr=42))]}),
        Row("hop_by_hop_option_past_header", "RFC 8200 4.2, RFC 4443 3.4",
            "an option longer than its header: parameter problem 0 at its length",
            west(hbh_option_too_long), {"l3fwd.to_host_options": 1, "slow_path.parameter_problem": 1},
            {"west": [icmp6_error(hbh_option_too_long, ICMPv6ParamProblem(code=0, ptr=43))]}),
        Row("hop_by_hop_header_past_packet", "RFC 8200 4.3, RFC 4443 3.4",
            "a Hop-by-Hop header longer than the payload: parameter problem 0 at its length",
            west(hbh_past_packet), {"l3fwd.to_host_options": 1, "slow_path.parameter_problem": 1},
            {"west": [icmp6_error(hbh_past_packet, ICMPv6ParamProblem(code=0, ptr=41))]}),
        Row("hop_by_hop_padding_over_7", "RFC 4942 2.1.9.5 (Linux ip6_parse_tlv)",
            "more than 7 bytes of padding in a row: dropped", west(hbh_long_padding), {"l3fwd.drop_bad_ext_header": 1}),
        Row("hop_by_hop_padn_not_zeros", "RFC 4942 2.1.9.5 (Linux ip6_parse_tlv)",
            "PadN whose bytes are not all zeros: dropped", west(hbh_padn_not_zeros), {"l3fwd.drop_bad_ext_header": 1}),
        Row("destination_options_padding_over_7", "RFC 4942 2.1.9.5 (Linux ip6_parse_tlv)",
            "an echo request to the router, its destination options 14 bytes of padding: dropped, not answered",
            west(echo6_long_padding), {"l3fwd.drop_bad_ext_header": 1}),
        # MTU.
        forwards("mtu_fits", "RFC 1812 5.2.6", "a 1500-byte packet fits east's MTU: forwarded", fits),
        Row("df_too_big", "RFC 1191 4, RFC 1812 5.2.7.1", "DF and too big: fragmentation needed with the next-hop MTU",
            west(df_big), {"l3fwd.to_host_too_big": 1, "slow_path.too_big": 1},
            {"west": [icmp4_error(df_big, 3, 4, EAST_MTU)]}),
        Row("non_df_fragmented", "RFC 791 3.2, RFC 1812 5.2.6", "too big without DF: fragmented to the MTU",
            west(non_df_big), {"l3fwd.to_host_too_big": 1, "slow_path.fragmented": 1},
            {"east": ipv4_fragments(non_df_big, EAST_MTU)}),
        Row("fragment_fragmented", "RFC 791 3.2", "a fragment too big: fragmented, offsets from its own, MF kept",
            west(fragment_big), {"l3fwd.to_host_too_big": 1, "slow_path.fragmented": 1},
            {"east": ipv4_fragments(fragment_big, EAST_MTU)}),
        Row("fragment_uncopied_option", "RFC 791 3.1 (option copied flag)",
            "an option whose copied flag is 0 is in the first fragment only (later ones: no-operations)",
            west(non_df_options), {"l3fwd.to_host_too_big": 1, "slow_path.fragmented": 1},
            {"east": ipv4_fragments(non_df_options, EAST_MTU, [IPOption(b"\x1e\x04\x12\x34")],
                                    [IPOption(b"\x01\x01\x01\x01")])}),
        Row("ipv6_packet_too_big", "RFC 4443 3.2, RFC 8200 5", "IPv6 too big: packet too big with the MTU",
            west(v6_big), {"l3fwd.to_host_too_big": 1, "slow_path.too_big": 1},
            {"west": [icmp6_error(v6_big, ICMPv6PacketTooBig(mtu=EAST_MTU))]}),
        # Neighbours.
        Row("resolve_ipv4", "RFC 826, RFC 1812 3.3.2", "an unresolved next hop: held, ARP request, sent once answered",
            [("west", to_new4, 0.0), ("east", clock("east"), 0.0), ("east", new_answers_arp, 0.3)],
            {"l3fwd.to_host_no_neighbour": 1, "l3fwd.drop_other_host": 1, **local, "slow_path.held": 1,
             "slow_path.arp_requests": 1, "slow_path.neighbours_learnt": 1, "slow_path.held_forwarded": 1},
            {"east": [arp_who_has_new, forwarded(to_new4, new_mac)]}),
        Row("resolve_ipv6", "RFC 4861 7.2.2, 7.2.5", "an unresolved next hop: held, solicitation, sent once advertised",
            [("west", to_new6, 0.0), ("east", clock("east"), 0.0), ("east", new_answers_na, 0.3)],
            {"l3fwd.to_host_no_neighbour": 1, "l3fwd.drop_other_host": 1, **local, "slow_path.held": 1,
             "slow_path.nd_solicitations": 1, "slow_path.neighbours_learnt": 1, "slow_path.held_forwarded": 1},
            {"east": [ns_new, forwarded(to_new6, new_mac)]}),
        Row("permanent_neighbour_arp", "Linux NUD_PERMANENT (issue 12)",
            "a gratuitous ARP claiming a permanent neighbour's address changes nothing",
            [("east", gratuitous_spoof, 0.0), ("west", clock("west"), 0.0), ("west", to_b4, 0.3)],
            {**local, **refused, "l3fwd.drop_other_host": 1, "l3fwd.forwarded_ipv4": 1}, {"east": [forwarded(to_b4)]}),
        Row("permanent_neighbour_na", "Linux NUD_PERMANENT, RFC 4861 7.2.5",
            "an unsolicited override NA claiming a permanent neighbour's address changes nothing",
            [("east", na_spoof, 0.0), ("west", clock("west"), 0.0), ("west", to_b6, 0.3)],
            {**local, **refused, "l3fwd.drop_other_host": 1, "l3fwd.forwarded_ipv6": 1}, {"east": [forwarded(to_b6)]}),
        Row("arp_accept_0", "Linux arp_accept=0, RFC 4861 7.2.5",
            "a gratuitous ARP from an unknown host creates no entry: the packet to it waits for resolution",
            [("east", gratuitous_new, 0.0), ("west", clock("west"), 0.0), ("west", to_new4, 0.3)],
            {**local, **refused, "l3fwd.drop_other_host": 1, "l3fwd.to_host_no_neighbour": 1, "slow_path.held": 1,
             "slow_path.arp_requests": 1},
            {"east": [arp_who_has_new]}),
    ]


def write(directory):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "routes.txt"), "w") as f:
        f.write(ROUTES)
    with open(os.path.join(directory, "neighbours.txt"), "w") as f:
        f.write(NEIGHBOURS)
    manifest = []
    for row in rows():
        for port in ("west", "east"):
            received = [(at, frame) for p, frame, at in row.send if p == port]
            if received:
                write_pcap(os.path.join(directory, "%s-%s.pcap" % (row.name, port)), received)
            if row.out.get(port):
                write_pcap(os.path.join(directory, "%s-%s.expected.pcap" % (row.name, port)),
                           [(0.0, frame) for frame in row.out[port]])
        manifest.append({"name": row.name, "clause": row.clause, "what": row.what, "counters": row.counters,
                         **({"xfail": row.xfail} if row.xfail else {}),
                         **({"stamps": row.stamps} if row.stamps else {})})
    with open(os.path.join(directory, "manifest.json"), "w") as f:
        json.dump({"rows": manifest}, f, indent=1, sort_keys=True)
        f.write("\n")
    return manifest


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    print("wrote %d rows into %s" % (len(write(target)), target))
