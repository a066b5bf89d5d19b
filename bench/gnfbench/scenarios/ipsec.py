"""`ipsec`: the IPsec gateway (configs/ipsec-bench-*.toml) on cpu, staged and bypass in one run, per
cipher and frame size: its NDR, Gbit/s at the NDR, the driver and NIC-model cores each path spends
there, and, given gnf-esp-bench's JSON, the cipher alone on the GPU and on the host's cores beside
it: how many cores a 200 G IPsec gateway needs on each path (issue 13)."""
import json
import os

from .. import plots, rates
from . import common
from .base import Scenario
from .throughput import (POINT_HEADERS, Point, cores_cells, low_load_notes, point_cells, point_floor_row,
                         points_method)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
# --ciphers name -> (what the report calls it, gnf-esp-bench's `algorithm`)
CIPHERS = {"gcm": ("AES-128-GCM", "aes-128-gcm"), "cbc": ("AES-128-CBC + HMAC-SHA1-96", "aes-128-cbc+hmac-sha1-96")}
# --variants name -> the config's suffix and gnf-esp-bench's ops that make up its crypto work
VARIANTS = {"encrypt": ("", ("seal",)), "tunnel": ("-tunnel", ("seal", "open"))}
GOAL_GBPS = 200  # the question: how many cores a gateway of this rate needs on each path


def config_file(cipher, variant):
    return os.path.join(REPO, "configs", "ipsec-bench-%s%s.toml" % (cipher, VARIANTS[variant][0]))


def esp_loss(t):
    """(lost, ratio) of the encrypt variant over the whole trial, warm-up included: frames the
    generator sent less the frames without a stamp the sinks took (`foreign_frames`, counted over the
    whole trial as `generated` is): ESP, whose stamps the sink cannot read. A frame that left in the
    clear, or that a trial which did not drain still held, counts as lost."""
    summary = t.doc["summary"]
    generated = summary["generated"]["frames"]
    delivered = sum(sink["foreign_frames"] for sink in summary["sinks"])
    lost = max(0, generated - delivered)
    return lost, lost / generated if generated else 0.0


# gnf-esp-bench's CPU libraries: the name a table shows, the prefix of its JSON keys.
CPU_LIBRARIES = (("OpenSSL", "openssl"), ("intel-ipsec-mb", "ipsec_mb"))


def load_esp(path):
    """gnf-esp-bench's results by (algorithm, size, op): {"gpu_thread_per_packet", for GCM
    "gpu_tile_N_per_packet" too, "openssl_1_core", "openssl_all_cores", "ipsec_mb_1_core",
    "ipsec_mb_all_cores": {gbps, mpps}} and the thread
    count of its all-cores figure."""
    with open(path) as f:
        doc = json.load(f)
    return {(r["algorithm"], r["size"], r["op"]): r for r in doc["results"]}, doc["cpu_threads"]


def fastest_gpu(row):
    """The fastest of the GPU shapes gnf-esp-bench measured in a row (a thread per packet; GCM on tiles
    of lanes too): the shape the gateway's kernels would pick."""
    shapes = [v for k, v in row.items() if k.startswith("gpu_") and isinstance(v, dict) and v.get("gbps")]
    return max(shapes, key=lambda v: v["gbps"]) if shapes else None


def combined_gbps(rows, key):
    """Gbit/s of one unit doing every op of `rows` in turn (seal then open: 1 / sum of 1 / rate)."""
    rates_gbps = [(r.get(key) or {}).get("gbps") for r in rows]
    if not rates_gbps or not all(rates_gbps):
        return None
    return 1 / sum(1 / g for g in rates_gbps)


def describe_variants(o):
    """The method paragraph on the two variants and how each one's loss is counted."""
    return ("The gateway: configs/ipsec-bench-{gcm,cbc}.toml (variant `encrypt`): port 0 is protected, every generated "
            "frame is encrypted into an IPv4 ESP tunnel and routed out of port 1, as one gateway's outbound side. Its "
            "frames leave as ESP, where the sink finds no stamp: its loss is counted over the whole trial (warm-up "
            "included) as frames generated less frames the sinks took without a stamp, and it has no latency. "
            "configs/ipsec-bench-{gcm,cbc}-tunnel.toml (variant `tunnel`): a second ipsec element plays the peer "
            "gateway and decrypts what the first encrypted, so each frame is encrypted and decrypted once (the work "
            "of a gateway carrying the rate each way) and leaves with its stamp: loss and latency per frame. Paths "
            "%s, %s; `Gbit/s` is the plain frames' layer-1 rate offered to port 0." % (
                ", ".join(o.paths), common.queues_text(o)))


class Ipsec(Scenario):
    name = "ipsec"
    title = "IPsec gateway: NDR per path, cipher and frame size, and the cores it costs"
    reproduces = ("Issue 13's end-to-end benchmark: the ESP gateway's zero-loss rate (RFC 2544 NDR) on the cpu, "
                  "staged and bypass paths in one run, per cipher (AES-128-GCM, AES-128-CBC + HMAC-SHA1-96) and frame "
                  "size (64, 512, 1420 B, IMIX), with the CPU cores each path spends, beside gnf-esp-bench's ESP "
                  "Gbit/s (GPU alone, the faster CPU library on 1 and all cores): how many cores a %d G IPsec gateway needs on "
                  "each path (goal: bypass ≥ %d Gbit/s with no driver core)." % (GOAL_GBPS, GOAL_GBPS))
    searches = True

    def own_defaults(self, quick):
        return {"paths": ["cpu", "staged", "bypass"], "ciphers": list(CIPHERS), "variants": list(VARIANTS),
                "sizes": [1420] if quick else [64, 512, 1420, rates.IMIX_LABEL], "speed": GOAL_GBPS, "load": 1}

    def estimate_trials(self, options):
        """Per point and repetition: its search, and one low-load trial for the tunnel; per size: the floor."""
        o = options
        lowload = sum(1 for v in o.variants if v == "tunnel")
        per_size = len(o.paths) * len(o.ciphers) * o.repetitions
        return sum(per_size * (len(o.variants) * common.ndr_search_trials(o, size) + lowload) + o.repetitions
                   for size in o.sizes)

    def run(self, ctx):
        o = ctx.options
        low_load = {"load": o.load}
        ctx.report.method += points_method(ctx, describe_variants(o), low_load)
        esp = load_esp(o.esp_json) if o.esp_json else None  # before the trials: a bad file costs none
        if o.config:
            ctx.report.note("--config was not used: the ipsec scenario runs configs/ipsec-bench-*.toml.")
        points = {}
        for size in o.sizes:
            for cipher in o.ciphers:
                for variant in o.variants:
                    for path in o.paths:
                        tunnel = variant == "tunnel"
                        points[(cipher, variant, size, path)] = Point(
                            ctx, "%s-%s-%s-%s" % (cipher, variant, size, path), size, low_load if tunnel else None,
                            loss=None if tunnel else esp_loss, path=path, queues=o.queues,
                            config=config_file(cipher, variant))
        floors = {size: ctx.floor(queues=o.queues, config=config_file(o.ciphers[0], "tunnel"),
                                  **common.size_knobs(size), **low_load) for size in o.sizes}
        self.point_tables(ctx, points, floors)
        self.cores_table(ctx, points, esp)
        self.figures(ctx, points)
        self.notes(ctx, points)
        ctx.report.headline = self.headline(ctx, points)

    def point_tables(self, ctx, points, floors):
        o = ctx.options
        for cipher in o.ciphers:
            rows = [[variant, rates.size_label(size), path]
                    + point_cells(points[(cipher, variant, size, path)], o.speed)
                    for variant in o.variants for size in o.sizes for path in o.paths]
            floor_rows = [point_floor_row(["", "", "%s, %s" % (rates.size_label(size), common.offered_text(
                {"load": o.load}))], floors[size]) for size in o.sizes]
            ctx.report.table("%s: NDR, its cost and latency at low load, per variant, size and path" %
                             CIPHERS[cipher][0],
                             ["variant", "size", "path"] + POINT_HEADERS, rows, latency=True, floor_rows=floor_rows,
                             note="The encrypt variant's frames leave as ESP, whose stamps the sink cannot read: "
                                  "it has no latency, and its reordering and PCIe bytes per packet (per stamped "
                                  "frame received) read 0. " +
                                  common.MODEL_BOUND_COLUMN_NOTE)

    def cores_table(self, ctx, points, esp):
        o = ctx.options
        headers = ["cipher", "variant", "size", "path", "NDR Gbit/s L1", "driver cores", "driver busy cores",
                   "NIC-model cores", "driver busy cores for %d G" % GOAL_GBPS]
        if esp:
            headers += ["ESP GPU Gbit/s", "CPU library", "CPU 1 core Gbit/s", "CPU %d cores Gbit/s" % esp[1],
                        "CPU cores for %d G" % GOAL_GBPS]
        rows = []
        for cipher in o.ciphers:
            for variant in o.variants:
                for size in o.sizes:
                    for path in o.paths:
                        point = points[(cipher, variant, size, path)]
                        rows.append([CIPHERS[cipher][0], variant, rates.size_label(size), path]
                                    + cores_cells(point, GOAL_GBPS)
                                    + (self.esp_cells(esp[0], cipher, variant, size) if esp else []))
        ctx.report.table(
            "How many cores a %d G IPsec gateway needs on each path" % GOAL_GBPS, headers, rows,
            note="At the NDR (its trial, median over repetitions). Driver busy cores for %d G: the busy cores at the "
                 "NDR scaled to %d Gbit/s, assuming they grow linearly with the rate (more rings: `--queues`); the "
                 "NIC model's cores are the emulation's, not the gateway's. A model-bound NDR is a lower bound, so "
                 "its scaled cores are an upper bound. gnf-esp-bench's columns (given --esp-json) are the cipher "
                 "alone on packets in memory, its sizes being the inner IP packet's (a frame's less 18 B), and for the "
                 "tunnel variant a seal and an open per packet; the CPU columns are the faster library's on one core "
                 "(OpenSSL's EVP a packet a call, or intel-ipsec-mb in bursts of 32): CPU cores for %d G = %d / "
                 "(1-core Gbit/s)." % (
                     GOAL_GBPS, GOAL_GBPS, GOAL_GBPS, GOAL_GBPS))

    @staticmethod
    def esp_cells(esp, cipher, variant, size):
        size_name = size if size == rates.IMIX_LABEL else str(size)
        rows = [esp.get((CIPHERS[cipher][1], size_name, op)) for op in VARIANTS[variant][1]]
        if not all(rows):
            return ["–"] * 5
        rows = [dict(r, gpu_fastest=fastest_gpu(r)) for r in rows]
        gpu = combined_gbps(rows, "gpu_fastest")
        cpu = [(name, combined_gbps(rows, key + "_1_core"), combined_gbps(rows, key + "_all_cores"))
               for name, key in CPU_LIBRARIES]
        name, one, all_cores = max(cpu, key=lambda c: c[1] or 0)
        return [common.number(gpu), name if one else "–", common.number(one), common.number(all_cores),
                common.number(GOAL_GBPS / one if one else None)]

    def figures(self, ctx, points):
        o = ctx.options
        for index, cipher in enumerate(o.ciphers):
            series = {"%s %s" % (variant, path): [(size, points[(cipher, variant, size, path)].ndr_pps())
                                                  for size in o.sizes]
                      for variant in o.variants for path in o.paths}
            ctx.report.figure("%s: NDR per frame size, one line per variant and path (median, bars min–max) against "
                              "the %g Gbit/s line rate" % (CIPHERS[cipher][0], o.speed),
                              plots.throughput_vs_size(ctx.folder, "ndr_vs_size_%d.png" % index, series, o.speed,
                                                       "%s: NDR vs frame size" % CIPHERS[cipher][0]))

    def notes(self, ctx, points):
        low_load_notes(ctx, [(path, "%s %s %s %s" % (cipher, variant, rates.size_label(size), path), point)
                             for (cipher, variant, size, path), point in points.items() if variant == "tunnel"],
                       {"load": ctx.options.load})
        dropped = common.nf_counters_moved(ctx.runner.trials, "ipsec", lambda name: name.startswith("drop_"))
        if dropped:
            ctx.report.note("The ipsec elements dropped frames in some trials (a gateway that is keeping up drops "
                            "none: each is a fault to look into): %s." % ", ".join(
                                "%s in %d trial(s), up to %d" % (name, len(v), max(v)) for name, v in dropped.items()))

    def headline(self, ctx, points):
        o = ctx.options
        size = max((s for s in o.sizes if s != rates.IMIX_LABEL), default=o.sizes[0])
        parts = []
        for cipher in o.ciphers:
            variant = o.variants[0]
            cells = []
            for path in o.paths:
                point = points[(cipher, variant, size, path)]
                if not point.searches:
                    cells.append("%s –" % path)
                    continue
                ndr_gbps, _, busy, _, scaled = cores_cells(point, GOAL_GBPS, " Gbit/s")
                cells.append("%s %s (%s busy driver cores, %s at %d G)" % (path, ndr_gbps, busy, scaled, GOAL_GBPS))
            parts.append("%s %s %s: %s" % (CIPHERS[cipher][0], variant, rates.size_label(size), ", ".join(cells)))
        return "; ".join(parts)
