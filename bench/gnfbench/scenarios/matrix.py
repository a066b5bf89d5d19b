"""`matrix`: every path at 64, 300 and 1500 B with 1, 2, 4 and 8 rings: the zero-loss rate (RFC 2544
NDR), what it costs (driver and NIC-model cores, PCIe bytes per packet), reordering, latency at low
load, and bypass against staged and cpu measured in the same run (issue 3)."""
from .. import plots, rates
from . import common
from .base import Scenario
from .throughput import (POINT_HEADERS, Point, cores_cells, low_load_notes, point_cells, point_floor_row,
                         points_method, search_table_note, write_overload_table)

# Issue 3's goal for bypass at 64 B: line rate (at the run's --speed) with zero loss and zero
# reordering, and p50 at low load at most this many µs.
P50_GOAL_US = 8
TARGET = "bypass"  # the path the goal is for; the ratios compare it with every other path


def ratio(numerator, denominator):
    """numerator / denominator of two medians; None where either is missing or the denominator 0."""
    return numerator / denominator if numerator is not None and denominator else None


def mpps_text(pps):
    return "–" if pps is None else "%.3f" % (pps / 1e6)


def ratio_text(value):
    return "–" if value is None else "%.2f" % value


def marked(text, *points):
    """`text` (of the points' NDRs) with "(model-bound)" where a point's NDR is only a lower bound."""
    return text + " (model-bound)" if any(p.model_bound for p in points) else text


def overloads(options):
    """The overload percentages asked for (`--overload`; 0 or none: no overload trials)."""
    return [p for p in (options.overload or []) if p > 0]


def zero_loss_reordering(trials, path):
    """(zero-loss trials of `path`, those of them that reordered a frame): every search and low-load
    trial that lost nothing of a load offered on schedule (what the search counts as a pass)."""
    zero_loss = [t for t in trials if t.doc["trial"]["path"] == path and t.loss_count == 0 and t.on_schedule]
    return zero_loss, [t for t in zero_loss if t.result["reordering"]["reordered"]]


class Matrix(Scenario):
    name = "matrix"
    title = "Matrix: every path at each frame size and ring count"
    reproduces = ("Issue 3: for each path, the zero-loss rate (RFC 2544 NDR) at 64, 300 and 1500 B with 1, 2, 4 and "
                  "8 rings; latency p50/p99 at low load; CPU cores busy in driver threads (bypass must have none) "
                  "apart from the NIC model's threads; PCIe bytes per packet from the DMA counters. The goal for "
                  "bypass at 64 B is line rate (%.1f Mpps at 100 GbE) with zero loss and zero reordering and p50 "
                  "≤ %g µs at low load; bypass is compared with staged and cpu measured in the same run." % (
                      rates.line_rate_pps(100, 64) / 1e6, P50_GOAL_US))
    searches = True

    def own_defaults(self, quick):
        # Quick: 64 B with 1 and 2 rings. Without a GPU, staged and bypass then cost one refused
        # trial each; with one, quick still shows the ratios.
        # 1024 flows unless told: RSS deals flows, not frames, to rings, and 64 flows left some of 48
        # rings idle and gave others three; those rings, not the path, stopped bypass near 40 Mpps,
        # where with 1024-4096 flows it forwarded 52-63 Mpps without loss (bench/results/2026-11-25-
        # session25, runs 6-8). More flows cost the NIC model more (4096 left it late where 1024 did not).
        return {"paths": ["cpu", "staged", "bypass"], "sizes": [64] if quick else [64, 300, 1500],
                "rings": [1, 2] if quick else [1, 2, 4, 8], "load": 1, "overload": [] if quick else [150, 300],
                "flows": 64 if quick else 1024}

    def estimate_trials(self, options):
        """Per point and repetition: its search, one low-load trial and one per overload; per size: the floor."""
        o = options
        per_size = len(o.paths) * len(o.rings) * o.repetitions
        extra = 1 + len(overloads(o))
        return sum(per_size * (common.ndr_search_trials(o, size) + extra) + o.repetitions for size in o.sizes)

    def run(self, ctx):
        o = ctx.options
        low_load = {"load": o.load}
        ctx.report.method += points_method(ctx, (
            "Paths %s run the same NF chain (%s) at each frame size with %s ring(s): rings = `--queues`, rx/tx queue "
            "pairs per port, served independently, with %d flows spread over them by RSS. The run goes size by size "
            "and, within a ring count, path after path, so the paths the ratios compare are measured minutes apart. "
            "The goal (issue 3): bypass at 64 B forwards line rate with zero loss and zero reordering, and its p50 at "
            "low load is at most %g µs." % (", ".join(o.paths), common.nf_text(o), ", ".join(map(str, o.rings)),
                                            o.flows, P50_GOAL_US)), low_load)
        points, floors = {}, {}
        for size in o.sizes:
            for rings in o.rings:
                for path in o.paths:
                    points[(path, size, rings)] = Point(ctx, "%s-%s-%drings" % (path, size, rings), size, low_load,
                                                        overload=overloads(o), path=path, queues=rings)
            floors[size] = ctx.floor(queues=1, **common.size_knobs(size), **low_load)
        for size in o.sizes:
            rows = [[path, str(rings)] + point_cells(points[(path, size, rings)], o.speed)
                    for path in o.paths for rings in o.rings]
            floor = point_floor_row(["", "%s, 1 ring, %s" % (rates.size_label(size), common.offered_text(low_load))],
                                    floors[size])
            ctx.report.table("%s: NDR, its cost and latency at low load, per path and ring count" %
                             rates.size_label(size), ["path", "rings"] + POINT_HEADERS, rows, latency=True,
                             floor_rows=[floor], note=search_table_note(o.speed, [size]))
        if overloads(o):
            write_overload_table(ctx, "No collapse: each point offered more than its NDR", ["size", "path", "rings"],
                                 [([rates.size_label(size), path, str(rings)], points[(path, size, rings)])
                                  for size in o.sizes for path in o.paths for rings in o.rings], overloads(o))
        self.ratio_table(ctx, points)
        self.cores_table(ctx, points)
        reordering = self.reordering_table(ctx)
        self.figures(ctx, points, floors)
        self.notes(ctx, points)
        ctx.report.headline = self.headline(ctx, points, reordering)

    def ratio_table(self, ctx, points):
        o = ctx.options
        others = [p for p in o.paths if p != TARGET]
        if TARGET not in o.paths or not others:
            ctx.report.note("No ratio table: it compares %s with the other paths, and this run measured %s." % (
                TARGET, ", ".join(o.paths)))
            return
        rows = []
        for size in o.sizes:
            for rings in o.rings:
                target_point = points[(TARGET, size, rings)]
                target = target_point.ndr_pps().median
                row = [rates.size_label(size), str(rings), marked(mpps_text(target), target_point)]
                for other in others:
                    point = points[(other, size, rings)]
                    ndr = point.ndr_pps().median
                    row += [marked(mpps_text(ndr), point), marked(ratio_text(ratio(target, ndr)), target_point, point)]
                rows.append(row)
        headers = ["size", "rings", "%s NDR Mpps" % TARGET]
        for other in others:
            headers += ["%s NDR Mpps" % other, "%s / %s" % (TARGET, other)]
        ctx.report.table("%s against %s: NDR measured in this run" % (TARGET, " and ".join(others)), headers, rows,
                         note="Ratios of the median NDRs in the tables above, at the same size and ring count; – "
                              "where a path was not measured or its NDR is 0; (model-bound) where an NDR is only a "
                              "lower bound (the NIC model was the limit), so the ratio is not the paths'.")

    def cores_table(self, ctx, points):
        """The papers' question: how many CPU cores each path needs for line rate at --speed."""
        o = ctx.options
        rows = [[rates.size_label(size), str(rings), path] + cores_cells(points[(path, size, rings)], o.speed)
                for size in o.sizes for rings in o.rings for path in o.paths]
        ctx.report.table(
            "CPU cores each path needs for %g Gbit/s" % o.speed,
            ["size", "rings", "path", "NDR Gbit/s L1", "driver cores", "driver busy cores", "NIC-model cores",
             "driver busy cores for %g G" % o.speed], rows,
            note="At the NDR (its trial, median over repetitions). Driver busy cores for %g G: the busy cores at the NDR "
                 "scaled to line rate, assuming they grow linearly with the rate (more rings); a path whose driver "
                 "runs on the GPU needs none. The NIC model's cores are the emulation's, not the path's. A "
                 "model-bound NDR is a lower bound, so its scaled cores are an upper bound." % o.speed)

    def reordering_table(self, ctx):
        """Whether zero-loss trials kept every flow in order; returns {path: (zero-loss, reordered)}."""
        out, rows = {}, []
        for path in ctx.options.paths:
            zero_loss, reordered = zero_loss_reordering(ctx.runner.trials, path)
            out[path] = (len(zero_loss), len(reordered))
            ratios = [100 * t.result["reordering"]["ratio"] for t in reordered]
            rows.append([path, str(len(zero_loss)), str(len(reordered)), "%.3f" % max(ratios) if ratios else "0",
                         str(max((t.result["reordering"]["extent_max"] for t in reordered), default=0))])
        ctx.report.table("Reordering in zero-loss trials", ["path", "zero-loss trials", "with reordering",
                                                            "max reordered %", "max extent"], rows,
                         note="Every trial of every search and every low-load trial that lost no frame of a load "
                              "offered on schedule; reordering is RFC 4737's, per flow.")
        return out

    def figures(self, ctx, points, floors):
        o = ctx.options
        panels = {size: {path: [(rings, points[(path, size, rings)].ndr_pps()) for rings in o.rings]
                         for path in o.paths} for size in o.sizes}
        ctx.report.figure("NDR against the ring count per frame size, one line per path (median, bars min–max); "
                          "dashed: line rate", plots.ndr_vs_rings(ctx.folder, "ndr_vs_rings.png", panels, o.speed,
                                                                  "NDR by ring count"))
        p50, p99 = common.latency_value("p50"), common.latency_value("p99")
        bars = {rates.size_label(size): [
            ("%d ring%s" % (rings, "s" if rings > 1 else ""),
             {path: (common.spread(points[(path, size, rings)].low_load, p50).median,
                     common.spread(points[(path, size, rings)].low_load, p99).median) for path in o.paths},
             common.spread(floors[size], p50).median) for rings in o.rings] for size in o.sizes}
        goal = {rates.size_label(64): P50_GOAL_US} if 64 in o.sizes else None
        ctx.report.figure("Latency at low load (%s): p50 solid, p99 pale, medians over repetitions; dashed: the "
                          "calibration floor's p50; dotted: the %s p50 goal" % (
                              common.offered_text({"load": o.load}), TARGET),
                          plots.latency_bars(ctx.folder, "latency_low_load.png", bars, "latency at low load",
                                             goal_us=goal))

    def notes(self, ctx, points):
        low_load_notes(ctx, [(path, "%s %s %d ring(s)" % (path, rates.size_label(size), rings), point)
                             for (path, size, rings), point in points.items()], {"load": ctx.options.load})
        driven = [t for (path, _, _), point in points.items() if path == TARGET for t in point.at_ndr()
                  if common.cores("driver")(t)]
        if driven:
            ctx.report.note("%s ran driver threads (up to %.2f cores at the NDR): it must use none." % (
                TARGET, max(common.cores("driver")(t) for t in driven)))

    def headline(self, ctx, points, reordering):
        o = ctx.options
        size = 64 if 64 in o.sizes else o.sizes[0]
        line_pps = rates.line_rate_pps(o.speed, size)
        target = TARGET if TARGET in o.paths else o.paths[-1]
        measured = [(rings, points[(target, size, rings)]) for rings in o.rings
                    if points[(target, size, rings)].searches]
        if not measured:
            return "%s not measured at %s (see Notes)" % (target, rates.size_label(size))
        # The highest median NDR; of equal ones, the fewest rings.
        rings, best = max(measured, key=lambda rp: (rp[1].ndr_pps().median, -rp[0]))
        ndr = best.ndr_pps().median
        goal = "line rate (%.3f Mpps at %g Gbit/s)" % (line_pps / 1e6, o.speed)
        if ndr:
            parts = ["%s %s: best NDR %s with %d ring(s), %.1f %% of the goal, %s; limit above it: %s" % (
                target, rates.size_label(size), common.bound_rate("%.3f" % (ndr / 1e6), best.searches, " Mpps"),
                rings, 100 * ndr / line_pps, goal, best.limit())]
        else:
            parts = ["%s %s: no rate passed with zero loss at any ring count (goal: %s); limit: %s" % (
                target, rates.size_label(size), goal, best.limit())]
        late = common.spread(best.at_ndr(), common.late_pct).median
        if late:
            parts.append("at the NDR the NIC model was late on %.1f %% of frames" % late)
        p50 = common.spread(best.low_load, common.latency_value("p50")).median
        if p50 is not None:
            parts.append("low-load p50 %.2f µs (goal ≤ %g)" % (p50 / 1e3, P50_GOAL_US))
        for other in o.paths:
            if other != target:
                r = ratio(ndr, points[(other, size, rings)].ndr_pps().median)
                parts.append("%s/%s %s" % (target, other, marked("–" if r is None else "%.2f×" % r, best,
                                                                 points[(other, size, rings)])))
        zero_loss = sum(n for n, _ in reordering.values())
        reordered = ["%s %d of %d" % (path, k, n) for path, (n, k) in reordering.items() if k]
        parts.append("zero-loss trials with reordering: " + (", ".join(reordered) if reordered else
                                                             "none of %d" % zero_loss))
        return "; ".join(parts)
