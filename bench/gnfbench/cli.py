"""bench/run.py: run one named scenario, write its report, update the index."""
import argparse
import datetime
import os
import sys

from . import rates, report, trial
from .scenarios import SCENARIOS, ipsec
from .scenarios.common import Context

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_ROOT = os.path.join(REPO, "bench", "results")
DEFAULT_INDEX = os.path.join(REPO, "bench", "RESULTS.md")
PATHS = ("cpu", "staged", "bypass")
TABLES = ("real", "synthetic")
# Scenario.binary -> (its name, the option that names it, the environment variable)
BINARIES = {"gnf": ("gnf", "--gnf", "GNF_BIN"),
            "lookup_bench": ("gnf-lookup-bench", "--lookup-bench", "GNF_LOOKUP_BENCH")}


def _list(convert):
    def parse(text):
        try:
            return [convert(x.strip()) for x in text.split(",") if x.strip()]
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e))
    return parse


def _choices(what, allowed):
    """A comma-separated list of some of `allowed` ("unknown path(s) gpu; choose from cpu,...")."""
    def parse(text):
        values = _list(str)(text)
        bad = [v for v in values if v not in allowed]
        if bad:
            raise argparse.ArgumentTypeError("unknown %s %s; choose from %s" % (what, ", ".join(bad), ",".join(allowed)))
        return values
    return parse


_paths = _choices("path(s)", PATHS)
_tables = _choices("table(s)", TABLES)
_ciphers = _choices("cipher(s)", tuple(ipsec.CIPHERS))
_variants = _choices("variant(s)", tuple(ipsec.VARIANTS))


def _sizes(text):
    try:
        return rates.parse_sizes(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def parser():
    p = argparse.ArgumentParser(
        prog="bench/run.py", description="Run one benchmark scenario of gnf and write its report "
        "(bench/README.md). Options left out take the scenario's defaults.")
    p.add_argument("scenario", choices=sorted(SCENARIOS), help="what to run")
    p.add_argument("--gnf", default=os.environ.get("GNF_BIN") or os.path.join(REPO, "build", "gnf"),
                   help="the gnf binary (default: $GNF_BIN, else <repo>/build/gnf)")
    p.add_argument("--lookup-bench", default=os.environ.get("GNF_LOOKUP_BENCH") or os.path.join(
        REPO, "build", "bench", "lookup", "gnf-lookup-bench"), help="the gnf-lookup-bench binary, for `lookups` "
        "(default: $GNF_LOOKUP_BENCH, else <repo>/build/bench/lookup/gnf-lookup-bench)")
    p.add_argument("--out", default=DEFAULT_ROOT, help="results root; the run goes to OUT/<date>-<scenario>/")
    p.add_argument("--index", help="the index to update (default: bench/RESULTS.md for the default --out, "
                                   "else OUT/RESULTS.md)")
    p.add_argument("--quick", action="store_true", help="small enough for a 2-core CI box without a GPU")
    p.add_argument("--repetitions", type=int, help="repetitions of every point (median and spread)")
    p.add_argument("--trial-s", type=float, help="measured seconds per trial")
    p.add_argument("--warmup-s", type=float, help="warm-up seconds per trial (not measured)")
    p.add_argument("--verify-s", type=float, help="measured seconds of a search's verification trial")
    p.add_argument("--no-verify", dest="verify", action="store_false", help="no verification trial after a search")
    p.add_argument("--paths", type=_paths, help="data paths, e.g. cpu,staged,bypass")
    p.add_argument("--sizes", type=_sizes, help="frame sizes with FCS, e.g. 64,1518,imix, or 'all'")
    p.add_argument("--rings", type=_list(int), help="rings scenario: ring counts, e.g. 1,2,4,8")
    p.add_argument("--depths", type=_list(int), help="streams: bursts in flight per plane, e.g. 1,2,4,8,16")
    p.add_argument("--speed", type=float, help="port speed, Gbit/s (10, 25, 40, 100, 200, 400)")
    p.add_argument("--load", type=float, help="offered load, %% of line rate (fixed-load scenarios)")
    p.add_argument("--overload", type=_list(int), help="matrix: loads offered above each NDR, %% of it, e.g. 150,300 "
                                                      "(0: none)")
    p.add_argument("--resolution", help="search resolution: PCT%% of line rate or absolute pps")
    p.add_argument("--pdr-loss", type=float, help="PDR loss tolerance in %% (default 0.1)")
    p.add_argument("--queues", type=int, help="rx/tx queue pairs per port")
    p.add_argument("--flows", type=int, help="generator flows")
    p.add_argument("--nic-threads", type=int, help="NIC-model threads")
    p.add_argument("--driver-threads", type=int, help="driver threads")
    p.add_argument("--tables", type=_tables, help="lookups: route tables, real (RouteViews, pyasn's files) and/or "
                                                  "synthetic (1 M IPv4 and 220 k IPv6 routes from a seed)")
    p.add_argument("--routes4", help="lookups: the IPv4 pyasn file (default: <repo>/data/ipasn_20140513.dat.gz, as "
                                     "in a bundle, else python3-pyasn's)")
    p.add_argument("--routes6", help="lookups: the IPv6 pyasn file (default: ipasn6_20151101.dat.gz, found likewise)")
    p.add_argument("--address-sets", type=_list(str), help="lookups: uniform, routed, working-set")
    p.add_argument("--count", type=int, help="lookups: addresses per set")
    p.add_argument("--core", type=int, help="lookups: the CPU to pin to (default: the binary's, the last one)")
    p.add_argument("--ciphers", type=_ciphers, help="ipsec: gcm (AES-128-GCM) and/or cbc (AES-128-CBC + HMAC-SHA1-96)")
    p.add_argument("--variants", type=_variants, help="ipsec: encrypt (one gateway's outbound side) and/or tunnel "
                                                      "(encrypted and decrypted again in one pass)")
    p.add_argument("--esp-json", help="ipsec: gnf-esp-bench's --json output, shown beside the gateway's rates")
    p.add_argument("--nids-json", help="nids: gnf-nids-bench's --json output: matching on the GPU beside Hyperscan, "
                                       "and the automaton's memory and build time")
    p.add_argument("--config", action="append", help="gnf config file (ports, driver, NF chain); several: one "
                                                     "series each in sweep and paths")
    return p


def resolve(argv):
    """Parsed options with the scenario's defaults filled in where the command line said nothing."""
    args = parser().parse_args(argv)
    scenario = SCENARIOS[args.scenario]
    if args.pdr_loss is not None:
        args.pdr_loss /= 100
    for key, value in scenario.defaults(args.quick).items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)
    if args.verify_s is None:
        args.verify_s = args.trial_s
    if args.config:
        args.config = [os.path.abspath(c) for c in args.config]
    return scenario, args


def run_folder(root, scenario):
    """ROOT/<date>-<scenario>, or -2, -3, ... when an earlier run of today is there."""
    base = os.path.join(root, "%s-%s" % (datetime.date.today().isoformat(), scenario))
    folder, n = base, 1
    while os.path.exists(folder):
        n += 1
        folder = "%s-%d" % (base, n)
    os.makedirs(folder)
    return folder


def main(argv=None):
    scenario, o = resolve(sys.argv[1:] if argv is None else argv)
    o.gnf, o.lookup_bench = os.path.abspath(o.gnf), os.path.abspath(o.lookup_bench)
    binary = getattr(o, scenario.binary)
    if not os.access(binary, os.X_OK):
        name, option, variable = BINARIES[scenario.binary]
        print("bench/run.py: no %s binary at %s (build it, or pass %s / set %s)" % (name, binary, option, variable),
              file=sys.stderr)
        return 2
    folder = run_folder(o.out, scenario.name)
    estimate = scenario.estimate_trials(o)
    if estimate:
        seconds = estimate * (o.trial_s + o.warmup_s + 1.5)  # + start-up and drain, roughly
        print("%s: about %d trials, ~%s" % (scenario.name, estimate, "%.0f s" % seconds if seconds < 120 else
                                            "%.0f min" % (seconds / 60)), file=sys.stderr)
    base = {"warmup": o.warmup_s, "duration": o.trial_s, "speed": o.speed, "flows": o.flows,
            "nic_threads": o.nic_threads, "driver_threads": o.driver_threads,
            "config": o.config[0] if o.config else None}
    runner = trial.Runner(o.gnf, folder, base)
    command = ["bench/run.py"] + list(sys.argv[1:] if argv is None else argv)
    rep = report.Report(scenario.name, scenario.title, scenario.reproduces, command)
    ctx = Context(o, runner, rep, folder)
    try:
        scenario.run(ctx)
    except trial.TrialError as e:
        print("bench/run.py: %s: a trial failed, no report written (trials so far in %s):\n%s" % (
            scenario.name, runner.folder, e), file=sys.stderr)
        return 3
    unmeasured = limit_notes(rep, runner.trials)
    report_md = rep.write(folder, runner.trials, vars(o))
    index = o.index or (DEFAULT_INDEX if os.path.abspath(o.out) == DEFAULT_ROOT else os.path.join(o.out, "RESULTS.md"))
    report.update_index(index, scenario.name, report_md, rep.docs(runner.trials), rep.headline)
    print("%s: %s\nreport: %s\nindex: %s" % (scenario.name, rep.headline, report_md, index))
    for n in rep.notes:
        print("note: " + n, file=sys.stderr)
    if unmeasured:
        print("bench/run.py: %s: %d search(es) found no rate the path forwards, only the NIC model's or the machine's "
              "limit: %s" % (scenario.name, len(unmeasured), "; ".join(unmeasured)), file=sys.stderr)
        return 4
    return 1 if ctx.refusals else 0


def limit_notes(rep, trials):
    """Notes on trials the machine's load limited, and on searches that measured no rate at all
    (SearchResult.unmeasured); returns those searches, as "label size: why"."""
    loaded = [t for t in trials if t.host_loaded]
    if loaded:
        rep.note("%d of %d trials ran on a loaded machine (`result.host_load`: %s): their rates are lower bounds and "
                 "their losses and latencies the machine's. Run on an otherwise idle machine." % (
                     len(loaded), len(trials), loaded[0].host_load_reasons[0] if loaded[0].host_load_reasons else ""))
    unmeasured = ["%s %s B rep %d (%s)" % (s["label"], s["size"], s["repetition"], ", ".join(
        why for why, flagged in (("model-bound", s["model_bound"]), ("host-loaded", s["host_loaded"])) if flagged))
                  for s in rep.searches if s["unmeasured"]]
    if unmeasured:
        rep.note("No rate passed in %d search(es), and their lowest failures were model-bound or host-loaded: %s. "
                 "Their NDR/PDR is not 0 but not measured; run.py exits 4." % (len(unmeasured), "; ".join(unmeasured)))
    return unmeasured
