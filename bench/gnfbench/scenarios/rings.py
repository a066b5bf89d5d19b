"""`rings`: 1, 2, 4, 8 rx/tx rings at 300 B and 9.99 Gbit/s on the bypass path, and 1500 B with one
ring: the GPU paper's Table II (SEEDS.md §1)."""
from .. import plots
from . import common
from .base import Scenario

# SEEDS.md §1: RTX 4000 + 82599 (10 GbE), 9.99 Gbit/s input, port to port. Loss %, mean µs,
# std dev µs, reordered %; "–" where the paper gives no number.
PAPER_300B = {1: ("74.78", "1790", "–", "–"), 2: ("51.64", "–", "–", "49.49"), 4: ("6.45", "544", "–", "–"),
              8: ("0", "27.17", "7.6", "38.2")}
PAPER_1500B = ("0", "9.76", "0.0877", "0")
PAPER_HEADERS = ["paper loss %", "paper mean µs", "paper std dev µs", "paper reordered %"]
COLUMNS = [("loss %", common.loss_pct, "{:.2f}", 1), ("mean µs", common.latency_value("mean"), "{:.2f}", common.US),
           ("std dev µs", common.latency_value("stddev"), "{:.3f}", common.US),
           ("reordered %", common.reordered_pct, "{:.2f}", 1),
           ("extent max", lambda t: t.result["reordering"]["extent_max"], "{:.0f}", 1),
           ("p99 µs", common.latency_value("p99"), "{:.2f}", common.US)]


class Rings(Scenario):
    name = "rings"
    title = "Rings: rx/tx ring count against loss, latency and reordering"
    reproduces = ("Reproduces the GPU paper's Table II (\"Let your GPU speak Ethernet\", SEEDS.md §1): 1, 2, 4 and 8 "
                  "rx/tx rings at 300 B and 9.99 Gbit/s on the host-bypass path, and 1500 B with one ring.")

    def own_defaults(self, quick):
        return {"paths": ["bypass"], "rings": [1, 2] if quick else [1, 2, 4, 8], "sizes": [300, 1500]}

    def run(self, ctx):
        o = ctx.options
        small, large = o.sizes[0], o.sizes[-1]
        offered = common.offered_knobs(o, rate_gbps=9.99 * o.speed / 10)
        ctx.report.method += [common.describe_common(ctx), (
            "Offered load: %s, %d flows (RSS spreads them over the rings), two ports (in on 0, out on 1, as the "
            "paper's port-to-port setup). Rings = `--queues`: rx/tx queue pairs per port, served independently. "
            "Reordering is per flow (RFC 4737); the paper's ratio counts packets out of order in the whole stream, "
            "so independent rings that keep each flow in order show reordering there and not here." % (
                common.offered_text(offered), o.flows))]
        series, where, cdf = [], [], {}
        for path in o.paths:
            for rings in o.rings:
                label = "%s, %d ring%s, %d B" % (path, rings, "s" if rings > 1 else "", small)
                trials = ctx.repeat("%s-%drings-%dB" % (path, rings, small), path=path, queues=rings, ports=2,
                                    size=[small], **offered)
                series.append(([path, str(rings), "%d B" % small], trials, PAPER_300B.get(rings, ("–",) * 4)))
                where.append((label, trials))
                if trials:
                    cdf[label] = trials[0].result["latency"]["histogram"]
            trials = ctx.repeat("%s-1ring-%dB" % (path, large), path=path, queues=1, ports=2, size=[large], **offered)
            series.append(([path, "1", "%d B" % large], trials, PAPER_1500B))
            where.append(("%s, 1 ring, %d B" % (path, large), trials))
        floors = {size: ctx.floor(ports=2, queues=1, size=[size], **offered) for size in (small, large)}
        common.measured_table(ctx, "Table II of the GPU paper, ours beside theirs", ["path", "rings", "size"], COLUMNS,
                              series, [(["", "", "%d B" % s], t) for s, t in floors.items()], PAPER_HEADERS,
                              note="Paper: RTX 4000 + Intel 82599 at 10 GbE, P4STA hardware timestamps.")
        common.loss_where_table(ctx, "Where frames were lost", where, "series")
        if cdf:
            figure = plots.latency_cdf(ctx.folder, "latency_cdf.png", cdf, "latency by ring count",
                                       floor=floors[small][0].result["latency"]["histogram"])
            ctx.report.figure("Latency CDF per ring count (first repetition); dashed: calibration floor at %d B"
                              % small, figure)
        measured = [(labels, trials) for labels, trials, _ in series if trials]
        if measured:
            ctx.report.figure("Loss over repetitions per ring count", plots.box_over_repetitions(
                ctx.folder, "loss_repetitions.png",
                {" ".join(labels): [common.loss_pct(t) for t in trials] for labels, trials in measured},
                "loss %", "loss over %d repetition(s)" % o.repetitions))
        ctx.report.headline = "300 B: " + ", ".join(
            "%s ring(s): loss %s %%" % (labels[1], common.spread(trials, common.loss_pct).format("{:.2f}"))
            for labels, trials, _ in series if labels[2] == "%d B" % small)
