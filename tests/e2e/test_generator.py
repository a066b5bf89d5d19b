"""Generator -> port 0 -> l2fwd (pairs) -> port 1 -> measuring sink, at rates a 2-core machine keeps up with."""
import pytest

from checks import assert_balanced, nonzero

TWO_PORTS = """
[driver]
{driver}
[[port]]
name = "in"
queues = {queues}
{port}
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
{port}
[[nf]]
type = "l2fwd"
mode = "pairs"
mac = "rewrite"
"""


# A port that pauses its source instead of dropping, behind rings without DROP_EN.
LOSSLESS_PORT = "flow_control = true"
LOSSLESS_DRIVER = "drop_en = false"


def run(gnf, tmp_path, queues=8, ip=4, size="size = 64", flows=64, rate=0.1, count=20000, port="", driver=""):
    config = tmp_path / "gen.toml"
    config.write_text(TWO_PORTS.format(queues=queues, ip=ip, size=size, flows=flows, rate=rate, count=count,
                                       port=port, driver=driver))
    result = gnf("--config", config, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.summary


def check_lossless_in_order(summary, count):
    assert_balanced(summary)
    generated = summary["generated"]
    assert generated["frames"] == count
    assert generated["lost"] == 0 and generated["received"] == count, (
        generated, [nonzero(p["drops"]) for p in summary["ports"]], nonzero(summary["driver"]))
    inp, out = summary["ports"]
    assert inp["rx_packets"] == count and inp["tx_packets"] == 0, inp
    assert out["rx_packets"] == 0 and out["tx_packets"] == count, out
    for sink in summary["sinks"]:
        assert sink["reordered"] == 0 and sink["duplicates"] == 0 and sink["foreign_frames"] == 0, sink
    sink = summary["sinks"][1]
    assert sink["port"] == "out" and sink["stamped_frames"] == count
    latency = sink["latency"]
    assert latency["count"] == count == generated["latency"]["count"]
    assert 0 < latency["min"] <= latency["p50"] <= latency["p99"] <= latency["max"], latency
    assert sum(n for _, n in latency["histogram"]) == count


def test_a_low_rate_across_eight_queues_loses_and_reorders_nothing(gnf, tmp_path):
    # Lossless like the tests below: CI lost 343 frames at the rx rings (rx_no_desc) while other
    # builds shared its two cores.
    summary = run(gnf, tmp_path, port=LOSSLESS_PORT, driver=LOSSLESS_DRIVER)
    check_lossless_in_order(summary, 20000)
    queues = summary["ports"][0]["rx_queue_packets"]
    assert len(queues) == 8 and all(n > 0 for n in queues), queues  # RSS put flows on all 8 queues
    assert summary["nf"][0]["counters"]["forwarded"] == 20000


@pytest.mark.parametrize("ip,size", [
    (6, "size = 84"),                 # the smallest stamped IPv6 frame
    (6, "size = [84, 85, 1518, 300]"),
    (4, "imix = true"),
    (6, "imix = true"),
    (4, "size = [64, 1518, 300]"),
])
def test_ipv6_and_mixed_sizes_arrive_complete(gnf, tmp_path, ip, size):
    # What is checked is the frames, not the rate: flow control and no DROP_EN make the NIC wait
    # rather than drop when a thread of this 2-core machine is descheduled under other load.
    summary = run(gnf, tmp_path, queues=4, ip=ip, size=size, count=8000, port=LOSSLESS_PORT, driver=LOSSLESS_DRIVER)
    check_lossless_in_order(summary, 8000)


def test_jumbo_frames_arrive_complete(gnf, tmp_path):
    summary = run(gnf, tmp_path, queues=2, ip=6, size="size = [9018, 84]", count=2000, rate=0.2,
                  port="max_frame = 9018\n" + LOSSLESS_PORT, driver="slot_size = 9216\n" + LOSSLESS_DRIVER)
    check_lossless_in_order(summary, 2000)
    assert summary["ports"][1]["tx_bytes"] == 1000 * (9018 + 84)
