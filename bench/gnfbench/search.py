"""RFC 2544 section 26.1 throughput search: the highest offered rate a device forwards within a
loss criterion, by binary search over trials.

- NDR (non-drop rate): zero loss, `result.loss.count == 0` (bench/SCHEMA.md).
- PDR (partial drop rate): loss ratio at most a tolerance (0.1 % by default, as FD.io CSIT).

The search first offers the maximum rate (line rate); if that passes, it is the answer. Otherwise
it halves the bracket [highest pass, lowest fail] until it is no wider than the resolution, then
repeats the highest passing rate once as a verification trial (optionally longer). A failed
verification makes that rate the new lowest failure and the search goes on below it: a result is
never a rate whose last trial failed. Trials from an earlier search at other rates (history) are
reused, so NDR after PDR starts from PDR's bracket.

A trial in which the NIC model, not the path, was the limit is model-bound (`gnf bench`'s
`result.model_bound`). It passes or fails by its loss like any other, but a search whose answer or
whose first failure above it was model-bound measured the model there: its rate is only a lower
bound on the path's capacity (SearchResult.model_bound). A trial the machine's load limited
(`result.host_load`: the poll-mode threads waited for their cores) is marked the same way
(SearchResult.host_loaded). A search in which nothing passed and whose lowest failure was either
measured neither the path nor anything else: its 0 is no rate (SearchResult.unmeasured).
"""


class Outcome:
    """One trial as the search sees it. `trial` is whatever the measure callable wants to keep."""

    def __init__(self, rate_pps, loss_count, loss_ratio, duration_s=None, verification=False, trial=None,
                 offered=True, model_bound=False, host_loaded=False):
        self.rate_pps = rate_pps
        self.model_bound = model_bound
        self.host_loaded = host_loaded
        # False when the load was not really offered (the NIC model could not send its schedule in
        # time): such a trial never passes, whatever it lost.
        self.offered = offered
        self.loss_count = loss_count
        self.loss_ratio = loss_ratio
        self.duration_s = duration_s
        self.verification = verification
        self.trial = trial

    def __repr__(self):
        return "Outcome(%.0f pps, loss %d = %.3g%s%s%s)" % (self.rate_pps, self.loss_count, self.loss_ratio,
                                                            ", verification" if self.verification else "",
                                                            ", model-bound" if self.model_bound else "",
                                                            ", host-loaded" if self.host_loaded else "")


class Criterion:
    def __init__(self, name, passes, description):
        self.name = name
        self.passes = passes
        self.description = description


NDR = Criterion("NDR", lambda o: o.offered and o.loss_count == 0, "no frame lost")


def pdr(tolerance=0.001):
    return Criterion("PDR", lambda o: o.offered and o.loss_ratio <= tolerance,
                     "loss ratio at most %g %%" % (tolerance * 100))


class SearchResult:
    def __init__(self, criterion, rate_pps, upper_pps, outcomes, new_trials, verified, resolution_pps):
        self.criterion = criterion
        self.rate_pps = rate_pps        # highest passing rate (0 if none passed)
        self.upper_pps = upper_pps      # lowest failing rate above it; None if the maximum passed
        self.outcomes = outcomes        # every outcome this search used, in the order it got them
        self.new_trials = new_trials    # how many of them it ran itself
        self.verified = verified        # a verification trial at rate_pps passed
        self.resolution_pps = resolution_pps

    @property
    def answer(self):
        """The last passing outcome at the answer (the verification when there was one), or None."""
        for o in reversed(self.outcomes):
            if o.rate_pps == self.rate_pps and self.criterion.passes(o):
                return o
        return None

    @property
    def failure(self):
        """The last outcome at the lowest failing rate above the answer: what the search ran into.
        None when the maximum passed."""
        if self.upper_pps is None:
            return None
        for o in reversed(self.outcomes):
            if o.rate_pps == self.upper_pps:
                return o
        return None

    @property
    def model_bound(self):
        """The answer or the failure above it was model-bound: the NIC model, not the path, may have
        set the answer, which is then a lower bound on the path's capacity, never the capacity."""
        return any(o.model_bound for o in (self.answer, self.failure) if o is not None)

    @property
    def host_loaded(self):
        """The answer or the failure above it ran on a loaded machine (its poll-mode threads waited
        for their cores): the machine's load, not the path, may have set the answer."""
        return any(o.host_loaded for o in (self.answer, self.failure) if o is not None)

    @property
    def unmeasured(self):
        """No rate passed, and the lowest failure was model-bound or host-loaded: the search ran into
        the NIC model or the machine before the path, and its 0 says nothing of the path."""
        return self.rate_pps == 0 and (self.model_bound or self.host_loaded)

    @property
    def verification(self):
        """The last verification trial at the answer, or None."""
        for o in reversed(self.outcomes):
            if o.verification and o.rate_pps == self.rate_pps:
                return o
        return None

    def as_dict(self):
        """The answer for report.json: the rate and, beside it, whether it is only a lower bound."""
        return {"criterion": self.criterion.name, "rate_pps": self.rate_pps, "upper_pps": self.upper_pps,
                "verified": self.verified, "model_bound": self.model_bound, "host_loaded": self.host_loaded,
                "unmeasured": self.unmeasured, "trials": self.new_trials}

    def __repr__(self):
        return "SearchResult(%s %.0f pps%s%s, bracket %s, %d trials)" % (
            self.criterion.name, self.rate_pps, " model-bound" if self.model_bound else "",
            " host-loaded" if self.host_loaded else "", self.upper_pps, self.new_trials)


class SearchError(RuntimeError):
    pass


def search(measure, max_rate_pps, resolution_pps, criterion, history=(), verify=True, verify_duration_s=None,
           max_trials=64):
    """Binary search; measure(rate_pps, duration_s=None, verification=False) -> Outcome.

    `history`: earlier outcomes (e.g. from a PDR search) to start from. Returns SearchResult.
    """
    if resolution_pps <= 0 or max_rate_pps <= 0:
        raise ValueError("resolution and maximum rate must be positive")
    outcomes = [o for o in history]
    new = []

    def run(rate, verification=False):
        if len(new) >= max_trials:
            raise SearchError("%s search did not converge within %d trials: %r" % (
                criterion.name, max_trials, outcomes))
        o = measure(rate, duration_s=verify_duration_s if verification else None, verification=verification)
        new.append(o)
        outcomes.append(o)
        return o

    def bracket():
        """(highest passing rate below the lowest failure, lowest failure) from every outcome so far.

        A later trial at the same rate overrides an earlier one (a failed verification stands).
        """
        latest = {}
        for o in outcomes:
            latest[o.rate_pps] = criterion.passes(o)
        fails = [r for r, ok in latest.items() if not ok]
        hi = min(fails) if fails else None
        passes = [r for r, ok in latest.items() if ok and (hi is None or r < hi)]
        return (max(passes) if passes else 0.0), hi

    lo, hi = bracket()
    if hi is None and lo < max_rate_pps:
        run(max_rate_pps)
        lo, hi = bracket()
    verified = False
    while True:
        while hi is not None and hi - lo > resolution_pps:
            run((lo + hi) / 2)
            lo, hi = bracket()
        if lo == 0 or not verify:
            break
        if criterion.passes(run(lo, verification=True)):
            verified = True
            break
        lo, hi = bracket()  # lo failed on repetition: it is the new upper bound
    return SearchResult(criterion, lo, hi, outcomes, len(new), verified, resolution_pps)


def ndr_and_pdr(measure, max_rate_pps, resolution_pps, pdr_tolerance=0.001, verify=True, verify_duration_s=None):
    """PDR first, then NDR from PDR's trials (every rate that failed PDR fails NDR too)."""
    pdr_result = search(measure, max_rate_pps, resolution_pps, pdr(pdr_tolerance), verify=verify,
                        verify_duration_s=verify_duration_s)
    ndr_result = search(measure, max_rate_pps, resolution_pps, NDR, history=pdr_result.outcomes, verify=verify,
                        verify_duration_s=verify_duration_s)
    return ndr_result, pdr_result


def expected_trials(max_rate_pps, resolution_pps, verify=True):
    """Trials of one search() from scratch when the maximum fails and something below it passes:
    the maximum, the halvings of [0, maximum] down to the resolution, and the verification. A
    maximum that passes takes fewer (it and its verification), a failed verification more."""
    halvings, width = 0, max_rate_pps
    while width > resolution_pps:  # as search(): each trial halves the bracket exactly
        width /= 2
        halvings += 1
    return 1 + halvings + (1 if verify else 0)


def resolution_pps(text, line_rate_pps):
    """"1%" -> 1 % of line rate in pps; "50000" -> 50000 pps."""
    text = str(text).strip()
    if text.endswith("%"):
        pct = float(text[:-1])
        if not 0 < pct < 100:
            raise ValueError("resolution %s: a percentage must lie in (0, 100)" % text)
        return line_rate_pps * pct / 100
    value = float(text)
    if value <= 0:
        raise ValueError("resolution %s: must be positive" % text)
    return value
