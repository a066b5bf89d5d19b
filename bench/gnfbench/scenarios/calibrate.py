"""`calibrate`: the measurement's own floor (generator -> softnic -> sink, no driver, no NF) for
each frame size: what every other report's floor row is made of, on its own."""
from .. import plots, rates
from . import common
from .base import Scenario


class Calibrate(Scenario):
    name = "calibrate"
    title = "Calibration: the measurement's own latency floor"
    reproduces = ("The back-to-back run FD.io CSIT reports beside every latency table: `gnf bench --calibrate` "
                  "keeps softnic's MAC checks, RSS, rx buffer and tx pacing but has no driver and no NF, so its "
                  "latency is what the measurement itself adds.")

    def own_defaults(self, quick):
        return {"paths": [], "sizes": [64, 1518] if quick else list(rates.RFC2544_SIZES) + [rates.IMIX_LABEL]}

    def run(self, ctx):
        o = ctx.options
        offered = common.offered_knobs(o, load=50)
        ctx.report.method += [common.describe_common(ctx), "Offered load: %s, %s, two ports." % (
            common.offered_text(offered), common.queues_text(o))]
        columns = [("offered Mpps", lambda t: t.offered_pps, "{:.3f}", 1e-6), ("loss %", common.loss_pct, "{:.3f}", 1)]
        columns += [(h, v, f, s) for h, (v, f, s) in zip(common.LATENCY_HEADERS, common.LATENCY_COLUMNS)]
        floors = [(size, ctx.floor(ports=2, queues=o.queues, config=(o.config or [None])[0],
                                   **common.size_knobs(size), **offered)) for size in o.sizes]
        common.measured_table(ctx, "Calibration floor by frame size", ["size"], columns, [],
                              [([rates.size_label(s)], t) for s, t in floors],
                              note="Every row is a floor: loss here would be the generator or softnic's own, and "
                                   "must be 0.")
        ctx.report.figure("Calibration latency CDF per frame size (first repetition)", plots.latency_cdf(
            ctx.folder, "latency_cdf.png",
            {rates.size_label(s): t[0].result["latency"]["histogram"] for s, t in floors}, "calibration floor"))
        ctx.report.figure("Calibration p50 over repetitions", plots.box_over_repetitions(
            ctx.folder, "p50_repetitions.png",
            {rates.size_label(s): [x.result["latency"]["p50"] / 1e3 for x in t] for s, t in floors}, "p50 µs",
            "floor p50 over %d repetition(s)" % o.repetitions))
        lossy = [rates.size_label(s) for s, t in floors if any(x.loss_count for x in t)]
        if lossy:
            ctx.report.note("The calibration lost frames at %s: the generator or softnic cannot sustain this load "
                            "here, so latency floors at that load include queueing." % ", ".join(lossy))
        s, t = floors[0]
        ctx.report.headline = "floor at %s: p50 %s µs, p99 %s µs" % (
            rates.size_label(s), common.spread(t, common.latency_value("p50")).format("{:.2f}", common.US),
            common.spread(t, common.latency_value("p99")).format("{:.2f}", common.US))
