"""The ipsec NF end to end on the cpu path: configs/ipsec-gw.toml (ipsec, then l3fwd) as shipped,
with scapy's ESP (scapy.layers.ipsec.SecurityAssociation) as the peer gateway. Plain packets from
the site go in on the protected port and scapy decrypts what leaves the unprotected one; scapy's
ESP goes in on the unprotected port and what leaves the protected one must be its inner packets,
routed. Each of the example's SA pairs is crossed both ways: AES-128-CBC + HMAC-SHA1-96 over an
IPv4 tunnel, AES-128-GCM over an IPv6 tunnel, AES-256-GCM (IPv6 inside IPv4) and AES-128-GCM in
IPv4 transport mode. The peer's capture then comes again, whole: every replayed frame is dropped
and counted, per SA too."""
import collections
import os
import re

from scapy.all import IP, UDP, Ether, IPv6, Raw, rdpcap, wrpcap
from scapy.layers.ipsec import ESP, SecurityAssociation

from checks import assert_balanced

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CONFIGS = os.path.join(REPO, "configs")

GNF_INSIDE, GNF_OUTSIDE = "02:00:00:00:01:00", "02:00:00:00:01:01"
SITE_HOST, PEER = "02:00:00:00:01:0a", "02:00:00:00:02:09"
SITE4, SITE6 = "192.168.1.10", "2001:db8:a::10"
OUR_END4, PEER_END4, OUR_END6, PEER_END6 = "172.16.1.5", "172.16.1.9", "2001:db8:1::5", "2001:db8:1::9"
INNER_IP_LENGTHS = [46, 200, 1000, 1400]


def read_sas(path):
    """spi -> (direction, words) of each sa line of an ipsec-secgw file (continuations joined)."""
    text = re.sub(r"\\\n", " ", open(path).read())
    sas = {}
    for line in text.splitlines():
        words = line.split("#")[0].split()
        if words[:1] == ["sa"]:
            sas[int(words[2])] = (words[1], words)
    return sas


def key_of(words, name):
    return bytes.fromhex(words[words.index(name) + 1].replace(":", ""))


def scapy_sa(words):
    """scapy's side of a gnf sa line: the same algorithms, keys and tunnel."""
    spi = int(words[2])
    if "aead_algo" in words:
        crypt, crypt_key, auth, auth_key = "AES-GCM", key_of(words, "aead_key"), "NULL", None
    else:
        crypt, crypt_key = "AES-CBC", key_of(words, "cipher_key")
        auth, auth_key = "HMAC-SHA1-96", key_of(words, "auth_key")
    mode = words[words.index("mode") + 1]
    tunnel = None
    if mode != "transport":
        src, dst = words[words.index("src") + 1], words[words.index("dst") + 1]
        tunnel = IP(src=src, dst=dst) if mode == "ipv4-tunnel" else IPv6(src=src, dst=dst)
    return SecurityAssociation(ESP, spi=spi, crypt_algo=crypt, crypt_key=crypt_key, auth_algo=auth,
                               auth_key=auth_key, tunnel_header=tunnel)


def site_packet(dst, length, seed):
    """An IP packet of `length` bytes from the site's host to `dst`."""
    family6 = ":" in dst
    header = (IPv6(src=SITE6, dst=dst, hlim=64) if family6 else IP(src=SITE4, dst=dst, ttl=64, id=seed)) / UDP(
        sport=1024 + seed, dport=4789)
    return header / Raw(bytes((seed + i) & 0xFF for i in range(length - len(header))))


def remote_packet(src, length, seed):
    """An IP packet of `length` bytes from a remote site's `src` to the site's host."""
    family6 = ":" in src
    header = (IPv6(src=src, dst=SITE6, hlim=64) if family6 else IP(src=src, dst=SITE4, ttl=64, id=seed)) / UDP(
        sport=4789, dport=1024 + seed)
    return header / Raw(bytes((seed * 7 + i) & 0xFF for i in range(length - len(header))))


def routed(packet):
    """What l3fwd makes of an IP packet: a hop less to live, the checksum again."""
    packet = packet.__class__(bytes(packet))
    if IPv6 in packet and packet.version == 6:
        packet.hlim -= 1
    else:
        packet.ttl -= 1
        del packet.chksum
    return bytes(packet)


# Outbound SA, inbound SA, a destination behind the peer, a source behind the peer.
CASES = [
    (10, 20, "192.168.2.7", "192.168.2.7"),  # AES-128-CBC + HMAC-SHA1-96, IPv4 tunnel
    (11, 21, "192.168.3.7", "192.168.3.7"),  # AES-128-GCM, IPv6 tunnel
    (12, 22, "2001:db8:b::7", "2001:db8:b::7"),  # AES-256-GCM, IPv4 tunnel, IPv6 inside
    (13, 23, PEER_END4, PEER_END4),  # AES-128-GCM, transport
]


def write_config(tmp_path):
    text = open(os.path.join(CONFIGS, "ipsec-gw.toml")).read()
    paths = {"file": ["inside-in.pcap", "outside-in.pcap"], "pcap": ["inside-out.pcap", "outside-out.pcap"]}
    for key, names in paths.items():
        ours = iter(names)  # in port order
        text, n = re.subn(r'(?m)^%s = "[^"]*"' % key, lambda m: '%s = "%s"' % (key, tmp_path / next(ours)), text)
        assert n == 2, "configs/ipsec-gw.toml no longer has a source and a sink per port"
    for key in ("sa", "sp", "routes", "neighbours"):
        text, n = re.subn(r'(?m)^%s = "([^"]*)"' % key, lambda m: '%s = "%s"' % (key, os.path.join(CONFIGS, m[1])),
                          text)
        assert n == 1, "configs/ipsec-gw.toml no longer names its %s file" % key
    config = tmp_path / "ipsec-gw.toml"
    config.write_text(text)
    return config


def test_the_shipped_gateway_interoperates_with_scapys_esp_and_drops_a_replayed_capture(gnf, tmp_path):
    sas = read_sas(os.path.join(CONFIGS, "ipsec-gw.sa"))
    inside_in, outside_in = [], []
    sent_out, sent_in = {}, {}  # spi -> the plain packets in order
    for out_spi, in_spi, dst, src in CASES:
        sent_out[out_spi] = [site_packet(dst, n, seed=i + out_spi) for i, n in enumerate(INNER_IP_LENGTHS)]
        inside_in += [Ether(src=SITE_HOST, dst=GNF_INSIDE) / p for p in sent_out[out_spi]]
        peer = scapy_sa(sas[in_spi][1])
        sent_in[in_spi] = [remote_packet(src, n, seed=i + in_spi) for i, n in enumerate(INNER_IP_LENGTHS)]
        for seq, p in enumerate(sent_in[in_spi], 1):
            esp = peer.encrypt(p, seq_num=seq)
            outside_in.append(Ether(src=PEER, dst=GNF_OUTSIDE) / esp)
    # IKE passes in the clear; clear traffic a protect policy covers is refused.
    ike = IP(src=SITE4, dst=PEER_END4, ttl=64) / UDP(sport=500, dport=500) / Raw(b"ike" * 30)
    inside_in.append(Ether(src=SITE_HOST, dst=GNF_INSIDE) / ike)
    outside_in.append(Ether(src=PEER, dst=GNF_OUTSIDE) / remote_packet("192.168.2.8", 100, seed=99))
    # The replay: the peer's whole capture once more.
    outside_in += [f for f in outside_in if ESP in f]
    wrpcap(str(tmp_path / "inside-in.pcap"), inside_in)
    wrpcap(str(tmp_path / "outside-in.pcap"), outside_in)

    result = gnf("--config", write_config(tmp_path))
    assert result.returncode == 0, result.stderr
    assert_balanced(result.summary)
    ipsec, l3fwd = result.summary["nf"]
    assert ipsec["type"] == "ipsec" and l3fwd["type"] == "l3fwd"
    packets = len(INNER_IP_LENGTHS) * len(CASES)
    counters = {k: v for k, v in ipsec["counters"].items() if v}
    assert counters == {"out_protected": packets, "in_decrypted": packets, "bypassed": 1,
                        "drop_policy_mismatch": 1, "drop_replayed": packets}

    # What gnf encrypted, scapy decrypts: the site's packets, untouched inside.
    by_spi = collections.defaultdict(list)
    for frame in rdpcap(str(tmp_path / "outside-out.pcap")):
        assert (frame.src, frame.dst) == (GNF_OUTSIDE, PEER)
        if ESP not in frame:
            assert bytes(frame.payload) == routed(ike)
            continue
        by_spi[frame[ESP].spi].append(frame.payload)
    assert sorted(by_spi) == sorted(sent_out)
    for spi, outers in by_spi.items():
        words = sas[spi][1]
        peer = scapy_sa(words)
        transport = "transport" in words
        assert [o[ESP].seq for o in outers] == list(range(1, len(outers) + 1))
        for outer, plain in zip(outers, sent_out[spi]):
            want = routed(plain) if transport else bytes(plain)  # l3fwd routed the header ESP kept
            if not transport:
                ends = (OUR_END6, PEER_END6) if outer.version == 6 else (OUR_END4, PEER_END4)
                assert (outer.src, outer.dst) == ends
            assert bytes(peer.decrypt(outer.__class__(bytes(outer)))) == want, "sa out %d" % spi

    # What scapy encrypted, gnf decrypted and routed to the site's host, once each.
    expected = [bytes(Ether(src=GNF_INSIDE, dst=SITE_HOST, type=0x86DD if IPv6 in p else 0x0800) / Raw(routed(p)))
                for _, in_spi, _, _ in CASES for p in sent_in[in_spi]]
    assert [bytes(f) for f in rdpcap(str(tmp_path / "inside-out.pcap"))] == expected

    # Per SA: what each protected, decrypted, and refused as replayed.
    entries = {e["action"]: e for e in ipsec["sas"]["entries"]}
    for out_spi, in_spi, _, _ in CASES:
        assert entries["sa out %d" % out_spi]["out_protected"] == len(INNER_IP_LENGTHS)
        assert entries["sa in %d" % in_spi]["in_decrypted"] == len(INNER_IP_LENGTHS)
        assert entries["sa in %d" % in_spi]["drop_replayed"] == len(INNER_IP_LENGTHS)

