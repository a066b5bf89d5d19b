"""Traffic the e2e tests send: built with scapy, an implementation nobody here wrote."""
import random
import struct

from scapy.all import ARP, ICMP, IP, TCP, UDP, Ether, IPv6, Raw

MIN_FRAME, MAX_FRAME = 60, 1514  # without FCS, for a port with max_frame = 1518


def mixed_frames(count, seed=7, flows=24):
    """IPv4/IPv6 TCP/UDP, ICMP and ARP frames in `flows` flows, 60..1514 bytes (both ends included),
    short ones padded to 60 bytes as a real MAC pads them."""
    rng = random.Random(seed)
    frames = []
    for i in range(count):
        flow = rng.randrange(flows)
        size = rng.choice([MIN_FRAME, MAX_FRAME, rng.randrange(MIN_FRAME, MAX_FRAME + 1),
                           rng.randrange(MIN_FRAME, MAX_FRAME + 1)])
        eth = Ether(src="02:00:00:00:00:%02x" % (flow + 1), dst="02:00:00:00:01:%02x" % (i % 7))
        kind = rng.choice(["u4", "t4", "u6", "t6", "icmp", "arp"])
        if kind == "u4":
            p = eth / IP(src="198.18.0.%d" % flow, dst="198.19.0.1") / UDP(sport=1000 + flow, dport=5001)
        elif kind == "t4":
            p = eth / IP(src="198.18.1.%d" % flow, dst="198.19.0.2") / TCP(sport=2000 + flow, dport=80, seq=i)
        elif kind == "u6":
            p = eth / IPv6(src="2001:db8::%x" % (flow + 1), dst="2001:db8:1::1") / UDP(sport=3000 + flow, dport=5001)
        elif kind == "t6":
            p = eth / IPv6(src="2001:db8::%x" % (flow + 1), dst="2001:db8:1::2") / TCP(sport=4000 + flow, dport=443, seq=i)
        elif kind == "icmp":
            p = eth / IP(src="198.18.2.%d" % flow, dst="198.19.0.3") / ICMP(id=flow, seq=i)
        else:
            p = Ether(src="02:00:00:00:00:%02x" % (flow + 1), dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="198.18.3.%d" % flow)
        if kind != "arp":
            p = p / Raw(bytes(rng.randrange(256) for _ in range(max(0, size - len(p)))))
        raw = bytes(p).ljust(size, b"\0")  # ARP: an Ethernet trailer of zeros
        assert MIN_FRAME <= len(raw) <= MAX_FRAME
        frames.append(raw)
    return frames


def flow_key(raw):
    """The flow a frame belongs to: IP version, addresses, protocol and ports (RSS hashes a subset
    of these, so one such flow always lands in one queue), or 'other' for non-IP frames."""
    p = Ether(raw)
    if IP in p:
        l4 = p[IP].payload
        return ("4", p[IP].src, p[IP].dst, p[IP].proto, getattr(l4, "sport", 0), getattr(l4, "dport", 0))
    if IPv6 in p:
        l4 = p[IPv6].payload
        return ("6", p[IPv6].src, p[IPv6].dst, p[IPv6].nh, getattr(l4, "sport", 0), getattr(l4, "dport", 0))
    return "other"


def swap_macs(raw):
    return raw[6:12] + raw[0:6] + raw[12:]


def write_raw_pcap(path, records, linktype=1, snaplen=65535):
    """A classic microsecond pcap written by hand, so records can be what no library would write.
    records: (captured bytes, original length) pairs; a caplen below the length is a truncated record."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, snaplen, linktype))
        for i, (data, orig) in enumerate(records):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000000, i % 1000000, len(data), orig))
            f.write(data)
