"""`sweep`: RFC 2544 NDR and PDR for each frame size (RFC 2544's, 1280 and IMIX) on the chosen
paths and NF configs, with the throughput-vs-size curve against line rate."""
import math

from .. import rates
from . import common
from .base import Scenario
from .throughput import Sweep as SizeSweep


def searches_trials(options, sizes):
    """About 1 + log2(1 / resolution) + 2 trials per PDR search, 3 more for the NDR after it."""
    res = str(options.resolution)
    fraction = float(res[:-1]) / 100 if res.endswith("%") else 0.01
    per_search = 1 + math.ceil(math.log2(1 / fraction)) + 2 + 3
    return per_search * len(sizes) * len(options.paths) * len(options.config or [None]) * options.repetitions


class Sweep(Scenario):
    name = "sweep"
    title = "RFC 2544 throughput over frame sizes"
    reproduces = ("RFC 2544 section 26.1 throughput (NDR) and FD.io CSIT's PDR for every frame size of RFC 2544 "
                  "section 9.1 plus 1280 B and simple IMIX (7:4:1 of 64/594/1518 B), against the line-rate curve.")
    searches = True

    def own_defaults(self, quick):
        return {"paths": ["cpu"], "sizes": [64, rates.IMIX_LABEL] if quick else
                list(rates.RFC2544_SIZES) + [rates.IMIX_LABEL]}

    def estimate_trials(self, options):
        return searches_trials(options, options.sizes)

    def run(self, ctx):
        ctx.report.method += [common.describe_common(ctx), common.describe_search(ctx)]
        sweep = SizeSweep(ctx, ctx.options.sizes)
        sweep.write_tables()
        sweep.write_figures("sweep")
        ctx.report.headline = sweep.headline()
