"""RFC 2544 over frame sizes for several series (path x NF config): NDR/PDR per size, CPU load and
latency at the NDR, loss against offered load. Shared by the `sweep` and `paths` scenarios. And one
point of a matrix (NDR, its costs, latency at low load, what failed above it): `matrix`,
`staged-modes`."""
import math
import os

from .. import plots, rates, stats
from ..report import FLOOR_LABEL
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
    return result.answer.trial if result.answer else None


def failing_trial(result):
    """The last trial at the lowest failing rate above the answer: what the search ran into. None
    when the maximum (line rate) passed."""
    return result.failure.trial if result.failure else None


def busy_share(t, role):
    """Busy seconds of the role's threads over their threads x wall seconds; None without threads."""
    cpu = t.result["cpu"]
    role_cpu = cpu.get(role)
    if not role_cpu or not role_cpu["threads"] or not cpu["wall_s"]:
        return None
    return role_cpu["busy_s"] / (role_cpu["threads"] * cpu["wall_s"])


def limit_seen(t):
    """What stopped a failing trial, from its JSON: the place that dropped most frames (loss.where),
    driver threads busy at least as long as the model-bound threshold, and whether the NIC model was
    the limit (`result.model_bound`, with `gnf bench`'s reasons: its threads busy, frames taken off
    the wire late, the generator behind schedule)."""
    if t is None:
        return "none: line rate passed"
    where = t.result["loss"]["where"]
    place = max(where, key=lambda p: where[p])
    if where[place]:
        found = ["%s (%.0f %% of drops)" % (place, 100 * where[place] / sum(where.values()))]
    elif t.on_schedule:
        found = ["loss the counters did not see"]
    else:
        found = []
    share = busy_share(t, "driver")
    if share is not None and share >= t.result["model_bound"]["busy_threshold"]:
        found.append("driver threads %.0f %% busy" % (100 * share))
    if t.model_bound:
        found.append("model-bound: " + ", ".join(t.model_bound_reasons))
    return ", ".join(found)


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
                ndrs, pdrs = [n for n, _ in pairs], [p for _, p in pairs]
                rows.append([rates.size_label(size), label] +
                            [common.bound_rate(ndr.format(fmt, scale), ndrs) for fmt, scale in
                             (("{:.3f}", 1e-6), ("{:.3f}", rates.gbps_l1(1, size)), ("{:.1f}", 100 / line_pps))] +
                            [common.bound_rate(pdr.format("{:.3f}", scale), pdrs)
                             for scale in (1e-6, rates.gbps_l1(1, size))] +
                            [at_line.format("{:.3f}"),
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
            note=search_table_note(o.speed, self.sizes))
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

    def ndr_text(self, label, size, unit=""):
        """The NDR in Mpps, marked where a repetition's search was model-bound."""
        return common.bound_rate(self.ndr_pps(label, size).format("{:.3f}", 1e-6),
                                 [ndr for ndr, _ in self.results.get((label, size)) or []], unit)

    def headline(self):
        size = self.sizes[0]
        return "NDR at %s: %s" % (rates.size_label(size), ", ".join(
            "%s %s" % (label, self.ndr_text(label, size, " Mpps")) for label, _ in self.series))


class Point:
    """One point of a matrix (a path at one frame size and ring count, or one staged mode): its NDR by
    RFC 2544 search, once per repetition, then `repetitions` trials at a fixed low load for latency
    without queueing (none where `low_load` is None: frames whose stamps the sink cannot read have
    no latency). Empty where the path cannot run here or the binary refused the setting (the
    report's notes say which). `loss`: as Context.ndr_search's. `overload`: loads above the NDR, % of
    its median, each offered `repetitions` times (`overload[pct]`: those trials): whether the path
    collapses under overload, and where it then loses frames."""

    def __init__(self, ctx, label, size, low_load, loss=None, overload=(), **knobs):
        self.size = size
        knobs.update(common.size_knobs(size))
        self.searches = ctx.ndr_search(label, size, loss=loss, **knobs) or []
        # Only after a search that ran: a refused setting would only be refused again.
        ran = self.searches and low_load is not None
        self.low_load = (ctx.repeat(label + "-lowload", **low_load, **knobs) or []) if ran else []
        ndr = self.ndr_pps().median if self.searches else None
        # No port takes more than its line rate (gnf bench refuses a --rate-pps above it): a point whose
        # NDR is above line rate / (pct / 100) is offered line rate, less than pct % of its NDR.
        line_pps = math.floor(rates.line_rate_pps(ctx.options.speed, size))
        self.overload = {pct: ctx.repeat("%s-overload%d" % (label, pct),
                                         rate_pps=min(round(ndr * pct / 100), line_pps), **knobs) or []
                         for pct in overload if pct > 0 and ndr}

    def ndr_pps(self):
        return stats.Spread([r.rate_pps for r in self.searches])

    @property
    def model_bound(self):
        """A repetition's NDR was set by the NIC model, not the path (SearchResult.model_bound)."""
        return any(r.model_bound for r in self.searches)

    def upper_pps(self):
        """The lowest failing rate above the NDR (median; infinite where line rate passed): the NDR
        lies in [ndr, upper) and the search cannot say where."""
        return stats.Spread([math.inf if r.upper_pps is None else r.upper_pps for r in self.searches])

    def at_ndr(self):
        return [t for t in (answer_trial(r) for r in self.searches) if t]

    def limit(self):
        """What failed just above the NDR in the first repetition: the bottleneck the search met."""
        return limit_seen(failing_trial(self.searches[0])) if self.searches else "–"


# A point's row: its NDR, what the trial at the NDR cost and reordered, latency at low load, and the
# limit above the NDR. Costs come from the trial at the NDR: the highest rate the path sustains.
POINT_HEADERS = ["NDR Mpps", "NDR Gbit/s L1", "NDR % of line", "reordered % at NDR", "NIC-model late % at NDR",
                 "driver cores", "driver busy cores", "NIC-model cores", "NIC-model busy cores",
                 "PCIe B/packet to memory", "PCIe B/packet from memory", "low-load p50 µs", "low-load p99 µs",
                 "limit above the NDR"]
AT_NDR_COLUMNS = [(common.reordered_pct, "{:.3f}", 1), (common.late_pct, "{:.2f}", 1),
                  (common.cores("driver"), "{:.2f}", 1), (common.busy_cores("driver"), "{:.2f}", 1),
                  (common.cores("nic"), "{:.2f}", 1), (common.busy_cores("nic"), "{:.2f}", 1),
                  (common.pcie("to_memory"), "{:.1f}", 1), (common.pcie("from_memory"), "{:.1f}", 1)]
LOW_LOAD_COLUMNS = [(common.latency_value("p50"), "{:.2f}", common.US),
                    (common.latency_value("p99"), "{:.2f}", common.US)]


def point_cells(point, speed_gbps):
    """The cells of `point`'s row under POINT_HEADERS ("–" where nothing was measured)."""
    ndr = point.ndr_pps()
    return ([common.bound_rate(ndr.format(fmt, scale), point.searches) for fmt, scale in
             (("{:.3f}", 1e-6), ("{:.3f}", rates.gbps_l1(1, point.size)),
              ("{:.1f}", 100 / rates.line_rate_pps(speed_gbps, point.size)))]
            + common.cells(point.at_ndr(), AT_NDR_COLUMNS) + common.cells(point.low_load, LOW_LOAD_COLUMNS)
            + [point.limit()])


# Issue 11's bar for overload: every path forwards at least this share of its NDR at 150 and 300 %
# of it, and loses the rest at the NIC's input (its rx buffer), where loss is controlled, not in rings.
OVERLOAD_KEEPS = 0.9
NIC_INPUT = "nic_rx_buffer"


def nic_input_share(t):
    """The share of a trial's lost frames dropped at the NIC's input (None where it lost none)."""
    where = t.result["loss"]["where"]
    lost = sum(where.values())
    return where.get(NIC_INPUT, 0) / lost if lost else None


def overload_cells(point, pct):
    """At `pct` % of the point's NDR: Mpps forwarded, that as % of the NDR, the share of the loss at the
    NIC's input, and whether the bar (OVERLOAD_KEEPS, loss at the input) held in every repetition; a
    trial whose model was the limit marks its cells "(model-bound)"."""
    trials = point.overload.get(pct) or []
    ndr = point.ndr_pps().median
    if not trials or not ndr:
        return ["–"] * 4
    kept = [common.mpps(t) * 1e6 / ndr for t in trials]
    inputs = [nic_input_share(t) for t in trials]
    held = all(k >= OVERLOAD_KEEPS and (s is None or s >= 0.99) for k, s in zip(kept, inputs))
    bound = any(t.model_bound for t in trials)
    verdict = ("yes" if held else "no") + (" (model-bound)" if bound else "")
    share = [100 * s for s in inputs if s is not None]
    return [common.spread(trials, common.mpps).format("{:.3f}"), stats.Spread([100 * k for k in kept]).format("{:.0f}"),
            stats.Spread(share).format("{:.0f}") if share else "no loss", verdict]


def write_overload_table(ctx, title, label_headers, rows, percents):
    """The table of [(label cells, Point)] offered `percents` % of each point's NDR (overload_cells)."""
    headers = list(label_headers) + ["NDR Mpps"]
    for pct in percents:
        headers += ["{} %: Mpps".format(pct), "{} %: % of NDR".format(pct), "{} %: loss at NIC input %".format(pct),
                    "{} %: ≥ {:.0f} % kept, loss at input".format(pct, 100 * OVERLOAD_KEEPS)]
    body = [list(label_cells) + [common.bound_rate(point.ndr_pps().format("{:.3f}", 1e-6), point.searches)]
            + [cell for pct in percents for cell in overload_cells(point, pct)] for label_cells, point in rows]
    ctx.report.table(title, headers, body, note=(
        "Each point offered {} of its NDR (the median over repetitions), or line rate where that is less, "
        "`repetitions` trials each. Mpps forwarded "
        "and its share of the NDR (median, (min–max)); the share of the lost frames dropped at the NIC's input "
        "(`result.loss.where.{}`, the rx buffer: controlled loss, the rest died in rings or later); the bar (issue "
        "11): at least {:.0f} % of the NDR forwarded and every loss at the input, in every repetition. "
        "(model-bound): the NIC model was the limit in a trial there (`result.model_bound`), so the rate is the "
        "model's.").format(" and ".join("{} %".format(p) for p in percents), NIC_INPUT, 100 * OVERLOAD_KEEPS))


def cores_cells(point, goal_gbps, unit=""):
    """`point`'s NDR Gbit/s (with `unit`), driver cores, driver busy cores, NIC-model cores at the NDR,
    and the driver busy cores scaled to `goal_gbps` (linearly with the rate)."""
    ndr = point.ndr_pps()
    gbps = ndr.median * rates.gbps_l1(1, point.size) if ndr.median else None
    busy = common.spread(point.at_ndr(), common.busy_cores("driver")).median
    scaled = "–" if not gbps or busy is None else "%.1f" % (busy * goal_gbps / gbps)
    return ([common.bound_rate(ndr.format("{:.2f}", rates.gbps_l1(1, point.size)), point.searches, unit)]
            + common.cells(point.at_ndr(), [(common.cores("driver"), "{:.2f}", 1),
                                            (common.busy_cores("driver"), "{:.2f}", 1),
                                            (common.cores("nic"), "{:.2f}", 1)]) + [scaled])


def point_floor_row(label_cells, trials):
    """A calibration-floor row under POINT_HEADERS (the last label cell says what the floor is of):
    the floor has only latency to compare."""
    return (list(label_cells[:-1]) + ["%s (%s)" % (FLOOR_LABEL, label_cells[-1])] + ["–"] * (3 + len(AT_NDR_COLUMNS))
            + common.cells(trials, LOW_LOAD_COLUMNS) + ["–"])


def low_load_notes(ctx, points, low_load):
    """Notes on the low-load trials of [(group, label, Point)]: where frames were lost (the latency
    then includes queueing), and per group the largest share the NIC model took off the wire late
    (a late frame waited in the model, and its latency holds that wait)."""
    lossy = [label for _, label, point in points if any(t.loss_count or not t.on_schedule for t in point.low_load)]
    if lossy:
        ctx.report.note("At low load (%s) frames were lost, or the generator fell behind, at: %s. There the "
                        "low-load latency includes queueing." % (common.offered_text(low_load), ", ".join(lossy)))
    late = {}
    for group, _, point in points:
        for t in point.low_load:
            late[group] = max(late.get(group, 0), common.late_pct(t) or 0)
    if any(late.values()):
        ctx.report.note("At low load (%s) the NIC model took up to %s of frames off the wire late; their latency "
                        "includes that wait." % (common.offered_text(low_load), ", ".join(
                            "%.2f %% (%s)" % (pct, group) for group, pct in late.items())))


def points_method(ctx, scenario_text, low_load):
    """The method paragraphs of a scenario of points: the common ones, the NDR search, the scenario's
    own text, then describe_points'."""
    return [common.describe_common(ctx), common.describe_search(ctx, pdr=False), scenario_text,
            describe_points(low_load)]


def describe_points(low_load):
    """The method paragraph for tables of points (POINT_HEADERS)."""
    return ("Per point: the NDR (median over repetitions, (min–max)); reordering and costs of the trial at the NDR "
            "(its verification where there was one); then trials at a fixed low load, %s, for latency p50 and p99 "
            "without queueing. Cores = CPU seconds / wall seconds of the role's threads (poll-mode threads use about "
            "one core each, busy or not); busy cores count only the rounds that moved packets. The NIC model's "
            "threads (softnic, with the generator and the sinks) are the emulation's cost, not the path's. PCIe: "
            "softnic's DMA counters per received frame; to memory is the NIC writing (rx data, descriptor "
            "write-back), from memory the NIC reading (tx data, descriptors). NIC-model late: frames softnic took off "
            "the wire more than `late_threshold_ns` after they arrived (`result.nic_model.late_frames`); they do not "
            "fail a trial, but make it model-bound (`result.model_bound`, `gnf bench`'s verdict: also NIC-model "
            "threads busy at least its `busy_threshold`, or the generator behind schedule), and an NDR whose trial, "
            "or the failing trial just above it, was model-bound is shown as \"≥ rate (model-bound)\": a lower "
            "bound, not the path's capacity. Limit above the NDR: in the first repetition's lowest failing trial, "
            "the place that dropped most frames (`result.loss.where`), driver threads busy at least that threshold, "
            "and the model-bound reasons: the bottleneck the search ran into." % common.offered_text(low_load))


def search_table_note(speed_gbps, sizes):
    """The note under a table of searched rates: line rate at each size, and what a model-bound rate means."""
    line = ", ".join("%s %.3f Mpps" % (rates.size_label(s), rates.line_rate_pps(speed_gbps, s) / 1e6) for s in sizes)
    return ("Line rate at %g Gbit/s: %s. \"≥ rate (model-bound)\": the NIC model, not the path, was the limit at the "
            "answer or just above it (`result.model_bound`): the path forwards at least that rate, how much more is "
            "unknown." % (speed_gbps, line))
