"""`paths`: cpu vs staged vs bypass, same NF, same run, for each frame size: Mpps, Gbit/s, CPU load
and latency at the NDR (the Keio paper's figures 4.5-4.8, SEEDS.md §4)."""
from .. import rates
from . import common
from .base import Scenario
from .sweep import searches_trials
from .throughput import Sweep as SizeSweep

# SEEDS.md §4, Xeon E5-2697 v3 + X520 (10 GbE) + Quadro K4000, one core, 1 rx + 1 tx queue.
# Their NIC-GPU path is CPU-driven descriptors with packet buffers in GPU memory; ours (bypass) is
# GPU-driven: the closest of our paths, not the same one.
KEIO = {
    "cpu": ("NIC-CPU", "all sizes (64 B)", "14.88 (line rate)", "~0.1 ms RTT"),
    "staged": ("NIC-CPU-GPU", "≥ 512 B", "below line rate", "~0.8 ms RTT"),
    "bypass": ("NIC-GPU", "≥ 128 B", "11.2", "~0.8 ms RTT"),
}


class Paths(Scenario):
    name = "paths"
    title = "Data paths side by side: cpu, staged, bypass"
    reproduces = ("Reproduces the Keio paper's figures 4.5-4.8 (SEEDS.md §4): throughput (Mpps, Gbit/s), CPU load "
                  "and latency of the CPU-only, CPU-driven-GPU and GPU-memory paths for each frame size, with the "
                  "same NF, measured in one run.")
    searches = True

    def own_defaults(self, quick):
        return {"paths": ["cpu", "staged", "bypass"], "sizes": [64, 1518] if quick else list(rates.RFC2544_SIZES)}

    def estimate_trials(self, options):
        return searches_trials(options, options.sizes)

    def run(self, ctx):
        o = ctx.options
        ctx.report.method += [
            common.describe_common(ctx), common.describe_search(ctx),
            "All paths run the same NF chain (%s) with %s, one after another in this run. The Keio paper "
            "offered line rate and reported what came out, and round-trip times; we report RFC 2544 NDR/PDR, what "
            "came out at 100 %% offered load (the search's first trial), and one-way port-to-port latency at the "
            "NDR." % (", ".join(o.config) if o.config else "l2fwd, the `gnf bench` default", common.queues_text(o))]
        sweep = SizeSweep(ctx, o.sizes)
        sweep.write_tables()
        self.paper_table(ctx, sweep)
        sweep.write_figures("paths")
        ctx.report.headline = sweep.headline()

    def paper_table(self, ctx, sweep):
        o = ctx.options
        numeric = sorted(s for s in o.sizes if s != rates.IMIX_LABEL)
        rows = []
        for label, knobs in sweep.series:
            reached = [s for s in numeric if (sweep.ndr_pps(label, s).median or 0) >= rates.line_rate_pps(o.speed, s)]
            measured = any(sweep.results.get((label, s)) for s in numeric)
            ndr64 = sweep.ndr_text(label, 64) if 64 in numeric else "not run"
            paper = KEIO.get(knobs["path"], ("–",) * 4)
            rows.append([label, ("≥ %d B" % reached[0] if reached else "none") if measured else "–", ndr64,
                         paper[0], paper[1], paper[2], paper[3]])
        ctx.report.table(
            "Against the Keio paper (figures 4.5-4.8)",
            ["path", "line rate (NDR) from", "64 B NDR Mpps", "paper's path", "paper: line rate from",
             "paper: 64 B Mpps", "paper: latency"], rows,
            note="Paper: 10 GbE X520, one CPU core, Quadro K4000, forwarded rate at line-rate input; ours: softnic "
                 "at %g Gbit/s, NDR. Paper latency is a round trip, ours one way." % o.speed)
