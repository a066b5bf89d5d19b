"""pcap in -> softnic -> cpu path -> l2fwd -> pcap out, checked frame by frame against scapy."""
import collections
import os
import shutil

from scapy.all import Ether, rdpcap, wrpcap

from frames import flow_key, mixed_frames, swap_macs

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

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
    assert result.summary["accounting"]["balanced"], result.summary["accounting"]
    return [bytes(p) for p in rdpcap(str(pcap_out))], result.summary


def test_one_queue_swaps_mac_addresses_byte_for_byte_in_order(gnf, tmp_path):
    frames = mixed_frames(1500)
    out, summary = replay(gnf, tmp_path, frames, queues=1, mac="swap")
    assert out == [swap_macs(f) for f in frames]
    assert summary["ports"][0]["tx_packets"] == 1500


def test_mac_none_returns_the_input_unchanged(gnf, tmp_path):
    frames = mixed_frames(500, seed=3)
    out, _ = replay(gnf, tmp_path, frames, queues=1, mac="none")
    assert out == frames


def test_four_queues_keep_every_frame_and_the_order_within_each_flow(gnf, tmp_path):
    frames = mixed_frames(2000, seed=11)
    out, summary = replay(gnf, tmp_path, frames, queues=4, mac="swap")
    expected = [swap_macs(f) for f in frames]
    assert collections.Counter(out) == collections.Counter(expected)
    by_flow_in, by_flow_out = collections.defaultdict(list), collections.defaultdict(list)
    for f in expected:
        by_flow_in[flow_key(f)].append(f)
    for f in out:
        by_flow_out[flow_key(f)].append(f)
    assert by_flow_out == by_flow_in
    used = [n for n in summary["ports"][0]["rx_queue_packets"] if n]
    assert len(used) == 4, summary["ports"][0]["rx_queue_packets"]


def test_the_bundled_default_config_forwards_every_frame(gnf, tmp_path):
    configs = tmp_path / "configs"
    configs.mkdir()
    text = (open(os.path.join(REPO, "configs", "l2fwd-pcap.toml")).read()
            .replace('"../tests/data/sample.pcap"', '"%s"' % os.path.join(REPO, "tests", "data", "sample.pcap"))
            .replace('"../build/l2fwd-out.pcap"', '"%s"' % (tmp_path / "out.pcap")))
    (configs / "l2fwd-pcap.toml").write_text(text)
    result = gnf("--config", configs / "l2fwd-pcap.toml")
    assert result.returncode == 0, result.stderr
    acc = result.summary["accounting"]
    assert acc["balanced"] and acc["offered"] == 2000
    out = [bytes(p) for p in rdpcap(str(tmp_path / "out.pcap"))]
    src = [bytes(p) for p in rdpcap(os.path.join(REPO, "tests", "data", "sample.pcap"))]
    assert collections.Counter(out) == collections.Counter(swap_macs(f) for f in src)
