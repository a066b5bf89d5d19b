"""Issue 15: a running gnf answers `gnf ctl` on its control socket while traffic flows, every
command in text and JSON; the numbers grow, `clear counters` makes them count from then on, and the
data path's own counters (the JSON summary) are never touched by it."""
import json
import os
import signal
import subprocess
import time

import pytest

# The generator at 0.05 Gbit/s of 64 B frames (~74 kpps) on two queues, for at most 30 s.
RUN = ["run", "--gen", "--rate-gbps", "0.05", "--queues", "2", "--flows", "8", "--no-stats"]


@pytest.fixture
def running(gnf, tmp_path):
    """A gnf run with its control socket in tmp_path; stopped with Ctrl-C at the end."""
    socket = tmp_path / "gnf.sock"
    summary_file = tmp_path / "summary.json"
    proc = subprocess.Popen([gnf.binary] + RUN + ["--duration", "30", "--ctl-socket", str(socket), "--json",
                                                  str(summary_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not socket.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert socket.exists(), "no control socket: %s" % (proc.communicate(timeout=30)[1] if proc.poll() is not None else "")
    proc.socket, proc.summary_file = socket, summary_file
    yield proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)


def ctl(gnf, socket, *words, json_answer=True):
    cmd = [gnf.binary, "ctl", "--socket", str(socket)] + list(words) + (["--json"] if json_answer else [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    assert proc.returncode == 0, (cmd, proc.stderr)
    return json.loads(proc.stdout) if json_answer else proc.stdout


def wait_until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    return condition()


def rx(gnf, socket):
    return ctl(gnf, socket, "show", "ports")[0]["rx_packets"]


def test_every_command_answers_while_traffic_runs_and_the_numbers_grow(gnf, running):
    socket = running.socket
    first = rx(gnf, socket)
    assert wait_until(lambda: rx(gnf, socket) > first + 1000), "rx_packets did not grow"
    ports = ctl(gnf, socket, "show", "ports")
    assert [p["name"] for p in ports] == ["port0"] and "rx_missed" in ports[0]["drops"], ports
    queues = ctl(gnf, socket, "show", "queues")
    assert len(queues[0]["rx_queue_packets"]) == 2 and len(queues[0]["tx_queue_packets"]) == 2, queues
    assert sum(queues[0]["rx_queue_packets"]) > 0
    nfs = ctl(gnf, socket, "show", "nf")
    assert nfs[0]["type"] == "l2fwd" and nfs[0]["counters"]["forwarded"] > 0, nfs
    runtime = ctl(gnf, socket, "show", "runtime")
    element = runtime["elements"][0]
    assert runtime["counted"] and element["type"] == "l2fwd", runtime
    assert element["calls"] > 0 and element["packets"] >= element["calls"], element
    assert element["packets_per_call"] == pytest.approx(element["packets"] / element["calls"])
    later = wait_until(lambda: (lambda r: r if r["elements"][0]["packets"] > element["packets"] else None)(
        ctl(gnf, socket, "show", "runtime")))
    assert later, "the runtime's packets did not grow"
    for words in (["show", "ports"], ["show", "queues"], ["show", "nf"], ["show", "runtime"]):
        text = ctl(gnf, socket, *words, json_answer=False)
        assert text.strip(), words
    assert "port0" in ctl(gnf, socket, "show", "ports", json_answer=False)
    assert "nf[0] l2fwd" in ctl(gnf, socket, "show", "runtime", json_answer=False)


def test_clear_counters_counts_from_then_on_and_leaves_the_summary_whole(gnf, running):
    socket = running.socket
    before = wait_until(lambda: (lambda n: n if n > 20000 else None)(rx(gnf, socket)))
    assert before, "too little traffic to tell a cleared count from a running one"
    assert ctl(gnf, socket, "clear", "counters") == {"cleared": True}
    after = rx(gnf, socket)
    assert after < before, (before, after)
    assert wait_until(lambda: rx(gnf, socket) > after), "counting stopped after the clear"
    assert ctl(gnf, socket, "show", "runtime")["elements"][0]["packets"] < before
    running.send_signal(signal.SIGINT)
    _, stderr = running.communicate(timeout=30)
    assert running.returncode == 0, stderr
    summary = json.loads(running.summary_file.read_text())
    # The data path's counters were never written: the summary counts every frame from the start.
    assert summary["ports"][0]["rx_packets"] > before
    assert not os.path.exists(running.socket), "the socket file outlived gnf"


def test_a_bad_command_is_a_usage_error_and_no_server_is_an_error(gnf, running, tmp_path):
    proc = subprocess.run([gnf.binary, "ctl", "--socket", str(running.socket), "show", "everything"],
                          capture_output=True, text=True, timeout=10)
    assert proc.returncode == 2 and "'show everything' is not a command" in proc.stderr, proc.stderr
    assert "show runtime" in proc.stderr
    proc = subprocess.run([gnf.binary, "ctl", "--socket", str(tmp_path / "nobody.sock"), "show", "ports"],
                          capture_output=True, text=True, timeout=10)
    assert proc.returncode == 1 and "cannot connect" in proc.stderr, proc.stderr


def test_a_socket_another_gnf_listens_on_is_refused(gnf, running):
    proc = subprocess.run([gnf.binary] + RUN + ["--ctl-socket", str(running.socket), "--duration", "1"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and "another gnf listens there" in proc.stderr, proc.stderr
    assert rx(gnf, running.socket) > 0  # the first one still answers


def test_gnf_ctl_finds_the_one_running_gnf_and_a_killed_ones_socket_goes(gnf, tmp_path):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    start = [gnf.binary] + RUN + ["--duration", "30"]
    killed = subprocess.Popen(start, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    stale = tmp_path / ("gnf-%d.sock" % killed.pid)
    assert wait_until(stale.exists), "no socket under $XDG_RUNTIME_DIR"
    killed.kill()  # SIGKILL: it cannot remove its socket
    killed.wait()
    assert stale.exists()
    live = subprocess.Popen(start, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert wait_until(lambda: (tmp_path / ("gnf-%d.sock" % live.pid)).exists())
        assert not stale.exists(), "the killed gnf's socket is still there"
        proc = subprocess.run([gnf.binary, "ctl", "show", "ports", "--json"], capture_output=True, text=True,
                              timeout=10, env=env)
        assert proc.returncode == 0 and json.loads(proc.stdout)[0]["name"] == "port0", proc.stderr
    finally:
        live.send_signal(signal.SIGINT)
        live.communicate(timeout=30)
    assert live.returncode == 0
    proc = subprocess.run([gnf.binary, "ctl", "show", "ports"], capture_output=True, text=True, timeout=10, env=env)
    assert proc.returncode == 1 and "is gnf running?" in proc.stderr, proc.stderr
