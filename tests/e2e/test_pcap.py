"""pcap in -> softnic -> cpu path -> l2fwd -> pcap out, checked frame by frame against scapy."""
import collections
import os
import re

from scapy.all import Ether, rdpcap, wrpcap

from checks import assert_balanced, nonzero
from frames import flow_key, mixed_frames, swap_macs

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Lossless replay: a full tx ring holds the driver, a ring without descriptors holds the port and
# a full rx buffer pauses the pcap source (flow control).
LOSSLESS = """
[driver]
drop_en = false
tx_full = "wait"
[[port]]
queues = {queues}
flow_control = true
[port.source]
type = "pcap"
file = "{pcap_in}"
[port.sink]
pcap = "{pcap_out}"
[[nf]]
type = "l2fwd"
mode = "reflect"
mac = "{mac}"
"""


def replay(gnf, tmp_path, frames, queues, mac):
    pcap_in, pcap_out = tmp_path / "in.pcap", tmp_path / "out.pcap"
    wrpcap(str(pcap_in), [Ether(f) for f in frames])
    config = tmp_path / "gnf.toml"
    config.write_text(LOSSLESS.format(queues=queues, pcap_in=pcap_in, pcap_out=pcap_out, mac=mac))
    result = gnf("--config", config)
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert_balanced(summary)
    port = summary["ports"][0]
    assert port["source_frames"] == len(frames) and port["source_malformed"] == 0, port
    assert port["rx_packets"] == port["tx_packets"] == len(frames), port
    assert not nonzero(port["drops"]), port["drops"]
    return [bytes(p) for p in rdpcap(str(pcap_out))], summary


def by_flow(frames):
    groups = collections.defaultdict(list)
    for f in frames:
        groups[flow_key(f)].append(f)
    return groups


def test_one_queue_swaps_mac_addresses_byte_for_byte_in_order(gnf, tmp_path):
    frames = mixed_frames(1500)
    assert {len(f) for f in frames} >= {60, 1514}
    out, summary = replay(gnf, tmp_path, frames, queues=1, mac="swap")
    expected = [swap_macs(f) for f in frames]
    assert len(out) == len(expected)
    mismatches = [i for i, (a, b) in enumerate(zip(out, expected)) if a != b]
    assert not mismatches, "%d frames differ, first at index %d:\n got %s\nwant %s" % (
        len(mismatches), mismatches[0], out[mismatches[0]].hex(), expected[mismatches[0]].hex())
    assert summary["nf"][0]["counters"]["forwarded"] == 1500, summary["nf"]


def test_mac_none_returns_the_input_unchanged(gnf, tmp_path):
    frames = mixed_frames(500, seed=3)
    out, _ = replay(gnf, tmp_path, frames, queues=1, mac="none")
    assert out == frames


def test_four_queues_keep_every_frame_and_the_order_within_each_flow(gnf, tmp_path):
    frames = mixed_frames(2000, seed=11)
    out, summary = replay(gnf, tmp_path, frames, queues=4, mac="swap")
    expected = [swap_macs(f) for f in frames]
    assert collections.Counter(out) == collections.Counter(expected)
    got, want = by_flow(out), by_flow(expected)
    assert got.keys() == want.keys()
    reordered = [k for k in want if got[k] != want[k]]
    assert not reordered, "%d of %d flows out of order, e.g. %s" % (len(reordered), len(want), reordered[0])
    queues = summary["ports"][0]["rx_queue_packets"]
    assert len(queues) == 4 and all(queues), queues  # RSS spread the flows over every queue


def test_the_bundled_default_config_forwards_every_frame(gnf, tmp_path):
    """configs/l2fwd-pcap.toml as shipped, but with its relative pcap paths made absolute (it
    writes ../build/l2fwd-out.pcap next to itself otherwise)."""
    text = open(os.path.join(REPO, "configs", "l2fwd-pcap.toml")).read()
    sample = os.path.join(REPO, "tests", "data", "sample.pcap")
    text, n_in = re.subn(r'(?m)^file = "[^"]*"', 'file = "%s"' % sample, text)
    text, n_out = re.subn(r'(?m)^pcap = "[^"]*"', 'pcap = "%s"' % (tmp_path / "out.pcap"), text)
    assert n_in == 1 and n_out == 1, "configs/l2fwd-pcap.toml no longer has one source file and one sink pcap"
    (tmp_path / "configs").mkdir()
    config = tmp_path / "configs" / "l2fwd-pcap.toml"
    config.write_text(text)
    result = gnf("--config", config)
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert_balanced(summary)
    assert summary["accounting"]["offered"] == 2000
    assert summary["ports"][0]["tx_packets"] == 2000
    src = [bytes(p) for p in rdpcap(sample)]
    assert len(src) == 2000
    out = [bytes(p) for p in rdpcap(str(tmp_path / "out.pcap"))]
    expected = [swap_macs(f) for f in src]
    assert collections.Counter(out) == collections.Counter(expected)
    assert by_flow(out) == by_flow(expected)
