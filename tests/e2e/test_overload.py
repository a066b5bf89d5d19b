"""Offered load far above what this machine forwards (148.8 Mpps of 64 B frames on a 100 GbE port):
the loss shows up at the NIC under the cause the driver settings call for, nowhere else, and gnf
stays healthy and finishes."""
from checks import assert_balanced, nonzero

OVERLOAD = """
[driver]
rx_ring = 64
drop_en = {drop_en}
tx_full = "wait"     # a full tx ring holds the driver: the only place left to lose frames is rx
[[port]]
speed = 100
queues = {queues}
rx_buffer_kib = 64
[port.source]
type = "generator"
size = 64
flows = 64
count = 3000000
[[nf]]
type = "l2fwd"
mode = "reflect"
"""


def run(gnf, tmp_path, drop_en, queues):
    config = tmp_path / "overload.toml"
    config.write_text(OVERLOAD.format(drop_en=str(drop_en).lower(), queues=queues))
    result = gnf("--config", config, timeout=90)
    assert result.returncode == 0, result.stderr
    summary = result.summary
    port, driver, generated = summary["ports"][0], summary["driver"], summary["generated"]
    print("drop_en=%s queues=%d: offered %d, lost %d, drops %s, per-queue drops %s, stalls %d, driver %s" % (
        drop_en, queues, generated["frames"], generated["lost"], nonzero(port["drops"]), port["rx_queue_drops"],
        port["rx_no_desc_stalls"], nonzero(driver)))
    assert_balanced(summary)
    assert generated["frames"] == 3000000
    for cause in ("nf_drops", "to_host", "to_host_overflow", "tx_ring_full", "bad_out_port"):
        assert driver[cause] == 0, driver
    # Every frame that came in went out again: the loss is exactly what the NIC dropped.
    assert port["tx_packets"] == port["rx_packets"] == generated["received"], port
    return summary


def test_without_drop_en_loss_appears_as_rx_missed(gnf, tmp_path):
    summary = run(gnf, tmp_path, drop_en=False, queues=1)
    drops, lost = summary["ports"][0]["drops"], summary["generated"]["lost"]
    # Without DROP_EN a ring out of descriptors stalls the port instead of dropping: whatever is
    # lost overflowed the buffer.
    assert nonzero(drops).keys() <= {"rx_missed"}, drops
    assert lost == drops["rx_missed"], (lost, drops)
    # 148.8 Mpps against a 64 KiB buffer overflows unless the whole emulation keeps up, which no
    # 2-core machine does (it lost 4..15 % in every run while this test was written).
    assert lost > 0, "no loss at 148.8 Mpps offered: this machine kept up, the test proves nothing here"


def test_with_drop_en_and_four_queues_loss_is_rx_no_desc_or_rx_missed(gnf, tmp_path):
    summary = run(gnf, tmp_path, drop_en=True, queues=4)
    port = summary["ports"][0]
    drops, lost = port["drops"], summary["generated"]["lost"]
    assert nonzero(drops).keys() <= {"rx_missed", "rx_no_desc"}, drops
    assert lost == drops["rx_missed"] + drops["rx_no_desc"], (lost, drops)
    assert len(port["rx_queue_drops"]) == 4 and sum(port["rx_queue_drops"]) == drops["rx_no_desc"], port
    # With DROP_EN a queue out of descriptors drops what is addressed to it and never stalls the port.
    assert port["rx_no_desc_stalls"] == 0, port
    assert lost > 0, "no loss at 148.8 Mpps offered: this machine kept up, the test proves nothing here"
