"""What every scenario shares: running repetitions, searches and calibration floors through one
trial runner, skipping a path this machine cannot run (with a note, not a failure), and turning
trials into table cells."""
from .. import rates, search, stats, trial
from ..report import FLOOR_LABEL


class Context:
    """One scenario run: options, the trial runner, the report being built."""

    def __init__(self, options, runner, report, folder):
        self.options = options
        self.runner = runner
        self.report = report
        self.folder = folder
        self.unavailable = {}   # path -> why it cannot run here (no GPU)
        self.refusals = []      # messages of trials the binary refused for another reason
        self._floors = {}

    # -- running ---------------------------------------------------------------------------

    def _guarded(self, path, what, fn):
        """fn() unless `path` is known not to run here; a refusal becomes a visible note."""
        if path in self.unavailable:
            return None
        try:
            return fn()
        except trial.TrialError as e:
            if e.needs_gpu:
                self.unavailable[path] = e.message()
                self.report.note("Path `%s` was skipped: `gnf bench` answered \"%s\" (no usable CUDA GPU on this "
                                 "machine). Its rows show –." % (path, e.message()))
                return None
            if e.refused:
                self.refusals.append(e.message())
                self.report.note("%s was not measured: `gnf bench` refused it: \"%s\" (command: `%s`)." % (
                    what, e.message(), " ".join(e.command)))
                return None
            raise

    def repeat(self, label, **knobs):
        """Trials at fixed knobs, `repetitions` times. None if the path cannot run here."""
        path = knobs.get("path")

        def run_all():
            return [self.runner("%s-rep%d" % (label, r + 1), **knobs) for r in range(self.options.repetitions)]
        return self._guarded(path, label, run_all)

    def floor(self, **knobs):
        """The calibration trials (generator -> softnic -> sink, no driver) for these knobs.

        Cached: every table that needs the floor at the same size and load shares one set. A
        refused calibration raises TrialError (the run stops)."""
        knobs = {k: v for k, v in knobs.items() if k not in ("path",) + DRIVER_KNOBS}
        key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in knobs.items()))
        if key not in self._floors:
            size = rates.IMIX_LABEL if knobs.get("imix") else "-".join(map(str, knobs.get("size") or []))
            rate = ["%s%g" % (k, knobs[k]) for k in trial.RATE_KNOBS if knobs.get(k) is not None]
            # Not guarded: every latency table needs its floor, so a refused calibration ends the run.
            label = "-".join(["calibrate", size] + rate)
            self._floors[key] = [self.runner("%s-rep%d" % (label, r + 1), calibrate=True, **knobs)
                                 for r in range(self.options.repetitions)]
        return self._floors[key]

    def _measure(self, label, rep, knobs, loss=None):
        """The search's measure callable: one trial at `rate` pps with these knobs. `loss`, when
        given, is (lost frames, loss ratio) of a trial, for frames whose loss the sink's stamps
        cannot tell (ESP hides them); else the trial's own `result.loss`."""
        def measure(rate, duration_s=None, verification=False):
            t = self.runner("%s-rep%d-%s%.0fpps" % (label, rep + 1, "verify-" if verification else "", rate),
                            rate_pps=round(rate), duration=duration_s or self.options.trial_s, **knobs)
            lost, ratio = loss(t) if loss else (t.loss_count, t.loss_ratio)
            return search.Outcome(rate, lost, ratio, t.doc["trial"]["duration_s"], verification, t,
                                  offered=t.on_schedule, model_bound=t.model_bound, host_loaded=t.host_loaded)
        return measure

    def search(self, label, frame_size, **knobs):
        """NDR and PDR at `frame_size` (the knobs carry it too), once per repetition.

        Returns [(ndr, pdr) SearchResult pairs], or None if the path cannot run here."""
        line_pps, resolution = line_and_resolution(self.options, frame_size)

        def run_all():
            pairs = []
            for rep in range(self.options.repetitions):
                ndr, pdr = search.ndr_and_pdr(self._measure(label, rep, knobs), line_pps, resolution,
                                              self.options.pdr_loss, verify=self.options.verify,
                                              verify_duration_s=self.options.verify_s)
                self.report.search(label, frame_size, rep + 1, pdr)
                self.report.search(label, frame_size, rep + 1, ndr)
                pairs.append((ndr, pdr))
            return pairs
        return self._guarded(knobs.get("path"), label, run_all)

    def ndr_search(self, label, frame_size, loss=None, **knobs):
        """NDR alone (no PDR first: fewer trials) at `frame_size`, once per repetition; `loss` as
        _measure's.

        Returns [SearchResult], or None if the path cannot run here."""
        line_pps, resolution = line_and_resolution(self.options, frame_size)

        def run_all():
            results = []
            for rep in range(self.options.repetitions):
                results.append(search.search(self._measure(label, rep, knobs, loss), line_pps, resolution, search.NDR,
                                             verify=self.options.verify, verify_duration_s=self.options.verify_s))
                self.report.search(label, frame_size, rep + 1, results[-1])
            return results
        return self._guarded(knobs.get("path"), label, run_all)


def line_and_resolution(options, frame_size):
    """The search's maximum (line rate) and resolution at `frame_size`, in pps."""
    line_pps = rates.line_rate_pps(options.speed, frame_size)
    return line_pps, search.resolution_pps(options.resolution, line_pps)


def ndr_search_trials(options, frame_size):
    """Trials one repetition of Context.ndr_search takes at `frame_size` (search.expected_trials)."""
    return search.expected_trials(*line_and_resolution(options, frame_size), verify=options.verify)


# Knobs that configure the driver or the NF: a calibration trial has neither, so they are left out
# of it. The config file stays: its ports (buffers, speed) shape the floor too.
DRIVER_KNOBS = ("burst", "rx_ring", "tx_ring", "rx_tail_batch", "tx_tail_batch", "tail_timeout_ns", "tx_completion",
                "tx_full", "no_drop_en", "driver_threads", "staged_mode", "staged_depth", "nf_blocks",
                "one_way", "tx_writeback_fc")


def size_knobs(size):
    """The generator's frame-size knobs for one size (or IMIX)."""
    return {"imix": True} if size == rates.IMIX_LABEL else {"size": [size]}


# -- trials -> cells -------------------------------------------------------------------------

def bound_rate(text, searches, unit=""):
    """A searched rate from `searches` (search.SearchResult, one per repetition): "text unit" or, where
    the NIC model or the machine's load set a repetition's answer (SearchResult.model_bound,
    .host_loaded), "≥ text unit (model-bound)" or "(host-loaded)": a lower bound on the path's
    capacity, never the capacity (DESIGN.md, "Fidelity and honesty"). Where every repetition found
    nothing but such a limit (SearchResult.unmeasured), "not measured (...)": no rate at all."""
    marks = [(name, sum(1 for r in searches if flagged(r))) for name, flagged in
             (("model-bound", lambda r: r.model_bound), ("host-loaded", lambda r: r.host_loaded))]
    marks = ["%s%s" % (name, "" if n == len(searches) else " in %d of %d" % (n, len(searches))) for name, n in marks if n]
    if not marks:
        return text + unit
    if searches and all(r.unmeasured for r in searches):
        return "not measured (%s)" % ", ".join(marks)
    return "≥ %s%s (%s)" % (text, unit, ", ".join(marks))


def latency_value(key):
    """A latency field of a trial, None when no frame arrived (the binary writes 0 then)."""
    return lambda t: t.result["latency"][key] if t.result["latency"]["count"] else None


def spread(trials, value):
    return stats.Spread([value(t) for t in trials] if trials else [])


def cells(trials, columns):
    """One formatted cell per (value function, format, scale) column; "–" without trials."""
    return [spread(trials, value).format(fmt, scale) for value, fmt, scale in columns]


US = 1e-3  # ns -> µs
LATENCY_HEADERS = ["mean µs", "std dev µs", "p50 µs", "p99 µs", "p99.9 µs", "max µs"]
LATENCY_COLUMNS = [(latency_value("mean"), "{:.2f}", US), (latency_value("stddev"), "{:.3f}", US),
                   (latency_value("p50"), "{:.2f}", US), (latency_value("p99"), "{:.2f}", US),
                   (latency_value("p99_9"), "{:.2f}", US), (latency_value("max"), "{:.2f}", US)]


def loss_pct(t):
    return 100 * t.loss_ratio


def reordered_pct(t):
    return 100 * t.result["reordering"]["ratio"]


def mpps(t):
    return t.result["forwarded"]["pps"] / 1e6


def cores(role):
    """CPU seconds of the role's threads over the trial's wall time (poll-mode threads: ~1 each)."""
    return lambda t: (t.result["cpu"].get(role) or {}).get("cores")


def late_pct(t):
    """Frames the NIC model took off the wire late, % of those sent in the window (SCHEMA.md)."""
    return 100 * t.late_frames / t.result["sent"] if t.result["sent"] else None


def busy_cores(role):
    """Seconds the role's threads spent in rounds that moved packets, over the wall time: the work."""
    def value(t):
        role_cpu = t.result["cpu"].get(role)
        return role_cpu["busy_s"] / t.result["cpu"]["wall_s"] if role_cpu and t.result["cpu"]["wall_s"] else None
    return value


def pcie(direction):
    return lambda t: t.result["pcie"]["bytes_per_packet"][direction]


def number(value, fmt="{:.1f}"):
    """A value that may be missing: formatted, or "–"."""
    return "–" if value is None else fmt.format(value)


def nf_counters_moved(trials, nf_type, wanted):
    """{counter: [value per trial where it moved]} of the `nf_type` elements' counters whose names
    `wanted` accepts, over the whole of each trial (its JSON's summary.nf)."""
    moved = {}
    for t in trials:
        totals = {}
        for nf in t.doc["summary"].get("nf", []):
            if nf["type"] == nf_type:
                for name, value in nf["counters"].items():
                    if wanted(name) and value:
                        totals[name] = totals.get(name, 0) + value
        for name, value in totals.items():
            moved.setdefault(name, []).append(value)
    return moved


def floor_row(label_cells, trials, columns=LATENCY_COLUMNS, blanks=0):
    """A calibration-floor row: the label cells (the last one says what the floor is of), the
    measured cells, then `blanks` "–" cells (paper columns: the papers have no floor)."""
    return (list(label_cells[:-1]) + ["%s (%s)" % (FLOOR_LABEL, label_cells[-1])] + cells(trials, columns)
            + ["–"] * blanks)


def model_bound_count(trials):
    """How many of a row's trials the NIC model, not the path, limited (`result.model_bound`)."""
    return "%d of %d" % (sum(1 for t in trials if t.model_bound), len(trials)) if trials else "–"


MODEL_BOUND_COLUMN_NOTE = ("Model-bound: trials in which the NIC model, not the path, was the limit "
                           "(`result.model_bound`: its threads busy, frames taken off the wire late, or the generator "
                           "behind schedule); their numbers describe the model as much as the path.")


def measured_table(ctx, title, label_headers, columns, series, floors=(), paper_headers=(), note=None):
    """A table of one row per series and, when it shows latency, the calibration floor rows; the last
    column counts each row's model-bound trials.

    columns: [(header, value function, format, scale)]; series: [(label cells, trials or None,
    paper cells)]; floors: [(label cells, calibration trials)].
    """
    values = [(value, fmt, scale) for _, value, fmt, scale in columns]
    rows = [list(labels) + cells(trials, values) + list(paper) + [model_bound_count(trials)]
            for labels, trials, paper in series]
    floor_rows = [floor_row(labels, trials, values, len(paper_headers)) + [model_bound_count(trials)]
                  for labels, trials in floors]
    ctx.report.table(title, list(label_headers) + [c[0] for c in columns] + list(paper_headers) + ["model-bound"],
                     rows, latency=bool(floors), floor_rows=floor_rows,
                     note=MODEL_BOUND_COLUMN_NOTE if note is None else note + " " + MODEL_BOUND_COLUMN_NOTE)


def offered_knobs(options, **default):
    """`--load PCT` from the command line, else the scenario's own offered load."""
    return {"load": options.load} if options.load is not None else default


def nf_text(options):
    """The NF chain every trial runs: the first --config's (the runner passes only that one)."""
    return "that of %s" % options.config[0] if options.config else "l2fwd, the `gnf bench` default"


def queues_text(options):
    return "%d queue(s)" % options.queues if options.queues else "the binary's default queue count"


def offered_text(knobs):
    if "load" in knobs:
        return "%g %% of line rate" % knobs["load"]
    if "rate_gbps" in knobs:
        return "%g Gbit/s (layer 1)" % knobs["rate_gbps"]
    return "%g pps" % knobs["rate_pps"]


def loss_where_table(ctx, title, labelled_trials, label_header):
    """Where frames were lost (median over repetitions) per series, with the unattributed rest."""
    places = ("nic_rx_buffer", "rx_ring", "tx_ring", "nf_drop", "to_host", "other")
    rows = []
    for label, trials in labelled_trials:
        if not trials:
            rows.append([label] + ["–"] * (len(places) + 2))
            continue
        attributions = [stats.attribute_loss(t.result["loss"]) for t in trials]
        rows.append([label, stats.Spread([a["count"] for a in attributions]).format("{:.0f}")]
                    + [stats.Spread([a["where"][p] for a in attributions]).format("{:.0f}") for p in places]
                    + [stats.Spread([a["unattributed"] for a in attributions]).format("{:.0f}")])
    ctx.report.table(title, [label_header, "lost"] + list(places) + ["unattributed"], rows,
                     note="Frames lost in the measured window and the drop counters by place over the same window; "
                          "`nic_rx_buffer` is loss at the NIC's input (\"controlled\"), ring overruns are "
                          "\"uncontrolled\". Unattributed: lost minus the counters' sum (frames at the window's "
                          "edges).")


def describe_common(ctx):
    """The method paragraph every scenario starts with."""
    o = ctx.options
    return ("Each trial is one `gnf bench` run (bench/SCHEMA.md): the generator offers stamped UDP frames to port 0 "
            "of a %g Gbit/s softnic port for %g s of warm-up and %g s of measurement; loss, latency and "
            "reordering count only frames sent in the measured window. Every point is repeated %d time(s); "
            "tables show the median and, with several repetitions, (min–max). Latency is from the scheduled first "
            "bit at the generator to the last bit leaving the output port (both serialisation times included); "
            "reordering is RFC 4737's, per flow. Every latency table ends with the calibration floor: the same "
            "traffic through softnic with no driver and no NF (`gnf bench --calibrate`), the measurement's own "
            "latency." % (o.speed, o.warmup_s, o.trial_s, o.repetitions))


def describe_search(ctx, pdr=True):
    """The search paragraph; pdr=False for scenarios that search the NDR alone (Context.ndr_search)."""
    o = ctx.options
    resolution = "%s of line rate" % o.resolution if str(o.resolution).endswith("%") else "%s pps" % o.resolution
    criteria = ("PDR allows %g %% loss, NDR none (`result.loss.count == 0`), and NDR starts from PDR's trials"
                % (o.pdr_loss * 100)) if pdr else "only the NDR is searched: no frame lost (`result.loss.count == 0`)"
    return ("Rates are found by RFC 2544 binary search (bench/gnfbench/search.py): line rate first, then halving "
            "the bracket between the highest passing and lowest failing rate until it is narrower than %s; %s. A "
            "trial whose load was not offered (`result.on_schedule` false) never passes. %s"
            % (resolution, criteria,
               ("The answer is then repeated once as a verification trial (%g s); a failed verification lowers "
                "the bracket." % (o.verify_s or o.trial_s)) if o.verify else "No verification trial."))
