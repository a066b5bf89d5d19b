"""Traffic the e2e tests send: built with scapy, an implementation nobody here wrote."""
import random

from scapy.all import ARP, ICMP, IP, TCP, UDP, Ether, IPv6, Raw


def mixed_frames(count, seed=7):
    """IPv4/IPv6 TCP/UDP, ICMP and ARP frames in 24 flows, 60..1514 bytes (padded like a real MAC)."""
    rng = random.Random(seed)
    frames = []
    for i in range(count):
        flow = rng.randrange(24)
        eth = Ether(src="02:00:00:00:00:%02x" % (flow + 1), dst="02:00:00:00:01:00")
        body = Raw(bytes(rng.randrange(256) for _ in range(rng.choice([0, 10, 100, 700, 1400]))))
        kind = rng.choice(["u4", "t4", "u6", "t6", "icmp", "arp"])
        if kind == "u4":
            p = eth / IP(src="198.18.0.%d" % flow, dst="198.19.0.1") / UDP(sport=1000 + flow, dport=5001) / body
        elif kind == "t4":
            p = eth / IP(src="198.18.1.%d" % flow, dst="198.19.0.2") / TCP(sport=2000 + flow, dport=80, seq=i) / body
        elif kind == "u6":
            p = eth / IPv6(src="2001:db8::%x" % (flow + 1), dst="2001:db8:1::1") / UDP(sport=3000 + flow, dport=5001) / body
        elif kind == "t6":
            p = eth / IPv6(src="2001:db8::%x" % (flow + 1), dst="2001:db8:1::2") / TCP(sport=4000 + flow, dport=443) / body
        elif kind == "icmp":
            p = eth / IP(src="198.18.2.%d" % flow, dst="198.19.0.3") / ICMP(id=flow, seq=i)
        else:
            p = Ether(src="02:00:00:00:00:%02x" % (flow + 1), dst="ff:ff:ff:ff:ff:ff") / ARP(psrc="198.18.3.%d" % flow)
        raw = bytes(p)[:1514].ljust(60, b"\0")
        frames.append(raw)
    return frames


def flow_key(raw):
    """The 5-tuple a flow is kept in order by (RSS hashes these), or 'other' for non-IP frames."""
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
