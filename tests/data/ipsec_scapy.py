#!/usr/bin/python3
"""scapy's ESP (scapy.layers.ipsec.SecurityAssociation) as the other end of gnf's, for
tests/unit/test_ipsec_scapy.cpp.

  ipsec_scapy.py cases         prints the cases as JSON: each an ipsec-secgw configuration for gnf,
                               a frame, scapy's ESP frame of it and its full sequence number
  ipsec_scapy.py decrypt FILE  decrypts gnf's ESP frames (FILE: JSON [{"case": i, "esp": hex}])
                               with scapy and prints {"checked": n, "failures": [...]}

Every cipher (NULL with and without HMAC-SHA1-96, AES-128-CBC + HMAC-SHA1-96, AES-128/256-GCM),
tunnel mode over IPv4 and IPv6 with either inner family, IPv4 transport mode, 32-bit and extended
sequence numbers, frames of 64-9000 bytes, and padding lengths 0-255 (scapy's padding replaced).
IVs are the ones gnf derives (nf/ipsec/cipher.h), so that gnf's ESP of the same frame is
byte-identical to scapy's where the padding is the minimal one.

scapy 2.5 leaves ESN's high half out of the HMAC of ESP (RFC 4303 §2.2.1 puts it in): for HMAC
SAs with ESN this script computes the ICV itself, with Python's hmac.
"""
import copy
import hmac
import json
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.ipsec import ESP, SecurityAssociation
from scapy.layers.l2 import Ether
from scapy.packet import Raw

SPI = 0x1007
MACS = dict(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
AUTH_KEY = bytes(range(0x40, 0x54))
AES_KEY = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
AES256_KEY = bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d77d9810a3091ee3ff")
SALT = bytes.fromhex("deadbeef")

# name: (gnf's algorithm words, scapy's crypt algo, crypt key, auth algo, auth key, padding alignment)
ALGORITHMS = {
    "null": ("cipher_algo null auth_algo null", "NULL", None, "NULL", None, 4),
    "null-sha1": ("cipher_algo null auth_algo sha1-hmac auth_key {auth}", "NULL", None, "HMAC-SHA1-96", AUTH_KEY, 4),
    "cbc-sha1": ("cipher_algo aes-128-cbc cipher_key {key} auth_algo sha1-hmac auth_key {auth}", "AES-CBC", AES_KEY,
                 "HMAC-SHA1-96", AUTH_KEY, 16),
    "gcm128": ("aead_algo aes-128-gcm aead_key {key}:{salt}", "AES-GCM", AES_KEY + SALT, None, None, 4),
    "gcm256": ("aead_algo aes-256-gcm aead_key {key256}:{salt}", "AES-GCM", AES256_KEY + SALT, None, None, 4),
}
TUNNELS = {
    "ipv4-tunnel": ("172.16.1.5", "172.16.2.5"),
    "ipv6-tunnel": ("2001:db8:1::5", "2001:db8:2::5"),
    "transport": None,
}
INNER = {4: ("10.0.0.1", "192.168.1.1"), 6: ("2001:db8:a::1", "2001:db8:b::1")}
SIZES = [64, 65, 66, 67, 68, 70, 100, 127, 128, 129, 255, 256, 511, 512, 1000, 1420, 1500, 2048, 4096, 8999, 9000]
TRAFFIC_CLASS = 0x28


def colons(data):
    return ":".join(f"{b:02x}" for b in data)


def gnf_config(algorithm, mode):
    words = ALGORITHMS[algorithm][0].format(auth=colons(AUTH_KEY), key=colons(AES_KEY), key256=colons(AES256_KEY),
                                            salt=colons(SALT))
    where = f"mode {mode}" + (f" src {TUNNELS[mode][0]} dst {TUNNELS[mode][1]}" if TUNNELS[mode] else "")
    families = ["ipv4"] if mode == "transport" else ["ipv4", "ipv6"]
    return "".join(f"sa {d} {SPI} {words} {where}\n" for d in ("out", "in")) + "".join(
        f"sp {f} {d} esp protect {SPI} pri 1\n" for d in ("out", "in") for f in families)


def plain_packet(family, ip_length, seed):
    src, dst = INNER[family]
    header = 20 if family == 4 else 40
    payload = bytes((seed + i) & 0xFF for i in range(ip_length - header - 8))
    if family == 4:
        ip = IP(src=src, dst=dst, tos=TRAFFIC_CLASS, ttl=63, id=0x1234)
    else:
        ip = IPv6(src=src, dst=dst, tc=TRAFFIC_CLASS, hlim=63)
    return ip / UDP(sport=1024, dport=4789) / Raw(payload)


def iv_of(algorithm, seq):
    if algorithm == "cbc-sha1":
        block = seq.to_bytes(8, "big") + SPI.to_bytes(4, "big") + bytes(4)
        encryptor = Cipher(algorithms.AES(AES_KEY), modes.ECB()).encryptor()
        return encryptor.update(block) + encryptor.finalize()
    return seq.to_bytes(8, "big") if algorithm.startswith("gcm") else b""


def security_association(algorithm, mode, seq, esn, pad=None):
    _, crypt, crypt_key, auth, auth_key, align = ALGORITHMS[algorithm]
    tunnel = None
    if TUNNELS[mode]:
        src, dst = TUNNELS[mode]
        tunnel = (IP(src=src, dst=dst, ttl=64, id=seq & 0xFFFF, tos=TRAFFIC_CLASS) if mode == "ipv4-tunnel" else
                  IPv6(src=src, dst=dst, hlim=64, tc=TRAFFIC_CLASS))
    sa = SecurityAssociation(ESP, spi=SPI, crypt_algo=crypt, crypt_key=crypt_key, auth_algo=auth or "NULL",
                             auth_key=auth_key, tunnel_header=tunnel, esn_en=esn, esn=seq >> 32)
    if pad is not None:
        def padded(esp):
            assert (len(esp.data) + 2 + pad) % align == 0
            esp.padlen = pad
            esp.padding = bytes(range(1, pad + 1))
            return esp
        sa.crypt_algo = copy.copy(sa.crypt_algo)
        sa.crypt_algo.pad = padded
    return sa


def has_hmac(algorithm):
    return ALGORITHMS[algorithm][3] == "HMAC-SHA1-96"


def with_esn_icv(algorithm, packet, seq):
    """RFC 4303 §2.2.1's ICV for HMAC SAs with ESN: over the ESP packet and the high half."""
    esp = packet[ESP]
    covered = bytes(esp)[:-12] + (seq >> 32).to_bytes(4, "big")
    esp.data = esp.data[:-12] + hmac.new(AUTH_KEY, covered, "sha1").digest()[:12]
    return packet


def make_case(algorithm, mode, family, ip_length, esn, seq, pad=None):
    inner = plain_packet(family, ip_length, seed=seq & 0xFF)
    sa = security_association(algorithm, mode, seq, esn, pad)
    packet = sa.encrypt(inner, seq_num=seq & 0xFFFFFFFF, iv=iv_of(algorithm, seq))
    if esn and has_hmac(algorithm):
        packet = with_esn_icv(algorithm, packet, seq)
    ether_type = 0x0800 if packet.version == 4 else 0x86DD
    return {
        "name": f"{algorithm} {mode} inner IPv{family} {ip_length + 14} B{' esn' if esn else ''}"
                + (f" pad {pad}" if pad is not None else ""),
        "config": gnf_config(algorithm, mode), "esn": esn, "seq": seq, "minimal_padding": pad is None,
        "plain": bytes(Ether(**MACS, type=0x0800 if family == 4 else 0x86DD) / inner).hex(),
        "esp": bytes(Ether(**MACS, type=ether_type) / packet).hex(),
    }


def sequence_number(index, esn):
    """Spread over the space; with ESN, across the 2^32 boundaries too."""
    low = (index * 2654435761 + 1) & 0xFFFFFFFF or 1
    return ((index % 3 + 1) << 32 | low) if esn else low


def cases():
    out = []
    for algorithm in ALGORITHMS:
        for mode in TUNNELS:
            for family in ([4] if mode == "transport" else [4, 6]):
                for size in SIZES:
                    for esn in (False, True):
                        out.append(make_case(algorithm, mode, family, size - 14, esn, sequence_number(len(out), esn)))
        # Every padding length scapy can be made to write: the inner packet sized so that it aligns.
        align = ALGORITHMS[algorithm][5]
        for pad in range(256):
            mode, family = (("ipv4-tunnel", 4), ("ipv6-tunnel", 6), ("transport", 4))[pad % 3]
            base = 100 if family == 4 else 120
            carried = base + (-(base + 2 + pad)) % align  # transport mode carries the IP payload only
            ip_length = carried + (20 if mode == "transport" else 0)
            out.append(make_case(algorithm, mode, family, ip_length, pad % 2 == 1, sequence_number(len(out), pad % 2 == 1),
                                 pad))
    return out


def decrypt(path):
    all_cases = cases()
    with open(path) as f:
        outputs = json.load(f)
    failures = []
    for output in outputs:
        case = all_cases[output["case"]]
        algorithm = next(a for a in ALGORITHMS if case["name"].startswith(a + " "))
        mode = case["name"].split()[1]
        sa = security_association(algorithm, mode, case["seq"], case["esn"])
        frame = Ether(bytes.fromhex(output["esp"]))
        packet = frame.payload
        verify = True
        if case["esn"] and has_hmac(algorithm):
            expected = with_esn_icv(algorithm, packet.copy(), case["seq"])
            if bytes(expected[ESP]) != bytes(packet[ESP]):
                failures.append(case["name"] + ": ICV (with ESN) mismatch")
                continue
            verify = False
        try:
            inner = sa.decrypt(packet, verify=verify)
        except Exception as e:  # scapy's IPSecIntegrityError and malformed-packet errors alike
            failures.append(f"{case['name']}: scapy could not decrypt: {e!r}")
            continue
        want = bytes(Ether(bytes.fromhex(case["plain"])).payload)
        if bytes(inner) != want:
            failures.append(case["name"] + ": decrypted packet differs")
    print(json.dumps({"checked": len(outputs), "failures": failures}))


if __name__ == "__main__":
    if sys.argv[1:] == ["cases"]:
        json.dump(cases(), sys.stdout)
    elif len(sys.argv) == 3 and sys.argv[1] == "decrypt":
        decrypt(sys.argv[2])
    else:
        sys.exit(__doc__)
