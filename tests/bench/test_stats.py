"""Statistics against hand-computed cases: histogram percentiles (the sink's nearest-rank rule and
bucket layout), pooled moments, spread over repetitions, RFC 4737 reordering, loss attribution."""
import json
import math
import os
import random

import pytest

from gnfbench import stats


@pytest.mark.parametrize("low,high", [(0, 0), (2047, 2047),  # one bucket per ns below 2048
                                      (2048, 2049),           # [2048, 4096): 1024 buckets of 2 ns
                                      (4096, 4099),           # [4096, 8192): 4 ns
                                      (1 << 20, (1 << 20) + 1023)])
def test_bucket_high_follows_the_sinks_log_linear_layout(low, high):
    assert stats.bucket_high(low) == high


SMALL = [[100, 1], [200, 2], [300, 6], [400, 1]]  # 10 frames: 100, 200 200, 300 x 6, 400


@pytest.mark.parametrize("q,expected", [(0, 100), (10, 100), (10.0001, 200), (30, 200), (50, 300), (90, 300),
                                        (99, 400), (100, 400)])
def test_percentile_is_the_nearest_rank_value(q, expected):
    # rank = ceil(q / 100 * 10): 10 % -> rank 1 (100); 30 % -> rank 3 (200); 50 % -> 5 (300);
    # 90 % -> 9 (300); 99 % -> ceil(9.9) = 10 (400).
    assert stats.percentile(SMALL, q) == expected


def test_percentile_answers_the_bucket_high_edge_but_never_above_the_maximum():
    h = [[4096, 3], [8192, 1]]  # 4 ns buckets at 4096, 8 ns at 8192
    assert stats.percentile(h, 50) == 4099
    assert stats.percentile(h, 99, max_ns=8195) == 8195  # bucket high 8199, capped at the true max
    assert stats.percentile(h, 100, max_ns=8195) == 8195
    assert stats.percentile(h, 99) == 8199


def test_percentile_99_9_of_1000_frames_is_rank_999_not_1000():
    # 0.999 * 1000 is 999.0000000000001 in floating point; ceil would make it rank 1000.
    assert stats.percentile([[10, 999], [20, 1]], 99.9) == 10


def test_percentile_of_an_empty_histogram_is_none():
    assert stats.percentile([], 50) is None


def test_percentiles_of_merged_histograms_are_those_of_all_frames():
    merged = stats.merge_histograms([[[1, 2], [5, 1]], [[5, 3], [7, 1]]])
    assert merged == [[1, 2], [5, 4], [7, 1]]
    assert stats.percentile(merged, 50) == 5  # 7 frames: rank 4 of 1 1 5 5 5 5 7
    assert stats.histogram_count(merged) == 7


def test_cdf_reaches_one_at_the_last_bucket():
    xs, ys = stats.cdf(SMALL)
    assert xs == [100, 200, 300, 400]
    assert ys == [0.1, 0.3, 0.9, 1.0]


def test_pooled_mean_and_stddev_equal_those_of_all_values():
    # A = 1, 3 (mean 2, std 1); B = 5, 7, 9 (mean 7, std sqrt(8/3)); all: mean 5, variance
    # (16 + 4 + 0 + 4 + 16) / 5 = 8.
    mean, std = stats.pooled_mean_stddev([(2, 2.0, 1.0), (3, 7.0, math.sqrt(8 / 3)), (0, 0.0, 0.0)])
    assert mean == pytest.approx(5.0)
    assert std == pytest.approx(math.sqrt(8))
    assert stats.pooled_mean_stddev([]) == (None, None)


def test_spread_has_median_extremes_and_type_7_quartiles():
    s = stats.Spread([4, 1, None, 3, 2])
    assert (s.n, s.median, s.min, s.max) == (4, 2.5, 1, 4)
    # Sorted 1 2 3 4; q1 at position 3 * 0.25 = 0.75 -> 1.75; q3 at 2.25 -> 3.25.
    assert (s.q1, s.q3, s.iqr) == (1.75, 3.25, 1.5)
    assert s.format() == "2.50 (1.00–4.00)"
    assert s.format("{:.1f}", scale=10) == "25.0 (10.0–40.0)"


def test_spread_of_one_value_or_none():
    assert stats.Spread([5]).format() == "5.00"
    assert stats.Spread([5]).iqr == 0
    assert stats.Spread([7, 7]).format("{:.0f}") == "7"
    assert stats.Spread([None]).format() == "–"
    assert stats.Spread([]).median is None


# RFC 4737 section 3 and 4.2.1, the cases of tests/unit/test_wire_measure.cpp, worked by hand there.
@pytest.mark.parametrize("arrivals,reordered,extents", [
    ([1, 2, 3, 5, 6, 4, 7], [4], [2]),
    ([1, 3, 4, 2, 5], [2], [2]),
    ([1, 2, 3, 7, 8, 9, 10, 4, 5, 6], [4, 5, 6], [4, 5, 6]),
    ([0, 2, 3, 4, 5, 1], [1], [4]),
    ([0, 1, 5, 6, 9, 100], [], []),  # loss alone is not reordering
])
def test_rfc4737_reordered_packets_and_extents(arrivals, reordered, extents):
    r = stats.Reordering(arrivals)
    assert r.reordered == reordered
    assert r.extents == extents
    assert r.arrivals == len(arrivals)
    assert r.ratio == pytest.approx(len(reordered) / len(arrivals))


def test_rfc4737_extent_summary():
    r = stats.Reordering([1, 2, 3, 7, 8, 9, 10, 4, 5, 6])
    assert (r.extent_max, r.extent_mean) == (6, 5.0)
    assert stats.Reordering([1, 2]).extent_mean == 0.0


def test_rfc4737_copies_are_duplicates_not_arrivals():
    r = stats.Reordering([1, 2, 2, 3, 1])
    assert (r.duplicates, r.arrivals, r.reordered) == (2, 3, [])


def brute_force_extents(seqs):
    """Section 4.2.1 literally: for each reordered arrival i, the earliest j with s[j] > s[i]."""
    extents, next_expected = [], 0
    for i, s in enumerate(seqs):
        if s >= next_expected:
            next_expected = s + 1
            continue
        j = next(j for j in range(i) if seqs[j] > s)
        extents.append(i - j)
    return extents


def test_rfc4737_extents_match_the_definition_on_random_lossy_shuffles():
    rng = random.Random(11)
    for _ in range(100):
        seqs = [s for s in range(300) if rng.random() > 0.1]
        for i in range(len(seqs) - 1):
            if rng.random() < 0.25:
                k = min(len(seqs) - 1, i + 1 + rng.randrange(20))
                seqs[i], seqs[k] = seqs[k], seqs[i]
        assert stats.Reordering(seqs).extents == brute_force_extents(seqs)


def test_loss_attribution_reports_the_unattributed_rest():
    where = {"nic_rx_buffer": 6, "rx_ring": 2, "tx_ring": 0, "nf_drop": 0, "to_host": 0, "other": 0}
    a = stats.attribute_loss({"count": 10, "ratio": 0.1, "where": where})
    assert (a["attributed"], a["unattributed"]) == (8, 2)
    assert a["share"]["nic_rx_buffer"] == 0.6


def test_loss_attribution_shows_counters_above_the_windows_loss_as_negative_rest():
    where = {"nic_rx_buffer": 0, "rx_ring": 0, "tx_ring": 5, "nf_drop": 0, "to_host": 0, "other": 0}
    a = stats.attribute_loss({"count": 3, "ratio": 0.01, "where": where})
    assert a["unattributed"] == -2


def test_loss_attribution_without_loss_has_zero_shares():
    where = {k: 0 for k in ("nic_rx_buffer", "rx_ring", "tx_ring", "nf_drop", "to_host", "other")}
    a = stats.attribute_loss({"count": 0, "ratio": 0.0, "where": where})
    assert a["unattributed"] == 0 and set(a["share"].values()) == {0.0}


def test_percentiles_of_a_real_sink_histogram_equal_the_sinks_own():
    # A histogram and the percentiles the C++ sink computed for it (src/wire/latency_histogram.cpp),
    # from a `gnf run` on the H100 machine: the layouts and the rank rule agree, bucket by bucket.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "sink_latency_staged_h100.json")
    lat = json.load(open(path))
    assert stats.histogram_count(lat["histogram"]) == lat["count"]
    for q, key in ((50, "p50"), (90, "p90"), (99, "p99"), (99.9, "p99_9"), (100, "max")):
        assert stats.percentile(lat["histogram"], q, max_ns=lat["max"]) == lat[key], key
