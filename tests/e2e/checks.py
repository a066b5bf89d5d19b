"""Checks on the JSON summary that several test files share."""

NIC_DROPS = ("rx_missed", "rx_runt", "rx_oversize", "rx_no_desc", "rx_buffer_too_small", "rx_queue_disabled",
             "rx_dma_refused", "tx_bad_desc", "tx_overrun")
DRIVER_DROPS = ("nf_drops", "to_host", "to_host_overflow", "tx_ring_full", "bad_out_port")


def assert_balanced(summary):
    """Every frame a source produced left on a wire or was dropped under a named cause, recounted
    here from the JSON's own counters rather than taken from its 'balanced' flag."""
    acc = summary["accounting"]
    assert acc["drained"], acc
    offered = sum(p["source_frames"] for p in summary["ports"])
    # Frames the router's slow path sent itself (replies, ICMP errors) were never offered.
    sent = sum(p["tx_packets"] for p in summary["ports"]) - summary["driver"].get("host_tx", 0)
    nic = sum(p["drops"][c] for p in summary["ports"] for c in NIC_DROPS)
    driver = sum(summary["driver"][c] for c in DRIVER_DROPS)
    assert acc["offered"] == offered, acc
    assert offered == sent + nic + driver, (acc, [p["drops"] for p in summary["ports"]], summary["driver"])
    assert acc["accounted"] == offered and acc["in_flight"] == 0 and acc["balanced"], acc
    for audit in summary["slots"]:
        assert audit["consistent"] and audit["duplicates"] == 0, audit
    for port in summary["ports"]:
        # QPRC per queue adds up to the port's good-packet count.
        assert sum(port["rx_queue_packets"]) == port["rx_packets"], port
        assert sum(port["rx_queue_drops"]) == port["drops"]["rx_no_desc"], port
    if "generated" in summary:
        assert summary["generated"]["frames"] == offered, summary["generated"]


def nonzero(counters):
    return {k: v for k, v in counters.items() if v}
