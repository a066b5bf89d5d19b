"""`lookups`: what one longest-prefix-match lookup costs. gnf-lookup-bench (bench/lookup/README.md)
times gnf's tables (nf/l3fwd/lpm4.h, lpm6.h) beside DPDK's rte_lpm, rte_fib and rte_fib6 on one
pinned CPU core, and gnf's in GPU kernels, over the same table and addresses; one run per table
kind, every implementation side by side in it."""
import json
import os
import subprocess

from .. import plots, trial
from ..report import Run
from .base import Scenario

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
PYASN_DATA = "/usr/lib/python3/dist-packages/data"  # Debian's python3-pyasn
ROUTE_FILES = {"ipv4": "ipasn_20140513.dat.gz", "ipv6": "ipasn6_20151101.dat.gz"}
SYNTHETIC = {"ipv4": "synthetic:1M", "ipv6": "synthetic:220k"}  # the sizes the issue asks for
GPU_GOAL = 5e9  # lookups/s: the goal for the H100, IPv4 with the full table
RUN_TIMEOUT_S = 3600
MIB = 1 << 20


# What the report reads of gnf-lookup-bench's JSON (bench/lookup/README.md): checked on every run, so
# that a change on either side fails here, by name, and not as a KeyError in a table.
MEASUREMENT_KEYS = ("family", "device", "implementation", "library", "variant", "batch", "address_set", "label",
                    "lookups", "seconds", "lookups_per_s_best", "lookups_per_s_median", "ns_per_lookup_best",
                    "ns_per_lookup_median", "detail")
TABLE_KEYS = ("implementation", "build_s", "allocated_bytes", "rss_delta_bytes")
VERIFICATION_KEYS = ("family", "address_set", "addresses", "implementations", "mismatches", "agree")


def check_doc(doc):
    """Raises ValueError naming the first key gnf-lookup-bench's JSON lacks."""
    def need(obj, keys, where):
        for k in keys:
            if k not in obj:
                raise ValueError("gnf-lookup-bench JSON: %s has no %r" % (where, k))
    need(doc, ("kind", "gnf_version", "environment", "options", "cpu", "gpu", "tables", "address_sets",
               "verification", "measurements", "notes"), "the document")
    if doc["kind"] != "gnf-lookup-bench":
        raise ValueError("gnf-lookup-bench JSON: kind is %r" % doc["kind"])
    need(doc["environment"], ("hostname", "cpu_model", "cpu_cores", "kernel", "gpu", "build"), "environment")
    need(doc["options"], ("address_sets", "repetitions", "count", "working_set", "seed", "block_sizes"), "options")
    need(doc["cpu"], ("core", "pinned", "variants", "timing", "load_average_start"), "cpu")
    if doc["gpu"] is not None:
        need(doc["gpu"], ("name", "kernels", "tables"), "gpu")
    for family, table in doc["tables"].items():
        need(table, ("source", "routes", "implementations"), "tables." + family)
        for t in table["implementations"]:
            need(t, TABLE_KEYS, "tables.%s.implementations[]" % family)
    for m in doc["measurements"]:
        need(m, MEASUREMENT_KEYS, "measurements[]")
        if m["device"] == "gpu":
            need(m["detail"], ("grid", "block", "launches"), "a GPU measurement's detail")
    for v in doc["verification"]:
        need(v, VERIFICATION_KEYS, "verification[]")


def route_file(family, given):
    """The pyasn file: --routes4/--routes6, else <repo>/data/ (a bundle's), else python3-pyasn's."""
    if given:
        return os.path.abspath(given)
    bundled = os.path.join(REPO, "data", ROUTE_FILES[family])
    return bundled if os.path.exists(bundled) else os.path.join(PYASN_DATA, ROUTE_FILES[family])


def rate(m, which="best"):
    return m["lookups_per_s_" + which]


def best_median(m, scale):
    return "%.1f (%.1f)" % (rate(m) * scale, rate(m, "median") * scale) if m else "–"


def mib(value):
    return "%.1f" % (value / MIB) if value is not None else "–"


class Lookups(Scenario):
    name = "lookups"
    binary = "lookup_bench"
    title = "LPM lookups per second: gnf beside DPDK's rte_lpm, rte_fib and rte_fib6, on one CPU core and the GPU"
    reproduces = ("The issue's lookup benchmark: lookups/s on one CPU core against DPDK's rte_lpm / rte_fib on the "
                  "same machine and table; on the GPU, lookups/s with the full table in GPU memory (goal ≥ 5 G/s on "
                  "the H100); the tables' memory for the RouteViews (pyasn) table.")

    def own_defaults(self, quick):
        # At least 5 repetitions each; --trial-s is each repetition's minimum seconds of work on the CPU.
        d = {"repetitions": 5, "trial_s": 0.2, "tables": ["real", "synthetic"]}
        if quick:
            d.update({"trial_s": 0.05, "tables": ["real"], "count": 1 << 20})
        return d

    def run(self, ctx):
        o = ctx.options
        folder = os.path.join(ctx.folder, "runs")
        os.makedirs(folder, exist_ok=True)
        for kind in o.tables:
            doc = self._run(ctx, kind, folder)
            if doc:
                self._report(ctx, kind, doc)
        if not ctx.report.runs:
            ctx.report.headline = "not measured here: " + "; ".join(ctx.report.notes)
            return
        self._headline(ctx)

    def _command(self, o, kind, json_path):
        tables = SYNTHETIC if kind == "synthetic" else {f: route_file(f, getattr(o, "routes" + f[-1])) for f in
                                                        ("ipv4", "ipv6")}
        command = [o.lookup_bench, "--ipv4", tables["ipv4"], "--ipv6", tables["ipv6"], "--repetitions",
                   str(o.repetitions), "--min-repetition-s", "%g" % o.trial_s, "--json", json_path]
        for flag, value in (("--sets", ",".join(o.address_sets or [])), ("--count", o.count), ("--core", o.core)):
            if value not in (None, ""):
                command += [flag, str(value)]
        return command

    def _run(self, ctx, kind, folder):
        """One gnf-lookup-bench run: its JSON, or None where DPDK cannot start here (noted)."""
        json_path = os.path.join(folder, "%s.json" % kind)
        command = self._command(ctx.options, kind, json_path)
        proc = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
        with open(os.path.join(folder, "%s.log" % kind), "w") as log:
            log.write(proc.stdout + proc.stderr)
        if proc.returncode == 77:  # EAL did not start (it says why on stdout)
            ctx.report.note("The %s tables were not measured: %s" % (kind, proc.stdout.strip().splitlines()[-1]))
            return None
        if proc.returncode != 0:
            raise trial.TrialError(command, proc.returncode, proc.stdout + proc.stderr)
        with open(json_path) as f:
            doc = json.load(f)
        try:
            check_doc(doc)
        except ValueError as e:
            raise trial.TrialError(command, proc.returncode, proc.stdout + proc.stderr, reason=str(e))
        ctx.report.runs.append(Run(kind, command, json_path, doc))
        return doc

    def _report(self, ctx, kind, doc):
        sets = doc["options"]["address_sets"]
        ms = doc["measurements"]
        reps = doc["options"]["repetitions"]
        if not ctx.report.method:
            ctx.report.method += self._method(doc)

        def find(**match):
            return [m for m in ms if all(m[k] == v for k, v in match.items())]

        def one(label, device, family, address_set):
            found = find(label=label, device=device, family=family, address_set=address_set)
            return found[0] if found else None

        panels = {}
        for family, table in doc["tables"].items():
            title = "%s, %s: %s, %d routes" % (kind, family.upper().replace("IPV", "IPv"), table["source"],
                                              table["routes"])
            labels = list(dict.fromkeys(m["label"] for m in find(family=family, device="cpu")))
            ctx.report.table(title + ": Mlookups/s on one CPU core, best (median) of %d" % reps,
                             ["implementation"] + sets,
                             [[l] + [best_median(one(l, "cpu", family, s), 1e-6) for s in sets] for l in labels])
            gpu_labels = list(dict.fromkeys(m["label"] for m in find(family=family, device="gpu")))
            if gpu_labels:
                ctx.report.table(title + ": Glookups/s on the GPU, best (median) of %d launch sets" % reps,
                                 ["kernel", "grid"] + sets,
                                 [[l, find(label=l, family=family)[0]["detail"]["grid"]]
                                  + [best_median(one(l, "gpu", family, s), 1e-9) for s in sets] for l in gpu_labels])
            source = os.path.basename(table["source"])  # a file's name; a synthetic table says its size
            panel = "%s, %s" % (family.upper().replace("IPV", "IPv"), source) + (
                "" if "routes" in source else " (%d routes)" % table["routes"])
            panels[panel] = {s: self._bars(find(family=family, address_set=s)) for s in sets}
        self._ratios(ctx, kind, doc, sets)
        self._memory(ctx, kind, doc)
        ctx.report.table("%s: every implementation's answers agree before anything is timed" % kind,
                         ["family", "address set", "addresses", "routed %", "compared", "agree"],
                         [[v["family"], v["address_set"], v["addresses"], "%.1f" % (100 * v["routed"] / v["addresses"])
                           if "routed" in v else "–", "the GPU kernels with the CPU" if "against" in v else
                           "%d CPU implementations" % len(v["implementations"]), "yes" if v["agree"] else "NO"]
                          for v in doc["verification"]])
        ctx.report.figure("%s tables: lookups/s per address set (best of %d; CPU: one core; GPU: the best block "
                          "size of the write kernel)" % (kind, reps),
                          plots.grouped_bars(ctx.folder, "lookups_%s.png" % kind, panels, "Mlookups/s (log)",
                                             "%s tables" % kind))
        for note in doc["notes"]:
            ctx.report.note("%s tables: %s" % (kind, note))

    @staticmethod
    def _bars(measurements):
        """{label: best Mlookups/s}: every CPU implementation, and per GPU kernel its best block size."""
        bars = {}
        for m in measurements:
            if m["device"] == "cpu":
                bars[m["label"]] = rate(m) / 1e6
            elif m["variant"] == "write":
                label = "gnf %s kernel (GPU, best block size)" % m["implementation"]
                bars[label] = max(bars.get(label, 0), rate(m) / 1e6)
        return bars

    @staticmethod
    def _ratios(ctx, kind, doc, sets):
        """gnf over each DPDK function at the same calls (one per address, or the same batch)."""
        ms = [m for m in doc["measurements"] if m["device"] == "cpu"]
        rows = []
        for d in ms:
            if d["library"] != "dpdk" or d["variant"] not in ("scalar", "batch") or d["address_set"] != sets[0]:
                continue
            cells = []
            for s in sets:
                g = [m for m in ms if m["library"] == "gnf" and m["family"] == d["family"] and m["address_set"] == s
                     and (m["variant"], m["batch"]) == (d["variant"], d["batch"])]
                theirs = [m for m in ms if m["label"] == d["label"] and m["family"] == d["family"] and
                          m["address_set"] == s]
                cells.append("%.2f (%.2f)" % (rate(g[0]) / rate(theirs[0]), rate(g[0], "median") /
                                              rate(theirs[0], "median")) if g and theirs else "–")
            gnf = [m for m in ms if m["library"] == "gnf" and m["family"] == d["family"]
                   and (m["variant"], m["batch"]) == (d["variant"], d["batch"])]
            rows.append([d["family"], "%s / %s" % (gnf[0]["label"] if gnf else "gnf", d["label"])] + cells)
        ctx.report.table("%s: gnf's lookups/s over DPDK's, same calls, same core: best/best (median/median)" % kind,
                         ["family", "ratio"] + sets, rows,
                         note="Above 1: gnf is faster. Both sides of a ratio ran in the same process, one after the "
                              "other, on the same core and addresses.")

    @staticmethod
    def _memory(ctx, kind, doc):
        rows, sparse = [], []
        for family, table in doc["tables"].items():
            for t in table["implementations"]:
                written = t.get("tbl24_pages_written")
                rows.append([family, t["implementation"], "%.2f" % t["build_s"], mib(t["allocated_bytes"]),
                             mib(t.get("lookup_bytes")), mib(t["rss_delta_bytes"]),
                             "%.1f" % (100 * written) if written is not None else "–", mib(t.get("device_bytes"))])
                if written is not None and written < 0.95:
                    sparse.append("%s %.1f %%" % (t["implementation"], 100 * (1 - written)))
        if sparse:
            ctx.report.note(
                "%s tables: tbl24 pages that hold no route: %s. These tables are reserved zeroed and those pages are "
                "never written, so lookups there read the kernel's one shared zero page, which stays cached; rte_fib "
                "and rte_fib6 write their whole tbl24 when made. Uniform addresses land there often: compare "
                "implementations on the routed set." % (kind, ", ".join(sparse)))
        ctx.report.table("%s: table memory and build time" % kind,
                         ["family", "implementation", "build s", "allocated MiB", "lookup MiB", "RSS delta MiB",
                          "tbl24 pages written %", "GPU copy MiB"], rows,
                         note="allocated: gnf: tbl24 + the tbl8 capacity it reserves (zeroed, untouched until written); "
                              "DPDK: what the build took from DPDK's heap. lookup: tbl24 + the tbl8 groups in use (what "
                              "a lookup can read). RSS delta: resident memory the build added (gnf: with its builder's "
                              "rule maps; DPDK: with the RIB). GPU copy: the l3fwd NF's mirror of the tables "
                              "(whole tbl8 capacity).")

    @staticmethod
    def _method(doc):
        cpu, gpu, env = doc["cpu"], doc["gpu"], doc["environment"]
        o = doc["options"]
        out = ["gnf-lookup-bench (bench/lookup/README.md) ran once per table kind; in each run every implementation "
               "used the same table and the same addresses, one after the other. Before anything was timed, every "
               "implementation's answers over each whole address set were compared (the last table). %s addresses "
               "per set: uniform (any address), routed (inside a route drawn at random: every lookup finds one) and "
               "working-set (%d distinct routed addresses, repeated). Synthetic tables: %s IPv4 routes with the depth "
               "mix of the 2014 RouteViews table, %s IPv6 routes shaped like a BGP table, fixed seed %d."
               % (o["count"], o["working_set"], SYNTHETIC["ipv4"].split(":")[1], SYNTHETIC["ipv6"].split(":")[1],
                  o["seed"]),
               "CPU: pinned to CPU %d of %d (%s): %s. Loops: %s Timing: %s. Load average (1/5/15 min) at the start "
               "of the run: %s, at its end: %s." % (
                   cpu["core"], env["cpu_cores"], env["cpu_model"], cpu["pinned"],
                   " ".join("%s: %s." % (k, v) for k, v in cpu["variants"].items()), cpu["timing"],
                   "/".join("%.2f" % x for x in cpu["load_average_start"]),
                   "/".join("%.2f" % x for x in cpu.get("load_average_end", []))),
               ("GPU: %s. Kernels: %s; threads per block %s; 'write' stores each answer, 'sum' adds them up per block "
                "(no result stream: the difference is what writing costs). Tables: %s." % (
                    gpu["name"], gpu["kernels"], ", ".join(map(str, o["block_sizes"])), gpu["tables"]))
               if gpu else "GPU: none here (see Notes)."]
        return out

    @staticmethod
    def _headline(ctx):
        run = next((r for r in ctx.report.runs if r.label == "real"), ctx.report.runs[0])
        ms = run.doc["measurements"]
        sets = run.doc["options"]["address_sets"]
        s = "routed" if "routed" in sets else sets[0]

        def best(predicate):
            rates = [rate(m) for m in ms if m["family"] == "ipv4" and m["address_set"] == s and predicate(m)]
            return max(rates) if rates else None

        parts = []
        for name, predicate in (("gnf", lambda m: m["library"] == "gnf" and m["device"] == "cpu"),
                                ("rte_lpm", lambda m: m["implementation"].startswith("rte_lpm")),
                                ("rte_fib", lambda m: m["implementation"].startswith("rte_fib"))):
            r = best(predicate)
            parts.append("%s %s" % (name, "%.0f M/s" % (r / 1e6) if r else "–"))
        gpu = best(lambda m: m["device"] == "gpu" and m["variant"] == "write")
        ctx.report.headline = "%s tables, IPv4, %s addresses: %s on one core; GPU %s" % (
            run.label, s, ", ".join(parts),
            "%.2f G/s (goal ≥ %g G/s: %s)" % (gpu / 1e9, GPU_GOAL / 1e9, "met" if gpu >= GPU_GOAL else "not met")
            if gpu else "not measured")
