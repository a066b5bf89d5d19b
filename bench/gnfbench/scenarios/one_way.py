"""`one-way`: rx only (the GPU is the sink) and tx only (the GPU is the source), beside rx + tx:
one-way delays (the FPGA paper's scenario 4, SEEDS.md §2)."""
from .. import plots
from . import common
from .base import Scenario

# (label, --one-way, paper mean µs, paper std dev ns)
DIRECTIONS = [("rx + tx (port to port)", None, "7.99", "99"), ("rx only", "rx", "3.37", "40"),
              ("tx only", "tx", "4.56", "47")]
PAPER_HEADERS = ["paper mean µs", "paper std dev ns"]
COLUMNS = [("loss %", common.loss_pct, "{:.3f}", 1), ("mean µs", common.latency_value("mean"), "{:.2f}", common.US),
           ("std dev ns", common.latency_value("stddev"), "{:.1f}", 1),
           ("p50 µs", common.latency_value("p50"), "{:.2f}", common.US),
           ("p99 µs", common.latency_value("p99"), "{:.2f}", common.US),
           ("max µs", common.latency_value("max"), "{:.2f}", common.US)]


class OneWay(Scenario):
    name = "one-way"
    title = "One-way delays through the GPU"
    reproduces = ("Reproduces the FPGA paper's scenario 4 (SEEDS.md §2): the accelerator only receives (rx only) "
                  "or only sends (tx only), the other side being the wire directly, beside the full rx + tx path.")

    def own_defaults(self, quick):
        return {"paths": ["bypass"], "sizes": [300]}

    def run(self, ctx):
        o = ctx.options
        size = o.sizes[0]
        # One-way delays are the path's own, without queueing: a low load by default. (As the sink
        # the GPU writes 32 B per frame across PCIe, which at higher loads slows its polling.)
        offered = common.offered_knobs(o, load=1)
        ctx.report.method += [common.describe_common(ctx), (
            "Offered load: %s at %d B. `--one-way rx`: the GPU is the sink and notes when it saw each frame's "
            "descriptor done (its global timer put on the host clock, recalibrated every 10 ms; the offset's "
            "uncertainty is in the trials' `result.gpu_clock`); `--one-way tx`: the GPU writes the time it hands "
            "each frame to the NIC behind the stamp and the sink times the frame from there (the rx side runs "
            "untimed). rx + tx is port to port. bench/SCHEMA.md has the details." % (
                common.offered_text(offered), size))]
        series, cdf = [], {}
        for path in o.paths:
            for label, direction, *paper in DIRECTIONS:
                trials = ctx.repeat("%s-%s" % (path, direction or "rxtx"), path=path, size=[size], queues=o.queues,
                                    one_way=direction, **offered)
                series.append(([path, label], trials, paper))
                if trials:
                    cdf["%s, %s" % (path, label)] = trials[0].result["latency"]["histogram"]
        floor = ctx.floor(queues=o.queues, size=[size], **offered)
        common.measured_table(ctx, "One-way delays, ours beside the FPGA paper's", ["path", "direction"], COLUMNS,
                              series, [(["", "%d B" % size], floor)], PAPER_HEADERS,
                              note="Paper: Alveo U50 + 82599 at 10 GbE, the FPGA's own Ethernet port as the "
                                   "other side.")
        if cdf:
            ctx.report.figure("Latency CDF per direction (first repetition); dashed: calibration floor",
                              plots.latency_cdf(ctx.folder, "latency_cdf.png", cdf, "one-way latency",
                                                floor=floor[0].result["latency"]["histogram"]))
        ctx.report.headline = "mean latency: " + ", ".join(
            "%s %s µs" % (labels[1], common.spread(trials, common.latency_value("mean")).format("{:.2f}", common.US))
            for labels, trials, _ in series)
