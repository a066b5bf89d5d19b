"""`nids`: the intrusion-detection chain (configs/nids-bench.toml: nids then l2fwd, 2,000 rules) on
cpu, staged and bypass in one run, per frame size: its NDR, the driver and NIC-model cores each path
spends there and its latency at low load; and, given gnf-nids-bench's JSON, the matching alone on
the GPU beside Hyperscan on one core and on all of them, per pattern count and payload size, with
the automaton's memory and build time per rule set (issue 14)."""
import json
import os

from .. import plots, rates
from . import common
from .base import Scenario
from .throughput import (POINT_HEADERS, Point, cores_cells, low_load_notes, point_cells, point_floor_row,
                         points_method)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CONFIG = os.path.join(REPO, "configs", "nids-bench.toml")
GOAL_GBPS = 200      # issue 14: matching on the GPU at >= 200 Gbit/s with >= 2,000 patterns at 1500 B
GOAL_PATTERNS = 2000
GOAL_OVER_HYPERSCAN = 4  # ... and >= 4x Hyperscan on all host cores
# gnf-nids-bench's rates, in its JSON and in the report: (key, column)
GPU_SHAPES = (("gpu_thread_per_packet", "GPU thread/packet"), ("gpu_warp_per_packet", "GPU warp/packet"))
MIB = 1 << 20


def load_nids(path):
    """gnf-nids-bench's --json output (bench/nids/README.md)."""
    with open(path) as f:
        return json.load(f)


def rate_columns(threads):
    """(JSON key, name) of gnf-nids-bench's four rates, Hyperscan on all cores being `threads` threads."""
    return list(GPU_SHAPES) + [("hyperscan_1_core", "Hyperscan 1 core"),
                               ("hyperscan_all_cores", "Hyperscan %d cores" % threads)]


def gbps(row, key):
    return (row.get(key) or {}).get("gbps")


def best_gpu(row):
    """(Gbit/s, shape) of the faster GPU shape of a gnf-nids-bench row; (None, None) without the GPU."""
    measured = [(gbps(row, key), name) for key, name in GPU_SHAPES if gbps(row, key)]
    return max(measured) if measured else (None, None)


def over(numerator, denominator):
    return numerator / denominator if numerator and denominator else None


def payload_label(size):
    """gnf-nids-bench's size ("64", ..., "imix") as the report writes it."""
    return "IMIX" if size == rates.IMIX_LABEL else "%s B" % size


def pattern_sets(doc):
    """The JSON's rows grouped by pattern count, in its order: {patterns: [row per size]}."""
    sets = {}
    for row in doc["results"]:
        sets.setdefault(row["patterns"], []).append(row)
    return sets


class Nids(Scenario):
    name = "nids"
    title = "Intrusion detection: NDR of the nids chain per path and frame size, and matching beside Hyperscan"
    reproduces = ("Issue 14's benchmarks: the nids chain's zero-loss rate (RFC 2544 NDR) on the cpu, staged and "
                  "bypass paths in one run, per frame size (64, 512, 1500 B, IMIX), with the CPU cores each path "
                  "spends, beside gnf-nids-bench's matching Gbit/s on the GPU alone and Hyperscan on 1 and all host "
                  "cores with 147, 2,000 and 10,000+ patterns (goal: ≥ %d Gbit/s on the GPU with ≥ %d patterns at "
                  "1500 B, ≥ %d× Hyperscan on all cores), and the automaton's memory and build time per rule-set "
                  "size." % (GOAL_GBPS, GOAL_PATTERNS, GOAL_OVER_HYPERSCAN))
    searches = True

    def own_defaults(self, quick):
        return {"paths": ["cpu", "staged", "bypass"], "sizes": [1500] if quick else [64, 512, 1500, rates.IMIX_LABEL],
                "speed": GOAL_GBPS, "load": 1}

    def estimate_trials(self, options):
        """Per point and repetition: its search and one low-load trial; per size: the floor."""
        o = options
        return sum(len(o.paths) * o.repetitions * (common.ndr_search_trials(o, size) + 1) + o.repetitions
                   for size in o.sizes)

    def run(self, ctx):
        o = ctx.options
        low_load = {"load": o.load}
        ctx.report.method += points_method(ctx, self.describe(o), low_load)
        matcher = load_nids(o.nids_json) if o.nids_json else None  # before the trials: a bad file costs none
        if o.config:
            ctx.report.note("--config was not used: the nids scenario runs configs/nids-bench.toml.")
        points = {(size, path): Point(ctx, "%s-%s" % (size, path), size, low_load, path=path, queues=o.queues,
                                      config=CONFIG)
                  for size in o.sizes for path in o.paths}
        floors = {size: ctx.floor(queues=o.queues, config=CONFIG, **common.size_knobs(size), **low_load)
                  for size in o.sizes}
        self.point_table(ctx, points, floors)
        self.cores_table(ctx, points)
        if matcher:
            self.matcher_tables(ctx, matcher)
        self.figures(ctx, points, matcher)
        self.notes(ctx, points)
        ctx.report.headline = self.headline(ctx, points, matcher)

    @staticmethod
    def describe(o):
        return ("The chain: configs/nids-bench.toml, the nids NF then l2fwd from port 0 to port 1, with "
                "configs/nids-bench.rules (2,000 alert rules, 2,600-odd contents shaped like gnf-nids-bench's "
                "generated patterns), none of whose contents occurs in the generator's payload: every frame is "
                "scanned to its last byte and forwarded, and its stamp measured. No flow control, DROP_EN on, a full "
                "tx ring drops; the driver's burst (256) is the NF's parallelism per queue on the GPU paths. Paths "
                "%s, %s; `Gbit/s` is the frames' layer-1 rate." % (", ".join(o.paths), common.queues_text(o)))

    def point_table(self, ctx, points, floors):
        o = ctx.options
        rows = [[rates.size_label(size), path] + point_cells(points[(size, path)], o.speed)
                for size in o.sizes for path in o.paths]
        floor_rows = [point_floor_row(["", "%s, %s" % (rates.size_label(size), common.offered_text(
            {"load": o.load}))], floors[size]) for size in o.sizes]
        ctx.report.table("The nids chain: NDR, its cost and latency at low load, per size and path",
                         ["size", "path"] + POINT_HEADERS, rows, latency=True, floor_rows=floor_rows,
                         note=common.MODEL_BOUND_COLUMN_NOTE)

    def cores_table(self, ctx, points):
        o = ctx.options
        rows = [[rates.size_label(size), path] + cores_cells(points[(size, path)], GOAL_GBPS)
                for size in o.sizes for path in o.paths]
        ctx.report.table(
            "The cores the nids chain spends at its NDR", ["size", "path", "NDR Gbit/s L1", "driver cores",
                                                           "driver busy cores", "NIC-model cores",
                                                           "driver busy cores for %d G" % GOAL_GBPS], rows,
            note="At the NDR (its trial, median over repetitions). Driver busy cores for %d G: the busy cores at the "
                 "NDR scaled to %d Gbit/s, assuming they grow linearly with the rate (more rings: `--queues`); a "
                 "model-bound NDR is a lower bound, so its scaled cores are an upper bound. The NIC model's cores are "
                 "the emulation's, not the chain's." % (GOAL_GBPS, GOAL_GBPS))

    def matcher_tables(self, ctx, doc):
        threads = doc["cpu_threads"]
        rows = []
        for row in doc["results"]:
            best, shape = best_gpu(row)
            ratio = over(best, gbps(row, "hyperscan_all_cores"))
            rows.append([row["patterns"], payload_label(row["size"])]
                        + [common.number(gbps(row, key)) for key, _ in rate_columns(threads)]
                        + ["–" if ratio is None else "%.1f× (%s)" % (ratio, shape)])
        ctx.report.table(
            "Matching alone: Gbit/s on the GPU (%s) beside Hyperscan on 1 and %d cores, per pattern count and "
            "payload size" % (doc.get("gpu") or "no GPU", threads),
            ["patterns", "payload"] + ["%s Gbit/s" % name for _, name in rate_columns(threads)]
            + ["GPU / Hyperscan %d cores" % threads], rows,
            note="gnf-nids-bench (bench/nids/README.md): payloads already in memory, Gbit/s of payload bytes; its "
                 "sizes are payloads' (IMIX: 7 : 4 : 1 of 40, 576 and 1500 B), not frames'. The GPU runs the nids "
                 "automaton (a thread per packet, or a warp per packet), without rule verification, parsing, PCIe "
                 "or the alert ring; Hyperscan is hs_compile_lit_multi in block mode, %d threads for all cores. "
                 "GPU / Hyperscan: the faster GPU shape over Hyperscan on all cores (goal: ≥ %d× with ≥ %d "
                 "patterns at 1500 B, and ≥ %d Gbit/s)." % (threads, GOAL_OVER_HYPERSCAN, GOAL_PATTERNS, GOAL_GBPS))
        sets = pattern_sets(doc)
        rows = []
        for patterns, set_rows in sets.items():
            first = set_rows[0]
            automaton = first.get("automaton_bytes")
            rows.append([patterns, first.get("pattern_source", "–"),
                         common.number(first.get("automaton_states"), "{}"),
                         common.number(automaton / MIB if automaton is not None else None),
                         common.number(first.get("build_ms")), common.number(first.get("hyperscan_build_ms"))])
        ctx.report.table("The automaton's memory and build time per rule-set size",
                         ["patterns", "pattern source", "DFA states", "DFA MiB", "DFA build ms", "Hyperscan build ms"],
                         rows, note="From gnf-nids-bench's JSON, once per pattern set, built on the host.")
        if not any("build_ms" in row for row in doc["results"]):
            ctx.report.note("gnf-nids-bench's JSON has no build time (`build_ms`): the automaton's build time is not "
                            "reported.")
        if doc.get("gpu_skipped"):
            ctx.report.note("gnf-nids-bench measured Hyperscan alone: \"%s\"; its GPU columns show –." %
                            doc["gpu_skipped"])

    def figures(self, ctx, points, matcher):
        o = ctx.options
        series = {path: [(size, points[(size, path)].ndr_pps()) for size in o.sizes] for path in o.paths}
        ctx.report.figure("The nids chain: NDR per frame size, one line per path (median, bars min–max) against the "
                          "%g Gbit/s line rate" % o.speed,
                          plots.throughput_vs_size(ctx.folder, "ndr_vs_size.png", series, o.speed,
                                                   "nids chain: NDR vs frame size"))
        if not matcher:
            return
        names = rate_columns(matcher["cpu_threads"])
        panels = {"%d patterns (%s)" % (patterns, rows[0].get("pattern_source", "?")):
                  {payload_label(row["size"]): {name: gbps(row, key) for key, name in names} for row in rows}
                  for patterns, rows in pattern_sets(matcher).items()}
        ctx.report.figure("Matching alone: Gbit/s per payload size, GPU beside Hyperscan, one panel per pattern set",
                          plots.grouped_bars(ctx.folder, "matching_gbps.png", panels, "Gbit/s of payload (log)",
                                             "nids matching: GPU vs Hyperscan"))

    @staticmethod
    def notes(ctx, points):
        low_load_notes(ctx, [(path, "%s %s" % (rates.size_label(size), path), point)
                             for (size, path), point in points.items()], {"load": ctx.options.load})
        moved = common.nf_counters_moved(ctx.runner.trials, "nids", lambda name: name != "clean")
        if moved:
            ctx.report.note("The nids element counted more than clean packets in some trials (configs/nids-bench.rules "
                            "match nothing the generator sends, so each is worth a look; an alert costs a record, "
                            "never a frame): %s." % ", ".join(
                                "%s in %d trial(s), up to %d" % (name, len(v), max(v)) for name, v in moved.items()))

    @staticmethod
    def headline(ctx, points, matcher):
        o = ctx.options
        size = max((s for s in o.sizes if s != rates.IMIX_LABEL), default=o.sizes[0])
        cells = []
        for path in o.paths:
            point = points[(size, path)]
            cells.append("%s %s" % (path, cores_cells(point, GOAL_GBPS, " Gbit/s")[0] if point.searches else "–"))
        text = "nids chain NDR at %s: %s" % (rates.size_label(size), ", ".join(cells))
        goal_rows = [r for r in (matcher or {}).get("results", [])
                     if r["patterns"] >= GOAL_PATTERNS and r["size"] == "1500"]
        if goal_rows:
            row = min(goal_rows, key=lambda r: r["patterns"])
            best, shape = best_gpu(row)
            ratio = over(best, gbps(row, "hyperscan_all_cores"))
            text += "; matching %d patterns at 1500 B: GPU %s Gbit/s (%s), %s Hyperscan on %d cores" % (
                row["patterns"], common.number(best), shape or "not run",
                "–" if ratio is None else "%.1f×" % ratio, matcher["cpu_threads"])
        return text
