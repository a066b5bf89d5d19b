"""`writeback`: overload with and without tx descriptor write-back flow control: loss (and where),
reordering, latency over time (the FPGA paper's write-back results, SEEDS.md §2)."""
from .. import plots
from . import common
from .base import Scenario

# SEEDS.md §2, through the Intel root complex (slow P2P): loss %, reordered.
# "Without": no tx completions at all (--tx-completion none), as the paper's FPGA driver without
# write-back; gnf's bypass default, head write-back, is flow control too and would hide the overrun.
MODES = [("without write-back flow control", {"tx_completion": "none"}, "9.90", "176,761 of 35.8 M (0.49 %)"),
         ("with write-back flow control", {"tx_writeback_fc": True}, "15.79", "none")]
PAPER_HEADERS = ["paper loss %", "paper reordered"]
COLUMNS = [("loss %", common.loss_pct, "{:.2f}", 1), ("reordered %", common.reordered_pct, "{:.3f}", 1),
           ("reordered", lambda t: t.result["reordering"]["reordered"], "{:.0f}", 1),
           ("mean µs", common.latency_value("mean"), "{:.2f}", common.US),
           ("std dev µs", common.latency_value("stddev"), "{:.3f}", common.US),
           ("p99 µs", common.latency_value("p99"), "{:.2f}", common.US),
           ("max µs", common.latency_value("max"), "{:.2f}", common.US)]


class Writeback(Scenario):
    name = "writeback"
    title = "Tx write-back flow control under overload"
    reproduces = ("Reproduces the FPGA paper's descriptor write-back experiment (SEEDS.md §2): under overload, "
                  "without flow control the driver overruns the tx ring (uncontrolled loss, reordering, jitter); "
                  "with it, nothing is reordered but more is lost, at the NIC's input.")

    def own_defaults(self, quick):
        return {"paths": ["bypass"], "sizes": [300], "trial_s": 1.0 if quick else 10.0}

    def run(self, ctx):
        o = ctx.options
        size = o.sizes[0]
        offered = common.offered_knobs(o, load=100)
        ctx.report.method += [common.describe_common(ctx), (
            "Offered load: %s at %d B, two ports: more than the path forwards, so queues fill. The same traffic "
            "runs with and without `--tx-writeback-fc` (the driver reads the tx descriptors' DD write-back and "
            "never queues onto a slot the NIC has not sent). Latency over time is per send second of the measured "
            "window; the paper's periodic 15 µs jitter would show as a max line above p99." % (
                common.offered_text(offered), size))]
        series, where, over_time, cdf = [], [], {}, {}
        for path in o.paths:
            for label, knobs, *paper in MODES:
                trials = ctx.repeat("%s-%s" % (path, "fc" if "tx_writeback_fc" in knobs else "nofc"), path=path, ports=2,
                                    size=[size],
                                    queues=o.queues, **knobs, **offered)
                series.append(([path, label], trials, paper))
                where.append(("%s, %s" % (path, label), trials))
                if trials:
                    over_time["%s, %s" % (path, "with" if "tx_writeback_fc" in knobs else "without")] = \
                        trials[0].result["per_second"]
                    cdf["%s, %s" % (path, label)] = trials[0].result["latency"]["histogram"]
        floor = ctx.floor(ports=2, queues=o.queues, size=[size], **offered)
        common.measured_table(ctx, "Write-back flow control, ours beside the paper's", ["path", "mode"], COLUMNS,
                              series, [(["", "%d B" % size], floor)], PAPER_HEADERS,
                              note="Paper: Alveo U50 + 82599 through an Intel root complex, 35.8 M packets.")
        common.loss_where_table(ctx, "Where frames were lost: controlled (NIC input) vs uncontrolled (ring overrun)",
                                where, "series")
        if over_time:
            ctx.report.figure("Latency (p50, p99, max) and loss per second, first repetition", plots.latency_over_time(
                ctx.folder, "latency_over_time.png", over_time, "latency over time under overload"))
            ctx.report.figure("Latency CDF (first repetition); dashed: calibration floor", plots.latency_cdf(
                ctx.folder, "latency_cdf.png", cdf, "latency under overload",
                floor=floor[0].result["latency"]["histogram"]))
        ctx.report.headline = ", ".join("%s %s: loss %s %%, reordered %s %%" % (
            labels[0], labels[1].split()[0], common.spread(trials, common.loss_pct).format("{:.2f}"),
            common.spread(trials, common.reordered_pct).format("{:.3f}")) for labels, trials, _ in series)
