"""`tail-batching`: a tail register write every packet, every 8 packets or 2500 ns, every 16 packets
or 2500 ns: latency, jitter and PCIe bytes per packet (the FPGA paper's Table II, SEEDS.md §2)."""
from .. import plots
from . import common
from .base import Scenario

# (label, packets per tail write, timeout ns, paper mean µs, paper std dev ns, paper PCIe B/packet)
SETTINGS = [("every packet", 1, 2500, "8.14", "101", "324 / 316"),
            ("8 packets or 2500 ns", 8, 2500, "9.43", "98.9", "–"),
            ("16 packets or 2500 ns", 16, 2500, "9.92", "65.3", "–")]
PAPER_HEADERS = ["paper mean µs", "paper std dev ns", "paper PCIe B/packet out / in"]
COLUMNS = [("loss %", common.loss_pct, "{:.3f}", 1), ("mean µs", common.latency_value("mean"), "{:.2f}", common.US),
           ("std dev ns", common.latency_value("stddev"), "{:.1f}", 1),
           ("p99 µs", common.latency_value("p99"), "{:.2f}", common.US),
           ("PCIe B/packet to memory", common.pcie("to_memory"), "{:.1f}", 1),
           ("PCIe B/packet from memory", common.pcie("from_memory"), "{:.1f}", 1),
           ("tail writes/packet", lambda t: t.result["tail_writes_per_packet"], "{:.3f}", 1)]


class TailBatching(Scenario):
    name = "tail-batching"
    title = "Tail-pointer batching: latency, jitter and bus bytes"
    reproduces = ("Reproduces the FPGA paper's Table II (\"Direct Data Piping\", SEEDS.md §2): the rx and tx tail "
                  "registers (RDT, TDT) written after every packet, after 8 packets or 2500 ns, after 16 packets or "
                  "2500 ns, at 300 B.")

    def own_defaults(self, quick):
        return {"paths": ["bypass"], "sizes": [300]}

    def run(self, ctx):
        o = ctx.options
        size = o.sizes[0]
        offered = common.offered_knobs(o, load=50)
        ctx.report.method += [common.describe_common(ctx), (
            "Offered load: %s at %d B, two ports. Both rx and tx tails use the same batch (`--rx-tail-batch`, "
            "`--tx-tail-batch`, `--tail-timeout-ns`). The paper does not state its offered rate for this table; "
            "ours is chosen below the paths' loss point so that latency is not queueing. PCIe bytes are softnic's "
            "DMA engine counters per forwarded frame, packet data and descriptors together: to memory is the "
            "NIC writing (rx data, descriptor write-back), from memory the NIC reading (tx data, descriptors). The "
            "paper's out / in are from the FPGA's side of the link." % (common.offered_text(offered), size))]
        series, cdf = [], {}
        for path in o.paths:
            for label, batch, timeout, *paper in SETTINGS:
                trials = ctx.repeat("%s-tail%d-%dns" % (path, batch, timeout), path=path, ports=2, size=[size],
                                    queues=o.queues or 1, rx_tail_batch=batch, tx_tail_batch=batch,
                                    tail_timeout_ns=timeout, **offered)
                series.append(([path, label], trials, paper))
                if trials:
                    cdf["%s, %s" % (path, label)] = trials[0].result["latency"]["histogram"]
        floor = ctx.floor(ports=2, queues=o.queues or 1, size=[size], **offered)
        common.measured_table(ctx, "Table II of the FPGA paper, ours beside theirs", ["path", "tail write"], COLUMNS,
                              series, [(["", "%d B" % size], floor)], PAPER_HEADERS,
                              note="Paper: Xilinx Alveo U50 driving an Intel 82599 at 10 GbE.")
        if cdf:
            ctx.report.figure("Latency CDF per tail-write setting (first repetition); dashed: calibration floor",
                              plots.latency_cdf(ctx.folder, "latency_cdf.png", cdf, "latency by tail batching",
                                                floor=floor[0].result["latency"]["histogram"]))
            ctx.report.figure("Latency std dev over repetitions", plots.box_over_repetitions(
                ctx.folder, "stddev_repetitions.png",
                {" ".join(labels): [t.result["latency"]["stddev"] for t in trials] for labels, trials, _ in series
                 if trials}, "latency std dev (ns)", "jitter over %d repetition(s)" % o.repetitions))
        ctx.report.headline = "mean latency: " + ", ".join(
            "%s %s µs" % (labels[1], common.spread(trials, common.latency_value("mean")).format("{:.2f}", common.US))
            for labels, trials, _ in series)
