"""`staged-modes`: the staged path's three modes (a zero-copy kernel per burst; copy in, kernel, copy
out; a persistent kernel fed by a work queue) at 64, 300 and 1500 B with one ring: NDR and latency at
low load per mode, and which mode is faster where (issue 3)."""
from .. import plots, rates
from . import common
from .base import Scenario
from .throughput import (POINT_HEADERS, Point, low_load_notes, point_cells, point_floor_row, points_method,
                         search_table_note)

MODES = ("zero-copy", "copy", "persistent")  # gnf bench --staged-mode


def fastest(points):
    """The modes the search cannot tell from the best one (their brackets [NDR, lowest failing rate)
    reach the best NDR), and that best NDR; ([], None) if no mode was measured."""
    measured = {mode: p for mode, p in points.items() if p.searches}
    if not measured:
        return [], None
    best = max(p.ndr_pps().median for p in measured.values())
    return [mode for mode, p in measured.items() if p.upper_pps().median > best], best


class StagedModes(Scenario):
    name = "staged-modes"
    title = "Staged path: zero-copy, copy and persistent modes"
    reproduces = ("Issue 3: the staged path in its three modes (`--staged-mode zero-copy|copy|persistent`): the "
                  "zero-loss rate (RFC 2544 NDR) and latency p50/p99 at low load per frame size, measured in one run, "
                  "to say which mode is faster where.")
    searches = True

    def own_defaults(self, quick):
        return {"paths": ["staged"], "sizes": [64] if quick else [64, 300, 1500], "load": 1}

    def estimate_trials(self, options):
        """Per mode, size and repetition: its search and one low-load trial; per size: the floor."""
        o = options
        return sum(len(MODES) * o.repetitions * (common.ndr_search_trials(o, size) + 1) + o.repetitions
                   for size in o.sizes)

    def run(self, ctx):
        o = ctx.options
        queues = o.queues or 1
        low_load = {"load": o.load}
        if o.paths != ["staged"]:
            ctx.report.note("`--paths %s` was ignored: the modes are the staged path's." % ",".join(o.paths))
        ctx.report.method += points_method(ctx, (
            "The staged path (`--path staged`) with the same NF chain (%s), %d ring(s), in each mode "
            "(`--staged-mode`; src/driver/gpu_nf_runner.h): zero-copy (one kernel launch per burst, reading and "
            "writing the packets in pinned host memory in place over PCIe), copy (copy the burst into GPU memory, "
            "run the kernel there, copy it back) and persistent (a kernel launched once polls a work queue; packets "
            "read in place as in zero-copy). The run goes size by size, mode after mode. A mode is called faster "
            "where its NDR is at or above the lowest rate at which the other failed (medians over repetitions); "
            "where the search brackets overlap, the modes tie (≈)." % (common.nf_text(o), queues)), low_load)
        points, floors = {}, {}
        for size in o.sizes:
            for mode in MODES:
                points[(mode, size)] = Point(ctx, "staged-%s-%s" % (mode, size), size, low_load, path="staged",
                                             staged_mode=mode, queues=queues)
            floors[size] = ctx.floor(queues=queues, **common.size_knobs(size), **low_load)
        rows = [[rates.size_label(size), mode] + point_cells(points[(mode, size)], o.speed)
                for size in o.sizes for mode in MODES]
        floor_rows = [point_floor_row([rates.size_label(size), common.offered_text(low_load)], floors[size])
                      for size in o.sizes]
        ctx.report.table("Staged modes: NDR, its cost and latency at low load", ["size", "mode"] + POINT_HEADERS,
                         rows, latency=True, floor_rows=floor_rows, note=search_table_note(o.speed, o.sizes))
        self.figures(ctx, points, floors)
        low_load_notes(ctx, [(mode, "%s %s" % (mode, rates.size_label(size)), point)
                             for (mode, size), point in points.items()], low_load)
        ctx.report.headline = self.headline(ctx, points)

    def figures(self, ctx, points, floors):
        o = ctx.options
        series = {mode: [(size, points[(mode, size)].ndr_pps()) for size in o.sizes] for mode in MODES}
        ctx.report.figure("Staged modes: NDR per frame size (median, bars min–max) against the %g Gbit/s line rate"
                          % o.speed, plots.throughput_vs_size(ctx.folder, "ndr_vs_size.png", series, o.speed,
                                                              "staged modes: NDR vs frame size"))
        p50, p99 = common.latency_value("p50"), common.latency_value("p99")
        groups = [(rates.size_label(size),
                   {mode: (common.spread(points[(mode, size)].low_load, p50).median,
                           common.spread(points[(mode, size)].low_load, p99).median) for mode in MODES},
                   common.spread(floors[size], p50).median) for size in o.sizes]
        ctx.report.figure("Staged modes: latency at low load (%s), p50 solid, p99 pale; dashed: the calibration "
                          "floor's p50" % common.offered_text({"load": o.load}),
                          plots.latency_bars(ctx.folder, "latency_low_load.png", {"staged path": groups},
                                             "staged modes: latency at low load"))

    def headline(self, ctx, points):
        o = ctx.options
        faster, quicker = [], []
        for size in o.sizes:
            at_size = {mode: points[(mode, size)] for mode in MODES}
            line_pps = rates.line_rate_pps(o.speed, size)
            modes, best = fastest(at_size)
            if not modes:
                continue
            if best == 0:
                faster.append("%s none passed" % rates.size_label(size))
            else:
                searches = [r for mode in modes for r in at_size[mode].searches]
                faster.append("%s %s (%s%s)" % (
                    rates.size_label(size), " ≈ ".join(modes), common.bound_rate("%.3f" % (best / 1e6), searches,
                                                                                  " Mpps"),
                    ", line rate" if best >= line_pps else ""))
            p50 = {mode: common.spread(p.low_load, common.latency_value("p50")).median for mode, p in at_size.items()}
            p50 = {mode: v for mode, v in p50.items() if v is not None}
            if p50:
                lowest = min(p50.values())  # equal medians: the same histogram bucket, a tie
                quicker.append("%s %s %.2f µs" % (rates.size_label(size), " = ".join(
                    mode for mode, value in p50.items() if value == lowest), lowest / 1e3))
        if not faster:
            return "staged path not measured here (see Notes)"
        return "highest NDR: %s; lowest p50 at low load: %s" % (", ".join(faster), ", ".join(quicker) or "–")
