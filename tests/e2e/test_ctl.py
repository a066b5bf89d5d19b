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


def start_config(gnf, tmp_path, config_text):
    """A gnf run of `config_text` (30 s at most) with its control socket in tmp_path."""
    config = tmp_path / "gnf.toml"
    config.write_text(config_text)
    socket = tmp_path / "gnf.sock"
    proc = subprocess.Popen([gnf.binary, "run", "--config", str(config), "--duration", "30", "--no-stats",
                             "--ctl-socket", str(socket)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wait_until(lambda: socket.exists() or proc.poll() is not None, 20) and socket.exists(), \
        "no control socket: %s" % (proc.communicate(timeout=30)[1] if proc.poll() is not None else "")
    proc.socket = socket
    return proc


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    return stderr


def refused(gnf, socket, *words):
    """`gnf ctl` refusing: its exit code and what it said."""
    proc = subprocess.run([gnf.binary, "ctl", "--socket", str(socket)] + list(words), capture_output=True, text=True,
                          timeout=10)
    assert proc.returncode != 0, (words, proc.stdout)
    return proc.returncode, proc.stderr


# The generator's frames (198.18.0.F -> 198.19.0.F for flows F, to 02:00:00:00:00:02) arrive on the west port
# of a router that has no route to 198.19.0.0/16 until `gnf ctl route add` gives it one.
ROUTER = """
path = "cpu"
[driver]
drop_en = false
[[port]]
name = "west"
mac = "02:00:00:00:00:02"
ipv4 = "10.0.0.1/24"
ipv6 = "2001:db8::1/64"
[port.source]
type = "generator"
size = 64
flows = 4
rate_gbps = 0.01
[[port]]
name = "east"
mac = "02:00:00:00:01:01"
ipv4 = "10.0.1.1/24"
ipv6 = "2001:db8:1::1/64"
[[nf]]
type = "l3fwd"
routes = "{routes}"
neighbours = "{configs}/l3fwd-neighbours.txt"
"""
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture
def router(gnf, tmp_path):
    routes = tmp_path / "routes.txt"
    routes.write_text("192.0.2.0/24 blackhole\n")
    proc = start_config(gnf, tmp_path, ROUTER.format(routes=routes, configs=os.path.join(REPO, "configs")))
    yield proc
    stop(proc)


def l3fwd_counters(gnf, socket):
    return ctl(gnf, socket, "show", "nf")[0]["counters"]


def grows(gnf, socket, counter):
    first = l3fwd_counters(gnf, socket)[counter]
    return wait_until(lambda: l3fwd_counters(gnf, socket)[counter] > first + 100)


def test_a_route_added_at_run_time_carries_the_traffic_until_it_is_removed(gnf, router):
    socket = router.socket
    assert grows(gnf, socket, "to_host_no_route"), "the generator's frames have a route already"
    assert ctl(gnf, socket, "show", "route", "198.19.0.1")["type"] == "unreachable"
    added = ctl(gnf, socket, "route", "add", "198.19.0.0/16", "via", "10.0.1.2")
    assert added["added"] == {"prefix": "198.19.0.0/16", "type": "gateway", "port": "east", "via": "10.0.1.2",
                              "line": "198.19.0.0/16 via 10.0.1.2 dev east"} and not added["replaced"], added
    assert grows(gnf, socket, "forwarded_ipv4"), "the new route carries nothing"
    lookup = ctl(gnf, socket, "show", "route", "198.19.0.1")
    assert lookup["line"] == "198.19.0.1 via 10.0.1.2 dev east" and lookup["port"] == "east", lookup
    listed = ctl(gnf, socket, "show", "route")
    assert "198.19.0.0/16 via 10.0.1.2 dev east" in [r["line"] for r in listed["routes"]], listed
    assert "198.19.0.0/16 via 10.0.1.2 dev east" in ctl(gnf, socket, "show", "route", json_answer=False)
    # IPv6 the same way, and a route's removal
    assert ctl(gnf, socket, "route", "add", "2001:db8:77::/48", "via", "2001:db8:1::2", "port", "1")["added"]["port"] == "east"
    assert ctl(gnf, socket, "show", "route", "2001:db8:77::/48")["found"]
    assert ctl(gnf, socket, "route", "del", "198.19.0.0/16")["removed"]["via"] == "10.0.1.2"
    assert ctl(gnf, socket, "show", "route", "198.19.0.1")["type"] == "unreachable"
    assert grows(gnf, socket, "to_host_no_route"), "the removed route still carries the traffic"
    forwarded = l3fwd_counters(gnf, socket)["forwarded_ipv4"]
    time.sleep(0.3)
    assert l3fwd_counters(gnf, socket)["forwarded_ipv4"] == forwarded


def test_bad_route_commands_are_refused_with_the_reason(gnf, router):
    socket = router.socket
    code, said = refused(gnf, socket, "route", "add", "198.19.0.0/33", "via", "10.0.1.2")
    assert code == 2 and "'198.19.0.0/33' is not a prefix" in said and "usage: route add PREFIX" in said, said
    code, said = refused(gnf, socket, "route", "add", "198.19.0.1/16", "via", "10.0.1.2")
    assert code == 2 and "the network is 198.19.0.0/16" in said, said
    code, said = refused(gnf, socket, "route", "add", "198.19.0.0/16", "via", "10.9.9.9")
    assert code == 1 and "10.9.9.9 is in none of the ports' networks" in said, said
    code, said = refused(gnf, socket, "route", "del", "203.0.113.0/24")
    assert code == 1 and "no route 203.0.113.0/24" in said, said
    assert ctl(gnf, socket, "show", "route", "198.19.0.1")["type"] == "unreachable"  # nothing was added


def test_pcap_captures_a_ports_frames_at_run_time_into_a_file_scapy_reads(gnf, router, tmp_path):
    from scapy.all import IP, Ether, rdpcap
    socket = router.socket
    ctl(gnf, socket, "route", "add", "198.19.0.0/16", "via", "10.0.1.2")
    west, east = tmp_path / "west.pcap", tmp_path / "east.pcap"
    started = ctl(gnf, socket, "pcap", "start", "west", str(west), "rx", "max", "50")
    assert started == {"port": "west", "file": str(west), "rx": True, "tx": False, "max": 50}, started
    assert "capturing east rx and tx" in ctl(gnf, socket, "pcap", "start", "1", str(east), json_answer=False)
    code, said = refused(gnf, socket, "pcap", "start", "east", str(tmp_path / "again.pcap"))
    assert code == 1 and "east is being captured already" in said, said
    assert grows(gnf, socket, "forwarded_ipv4")
    time.sleep(0.5)
    done = ctl(gnf, socket, "pcap", "stop", "west")
    assert done["frames"] == done["rx_frames"] == 50 and done["reached_max"] and done["tx_frames"] == 0, done
    frames = rdpcap(str(west))
    assert len(frames) == 50 and all(f[IP].dst.startswith("198.19.0.") and f[IP].ttl == 64 for f in frames)
    done = ctl(gnf, socket, "pcap", "stop", "east")
    assert done["tx_frames"] > 0 and done["frames"] == done["rx_frames"] + done["tx_frames"], done
    assert done["capture_dropped"] == 0, done
    frames = rdpcap(str(east))
    assert len(frames) == done["frames"]
    forwarded = [f for f in frames if IP in f and f[IP].dst.startswith("198.19.0.")]
    assert forwarded and all(f[Ether].dst == "02:bb:00:00:00:02" and f[IP].ttl == 63 for f in forwarded)
    code, said = refused(gnf, socket, "pcap", "stop", "east")
    assert code == 1 and "east is not being captured" in said, said
    code, said = refused(gnf, socket, "pcap", "start", "north", str(tmp_path / "n.pcap"))
    assert code == 1 and "'north' is no port: the ports are west, east" in said, said
    code, said = refused(gnf, socket, "pcap", "start", "west", str(tmp_path / "no" / "such" / "dir.pcap"))
    assert code == 1 and "cannot create it" in said, said


def test_a_capture_still_running_at_exit_is_written_whole(gnf, router, tmp_path):
    from scapy.all import rdpcap
    capture = tmp_path / "left.pcap"
    ctl(gnf, router.socket, "pcap", "start", "west", str(capture))
    time.sleep(0.5)
    stderr = stop(router)
    frames = rdpcap(str(capture))
    assert len(frames) > 0 and "pcap: west: %d frames written to %s" % (len(frames), capture) in stderr, stderr


ACL = """
path = "cpu"
[[port]]
name = "in"
[port.source]
type = "generator"
size = 64
flows = 4
rate_gbps = 0.01
[[port]]
name = "out"
[[nf]]
type = "acl"
rules = "{rules}"
[[nf]]
type = "l2fwd"
mode = "pairs"
mac = "rewrite"
"""
PERMIT_UDP = "@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 17/0xff permit\n"
COUNT_ALL = "@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 6/0xff deny\n@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 count\n"


def test_reload_reads_the_acl_file_again_and_a_bad_one_leaves_the_rules_in_use(gnf, tmp_path):
    rules = tmp_path / "live.rules"
    rules.write_text(PERMIT_UDP)
    proc = start_config(gnf, tmp_path, ACL.format(rules=rules))
    try:
        socket = proc.socket

        def acl(counter):
            return ctl(gnf, socket, "show", "nf")[0]["counters"][counter]

        first = acl("permit")
        assert wait_until(lambda: acl("permit") > first + 100)
        assert acl("count") == 0
        rules.write_text(COUNT_ALL)
        answer = ctl(gnf, socket, "acl", "reload")
        assert answer["elements"] == [{"nf": 0, "type": "acl", "reloaded": True,
                                       "what": "2 rules from %s" % rules}], answer
        permitted = acl("permit")
        assert wait_until(lambda: acl("count") > 100), "the reloaded rules are not the ones in use"
        assert acl("permit") == permitted
        # Everything with tables by default; an element without any says so when named.
        assert [e["nf"] for e in ctl(gnf, socket, "reload")["elements"]] == [0]
        assert ctl(gnf, socket, "reload", "nf", "1")["elements"][0]["what"] == "nothing to reload"
        assert "nf[0] acl: 2 rules from" in ctl(gnf, socket, "reload", "acl", json_answer=False)
        rules.write_text("@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 allow\n")
        code, said = refused(gnf, socket, "reload")
        assert code == 1 and "%s:1: action: 'allow' is not permit, deny or count" % rules in said, said
        assert "the tables in use stay" in said
        counted = acl("count")
        assert wait_until(lambda: acl("count") > counted + 100), "the rules in use went with the bad file"
        code, said = refused(gnf, socket, "sa", "reload")
        assert code == 1 and "the NF chain has no ipsec" in said, said
        code, said = refused(gnf, socket, "show", "route")
        assert code == 1 and "no l3fwd" in said, said
    finally:
        stderr = stop(proc)
    assert "nf[0] acl: not reloaded" in stderr  # the run's log says what the control socket did


def test_sa_reload_says_the_ipsec_gateway_has_nothing_to_reload(gnf, tmp_path):
    """Its SAs are read once: a restarted sequence number under the same key would repeat IVs."""
    text = open(os.path.join(REPO, "configs", "ipsec-bench-gcm.toml")).read()
    text = text.replace('max_frame = 1600', 'max_frame = 1600\n[port.source]\ntype = "generator"\nsize = 64\n'
                        'flows = 4\nrate_gbps = 0.01', 1)
    text = text.replace('"ipsec-bench-', '"%s/ipsec-bench-' % os.path.join(REPO, "configs"))
    proc = start_config(gnf, tmp_path, 'path = "cpu"\n' + text)
    try:
        answer = ctl(gnf, proc.socket, "sa", "reload")
        assert answer["elements"] == [{"nf": 0, "type": "ipsec", "reloaded": False, "what": "nothing to reload"}], answer
    finally:
        stop(proc)
