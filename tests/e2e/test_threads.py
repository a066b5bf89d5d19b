"""Where gnf's threads run ([threads] cpus and control_cpus, --cpus, --control-cpus) and how its
poll-mode threads wait when nothing arrives ([threads] idle, --idle): the JSON summary's "placement"
and "threads" say it, and the CPU lists are checked before anything starts."""
import os

import pytest

from checks import assert_balanced
from netns import namespaces, veth

# A few frames through the cpu path: generator -> l2fwd reflect -> the port's own sink.
GEN = ["--gen", "--count", "200", "--rate-pps", "2000", "--nf", "l2fwd", "--mode", "reflect"]


def allowed_cpus():
    return sorted(os.sched_getaffinity(0))


def poll_threads(summary):
    return [t for t in summary["placement"] if t["role"] != "control"]


def test_each_poll_thread_takes_the_next_cpu_of_the_list_and_the_summary_says_where(gnf):
    cpus = allowed_cpus()
    if len(cpus) < 2:
        pytest.skip("one CPU: no list of two")
    listed = cpus[:2][::-1]  # in the order written, not sorted
    result = gnf(*GEN, "--cpus", "%d,%d" % tuple(listed))
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert_balanced(summary)
    assert summary["config"]["threads_pinned"] is True
    by_role = {t["role"]: t for t in poll_threads(summary)}
    assert set(by_role) == {"driver", "nic"}, summary["placement"]
    # The driver's threads first, then the NIC model's.
    assert (by_role["driver"]["name"], by_role["driver"]["cpu"], by_role["driver"]["cpus"]) == \
        ("gnf-drv0", listed[0], str(listed[0]))
    assert (by_role["nic"]["name"], by_role["nic"]["cpu"], by_role["nic"]["cpus"]) == ("gnf-nic0", listed[1], str(listed[1]))
    control = [t for t in summary["placement"] if t["role"] == "control"]
    assert "gnf" in [t["name"] for t in control], control  # the main thread
    for t in control:
        assert t["cpu"] is None
        # Off the listed CPUs, unless those are all there are.
        if len(cpus) > 2:
            assert not set(listed) & set(int(c) for c in expand(t["cpus"])), t
    assert [t["name"] for t in summary["threads"]] == ["gnf-nic0", "gnf-drv0"]


def expand(text):
    for part in text.split(","):
        first, _, last = part.partition("-")
        yield from range(int(first), int(last or first) + 1)


def test_control_cpus_take_every_other_thread(gnf):
    cpus = allowed_cpus()
    if len(cpus) < 2:
        pytest.skip("one CPU: nowhere else to put the other threads")
    result = gnf(*GEN, "--control-cpus", str(cpus[0]), "--no-pin-threads")
    assert result.returncode == 0, result.stderr
    control = [t for t in result.summary["placement"] if t["role"] == "control"]
    assert control and all(t["cpus"] == str(cpus[0]) for t in control), control
    # Unpinned, the poll-mode threads may run on any of the process's CPUs, not only the others'.
    for t in poll_threads(result.summary):
        assert t["cpu"] is None and sorted(expand(t["cpus"])) == cpus, t


def test_a_list_too_short_for_the_poll_threads_is_refused_before_anything_starts(gnf):
    cpu = allowed_cpus()[0]
    result = gnf(*GEN, "--cpus", str(cpu), json_summary=False)
    assert result.returncode == 1
    assert "--cpus: 1 CPU for 2 poll-mode threads (1 NIC model, 1 driver): list a CPU for each" in result.stderr


def test_a_cpu_the_process_may_not_run_on_is_refused(gnf):
    cpus = allowed_cpus()
    outside = next(c for c in range(len(cpus) + 1) if c not in cpus)
    result = gnf(*GEN, "--cpus", "%d,%d" % (cpus[0], outside), json_summary=False)
    assert result.returncode == 1
    assert "--cpus: CPU %d is not one this process may run on" % outside in result.stderr


def test_a_list_that_is_no_list_is_a_usage_error(gnf):
    result = gnf(*GEN, "--cpus", "3-1", json_summary=False)
    assert result.returncode == 2 and "3-1 runs backwards" in result.stderr, result.stderr


def test_a_generator_run_spins_by_default_and_backs_off_when_told(gnf):
    spin = gnf(*GEN)
    assert spin.returncode == 0, spin.stderr
    assert spin.summary["config"]["idle"] == "spin"
    assert all(t["slept_s"] == 0 for t in spin.summary["threads"])
    # 500 frames a second: the driver waits 2 ms for each, and sleeps through most of it; the
    # NIC model's thread keeps the generator's clock and never sleeps while it sends.
    backoff = gnf("--gen", "--count", "1000", "--rate-pps", "500", "--nf", "l2fwd", "--mode", "reflect",
                  "--idle", "backoff", "--idle-sleep-us-max", "500")
    assert backoff.returncode == 0, backoff.stderr
    summary = backoff.summary
    assert summary["config"]["idle"] == "backoff"
    assert_balanced(summary)
    assert summary["generated"]["lost"] == 0
    threads = {t["role"]: t for t in summary["threads"]}
    duration = summary["duration_s"]
    assert threads["driver"]["slept_s"] > 0.3 * duration, threads
    assert threads["nic"]["slept_s"] < 0.05 * duration, threads


@pytest.fixture(scope="module")
def quiet_link(request):
    (ns,) = namespaces(request, "idle", "g")
    veth(ns, "veth-g", "veth-h")
    return ns


def test_an_idle_link_costs_little_cpu_backing_off(gnf, tmp_path, quiet_link):
    config = tmp_path / "link.toml"
    config.write_text('duration = 1.5\n[[port]]\n[port.link]\ntype = "af_packet"\ninterface = "veth-g"\n'
                      'netns = "%s"\n[[nf]]\ntype = "l2fwd"\nmode = "reflect"\n' % quiet_link)
    result = gnf("--config", config)
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert summary["config"]["idle"] == "backoff"  # auto: no generator
    for t in summary["threads"]:
        assert t["slept_s"] > 0.5 * summary["duration_s"], t
        assert t["cpu_s"] < 0.3 * summary["duration_s"], t
    spin = gnf("--config", config, "--idle", "spin")
    assert spin.returncode == 0, spin.stderr
    assert all(t["slept_s"] == 0 for t in spin.summary["threads"])
