"""RFC 2544 over frame sizes for several series (path x NF config): NDR/PDR per size, CPU load and
latency at the NDR, loss against offered load. Shared by the `sweep` and `paths` scenarios."""
import os

from .. import plots, rates, stats
from . import common


def series_list(options):
    """(label, knobs) per path and config: one series per combination."""
    configs = options.config or [None]
    out = []
    for path in options.paths:
        for config in configs:
            label = path if len(configs) == 1 else "%s %s" % (path, os.path.splitext(os.path.basename(config))[0])
            out.append((label, {"path": path, "config": config}))
    return out


def answer_trial(result):
    """The last passing trial at the search's answer (the verification when there was one)."""
    for o in reversed(result.outcomes):
        if o.rate_pps == result.rate_pps and result.criterion.passes(o):
            return o.trial
    return None


def line_rate_trial(result, line_pps):
    for o in result.outcomes:
        if o.rate_pps == line_pps:
            return o.trial
    return None


class Sweep:
    """Runs the searches and keeps [(ndr, pdr) per repetition] by (series label, size)."""

    def __init__(self, ctx, sizes):
        self.ctx = ctx
        self.sizes = sizes
        self.series = series_list(ctx.options)
        self.results = {}
        for size in sizes:
            for label, knobs in self.series:
                self.results[(label, size)] = ctx.search(
                    "%s-%s" % (label.replace(" ", "-"), size), size, queues=ctx.options.queues,
                    **common.size_knobs(size), **knobs)

    def spread(self, label, size, pick):
        pairs = self.results.get((label, size)) or []
        return stats.Spread([pick(ndr, pdr) for ndr, pdr in pairs])

    def trials_at_ndr(self, label, size):
        return [t for t in (answer_trial(ndr) for ndr, _ in self.results.get((label, size)) or []) if t]

    def ndr_pps(self, label, size):
        return self.spread(label, size, lambda ndr, pdr: ndr.rate_pps)

    def write_tables(self):
        ctx, o = self.ctx, self.ctx.options
        rows, cpu_rows, lat_rows, floor_rows = [], [], [], []
        for size in self.sizes:
            line_pps = rates.line_rate_pps(o.speed, size)
            for label, _ in self.series:
                pairs = self.results.get((label, size)) or []
                ndr = self.ndr_pps(label, size)
                pdr = self.spread(label, size, lambda n, p: p.rate_pps)
                at_line = stats.Spread([common.mpps(t) for t in (line_rate_trial(p, line_pps) for _, p in pairs) if t])
                rows.append([rates.size_label(size), label, ndr.format("{:.3f}", 1e-6),
                             ndr.format("{:.3f}", rates.gbps_l1(1, size)), ndr.format("{:.1f}", 100 / line_pps),
                             pdr.format("{:.3f}", 1e-6), pdr.format("{:.3f}", rates.gbps_l1(1, size)),
                             at_line.format("{:.3f}"),
                             stats.Spread([n.new_trials + p.new_trials for n, p in pairs]).format("{:.0f}")])
                at_ndr = self.trials_at_ndr(label, size)
                cpu_rows.append([rates.size_label(size), label] + common.cells(at_ndr, [
                    (common.cores("driver"), "{:.2f}", 1), (common.cores("nic"), "{:.2f}", 1),
                    (lambda t: (t.result.get("gpu") or {}).get("utilization_pct"), "{:.0f}", 1),
                    (common.pcie("total"), "{:.0f}", 1)]))
                lat_rows.append([rates.size_label(size), label] + common.cells(at_ndr, common.LATENCY_COLUMNS))
            floor_rows.append(common.floor_row([rates.size_label(size), "all"], self.floor_trials(size)))
        ctx.report.table(
            "Throughput by frame size (median over repetitions)",
            ["size", "series", "NDR Mpps", "NDR Gbit/s L1", "NDR % of line", "PDR Mpps", "PDR Gbit/s L1",
             "Mpps forwarded at 100 % offered", "trials per search"], rows,
            note="Line rate at %g Gbit/s: %s." % (o.speed, ", ".join(
                "%s %.3f Mpps" % (rates.size_label(s), rates.line_rate_pps(o.speed, s) / 1e6) for s in self.sizes)))
        ctx.report.table("CPU and GPU load at the NDR (verification trial)",
                         ["size", "series", "driver cores", "NIC-model cores", "GPU util %", "PCIe B/packet"],
                         cpu_rows, note="cores = CPU seconds / wall seconds of the trial's threads (from the OS); "
                                        "the NIC model's threads are softnic's cost, not the data path's.")
        ctx.report.table("Latency at the NDR (verification trial)", ["size", "series"] + common.LATENCY_HEADERS,
                         lat_rows, latency=True, floor_rows=floor_rows,
                         note="The floor is measured at each size's highest NDR over the series (10 % of line "
                              "rate where every NDR is 0).")

    def floor_trials(self, size):
        best = max([self.ndr_pps(label, size).median or 0 for label, _ in self.series] + [0])
        rate = best if best > 0 else 0.1 * rates.line_rate_pps(self.ctx.options.speed, size)
        o = self.ctx.options
        return self.ctx.floor(rate_pps=round(rate), queues=o.queues, config=(o.config or [None])[0],
                              **common.size_knobs(size))

    def write_figures(self, title):
        ctx, o, folder = self.ctx, self.ctx.options, self.ctx.folder
        series = {label: [(s, self.ndr_pps(label, s)) for s in self.sizes] for label, _ in self.series}
        ctx.report.figure("%s: NDR per frame size (median, bars min–max) against the %g Gbit/s line rate" % (
            title, o.speed), plots.throughput_vs_size(folder, "throughput_vs_size.png", series, o.speed,
                                                      "%s: NDR vs frame size" % title))
        for index, (label, _) in enumerate(self.series):
            measured = [s for s in self.sizes if self.results.get((label, s))]
            if not measured:
                continue
            loss = {rates.size_label(s): [(100 * oc.rate_pps / rates.line_rate_pps(o.speed, s), oc.loss_ratio)
                                          for oc in self.results[(label, s)][0][0].outcomes] for s in measured}
            ctx.report.figure("%s: loss against offered load, every trial of the first repetition's search" % label,
                              plots.loss_vs_offered(folder, "loss_vs_offered_%d.png" % index, loss,
                                                    "%s: loss vs offered load" % label))
            cdfs = {rates.size_label(s): self.trials_at_ndr(label, s)[0].result["latency"]["histogram"]
                    for s in measured if self.trials_at_ndr(label, s)}
            if cdfs:
                smallest = self.sizes[0]
                ctx.report.figure(
                    "%s: latency CDF at the NDR (first repetition); dashed: calibration floor at %s" % (
                        label, rates.size_label(smallest)),
                    plots.latency_cdf(folder, "latency_cdf_%d.png" % index, cdfs, "%s: latency at the NDR" % label,
                                      floor=self.floor_trials(smallest)[0].result["latency"]["histogram"]))
        groups = {"%s %s" % (label, rates.size_label(s)): [v / 1e6 for v in self.ndr_pps(label, s).values]
                  for s in self.sizes for label, _ in self.series}
        ctx.report.figure("NDR over repetitions (box: quartiles, line: median)",
                          plots.box_over_repetitions(folder, "ndr_repetitions.png", groups, "NDR Mpps",
                                                     "NDR over %d repetition(s)" % o.repetitions))

    def headline(self):
        size = self.sizes[0]
        return "NDR at %s: %s" % (rates.size_label(size), ", ".join(
            "%s %s Mpps" % (label, self.ndr_pps(label, size).format("{:.3f}", 1e-6)) for label, _ in self.series))
