"""Generator -> port 0 -> l2fwd -> port 1 -> measuring sink."""
import pytest

TWO_PORTS = """
[[port]]
name = "in"
queues = {queues}
[port.source]
type = "generator"
ip = {ip}
{size}
flows = {flows}
rate_gbps = {rate}
count = {count}
[[port]]
name = "out"
queues = {queues}
[[nf]]
type = "l2fwd"
mode = "pairs"
mac = "rewrite"
"""


def run(gnf, tmp_path, queues=8, ip=4, size="size = 64", flows=64, rate=0.1, count=20000):
    config = tmp_path / "gen.toml"
    config.write_text(TWO_PORTS.format(queues=queues, ip=ip, size=size, flows=flows, rate=rate, count=count))
    result = gnf("--config", config, timeout=180)
    assert result.returncode == 0, result.stderr
    return result.summary


def check_lossless_in_order(summary, count):
    assert summary["accounting"]["balanced"], summary["accounting"]
    generated = summary["generated"]
    assert generated["frames"] == count
    assert generated["lost"] == 0, summary["ports"]
    sink = summary["sinks"][1]
    assert sink["stamped_frames"] == count
    assert sink["reordered"] == 0
    assert sink["duplicates"] == 0
    assert sink["latency"]["count"] == count
    assert 0 < sink["latency"]["min"] <= sink["latency"]["p50"] <= sink["latency"]["p99"] <= sink["latency"]["max"]


def test_a_low_rate_across_eight_queues_loses_and_reorders_nothing(gnf, tmp_path):
    summary = run(gnf, tmp_path)
    check_lossless_in_order(summary, 20000)
    queues = summary["ports"][0]["rx_queue_packets"]
    assert len(queues) == 8 and all(n > 0 for n in queues), queues
    assert summary["ports"][1]["tx_packets"] == 20000


@pytest.mark.parametrize("ip,size", [(6, "size = 84"), (4, "imix = true"), (6, "imix = true"), (4, "size = [64, 1518, 300]")])
def test_ipv6_and_mixed_sizes_arrive_complete(gnf, tmp_path, ip, size):
    summary = run(gnf, tmp_path, queues=4, ip=ip, size=size, count=8000)
    check_lossless_in_order(summary, 8000)
