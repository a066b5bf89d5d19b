"""Statistics the reports need, each with the definition it follows.

- Latency percentiles from the sink's histogram ([[bucket low edge ns, frames], ...]), by the
  same nearest-rank rule and bucket layout as src/wire/latency_histogram.h, so that a percentile of
  one trial's histogram equals the p50/p99 the binary printed, and merged histograms (several
  repetitions) give the percentiles of all their frames together.
- Spread over repetitions: median, min, max and quartiles (linear interpolation, "type 7").
- RFC 4737 reordering of a sequence of arrivals, to cross-check the C++ sink.
- Loss attribution: the frames lost in the measured window against the drop counters by place.
"""
import bisect
import math
import statistics

# src/wire/latency_histogram.h: one bucket per ns below 2048; above, each [2^e, 2^(e+1)) is cut
# into 1024 equal buckets.
EXACT_LIMIT_NS = 2048
SUB_BUCKET_BITS = 10


def bucket_high(low_ns):
    """The highest value that falls into the bucket whose lowest value is `low_ns`."""
    if low_ns < EXACT_LIMIT_NS:
        return low_ns
    shift = low_ns.bit_length() - 1 - SUB_BUCKET_BITS
    return low_ns + (1 << shift) - 1


def histogram_count(histogram):
    return sum(count for _, count in histogram)


def percentile(histogram, q, max_ns=None):
    """The q-th percentile (q in [0, 100]) by nearest rank: the value of rank ceil(q/100 * n).

    Answers the highest value of the bucket that holds that rank (exact below 2048 ns, at most
    1/1024 high above), never more than `max_ns` when the exact maximum is known. q = 0 gives the
    lowest bucket's low edge. None for an empty histogram.
    """
    n = histogram_count(histogram)
    if n == 0:
        return None
    if q <= 0:
        return histogram[0][0]
    if q >= 100 and max_ns is not None:
        return max_ns
    # In integers with q rounded to 1e-7 %, like the C++ side: 99.9 % of 1000 frames is rank 999,
    # which floating point (0.999 * 1000 = 999.0000000000001) would round up to 1000.
    scale = 1_000_000_000
    q_scaled = round(q * (scale // 100))
    rank = max(1, (q_scaled * n + scale - 1) // scale)
    seen = 0
    for low, count in histogram:
        seen += count
        if seen >= rank:
            high = bucket_high(low)
            return min(high, max_ns) if max_ns is not None else high
    raise AssertionError("unreachable: rank %d of %d" % (rank, n))


def merge_histograms(histograms):
    """Sums histograms bucket by bucket (as if one trial had recorded every frame)."""
    merged = {}
    for histogram in histograms:
        for low, count in histogram:
            merged[low] = merged.get(low, 0) + count
    return [[low, merged[low]] for low in sorted(merged)]


def cdf(histogram):
    """(bucket high edges, fraction of frames at or below each), for plotting a CDF."""
    n = histogram_count(histogram)
    xs, ys, seen = [], [], 0
    for low, count in histogram:
        seen += count
        xs.append(bucket_high(low))
        ys.append(seen / n)
    return xs, ys


def pooled_mean_stddev(parts):
    """Mean and population standard deviation of several samples given as (count, mean, stddev).

    Exact (Chan et al.'s pairwise combination): the mean and std dev of all frames of several
    repetitions, from each repetition's own exact values.
    """
    n, mean, m2 = 0, 0.0, 0.0
    for count, part_mean, part_stddev in parts:
        if count == 0:
            continue
        delta = part_mean - mean
        total = n + count
        mean += delta * count / total
        m2 += part_stddev ** 2 * count + delta * delta * n * count / total
        n = total
    if n == 0:
        return None, None
    return mean, math.sqrt(m2 / n)


class Spread:
    """Median and spread of one metric over repetitions (values that are None are left out)."""

    def __init__(self, values):
        self.values = [v for v in values if v is not None]
        self.n = len(self.values)
        if self.n == 0:
            self.median = self.min = self.max = self.q1 = self.q3 = None
            return
        self.median = statistics.median(self.values)
        self.min = min(self.values)
        self.max = max(self.values)
        if self.n == 1:
            self.q1 = self.q3 = self.values[0]
        else:
            # "inclusive" is the linear interpolation between order statistics that numpy and R
            # use by default (Hyndman and Fan's type 7).
            self.q1, _, self.q3 = statistics.quantiles(self.values, n=4, method="inclusive")

    @property
    def iqr(self):
        return None if self.n == 0 else self.q3 - self.q1

    def format(self, fmt="{:.2f}", scale=1.0):
        """"median" for one value, "median (min–max)" for several; "–" when there is none."""
        if self.n == 0:
            return "–"
        median = fmt.format(self.median * scale)
        if self.n == 1 or self.min == self.max:
            return median
        return "%s (%s–%s)" % (median, fmt.format(self.min * scale), fmt.format(self.max * scale))


class Reordering:
    """RFC 4737 section 3 and 4.2 over one flow's arrivals: sequence numbers in arrival order."""

    def __init__(self, arrivals):
        self.reordered = []  # sequence numbers found reordered, in arrival order
        self.extents = []    # their reordering extents (section 4.2.1)
        self.duplicates = 0
        seen = set()
        prefix_max = []      # prefix_max[i]: highest sequence number among first-copy arrivals 0..i
        next_expected = None
        for s in arrivals:
            if s in seen:
                self.duplicates += 1  # only first copies are arrivals (section 3.3)
                continue
            seen.add(s)
            i = len(prefix_max)
            if next_expected is not None and s < next_expected:
                # e = i - j for the earliest arrival j with s[j] > s: the prefix maximum rises
                # above s exactly there, and it never decreases, so bisect finds it.
                j = bisect.bisect_right(prefix_max, s)
                self.reordered.append(s)
                self.extents.append(i - j)
            else:
                next_expected = s + 1
            prefix_max.append(max(s, prefix_max[-1]) if prefix_max else s)
        self.arrivals = len(prefix_max)

    @property
    def ratio(self):
        """Reordered first copies over all first copies received (section 4.1.3)."""
        return len(self.reordered) / self.arrivals if self.arrivals else 0.0

    @property
    def extent_max(self):
        return max(self.extents, default=0)

    @property
    def extent_mean(self):
        return sum(self.extents) / len(self.extents) if self.extents else 0.0


def attribute_loss(loss):
    """Splits a trial's `result.loss` into the places the counters name, and the rest.

    `count` is frames sent in the measured window that no sink received; `where` are counter
    deltas over the same window. Frames near the window's edges may die in a place whose counter
    moved outside it, so the two rarely agree exactly: `unattributed` is count minus the sum of
    places (negative when the counters saw more drops than the window lost).
    """
    where = dict(loss["where"])
    attributed = sum(where.values())
    return {
        "count": loss["count"],
        "where": where,
        "attributed": attributed,
        "unattributed": loss["count"] - attributed,
        "share": {place: (n / loss["count"] if loss["count"] else 0.0) for place, n in where.items()},
    }
