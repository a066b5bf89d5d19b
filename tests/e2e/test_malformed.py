"""Bad frames from the wire are counted and dropped under named causes; gnf never crashes."""
import random
import struct

from scapy.all import Ether, IP, UDP, wrpcap

PCAP_CONFIG = """
[driver]
drop_en = false
tx_full = "wait"
[[port]]
flow_control = true
[port.source]
type = "pcap"
file = "{pcap}"
[[nf]]
type = "l2fwd"
mode = "reflect"
mac = "swap"
"""


def write_raw_pcap(path, records, linktype=1):
    """records: (captured bytes, original length); caplen < len marks a truncated record."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for i, (data, orig) in enumerate(records):
            f.write(struct.pack("<IIII", 1700000000, i, len(data), orig))
            f.write(data)


def run_pcap(gnf, tmp_path, pcap):
    config = tmp_path / "malformed.toml"
    config.write_text(PCAP_CONFIG.format(pcap=pcap))
    return gnf("--config", config)


def good_frame(i):
    return bytes(Ether() / IP(src="10.0.0.%d" % (i % 250 + 1)) / UDP(sport=1000 + i) / (b"x" * 30))


def test_runts_oversize_and_truncated_records_are_counted_and_dropped(gnf, tmp_path):
    good = [good_frame(i) for i in range(20)]
    records = [(f, len(f)) for f in good]
    records += [(b"\x01" * n, n) for n in (1, 13, 14, 40, 59)]   # runts
    records += [(b"\x02" * n, n) for n in (1515, 4000, 9014)]   # oversize for a 1518 B port
    records += [(good[0][:30], len(good[0]))] * 3               # truncated captures
    records += [(bytes(random.Random(5).randrange(256) for _ in range(100)), 100)]  # garbage, valid size
    random.Random(1).shuffle(records)
    pcap = tmp_path / "bad.pcap"
    write_raw_pcap(pcap, records)
    result = run_pcap(gnf, tmp_path, pcap)
    assert result.returncode == 0, result.stderr
    port = result.summary["ports"][0]
    assert port["source_malformed"] == 3
    assert port["drops"]["rx_runt"] == 5
    assert port["drops"]["rx_oversize"] == 3
    assert port["tx_packets"] == 21  # the good frames and the garbage one: l2fwd needs only 14 bytes
    assert result.summary["accounting"]["balanced"]


def test_thousands_of_random_frames_never_crash_and_add_up(gnf, tmp_path):
    rng = random.Random(99)
    records = []
    for _ in range(5000):
        n = rng.choice([0, rng.randrange(0, 60), rng.randrange(60, 1515), rng.randrange(1515, 9100)])
        records.append((bytes(rng.randrange(256) for _ in range(min(n, 200))) + b"\0" * max(0, n - 200), n))
    pcap = tmp_path / "random.pcap"
    write_raw_pcap(pcap, records)
    result = run_pcap(gnf, tmp_path, pcap)
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert summary["accounting"]["balanced"], summary["accounting"]
    port = summary["ports"][0]
    assert port["source_frames"] + port["source_malformed"] == 5000
    for audit in summary["slots"]:
        assert audit["consistent"]


def test_a_pcap_that_is_not_ethernet_is_refused_by_name(gnf, tmp_path):
    pcap = tmp_path / "raw-ip.pcap"
    write_raw_pcap(pcap, [(b"\x45" + b"\0" * 59, 60)], linktype=101)
    result = run_pcap(gnf, tmp_path, pcap)
    assert result.returncode == 1
    assert str(pcap) in result.stderr
