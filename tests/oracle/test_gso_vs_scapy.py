"""gnf's segmentation of TSO/USO super-frames and its checksum completion (src/wire/gso.h,
offload.h; what the AF_PACKET link does with the kernel's virtio_net_hdr) against scapy: scapy
builds the super-frame and, header by header, the segments a NIC's TSO would send (each with its
own IP length, IPv4 id, TCP sequence number, flags and checksums, scapy's own); gnf's must be the
same bytes. Cases: TCP over IPv4 and IPv6, 802.1Q-tagged, with options, sequence numbers and IPv4
ids that wrap, FIN/PSH/CWR, UDP segmentation, sizes that divide evenly or not, and random ones."""
import random
import struct
import subprocess

import pytest
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

NEEDS_CSUM = 1
GSO = {"tcp4": 1, "tcp6": 4, "udp": 5}
MACS = dict(dst="02:00:00:00:01:00", src="02:00:00:00:00:0a")


def vnet(flags, gso_type, hdr_len, gso_size, csum_start, csum_offset):
    return struct.pack("<BBHHHH", flags, gso_type, hdr_len, gso_size, csum_start, csum_offset)


def run_tool(tool, header, frame):
    """gnf's frames for `frame` with virtio_net_hdr `header`: (exit code, [bytes])."""
    proc = subprocess.run([tool], input=header + frame, capture_output=True, timeout=30)
    out, frames = proc.stdout, []
    while out:
        n = struct.unpack("<I", out[:4])[0]
        frames.append(out[4:4 + n])
        out = out[4 + n:]
    return proc.returncode, frames


def l2(tagged):
    return Ether(**MACS) / Dot1Q(vlan=7) if tagged else Ether(**MACS)


def ip_layer(v6, **kw):
    if v6:
        return IPv6(src="2001:db8::2", dst="2001:db8:1::2", hlim=64)
    return IP(src="10.0.0.2", dst="10.0.1.2", ttl=64, flags="DF", **kw)


def partial(frame, l4, field, v6, proto):
    """`frame` with its L4 checksum field holding only the pseudo-header's sum, as a stack that
    leaves the checksum to the hardware writes it."""
    l3 = l4 - (40 if v6 else 20)
    addresses = frame[l3 + 8:l3 + 40] if v6 else frame[l3 + 12:l3 + 20]
    s = sum(struct.unpack("!%dH" % (len(addresses) // 2), addresses)) + proto + len(frame) - l4
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return frame[:l4 + field] + struct.pack("!H", s) + frame[l4 + field + 2:]


def tcp_case(v6, tagged, payload_len, mss, seq=1000, ip_id=4321, flags="PA", options=()):
    payload = bytes(random.getrandbits(8) for _ in range(payload_len))
    tcp = dict(sport=40000, dport=5201, ack=777, window=502, options=list(options))
    whole = l2(tagged) / ip_layer(v6, id=ip_id) / TCP(seq=seq, flags=flags, **tcp) / Raw(payload)
    frame = bytes(whole)
    l4 = (18 if tagged else 14) + (40 if v6 else 20)
    headers = l4 + len(bytes(whole[TCP])) - payload_len
    frame = partial(frame, l4, 16, v6, 6)
    expected = []
    chunks = [payload[i:i + mss] for i in range(0, payload_len, mss)] or [b""]
    for i, chunk in enumerate(chunks):
        f = set(str(whole[TCP].flags))
        if i + 1 < len(chunks):
            f -= {"F", "P"}
        if i > 0:
            f -= {"C"}
        seg = (l2(tagged) / ip_layer(v6, id=(ip_id + i) & 0xFFFF)
               / TCP(seq=(seq + i * mss) & 0xFFFFFFFF, flags="".join(sorted(f)) or 0, **tcp) / Raw(chunk))
        expected.append(bytes(seg))
    header = vnet(NEEDS_CSUM, GSO["tcp6" if v6 else "tcp4"], headers, mss, l4, 16)
    return header, frame, expected


def udp_case(v6, payload_len, size, ip_id=99):
    payload = bytes(random.getrandbits(8) for _ in range(payload_len))
    whole = l2(False) / ip_layer(v6, id=ip_id) / UDP(sport=40000, dport=5201) / Raw(payload)
    l4 = 14 + (40 if v6 else 20)
    frame = partial(bytes(whole), l4, 6, v6, 17)
    expected = [bytes(l2(False) / ip_layer(v6, id=(ip_id + i) & 0xFFFF) / UDP(sport=40000, dport=5201)
                      / Raw(payload[o:o + size]))
                for i, o in enumerate(range(0, payload_len, size))]
    return vnet(NEEDS_CSUM, GSO["udp"], l4 + 8, size, l4, 6), frame, expected


def differs(got, expected):
    if len(got) != len(expected):
        return "%d segments, scapy %d" % (len(got), len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        if g != e:
            first = next((k for k in range(min(len(g), len(e))) if g[k] != e[k]), min(len(g), len(e)))
            return "segment %d (%d B, scapy %d B) differs from byte %d:\n%s\n%s" % (
                i, len(g), len(e), first, Ether(g).show2(dump=True), Ether(e).show2(dump=True))
    return None


TCP_CASES = {
    "ipv4_even": dict(v6=False, tagged=False, payload_len=4 * 1448, mss=1448),
    "ipv4_64k": dict(v6=False, tagged=False, payload_len=65483, mss=1448, flags="FPA"),
    "ipv6_uneven": dict(v6=True, tagged=False, payload_len=10000, mss=1428),
    "ipv4_tagged_timestamps": dict(v6=False, tagged=True, payload_len=5000, mss=1436,
                                   options=[("NOP", None), ("NOP", None), ("Timestamp", (12345, 678))]),
    "ipv6_tagged": dict(v6=True, tagged=True, payload_len=3000, mss=1000),
    "wrapping_seq_and_id": dict(v6=False, tagged=False, payload_len=6000, mss=1448, seq=0xFFFFF000, ip_id=0xFFFE),
    "cwr_on_the_first_only": dict(v6=False, tagged=False, payload_len=3000, mss=1000, flags="CPA"),
    "one_segment": dict(v6=False, tagged=False, payload_len=500, mss=1448),
}


@pytest.mark.parametrize("case", list(TCP_CASES))
def test_tcp_super_frames_are_cut_as_scapy_builds_the_segments(gso_tool, case):
    random.seed(case)
    header, frame, expected = tcp_case(**TCP_CASES[case])
    code, got = run_tool(gso_tool, header, frame)
    assert code == 0
    problem = differs(got, expected)
    assert problem is None, problem


@pytest.mark.parametrize("v6", [False, True], ids=["ipv4", "ipv6"])
def test_udp_super_frames_are_cut_into_datagrams_as_scapy_builds_them(gso_tool, v6):
    random.seed(v6)
    header, frame, expected = udp_case(v6, 4000, 1400)
    code, got = run_tool(gso_tool, header, frame)
    assert code == 0
    problem = differs(got, expected)
    assert problem is None, problem


def test_random_super_frames_match_scapy(gso_tool):
    rng = random.Random(15)
    for n in range(40):
        random.seed(n)
        args = dict(v6=rng.random() < 0.5, tagged=rng.random() < 0.3, payload_len=rng.randint(1, 65000),
                    mss=rng.randint(536, 9000), seq=rng.getrandbits(32), ip_id=rng.getrandbits(16),
                    flags=rng.choice(["A", "PA", "FPA", "CA", "CPA"]))
        header, frame, expected = tcp_case(**args)
        code, got = run_tool(gso_tool, header, frame)
        assert code == 0, args
        problem = differs(got, expected)
        assert problem is None, (args, problem)


@pytest.mark.parametrize("v6", [False, True], ids=["ipv4", "ipv6"])
@pytest.mark.parametrize("proto", ["tcp", "udp"])
def test_partial_checksums_are_completed_as_scapy_computes_them(gso_tool, v6, proto):
    random.seed(proto)
    l4 = 14 + (40 if v6 else 20)
    transport = TCP(sport=1, dport=2, flags="PA", seq=5) if proto == "tcp" else UDP(sport=1, dport=2)
    whole = bytes(l2(False) / ip_layer(v6, id=1) / transport / Raw(b"partial checksum " * 20))
    field, number = (16, 6) if proto == "tcp" else (6, 17)
    code, got = run_tool(gso_tool, vnet(NEEDS_CSUM, 0, 0, 0, l4, field), partial(whole, l4, field, v6, number))
    assert code == 0
    assert got == [whole]


def test_metadata_that_does_not_match_the_frame_is_refused(gso_tool):
    header, frame, _ = tcp_case(v6=False, tagged=False, payload_len=3000, mss=1448)
    v6_header = vnet(NEEDS_CSUM, GSO["tcp6"], 54, 1448, 34, 16)
    assert run_tool(gso_tool, v6_header, frame)[0] == 3
    assert run_tool(gso_tool, header, frame[:-1])[0] == 3  # shorter than its IP header says
    assert run_tool(gso_tool, vnet(NEEDS_CSUM, GSO["tcp4"], 54, 1, 34, 16), frame)[0] == 4  # 3000 segments
