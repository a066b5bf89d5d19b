"""One trial: knobs -> `gnf bench` argv, running it, and checking its JSON against SCHEMA.md."""
import copy
import json
import os

import pytest

from gnfbench import schema, trial


def test_knobs_become_the_flags_of_schema_md():
    argv = trial.command_line("gnf", {"path": "bypass", "size": [64, 128], "rate_pps": 1e6, "rx_ring": 64,
                                      "warmup": 0.5, "calibrate": True, "imix": False, "config": None,
                                      "tx_writeback_fc": True}, "out.json")
    assert argv == ["gnf", "bench", "--path", "bypass", "--size", "64", "128", "--rate-pps", "1000000",
                    "--warmup", "0.5", "--rx-ring", "64", "--calibrate", "--tx-writeback-fc",
                    "--json", "out.json", "--quiet"]


def test_an_unknown_knob_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match="rx_rings"):
        trial.command_line("gnf", {"rx_rings": 4}, "x.json")


def test_two_offered_loads_are_refused():
    with pytest.raises(ValueError, match="load and rate_pps"):
        trial.command_line("gnf", {"load": 50, "rate_pps": 1000}, "x.json")


def every_knob():
    """A value for every flag the harness knows, as SCHEMA.md spells them."""
    values = {"config": None, "path": "bypass", "ports": 2, "speed": 10, "queues": 4, "size": [300], "flows": 16,
              "ip": 6, "load": 50, "rate_pps": None, "rate_gbps": None, "warmup": 0.1, "duration": 0.2, "burst": 32,
              "rx_ring": 256, "tx_ring": 256, "rx_tail_batch": 8, "tx_tail_batch": 8, "tail_timeout_ns": 2500,
              "tx_completion": "writeback", "tx_full": "wait", "nic_threads": 2, "driver_threads": 2,
              "staged_mode": "copy", "staged_depth": 2, "nf_blocks": 1, "one_way": "rx"}
    values.update({flag: True for flag in trial.BARE_FLAGS if flag != "imix"})
    assert set(values) == set(trial.VALUE_FLAGS) | set(trial.BARE_FLAGS) - {"imix"}
    return values


def test_every_flag_the_harness_emits_is_one_schema_md_lists(fake_gnf, tmp_path):
    # fake_gnf.py's parser holds SCHEMA.md's flag list and refuses anything else.
    doc = trial.run(fake_gnf.path, every_knob(), str(tmp_path / "t.json"))
    assert doc["trial"]["path"] == "calibrate" and doc["trial"]["ip"] == 6
    assert "--one-way" in fake_gnf.calls()[0]


def test_a_trial_returns_its_validated_json(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=1e6)
    knobs = {"path": "cpu", "size": [64], "rate_pps": 2e6, "duration": 1}
    doc = trial.run(fake_gnf.path, knobs, str(tmp_path / "t.json"))
    assert doc["result"]["sent"] == 2_000_000 and doc["result"]["loss"]["count"] == 1_000_000


def test_a_failing_binary_raises_an_error_naming_the_command_and_exit_code(fake_gnf, tmp_path):
    fake_gnf.set(exit=3)
    with pytest.raises(trial.TrialError) as e:
        trial.run(fake_gnf.path, {"path": "cpu"}, str(tmp_path / "t.json"))
    assert fake_gnf.path + " bench --path cpu --json" in str(e.value)
    assert "exited with 3" in str(e.value) and "counters do not add up" in str(e.value)
    assert not e.value.refused and not e.value.needs_gpu


def test_a_missing_gpu_is_recognised_from_the_binarys_message(fake_gnf, tmp_path):
    fake_gnf.set(no_gpu=1)
    with pytest.raises(trial.TrialError) as e:
        trial.run(fake_gnf.path, {"path": "bypass"}, str(tmp_path / "t.json"))
    assert e.value.needs_gpu and "needs a CUDA GPU" in e.value.message()


def test_a_refused_option_is_a_refusal_but_not_a_missing_gpu(fake_gnf, tmp_path):
    fake_gnf.set(refuse="one-way")
    with pytest.raises(trial.TrialError) as e:
        trial.run(fake_gnf.path, {"path": "bypass", "one_way": "tx"}, str(tmp_path / "t.json"))
    assert e.value.refused and not e.value.needs_gpu
    assert e.value.message() == "gnf: error: --one-way is not supported yet"


def test_json_that_breaks_the_schema_fails_the_trial_with_the_key(fake_gnf, tmp_path):
    fake_gnf.set(bad_schema=1)
    with pytest.raises(trial.TrialError, match=r"\$\.result\.loss: missing"):
        trial.run(fake_gnf.path, {"path": "cpu"}, str(tmp_path / "t.json"))


def test_a_missing_binary_is_a_trial_error(tmp_path):
    with pytest.raises(trial.TrialError, match="could not start"):
        trial.run(str(tmp_path / "no-gnf"), {}, str(tmp_path / "t.json"))


@pytest.fixture
def valid_doc(fake_gnf, tmp_path):
    return trial.run(fake_gnf.path, {"path": "cpu", "duration": 0.5}, str(tmp_path / "valid.json"))


@pytest.mark.parametrize("mutate,problem", [
    (lambda d: d.update(kind="gnf-run"), "$.kind: expected 'gnf-bench'"),
    (lambda d: d.update(schema=2), "$.schema: expected 1"),
    (lambda d: d["trial"].update(path="p2p"), "$.trial.path: expected one of"),
    (lambda d: d["result"].update(sent=True), "$.result.sent: expected int"),
    (lambda d: d["result"]["loss"]["where"].pop("tx_ring"), "$.result.loss.where.tx_ring: missing"),
    (lambda d: d["result"]["latency"].update(histogram=[[5, 1], [5, 2]]), "bucket edges must increase"),
    (lambda d: d["result"]["latency"].update(histogram=[[5, 1.5]]), "expected [low_edge_ns, count] integers"),
    (lambda d: d["result"]["per_second"][0].pop("lost"), "$.result.per_second[0].lost: missing"),
    (lambda d: d["environment"].update(gpu={"name": "x"}), "$.environment.gpu.driver: missing"),
    (lambda d: d["result"]["cpu"].update(nic=None), "$.result.cpu.nic: missing"),
    (lambda d: d["result"].update(pcie=[]), "$.result.pcie: expected an object, got list"),
    (lambda d: d["result"].pop("model_bound"), "$.result.model_bound: missing"),
    (lambda d: d["result"]["model_bound"].update(bound=1), "$.result.model_bound.bound: expected true/false"),
    (lambda d: d["result"]["model_bound"].pop("reasons"), "$.result.model_bound.reasons: missing"),
])
def test_schema_violations_are_named_by_key_path(valid_doc, mutate, problem):
    doc = copy.deepcopy(valid_doc)
    mutate(doc)
    with pytest.raises(schema.SchemaError) as e:
        schema.validate(doc)
    assert any(problem in p for p in e.value.problems), e.value.problems


def test_nulls_the_schema_allows_pass(valid_doc):
    doc = copy.deepcopy(valid_doc)
    doc["environment"]["gpu"] = None
    doc["result"]["gpu"] = None
    doc["trial"]["staged_mode"] = None
    doc["result"]["model_bound"]["nic_busy_share"] = None
    assert schema.validate(doc) is doc


def test_the_runner_numbers_trials_in_order_and_keeps_failed_numbers(fake_gnf, tmp_path):
    runner = trial.Runner(fake_gnf.path, str(tmp_path), {"duration": 0.5, "warmup": 0.1})
    first = runner("cpu a", path="cpu")
    fake_gnf.set(no_gpu=1)
    with pytest.raises(trial.TrialError):
        runner("bypass", path="bypass")
    third = runner("cpu b", path="cpu", duration=0.25)
    assert [os.path.basename(t.json_path) for t in runner.trials] == ["0001-cpu_a.json", "0003-cpu_b.json"]
    assert os.path.exists(os.path.join(str(tmp_path), "trials", "0002-bypass.log"))
    assert third.knobs == {"duration": 0.25, "warmup": 0.1, "path": "cpu"}
    assert json.load(open(first.json_path))["trial"]["duration_s"] == 0.5
    assert first.offered_pps > 0 and first.loss_ratio >= 0


def test_a_trial_says_how_many_frames_the_nic_model_took_late(fake_gnf, tmp_path):
    runner = trial.Runner(fake_gnf.path, str(tmp_path), {"duration": 0.5, "warmup": 0.1})
    fake_gnf.set(capacity_pps=1e7, late_above_pps=1e6)
    slow = runner("under", path="cpu", rate_pps=5e5)
    late = runner("over", path="cpu", rate_pps=2e6)
    assert (slow.loss_count, slow.late_frames) == (0, 0)
    assert (late.loss_count, late.late_frames) == (0, 500_000)


def test_a_trial_is_model_bound_as_the_binary_says(fake_gnf, tmp_path):
    runner = trial.Runner(fake_gnf.path, str(tmp_path), {"duration": 0.5, "warmup": 0.1})
    fake_gnf.set(capacity_pps=1e7, late_above_pps=1e6, nic_busy_above_pps=3e6)
    under = runner("under", path="cpu", rate_pps=5e5)
    late = runner("late", path="cpu", rate_pps=2e6)
    busy = runner("busy", path="cpu", rate_pps=4e6)
    assert (under.model_bound, under.model_bound_reasons) == (False, [])
    assert late.model_bound and late.model_bound_reasons == ["NIC model late on 500000 frames (50.00 % of those sent)"]
    assert busy.model_bound and busy.model_bound_reasons[0] == "NIC-model threads 95 % busy"
