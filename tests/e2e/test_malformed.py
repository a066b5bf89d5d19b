"""Bad frames and bad records from a pcap are counted and dropped under named causes, frames of a
valid size are forwarded whatever they hold, and gnf never crashes. The pcaps are written by hand
(frames.write_raw_pcap) so they can hold what no capture library would write."""
import collections
import random
import re

import pytest
from scapy.all import IP, UDP, Ether, rdpcap

from checks import assert_balanced, nonzero
from frames import swap_macs, write_raw_pcap

CONFIG = """
[driver]
drop_en = false
tx_full = "wait"
[[port]]
queues = {queues}
flow_control = true
[port.source]
type = "pcap"
file = "{pcap}"
[port.sink]
pcap = "{out}"
[[nf]]
type = "l2fwd"
mode = "reflect"
mac = "swap"
"""


def run_pcap(gnf, tmp_path, pcap, queues=1):
    config = tmp_path / "malformed.toml"
    out = tmp_path / "out.pcap"
    config.write_text(CONFIG.format(pcap=pcap, out=out, queues=queues))
    result = gnf("--config", config)
    forwarded = [bytes(p) for p in rdpcap(str(out))] if result.returncode == 0 else None
    return result, forwarded


def good_frame(i, size=80):
    f = bytes(Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02") / IP(src="10.0.0.%d" % (i % 250 + 1)) /
              UDP(sport=1000 + i))
    return f + bytes([i % 256]) * (size - len(f))


def expected_counts(records):
    """What the source and the port's MAC must make of these (data, orig_len) records."""
    # A record captured short, or one of no bytes at all (no wire carries an empty frame), is the
    # source's to refuse; the MAC sees the rest.
    malformed = sum(1 for data, orig in records if len(data) < orig or len(data) == 0)
    whole = [data for data, orig in records if len(data) == orig and len(data) > 0]
    runt = sum(1 for d in whole if len(d) < 60)
    oversize = sum(1 for d in whole if len(d) > 1514)
    valid = [d for d in whole if 60 <= len(d) <= 1514]
    return malformed, runt, oversize, valid


def check(result, forwarded, records, in_order=True):
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert_balanced(summary)
    malformed, runt, oversize, valid = expected_counts(records)
    port = summary["ports"][0]
    assert port["source_malformed"] == malformed, port
    assert port["source_frames"] == len(records) - malformed, port
    assert nonzero(port["drops"]) == nonzero({"rx_runt": runt, "rx_oversize": oversize}), port["drops"]
    assert port["rx_packets"] == port["tx_packets"] == len(valid), port
    expected = [swap_macs(f) for f in valid]
    if in_order:
        assert forwarded == expected
    else:
        assert collections.Counter(forwarded) == collections.Counter(expected)
    return summary


def test_runts_oversize_truncated_records_and_garbage(gnf, tmp_path):
    rng = random.Random(1)
    good = [good_frame(i, size) for i, size in enumerate([60, 61, 80, 500, 1513, 1514] * 3)]
    records = [(f, len(f)) for f in good]
    records += [(b"\x01" * n, n) for n in (0, 1, 13, 14, 40, 59)]                   # runts, and an empty record
    records += [(good_frame(99, 59), 59)]                                            # a runt that looks like UDP
    records += [(b"\x02" * n, n) for n in (1515, 1518, 4000, 9014, 9100)]            # oversize for a 1518 B port
    records += [(good[3][:30], len(good[3])), (good[3][:0], 64), (b"\x03" * 100, 2000)]  # captured short
    records += [(good[4][:59], 60)]
    records += [(rng.randbytes(n), n) for n in (60, 100, 1514)]                      # garbage of valid sizes
    records += [(b"\xff" * 12 + b"\x08\x00" + rng.randbytes(82), 96)]                # "IPv4" with a junk header
    rng.shuffle(records)
    pcap = tmp_path / "bad.pcap"
    write_raw_pcap(pcap, records)
    result, forwarded = run_pcap(gnf, tmp_path, pcap)
    summary = check(result, forwarded, records)
    port = summary["ports"][0]
    assert port["source_malformed"] == 5 and port["drops"]["rx_runt"] == 6 and port["drops"]["rx_oversize"] == 5
    assert port["tx_packets"] == 18 + 4  # the good frames and the garbage: l2fwd needs only 14 bytes


@pytest.mark.parametrize("keep", [16 + 10, 5], ids=["inside-a-record", "inside-a-record-header"])
def test_a_file_cut_off_inside_its_last_record(gnf, tmp_path, keep):
    frames = [good_frame(i, 60 + i) for i in range(50)]
    pcap = tmp_path / "cut.pcap"
    write_raw_pcap(pcap, [(f, len(f)) for f in frames])
    data = pcap.read_bytes()
    last_record = len(data) - (16 + len(frames[-1]))
    pcap.write_bytes(data[:last_record + keep])  # keep that many bytes of the last record
    result, forwarded = run_pcap(gnf, tmp_path, pcap)
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert_balanced(summary)
    port = summary["ports"][0]
    # The last record cannot be read: counted as malformed, everything before it goes through.
    assert port["source_frames"] == 49 and port["source_malformed"] == 1, port
    assert forwarded == [swap_macs(f) for f in frames[:49]]


def test_an_empty_pcap_is_a_run_with_nothing_to_send(gnf, tmp_path):
    pcap = tmp_path / "empty.pcap"
    write_raw_pcap(pcap, [])
    result, forwarded = run_pcap(gnf, tmp_path, pcap)
    assert result.returncode == 0, result.stderr
    assert_balanced(result.summary)
    assert result.summary["accounting"]["offered"] == 0 and forwarded == []


@pytest.mark.parametrize("queues", [1, 4])
def test_thousands_of_random_frames_never_crash_and_add_up(gnf, tmp_path, queues):
    rng = random.Random(99 + queues)
    records = []
    for _ in range(5000):
        n = rng.choice([rng.randrange(0, 60), rng.randrange(60, 1515), rng.randrange(60, 1515), rng.randrange(0, 9101)])
        data = bytearray(rng.randbytes(n))
        if n >= 14 and rng.random() < 0.6:  # make the NIC's RSS parser look at garbage IP headers
            data[12:14] = rng.choice([b"\x08\x00", b"\x86\xdd", b"\x81\x00", b"\x88\xa8"])
            if n > 14 and data[12] == 0x08:
                data[14] = 0x40 | (data[14] & 0x0F)
        data = bytes(data)
        if rng.random() < 0.05:
            records.append((data[:rng.randrange(0, n)] if n else b"", n + 1))  # truncated capture
        else:
            records.append((data, n))
    pcap = tmp_path / "random.pcap"
    write_raw_pcap(pcap, records)
    result, forwarded = run_pcap(gnf, tmp_path, pcap, queues=queues)
    summary = check(result, forwarded, records, in_order=queues == 1)
    malformed, runt, oversize, valid = expected_counts(records)
    assert malformed > 100 and runt > 100 and oversize > 100 and len(valid) > 1000  # the mix is a mix
    print("random frames: %d malformed, %d runt, %d oversize, %d forwarded; per-queue %s" % (
        malformed, runt, oversize, len(valid), summary["ports"][0]["rx_queue_packets"]))


@pytest.mark.parametrize("linktype,name", [(101, "RAW"), (0, "NULL"), (113, "LINUX_SLL")])
def test_a_pcap_that_is_not_ethernet_is_refused_by_name(gnf, tmp_path, linktype, name):
    pcap = tmp_path / "not-ethernet.pcap"
    write_raw_pcap(pcap, [(b"\x45" + b"\0" * 59, 60)], linktype=linktype)
    result, _ = run_pcap(gnf, tmp_path, pcap)
    assert result.returncode == 1, result.stderr
    # libpcap reports its DLT_ value, which for some link types is not the file's LINKTYPE_ value
    # (LINKTYPE_RAW 101 is DLT_RAW 12 on Linux): the name is what must be right.
    assert re.search(r"gnf: error: pcap file %s: link type \d+ \(%s\) is not Ethernet \(EN10MB\)"
                     % (re.escape(str(pcap)), name), result.stderr), result.stderr
    assert result.summary is None
