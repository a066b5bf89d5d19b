"""RFC 2544 NDR/PDR search against simulated devices whose capacity is known exactly."""
import math

import pytest

from gnfbench import search


class Device:
    """Forwards up to `capacity` pps; the rest of a trial's frames are lost. Records every call."""

    def __init__(self, capacity_pps, trial_s=1.0):
        self.capacity = capacity_pps
        self.trial_s = trial_s
        self.calls = []  # (rate, duration_s, verification)

    def __call__(self, rate, duration_s=None, verification=False):
        self.calls.append((rate, duration_s, verification))
        duration = duration_s or self.trial_s
        sent = rate * duration
        lost = max(0, round((rate - self.capacity) * duration))
        return search.Outcome(rate, lost, lost / sent, duration, verification)


LINE = 14_880_952.0  # 64 B at 10 GbE
RES = 100_000.0


@pytest.mark.parametrize("capacity", [123_456.0, 3_300_000.0, 7_440_476.0, 14_000_000.0])
def test_ndr_brackets_the_capacity_within_the_resolution(capacity):
    r = search.search(Device(capacity), LINE, RES, search.NDR)
    assert r.rate_pps <= capacity < r.upper_pps
    assert r.upper_pps - r.rate_pps <= RES
    assert r.verified and r.verification.rate_pps == r.rate_pps


def test_pdr_brackets_the_rate_where_loss_reaches_the_tolerance():
    # loss ratio (r - C) / r <= 0.001  <=>  r <= C / 0.999
    capacity = 5_000_000.0
    r = search.search(Device(capacity), LINE, RES, search.pdr(0.001))
    assert r.rate_pps <= capacity / 0.999 < r.upper_pps
    assert r.upper_pps - r.rate_pps <= RES


def test_a_device_that_forwards_line_rate_needs_two_trials():
    device = Device(2 * LINE)
    r = search.search(device, LINE, RES, search.NDR)
    assert (r.rate_pps, r.upper_pps, r.new_trials) == (LINE, None, 2)
    assert [c[2] for c in device.calls] == [False, True]  # line rate, then its verification


def test_a_device_that_forwards_nothing_gives_zero_and_is_not_verified():
    r = search.search(Device(0.0), LINE, RES, search.NDR)
    assert r.rate_pps == 0 and r.upper_pps <= RES and not r.verified


def test_trial_count_is_one_at_line_rate_plus_the_halvings_plus_verification():
    # Bracket [0, 16e6] halves to <= 1e6 in log2(16) = 4 steps.
    device = Device(5_500_000.0)
    r = search.search(device, 16e6, 1e6, search.NDR)
    assert r.new_trials == len(device.calls) == 1 + 4 + 1
    assert [c[0] for c in device.calls] == [16e6, 8e6, 4e6, 6e6, 5e6, 5e6]


def test_ndr_is_monotone_in_the_capacity():
    found = [search.search(Device(c), LINE, RES, search.NDR).rate_pps for c in range(500_000, 14_000_000, 750_000)]
    assert found == sorted(found)


def test_verification_runs_for_its_own_duration():
    device = Device(1e6)
    search.search(device, LINE, RES, search.NDR, verify_duration_s=10.0)
    assert [c[1] for c in device.calls if c[2]] == [10.0]
    assert {c[1] for c in device.calls if not c[2]} == {None}


def test_without_verification_no_trial_repeats():
    device = Device(1e6)
    r = search.search(device, LINE, RES, search.NDR, verify=False)
    assert not r.verified and not any(c[2] for c in device.calls)
    assert len({c[0] for c in device.calls}) == len(device.calls)


class FlakyAtFirstAnswer(Device):
    """Loses one frame the first time a verification trial runs: the answer must move down."""

    def __call__(self, rate, duration_s=None, verification=False):
        o = super().__call__(rate, duration_s, verification)
        if verification and not any(c[2] for c in self.calls[:-1]):
            return search.Outcome(rate, 1, 1 / (rate * (duration_s or 1)), duration_s, True)
        return o


def test_a_failed_verification_lowers_the_answer_and_the_new_one_is_verified():
    device = FlakyAtFirstAnswer(5_000_000.0)
    r = search.search(device, LINE, RES, search.NDR)
    first_answer = next(c[0] for c in device.calls if c[2])
    assert r.rate_pps < first_answer and r.upper_pps == first_answer
    assert r.verified and r.verification.loss_count == 0
    assert r.upper_pps - r.rate_pps <= RES


def test_ndr_after_pdr_reuses_pdr_trials_and_finds_the_same_bracket():
    capacity = 4_200_000.0
    shared = Device(capacity)
    ndr, pdr = search.ndr_and_pdr(shared, LINE, RES, pdr_tolerance=0.001)
    alone = search.search(Device(capacity), LINE, RES, search.NDR)
    assert ndr.rate_pps <= capacity < ndr.upper_pps and ndr.upper_pps - ndr.rate_pps <= RES
    assert pdr.rate_pps >= ndr.rate_pps
    assert ndr.new_trials < alone.new_trials
    assert len(shared.calls) == ndr.new_trials + pdr.new_trials


def test_a_search_that_cannot_converge_in_its_trial_budget_says_so():
    with pytest.raises(search.SearchError):
        search.search(Device(1e6), LINE, 1.0, search.NDR, max_trials=5)


def test_resolution_is_a_share_of_line_rate_or_absolute_pps():
    assert search.resolution_pps("1%", LINE) == pytest.approx(LINE / 100)
    assert search.resolution_pps("50000", LINE) == 50000
    for bad in ("0%", "100%", "-5"):
        with pytest.raises(ValueError):
            search.resolution_pps(bad, LINE)


def test_halvings_match_log2_for_other_resolutions():
    for res_pct in (0.5, 2, 10):
        device = Device(1.0)  # everything above 1 pps fails: the bracket halves down to res
        r = search.search(device, LINE, LINE * res_pct / 100, search.NDR)
        # Line rate, then the halvings; nothing passed, so there is nothing to verify.
        assert r.new_trials == 1 + math.ceil(math.log2(100 / res_pct))


@pytest.mark.parametrize("capacity", [1_000_000.0, 3_300_000.0, 14_000_000.0])  # each above LINE / 16
@pytest.mark.parametrize("res_pct", [0.5, 1, 5, 10])
@pytest.mark.parametrize("verify", [True, False])
def test_expected_trials_is_the_count_of_a_search_whose_maximum_fails(capacity, res_pct, verify):
    r = search.search(Device(capacity), LINE, LINE * res_pct / 100, search.NDR, verify=verify)
    assert 0 < r.rate_pps < LINE
    assert r.new_trials == search.expected_trials(LINE, LINE * res_pct / 100, verify=verify)


def test_expected_trials_by_hand():
    # 1 %: line rate, 7 halvings (1/128 < 1 % < 1/64), the verification
    assert search.expected_trials(LINE, LINE / 100, verify=True) == 9
    assert search.expected_trials(16e6, 1e6, verify=False) == 1 + 4
    assert search.expected_trials(16e6, 0.99e6, verify=True) == 1 + 5 + 1


class ModelBoundDevice(Device):
    """Device whose NIC model is the limit (model-bound trials) at rates from `model_limit` up."""

    def __init__(self, capacity_pps, model_limit_pps):
        super().__init__(capacity_pps)
        self.model_limit = model_limit_pps

    def __call__(self, rate, duration_s=None, verification=False):
        o = super().__call__(rate, duration_s, verification)
        o.model_bound = rate >= self.model_limit
        return o


def test_a_model_bound_pass_is_a_lower_bound_not_the_paths_capacity():
    # The model is the limit from 4 Mpps on: the answer's trials passed, but measured the model.
    capacity = 5_000_000.0
    r = search.search(ModelBoundDevice(capacity, 4_000_000.0), LINE, RES, search.NDR)
    assert r.rate_pps <= capacity < r.upper_pps  # the search itself is unchanged
    assert r.answer.model_bound and r.model_bound
    assert r.as_dict()["model_bound"] is True and r.as_dict()["rate_pps"] == r.rate_pps


def test_a_model_bound_failure_just_above_the_answer_makes_it_a_lower_bound():
    r = search.search(ModelBoundDevice(5_000_000.0, 5_000_000.0 + RES / 2), LINE, RES, search.NDR)
    assert not r.answer.model_bound and r.failure.model_bound and r.model_bound


def test_a_model_bound_pass_at_line_rate_is_marked():
    r = search.search(ModelBoundDevice(2 * LINE, LINE), LINE, RES, search.NDR)
    assert (r.rate_pps, r.failure, r.model_bound) == (LINE, None, True)


def test_model_bound_trials_far_above_the_answer_leave_it_the_paths_capacity():
    # Line rate and the first halvings were model-bound failures; the bracket the answer rests on was not.
    r = search.search(ModelBoundDevice(3_000_000.0, 7_000_000.0), LINE, RES, search.NDR)
    assert any(o.model_bound for o in r.outcomes)
    assert not r.model_bound and r.as_dict()["model_bound"] is False


def test_ndr_after_pdr_judges_its_own_answer():
    # PDR (0.1 % loss) passes up to 5.005 Mpps, above the model's limit; NDR, from the same trials,
    # ends within 1 kpps of the 5 Mpps capacity, below it.
    device = ModelBoundDevice(5_000_000.0, 5_002_500.0)
    ndr, pdr = search.ndr_and_pdr(device, LINE, 1_000.0)
    assert pdr.rate_pps >= 5_002_500.0 > ndr.upper_pps
    assert pdr.model_bound and not ndr.model_bound
