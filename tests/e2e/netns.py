"""Network namespaces for the tests that cable gnf to Linux interfaces, and gnf running beside them.

Namespaces carry this process's id in their names and are deleted however a test ends; a test
skips, saying why, only when no namespace can be made here (not root, no `ip`, no kernel support).
"""
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "netns_peer.py")
# The router tests' hosts either side of gnf (A on port west's link, B on east's) and gnf's own
# addresses facing them, as the control namespace gives them.
A = {4: "10.0.0.2", 6: "2001:db8::2"}
B = {4: "10.0.1.2", 6: "2001:db8:1::2"}
WEST = {4: "10.0.0.1", 6: "2001:db8::1"}
EAST = {4: "10.0.1.1", 6: "2001:db8:1::1"}
# The data path gnf routes on in them: the config's cpu, or GNF_TEST_PATH's (bypass and staged need a GPU).
DATA_PATH = os.environ.get("GNF_TEST_PATH") or "cpu"


def ip(*args, check=True, input=None):
    """iproute2's `ip ARGS`; with `check`, a failure fails the test with ip's own message."""
    proc = subprocess.run(["ip"] + [str(a) for a in args], capture_output=True, text=True, input=input)
    if check and proc.returncode != 0:
        pytest.fail("ip %s: %s" % (" ".join(str(a) for a in args), proc.stderr.strip()), pytrace=False)
    return proc


def namespaces(request, tag, *roles):
    """One namespace per role, named gnf-<pid>-<tag>-<role>, deleted when `request`'s scope ends
    (the finalizer is registered before the first is made). Returns the names in order."""
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if shutil.which("ip") is None:
        pytest.skip("no `ip` command (iproute2) to make network namespaces")
    names = ["gnf-%d-%s-%s" % (os.getpid(), tag, role) for role in roles]
    request.addfinalizer(lambda: [ip("netns", "delete", ns, check=False) for ns in names])
    made = ip("netns", "add", names[0], check=False)
    if made.returncode != 0:
        pytest.skip("cannot make a network namespace: %s" % made.stderr.strip())
    for ns in names[1:]:
        ip("netns", "add", ns)
    return names


def veth(ns, name, peer, peer_ns=None):
    """A veth pair, both ends up: `name` in namespace `ns`, `peer` in `peer_ns` (default: `ns`)."""
    peer_ns = peer_ns or ns
    ip("-n", ns, "link", "add", name, "type", "veth", "peer", "name", peer, "netns", peer_ns)
    ip("-n", ns, "link", "set", name, "up")
    ip("-n", peer_ns, "link", "set", peer, "up")


def run_in(ns, *command, timeout=60):
    """`command` inside namespace `ns`, its output captured as text."""
    return subprocess.run(["ip", "netns", "exec", ns] + [str(c) for c in command], capture_output=True, text=True,
                          timeout=timeout)


def peer(ns, *args, timeout=60):
    """netns_peer.py COMMAND ARGS inside `ns`: its JSON answer."""
    proc = run_in(ns, sys.executable, PEER, *args, timeout=timeout)
    assert proc.returncode == 0, "netns_peer.py %s in %s: %s" % (args, ns, proc.stderr)
    return json.loads(proc.stdout.splitlines()[-1])


def tx_checksum(ns, interface, on):
    """Whether the stack in `ns` leaves TCP/UDP checksums to the (absent) hardware of `interface`.
    Off also turns segmentation offload off: the stack then sends frames a cable carries."""
    peer(ns, "tx-checksum", interface, "on" if on else "off")


class Running:
    """`gnf run --config CONFIG` in the background, printing stats every 0.1 s so that its first
    line says it runs; stop() ends it with Ctrl-C and returns its JSON summary."""

    def __init__(self, binary, config, directory, tag="gnf"):
        self.summary_file = directory / ("%s.json" % tag)
        self.stderr_file = directory / ("%s.stderr" % tag)
        # GNF_TEST_ARGS: more `gnf run` flags for every run (e.g. "--idle spin --nic-threads 2"), to
        # try settings on a machine without editing the tests.
        extra = shlex.split(os.environ.get("GNF_TEST_ARGS", ""))
        self.proc = subprocess.Popen([binary, "run", "--config", str(config), "--json", str(self.summary_file),
                                      "--stats-interval", "0.1", *extra],
                                     stdout=subprocess.DEVNULL, stderr=self.stderr_file.open("w"))

    def wait_until_running(self, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                if "built without libxdp" in self.stderr():
                    pytest.skip("this gnf was built without libxdp: %s" % self.stderr().strip())
                pytest.fail("gnf ended before it ran (%d): %s" % (self.proc.returncode, self.stderr()))
            if any("gnf: [" in line for line in self.stderr().splitlines()):
                return
            time.sleep(0.05)
        pytest.fail("gnf printed no stats line in %d s: %s" % (timeout, self.stderr()))

    def stderr(self):
        return self.stderr_file.read_text()

    def stop(self):
        """Ctrl-C, as a user ends a run of live links; returns the summary."""
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)
        assert self.proc.returncode == 0, self.stderr()
        return json.loads(self.summary_file.read_text())

    def kill(self):
        """Ends it however it is, as a Ctrl-C first: a SIGKILL would leave its XDP programs attached."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def host(ns, dev, addresses, gateways, cable_checksums=False):
    """`addresses` on `dev` in `ns` (IPv6 ones without duplicate address detection), default routes via
    `gateways`; with `cable_checksums` the stack sends frames a cable carries (tx_checksum off)."""
    for address in addresses:
        ip("-n", ns, "addr", "add", address, "dev", dev, *(["nodad"] if ":" in address else []))
    for gateway in gateways:
        ip("-n", ns, "-6" if ":" in gateway else "-4", "route", "add", "default", "via", gateway)
    if cable_checksums:
        tx_checksum(ns, dev, on=False)


def hosts_either_side(wire, a, b, cable_checksums=False):
    """Hosts A (namespace `a`, a0) and B (`b`, b0) cabled by veths to ga and gb in `wire`, with gnf's
    WEST and EAST addresses as their default gateways."""
    veth(wire, "ga", "a0", a)
    veth(wire, "gb", "b0", b)
    host(a, "a0", [A[4] + "/24", A[6] + "/64"], [WEST[4], WEST[6]], cable_checksums)
    host(b, "b0", [B[4] + "/24", B[6] + "/64"], [EAST[4], EAST[6]], cable_checksums)
