"""`streams`: the staged path's bursts in flight against its NDR, for the IPsec gateway: the seed
paper's CUDA-streams experiment (SEEDS.md §5: copies and kernels of several streams overlap, and
throughput rises with the streams up to an optimum), reproduced on the staged path (issue 13)."""
import os

from .. import plots, rates
from . import common
from .base import Scenario
from .throughput import (POINT_HEADERS, Point, low_load_notes, point_cells, point_floor_row, points_method,
                         search_table_note)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# The seed's cipher, encrypted and decrypted again in one pass so that the sink reads the stamps.
DEFAULT_CONFIG = os.path.join(REPO, "configs", "ipsec-bench-cbc-tunnel.toml")
# SEEDS.md §5, Tesla P100, IPsec passthrough of 1522 B frames, AES-128-CBC + HMAC-SHA1.
PAPER = "IPsec 8.32 Gbit/s with one stream, 15 Gbit/s with several (Tesla P100, 1522 B frames)"


class Streams(Scenario):
    name = "streams"
    title = "Staged path: bursts in flight (the seed paper's CUDA streams)"
    reproduces = ("Issue 13, after SEEDS.md §5: the seed's IPsec gateway ran its bursts on several CUDA streams so "
                  "that copies and kernels overlap, and its throughput rose with the streams up to an optimum (%s). "
                  "gnf's staged path keeps `--staged-depth` bursts in flight per plane, each its own stream's copy "
                  "in, kernel and copy out: the NDR and latency at low load per depth, in one run." % PAPER)
    searches = True

    def own_defaults(self, quick):
        return {"paths": ["staged"], "sizes": [1518], "depths": [1, 4] if quick else [1, 2, 4, 8, 16], "load": 1}

    def estimate_trials(self, options):
        """Per depth, size and repetition: its search and one low-load trial; per size: the floor."""
        o = options
        return sum(len(o.depths) * o.repetitions * (common.ndr_search_trials(o, size) + 1) + o.repetitions
                   for size in o.sizes)

    def run(self, ctx):
        o = ctx.options
        queues = o.queues or 1
        config = o.config[0] if o.config else DEFAULT_CONFIG
        low_load = {"load": o.load}
        if o.paths != ["staged"]:
            ctx.report.note("`--paths %s` was ignored: bursts in flight are the staged path's." % ",".join(o.paths))
        ctx.report.method += points_method(ctx, (
            "The staged path (`--path staged`) with %s, %d ring(s), at each depth (`--staged-depth`, bursts a "
            "plane keeps on the GPU at once; src/driver/gpu_nf_runner.h). The config chooses the staged mode (the "
            "ipsec-bench configs: copy, as the seed copied each burst in and out). The run goes size by size, depth "
            "after depth. Paper: %s." % (os.path.relpath(config, REPO), queues, PAPER)), low_load)
        points, floors = {}, {}
        for size in o.sizes:
            for depth in o.depths:
                points[(depth, size)] = Point(ctx, "staged-depth%d-%s" % (depth, size), size, low_load,
                                              path="staged", staged_depth=depth, config=config, queues=queues)
            floors[size] = ctx.floor(queues=queues, **common.size_knobs(size), **low_load)
        rows = [[rates.size_label(size), str(depth)] + point_cells(points[(depth, size)], o.speed)
                for size in o.sizes for depth in o.depths]
        floor_rows = [point_floor_row([rates.size_label(size), common.offered_text(low_load)], floors[size])
                      for size in o.sizes]
        ctx.report.table("Bursts in flight: NDR, its cost and latency at low load", ["size", "bursts in flight"]
                         + POINT_HEADERS, rows, latency=True, floor_rows=floor_rows,
                         note=search_table_note(o.speed, o.sizes))
        panels = {size: {"staged": [(depth, points[(depth, size)].ndr_pps()) for depth in o.depths]}
                  for size in o.sizes}
        ctx.report.figure("NDR against the bursts in flight per plane (median, bars min–max); dashed: line rate",
                          plots.ndr_vs_rings(ctx.folder, "ndr_vs_depth.png", panels, o.speed, "NDR by bursts in flight",
                                             xlabel="bursts in flight per plane (--staged-depth)"))
        low_load_notes(ctx, [(str(depth), "depth %d %s" % (depth, rates.size_label(size)), point)
                             for (depth, size), point in points.items()], low_load)
        ctx.report.headline = self.headline(ctx, points)

    def headline(self, ctx, points):
        o = ctx.options
        parts = []
        for size in o.sizes:
            measured = {depth: points[(depth, size)] for depth in o.depths if points[(depth, size)].searches}
            if not measured:
                continue
            gbps = rates.gbps_l1(1, size)
            best = max(measured, key=lambda d: measured[d].ndr_pps().median)
            first = min(measured)
            parts.append("%s: %s Gbit/s with %d burst(s) in flight, %s with %d" % (
                rates.size_label(size),
                common.bound_rate("%.2f" % (measured[first].ndr_pps().median * gbps), measured[first].searches),
                first, common.bound_rate("%.2f" % (measured[best].ndr_pps().median * gbps), measured[best].searches),
                best))
        return "; ".join(parts) + " (paper: %s)" % PAPER if parts else "staged path not measured here (see Notes)"
