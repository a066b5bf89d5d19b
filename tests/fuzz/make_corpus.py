#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/ (or into
<folder>/<target>/ for the folder given).

frame_path_fuzz's input (see frame_path_fuzz.cpp): 5 config bytes, then frames as a 2-byte
little-endian length and that many bytes. The seeds are small, deterministic and cover: stamped
IPv4/IPv6 UDP (so the MeasuringSink decodes real stamps), TCP, an 802.1Q and an 802.1ad frame, an
IPv6 extension header, a fragment, ARP, runts and oversize frames, and configurations from gentle
to overloaded.

The file readers' seeds are the repository's own files (configs, route tables, captures; copied
again by each run of this script) and a few small ones made here: a pcapng file, other pcap
byte orders and timestamp precisions, a link type that is not Ethernet, files cut short.
"""
import os
import struct
import sys

STAMP_MAGIC = 0x6E66


def config(queues=1, drop_en=True, ring=1, mac=0, flow_control=False, completion=0, burst=2, tail_batch=0,
           polls=0, jumbo=False, slot=0, small_rx_buffer=False, pool=0, fast=False, other_tx_ring=False,
           step=0, small_tx_buffer=False, no_udp_hash=False, no_tcp_hash=False, no_ipv4=False, no_ipv6=False,
           late_clock=False, tx_full_wait=False, writeback_batch=0, tail_timeout=0):
    c0 = (queues - 1) | drop_en << 2 | ring << 3 | mac << 5 | flow_control << 7
    c1 = completion | burst << 2 | tail_batch << 4 | polls << 6
    c2 = jumbo | slot << 1 | small_rx_buffer << 3 | pool << 4 | fast << 6 | other_tx_ring << 7
    c3 = step | small_tx_buffer << 2 | no_udp_hash << 3 | no_tcp_hash << 4 | no_ipv4 << 5 | no_ipv6 << 6 | late_clock << 7
    c4 = tx_full_wait | writeback_batch << 1 | tail_timeout << 3
    return bytes([c0, c1, c2, c3, c4])


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(ethertype, vlan=None, dst=b"\x02\0\0\0\0\x01", src=b"\x02\0\0\0\0\x02"):
    h = dst + src
    if vlan is not None:
        tpid, vid = vlan
        h += struct.pack("!HH", tpid, vid)
    return h + struct.pack("!H", ethertype)


def stamp(flow, seq, send_ns):
    return struct.pack("<QQH", flow << 48 | seq, send_ns, STAMP_MAGIC)


def ipv4(proto, payload, src=(198, 18, 0, 1), dst=(198, 19, 0, 1), frag=0, options=b""):
    ihl = 5 + len(options) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, 4 * ihl + len(payload), 0x1234, frag, 64, proto, 0,
                    bytes(src), bytes(dst)) + options
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(next_header, payload, src_last=1, dst_last=2):
    src = bytes([0x20, 0x01, 0x0D, 0xB8] + [0] * 11 + [src_last])
    dst = bytes([0x20, 0x01, 0x0D, 0xB8] + [0] * 11 + [dst_last])
    return struct.pack("!IHBB", 0x60000000, len(payload), next_header, 64) + src + dst + payload


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp(sport, dport, payload):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x18, 65535, 0, 0) + payload


def pad(frame, length=60):
    return frame + b"\0" * max(0, length - len(frame))


def frames(*fs):
    return b"".join(struct.pack("<H", len(f)) + f for f in fs)


def stamped_v4(flow, seq, size=0, vlan=None):
    body = stamp(flow, seq, 1_000_000 + seq * 100) + b"\xab" * size
    return pad(eth(0x0800, vlan) + ipv4(17, udp(1000 + flow, 5001, body)))


def stamped_v6(flow, seq, size=0):
    body = stamp(flow, seq, 1_000_000 + seq * 100) + b"\xcd" * size
    return pad(eth(0x86DD) + ipv6(17, udp(2000 + flow, 5001, body), src_last=flow))


FRAME_PATH_SEEDS = {
    # Stamped IPv4 UDP, four flows, one queue, gentle defaults.
    "ipv4_udp_stamped": config() + frames(*(stamped_v4(i % 4, i // 4) for i in range(16))),
    # The same with the clock 11.6 days on (send times of 1 ms: latencies of days), a duplicate
    # and a reordered frame.
    "late_clock_dup_reorder": config(late_clock=True)
    + frames(*(stamped_v4(0, i) for i in (0, 1, 3, 2, 3, 4, 1))),
    # Stamped IPv6 UDP and IPv6/IPv4 TCP spread over four queues, MAC swap, TDH completion.
    "ipv6_mixed_4q": config(queues=4, mac=1, completion=1)
    + frames(*(stamped_v6(i % 3, i // 3, size=i * 7) for i in range(9)),
             *(pad(eth(0x86DD) + ipv6(6, tcp(3000 + i, 80, b"x" * i), src_last=i)) for i in range(4)),
             *(pad(eth(0x0800) + ipv4(6, tcp(4000 + i, 443, b"y" * i))) for i in range(4))),
    # 802.1Q and 802.1ad tagged frames (the stamp sits 4 bytes later), MAC rewrite, head write-back.
    "vlan": config(queues=2, mac=2, completion=2)
    + frames(*(stamped_v4(1, i, vlan=(0x8100, 100)) for i in range(4)),
             pad(eth(0x0800, vlan=(0x88A8, 7)) + ipv4(17, udp(7, 9, b"qinq"))),
             pad(eth(0x86DD, vlan=(0x8100, 5)) + ipv6(17, udp(1, 2, stamp(9, 0, 5))))),
    # Runts (0, 1, 13, 59 bytes), the smallest and largest standard frames, oversize (1515).
    "runts_oversize": config(ring=0, burst=1)
    + frames(b"", b"\x01", eth(0x0800)[:13], b"\x02" * 59, pad(eth(0x0800)), stamped_v4(0, 0, size=1514 - 60),
             b"\x03" * 1515, stamped_v4(0, 1)),
    # Jumbo frames (up to 9014 bytes; the fuzzer gives jumbo 9 KiB slots), tx ring != rx ring.
    "jumbo": config(jumbo=True, ring=0, other_tx_ring=True)
    + frames(stamped_v4(2, 0, size=3000), stamped_v4(2, 1, size=1600), stamped_v6(3, 0, size=2000)),
    # 1 KiB slots: frames over 1024 bytes meet "rx buffer too small".
    "small_slots": config(slot=3, queues=2)
    + frames(stamped_v4(0, 0, size=1100), stamped_v4(0, 1), stamped_v4(1, 0, size=900)),
    # Odd L3: IPv4 options, a later fragment, an IPv6 hop-by-hop header, ARP, garbage after a
    # valid header; RSS hash types partly off; the smallest pool (rx ring + 1 slots), burst 1.
    "odd_l3": config(queues=3, pool=1, burst=0, no_udp_hash=True, no_ipv6=True, step=1)
    + frames(pad(eth(0x0800) + ipv4(17, udp(1, 2, stamp(0, 0, 1)), options=b"\x01\x01\x01\x00")),
             pad(eth(0x0800) + ipv4(17, b"\0" * 30, frag=0x0010)),
             pad(eth(0x86DD) + ipv6(0, bytes([17, 0, 1, 4, 0, 0, 0, 0]) + udp(5, 6, stamp(1, 0, 2)))),
             pad(eth(0x0806) + bytes([0, 1, 8, 0, 6, 4, 0, 1]) + b"\x02" * 20),
             pad(eth(0x0800) + b"\x4f" + b"\xff" * 40),
             pad(eth(0x86DD) + b"\x60" + b"\xff" * 50)),
    # Overload: 300 minimum-size frames (19 KiB) into a 16 KiB rx buffer while the NIC is polled 40 times per
    # driver round, 8-entry rings, DROP_EN off (head-of-line blocking, missed frames), tail batching.
    "overload": config(queues=2, drop_en=False, ring=0, polls=3, small_rx_buffer=True, tail_batch=3, fast=True,
                       small_tx_buffer=True)
    + frames(*(stamped_v4(i % 8, i // 8) for i in range(300))),
    # The same with flow control: the link partner is paused, nothing may be missed.
    "flow_control": config(queues=2, drop_en=False, ring=0, polls=3, small_rx_buffer=True, flow_control=True,
                           fast=True)
    + frames(*(stamped_v4(i % 5, i // 5) for i in range(300))),
    # 64-entry rx rings, 8-entry tx rings, bursts of 32: the tx ring overflows (tx_ring_full).
    "tx_ring_full": config(ring=2, other_tx_ring=True, burst=2, polls=3, fast=True)
    + frames(*(stamped_v4(0, i) for i in range(48))),
    # The same with tx_full = "wait": a backlog instead of drops, the rx side backs up; rx
    # write-backs one at a time, a 20 us tail timeout.
    "tx_full_wait": config(ring=2, other_tx_ring=True, burst=2, polls=3, fast=True, tx_full_wait=True,
                           writeback_batch=1, tail_timeout=2, tail_batch=3)
    + frames(*(stamped_v4(0, i) for i in range(48))),
}


REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def repo_file(path, limit=None):
    with open(os.path.join(REPO, path), "rb") as f:
        return f.read(limit)


def pcap(records, magic=0xA1B2C3D4, endian="<", linktype=1, snaplen=65535):
    """A pcap file; records are (seconds, fraction, frame[, captured length])."""
    out = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for seconds, fraction, frame, *caplen in records:
        out += struct.pack(endian + "IIII", seconds, fraction, caplen[0] if caplen else len(frame), len(frame))
        out += frame[: caplen[0]] if caplen else frame
    return out


def pcapng_block(block_type, body):
    body += b"\0" * (-len(body) % 4)
    length = 12 + len(body)
    return struct.pack("<II", block_type, length) + body + struct.pack("<I", length)


def pcapng(frames):
    """A pcapng file: a section header, one Ethernet interface, an enhanced packet block per frame."""
    out = pcapng_block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += pcapng_block(1, struct.pack("<HHI", 1, 0, 65535))
    for i, frame in enumerate(frames):
        out += pcapng_block(6, struct.pack("<IIIII", 0, 0, 1000 * i, len(frame), len(frame)) + frame)
    return out


def sample_head(records):
    """tests/data/sample.pcap cut after `records` records (the whole file is 860 KB)."""
    data = repo_file("tests/data/sample.pcap")
    at = 24
    for _ in range(records):
        at += 16 + struct.unpack_from("<I", data, at + 8)[0]
    return data[:at]


def router_frames(pcap_bytes, port=0):
    """The frames of a little-endian microsecond pcap as router_fuzz's input: per frame its port
    byte, its length (2 bytes, little-endian) and its bytes."""
    out, at = b"", 24
    while at + 16 <= len(pcap_bytes):
        incl = struct.unpack_from("<I", pcap_bytes, at + 8)[0]
        frame = pcap_bytes[at + 16:at + 16 + incl]
        out += bytes([port]) + struct.pack("<H", len(frame)) + frame
        at += 16 + incl
    return out


def router_seed(*frames_by_port):
    return b"".join(bytes([port]) + struct.pack("<H", len(f)) + f for port, f in frames_by_port)


def null_esp(seq, inner, next_header, pad_to=4, src=(172, 16, 1, 5), dst=(172, 16, 2, 5)):
    """A NULL/NULL ESP tunnel frame of SA 5 (esp_fuzz's configurations 0 and its ESN twin)."""
    padding = -(len(inner) + 2) % pad_to
    esp = struct.pack("!II", 5, seq) + inner + bytes(range(1, padding + 1)) + bytes([padding, next_header])
    return eth(0x0800) + ipv4(50, esp, src=src, dst=dst)


def ipsec_seeds():
    key = b"2b:7e:15:16:28:ae:d2:a6:ab:f7:15:88:09:cf:4f:3d"
    inner4 = ipv4(17, udp(1, 2, b"seed" * 10), src=(10, 0, 0, 1), dst=(192, 168, 1, 1))
    inner6 = ipv6(17, udp(3, 4, b"seed" * 10))
    return {
        "ipsec_config_fuzz": {
            "secgw.cfg": b"sa out 5 cipher_algo aes-128-cbc cipher_key " + key + b" auth_algo sha1-hmac auth_key " + key
                         + b":01:02:03:04 \\\n  mode ipv4-tunnel src 172.16.1.5 dst 172.16.2.5 type no-offload port_id 1\n"
                         b"sa in 7 aead_algo aes-256-gcm aead_key " + key + b":" + key + b":de:ad:be:ef mode ipv6-tunnel "
                         b"src 1111::5 dst 2222::5\nsa out 9 cipher_algo null auth_algo null mode transport\n"
                         b"sp ipv4 out esp protect 5 pri 1 dst 192.168.105.0/24 sport 0:65535 dport 0:65535\n"
                         b"sp ipv6 in esp protect 7 pri 3 src 2001:db8::/32 proto 17 dport 53:53\n"
                         b"sp ipv4 out esp bypass pri 10 src 10.0.0.0/8 # management\nsp ipv4 in esp discard\n",
            "bad_key.cfg": b"sa out 5 aead_algo aes-128-gcm aead_key 01:02 mode transport\n",
            "unknown_spi.cfg": b"sp ipv4 out esp protect 5 pri 1\n",
        },
        "esp_fuzz": {
            # NULL/NULL IPv4 tunnel: decrypted, replayed, bad padding, bad next header, unknown SPI,
            # and clear frames for outbound to protect.
            "null_tunnel": bytes([0]) + frames(
                null_esp(1, inner4, 4), null_esp(1, inner4, 4), null_esp(2, inner4, 4, pad_to=16),
                null_esp(3, inner6, 41), null_esp(4, inner4, 59), null_esp(5, inner4, 17),
                null_esp(6, inner4, 4)[:-3] + b"\x07\x02\x04", pad(eth(0x0800) + inner4), eth(0x86DD) + inner6),
            "null_tunnel_esn_moving": bytes([0xC0]) + frames(null_esp(0xFFFFFFF0, inner4, 4), null_esp(0x10, inner4, 4),
                                                            pad(eth(0x0800) + inner4)),
            "gcm_transport": bytes([11]) + frames(pad(eth(0x0800) + inner4), eth(0x86DD) + inner6,
                                                  eth(0x0800) + ipv4(50, b"\0\0\0\5" + b"\0" * 40)),
            "cbc_ipv6_tunnel": bytes([7]) + frames(pad(eth(0x0800) + inner4), eth(0x86DD) + inner6, pad(eth(0x0806))),
        },
    }


def file_seeds():
    configs = sorted(name for name in os.listdir(os.path.join(REPO, "configs")) if name.endswith(".toml"))
    toml = {name: repo_file(os.path.join("configs", name)) for name in configs}
    udp4 = pad(eth(0x0800) + ipv4(17, udp(1, 2, b"seed")))
    udp6 = pad(eth(0x86DD) + ipv6(17, udp(3, 4, b"seed")))
    return {
        "config_fuzz": {
            **toml,
            "minimal.toml": b"[[port]]\n",
            "two_ports.toml": b'path = "staged"\n[driver]\nslot_size = 2048\nrx_ring = 64\n'
                              b'[[port]]\nname = "a"\nqueues = 2\n[[port]]\nname = "b"\nqueues = 2\n'
                              b'ipv6 = "2001:db8::1/64"\n',
            "escapes.toml": b'[[port]]\nname = "p\\u00e9\\t"\n"quoted key" = 1\n',
        },
        "route_file_fuzz": {
            "routes.txt": repo_file("configs/l3fwd-routes.txt"),
            "bench_routes.txt": repo_file("configs/l3fwd-bench-routes.txt"),
            "neighbours_and_routes.txt": repo_file("configs/l3fwd-neighbours.txt") + b"---\n"
                                         + repo_file("configs/l3fwd-routes.txt"),
            "dpdk.txt": b"R10.0.0.0/8 1\n",
            "gateways.txt": b"10.0.1.2 02:aa:bb:cc:dd:01 1\n---\n10.8.0.0/16 10.0.1.2 1\n"
                            b"2001:db8:8::/48 blackhole\n0.0.0.0/0 10.0.0.9\n10.8.1.128/25 blackhole\n",
        },
        "router_fuzz": {
            # tests/data/router.pcap: ARP, pings, routed and unrouted destinations, expiring TTLs.
            "router_pcap": router_frames(repo_file("tests/data/router.pcap")),
            # To the router's MAC: through the resolved gateway, the unresolved one, too big for
            # port 1 with and without DF, a router alert option.
            "transit": router_seed(
                (0, pad(eth(0x0800, dst=b"\x02\0\0\0\x01\0") + ipv4(17, udp(1, 2, b"x" * 20), src=(10, 0, 0, 5),
                                                                        dst=(192, 0, 2, 7)))),
                (0, pad(eth(0x0800, dst=b"\x02\0\0\0\x01\0") + ipv4(17, udp(1, 2, b"x" * 20), src=(10, 0, 0, 5),
                                                                        dst=(198, 51, 100, 7)))),
                (0, eth(0x0800, dst=b"\x02\0\0\0\x01\0") + ipv4(17, udp(1, 2, b"y" * 3000), src=(10, 0, 0, 5),
                                                                    dst=(192, 0, 2, 8))),
                (0, eth(0x0800, dst=b"\x02\0\0\0\x01\0") + ipv4(17, udp(1, 2, b"z" * 1600), src=(10, 0, 0, 5),
                                                                    dst=(192, 0, 2, 9), frag=0x4000)),
                (0, pad(eth(0x0800, dst=b"\x02\0\0\0\x01\0") + ipv4(17, udp(1, 2, b"o"), src=(10, 0, 0, 5),
                                                                        dst=(192, 0, 2, 10), options=b"\x94\x04\0\0"))),
            ),
        },
        "acl_rule_file_fuzz": {
            "l3fwd_acl.txt": b"# l3fwd-acl's lines\n@192.168.0.0/16 10.1.0.0/24 0 : 65535 80 : 80 0x06/0xff\n"
                             b"R0.0.0.0/0 10.2.0.0/16 0 : 65535 0 : 65535 0/0 3\n",
            "actions.txt": b"@10.1.0.0/16 0.0.0.0/0 1024:65535 1000 : 2000 6/0xff deny\n"
                           b"@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 0x04/0x0c count\n"
                           b"@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 permit\n",
            "ipv6.txt": b"@2001:db8::/32 ::/0 0 : 65535 443 : 443 6/0xff permit\n"
                        b"@2001:db8:0:1::/64 2001:db8::1/128 0:0 65535:65535 58/0xff\n@::/0 ::/0 0 : 65535 0 : 65535 0/0\n",
            "bad_line.txt": b"@10.0.0.0/8 10.1.0.0/16 0 : 65535 81 : 80 6/0xff\n",
        },
        "acl_frame_fuzz": {
            "udp4": udp4,
            "udp6": udp6,
            "tcp4_vlan": pad(eth(0x0800, vlan=(0x8100, 5)) + ipv4(6, tcp(1234, 80, b""), src=(10, 1, 2, 3))),
            "fragment4": pad(eth(0x0800) + ipv4(17, b"x" * 8, frag=100)),
            # Hop-by-Hop, then a first fragment, then TCP to 443.
            "ipv6_extensions": pad(eth(0x86DD) + ipv6(0, bytes([44, 0, 1, 4, 0, 0, 0, 0]) + bytes([6, 0, 0, 1, 0, 0, 0, 9])
                                                      + tcp(5, 443, b""))),
            "arp": pad(eth(0x0806) + b"\0" * 28),
        },
        "pcap_reader_fuzz": {
            "router.pcap": repo_file("tests/data/router.pcap"),
            "sample_head.pcap": sample_head(20),
            # Nanosecond timestamps, big-endian, out of order, a record captured short.
            "nanosecond_big_endian.pcap": pcap([(5, 999_999_999, udp4), (4, 1, udp6), (6, 0, udp4, 20)],
                                               magic=0xA1B23C4D, endian=">"),
            "raw_ip.pcap": pcap([(0, 0, udp4[14:])], linktype=101),
            "pcapng.pcapng": pcapng([udp4, udp6]),
            "truncated_header.pcap": pcap([])[:10],
            "truncated_record.pcap": pcap([(0, 0, udp4), (0, 1, udp6)])[:-10],
        },
    }


def nids_seeds():
    rules = (b'alert tcp $EXTERNAL_NET any -> $HOME_NET [80,8080:8090] (msg:"GET cmd"; content:"GET |20|/"; '
             b'nocase; depth:8; content:"cmd.exe"; distance:0; within:200; classtype:web-application-attack; '
             b'priority:1; sid:1001; rev:2;)\n'
             b'drop udp any any <> 10.0.0.0/8 !53 (content:"evil"; offset:2; content:"|00 ff|"; sid:1002;)\n'
             b'pass ip [10.0.0.0/8,!10.9.0.0/16] any -> any any (content:"ok"; sid:1003;)\n'
             b'alert icmp any any -> any any (sid:1004;)\n'
             b'alert tcp any any -> any any (content:"a"; pcre:"/a+/"; sid:1005;)\n')
    http = b"GET /scripts/cmd.exe?/c+dir HTTP/1.1\r\nHost: x\r\n\r\n"
    return {
        "nids_fuzz": {
            "http_tcp4": rules + b"---\n" + eth(0x0800) + ipv4(6, tcp(40000, 80, http), src=(198, 18, 0, 1),
                                                               dst=(10, 0, 0, 1)),
            "udp4_drop": rules + b"---\n" + pad(eth(0x0800) + ipv4(17, udp(5, 99, b"xxevil\0\xff"), dst=(10, 1, 1, 1))),
            "udp6": rules + b"---\n" + pad(eth(0x86DD) + ipv6(17, udp(3, 4, b"ok evil"))),
            "fragment4": rules + b"---\n" + pad(eth(0x0800) + ipv4(17, b"evil ok " * 4, frag=100)),
            "vars_lists": b"alert tcp ![$HOME_NET,192.0.2.0/24] :1023 -> [$HOME_NET] 1024: "
                          b"(content:\"A\"; content:\"B\"; distance:-1; within:3; sid:1;)\n---\n"
                          + pad(eth(0x0800) + ipv4(6, tcp(80, 2000, b"xAB"), src=(192, 0, 3, 1), dst=(10, 2, 3, 4))),
        },
    }


def ctl_command_seeds():
    """Request lines for the control socket (app/ctl_command.h): each command with and without
    --json, blanks as a client may type them, words cut at NULs (ctl_command_fuzz's `gnf ctl`
    words), refusals, and bytes that are no UTF-8 or no printable ASCII."""
    commands = [b"show ports", b"show queues", b"show nf", b"show runtime", b"clear counters"]
    seeds = {}
    for command in commands:
        name = command.decode().replace(" ", "_")
        seeds[name] = command
        seeds[name + "_json"] = command + b" --json"
    seeds.update({
        "json_first_tabs": b"--json\tshow \t runtime  ",
        "words": b"show\0nf\0--json",
        "empty": b"",
        "unknown": b"show port",
        "too_many_words": b"clear counters now",
        "not_utf8": b"show \xff\xfe ports",
        "nul_and_escape": b"show ports\0\x1b[2J",
        # Commands with arguments: routes on the fuzz target's router, reloads, captures (none there).
        "show_route": b"show route",
        "show_route_address": b"show route 10.0.1.7 --json",
        "show_route_prefix6": b"show route 2001:db8::/32",
        "route_add_via": b"route add 10.9.0.0/16 via 10.0.1.2",
        "route_add_via_port": b"route add 2001:db8:9::/48 via 2001:db8:1::2 port 1 --json",
        "route_add_port": b"route add 198.18.0.0/15 port 0",
        "route_add_blackhole": b"route add 10.66.0.0/16 blackhole",
        "route_add_bits_beyond": b"route add 10.9.0.1/16 via 10.0.1.2",
        "route_del": b"route del 10.9.0.0/16",
        "route_del_absent": b"route del 10.77.0.0/16",
        "reload": b"reload --json",
        "reload_nf": b"reload nf 0",
        "reload_type": b"reload acl",
        "acl_reload": b"acl reload",
        "sa_reload": b"sa reload",
        "pcap_start": b"pcap start port0 /tmp/x.pcap rx max 10",
        "pcap_stop": b"pcap stop port0",
    })
    return {"ctl_command_fuzz": seeds}


def offload_seeds():
    """What the AF_PACKET link reads off a veth (offload_fuzz): a virtio_net_hdr (flags, gso_type,
    hdr_len, gso_size, csum_start, csum_offset; little-endian, as an x86 kernel writes it), then the
    frame: TSO super-frames of IPv4 and IPv6 (one tagged), a USO one, a partial TCP and UDP checksum,
    a frame with no offload and an unknown GSO type."""
    def vnet(flags=0, gso=0, hdr_len=0, gso_size=0, start=0, offset=0):
        return struct.pack("<BBHHHH", flags, gso, hdr_len, gso_size, start, offset)
    payload = bytes((i * 131) & 0xFF for i in range(6000))
    tcp4 = eth(0x0800) + ipv4(6, tcp(40000, 5201, payload))
    tcp6 = eth(0x86DD) + ipv6(6, tcp(40000, 5201, payload[:4000]))
    tagged = eth(0x0800, vlan=(0x8100, 7)) + ipv4(6, tcp(40000, 5201, payload[:3000]))
    udp4 = eth(0x0800) + ipv4(17, udp(40000, 5201, payload[:5000]))
    return {"offload_fuzz": {
        "tso_ipv4": vnet(1, 1, 54, 1448, 34, 16) + tcp4,
        "tso_ipv6_ecn": vnet(1, 0x84, 74, 1428, 54, 16) + tcp6,
        "tso_tagged": vnet(1, 1, 58, 1000, 38, 16) + tagged,
        "gro_ipv4_data_valid": vnet(2, 1, 54, 1448, 0, 0) + tcp4,
        "uso_ipv4": vnet(1, 5, 42, 1400, 34, 6) + udp4,
        "partial_tcp": vnet(1, 0, 0, 0, 34, 16) + eth(0x0800) + ipv4(6, tcp(1, 2, b"hello")),
        "partial_udp6": vnet(1, 0, 0, 0, 54, 6) + eth(0x86DD) + ipv6(17, udp(1, 2, b"hello")),
        "plain": vnet() + stamped_v4(0, 0),
        "unknown_gso": vnet(1, 3, 42, 1400, 34, 6) + udp4,
    }}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    corpora = {"frame_path_fuzz": FRAME_PATH_SEEDS, **file_seeds(), **ipsec_seeds(), **nids_seeds(),
               **ctl_command_seeds(), **offload_seeds()}
    for target, seeds in corpora.items():
        os.makedirs(os.path.join(out, target), exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(out, target, name), "wb") as f:
                f.write(data)
        print(f"{len(seeds)} seeds in {os.path.join(out, target)}")


if __name__ == "__main__":
    main()
