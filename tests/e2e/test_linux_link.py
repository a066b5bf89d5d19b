"""Ports attached to Linux interfaces ([port.link]): two hosts in network namespaces talk through
gnf as through a switch.

    ns A: veth-a 10.0.0.1/24 ── veth-ga ┐                      ┌ veth-gb ── veth-b 10.0.0.2/24 :ns B
                                        └ ns G: gnf port 0 ⇄ l2fwd pairs ⇄ port 1 ┘

gnf runs in the test's namespace and opens veth-ga and veth-gb inside ns G (netns = "..."). ARP,
ICMP echo and UDP cross it both ways. Needs root and `ip` (iproute2) to make the namespaces; the
tests skip, saying why, only when the namespaces cannot be made. Namespaces carry this process's
id and are deleted however a test ends. The hosts keep Linux's default offloads, except where a
test runs explicit AF_XDP, which cannot see them.
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import time

import pytest

from checks import assert_balanced
from conftest import REPO
from netns import PEER, Running, ip, namespaces, peer, tx_checksum, veth

PINGS = 20
UDP_PORT = 7777


class Topology:
    """Names of the three namespaces."""

    def __init__(self, a, b, g):
        self.a, self.b, self.g = a, b, g

    def offload_checksums(self, on):
        """Whether the hosts' stacks leave TCP/UDP checksums to the (absent) veth hardware."""
        tx_checksum(self.a, "veth-a", on)
        tx_checksum(self.b, "veth-b", on)


@pytest.fixture(scope="module")
def topology(request):
    topo = Topology(*namespaces(request, "link", "a", "b", "g"))
    veth(topo.g, "veth-ga", "veth-a", topo.a)
    veth(topo.g, "veth-gb", "veth-b", topo.b)
    ip("-n", topo.a, "addr", "add", "10.0.0.1/24", "dev", "veth-a")
    ip("-n", topo.b, "addr", "add", "10.0.0.2/24", "dev", "veth-b")
    return topo


def link_config(tmp_path, topo, link_type, name="l2fwd-veth.toml"):
    """configs/l2fwd-veth.toml as shipped, with this run's namespace and `link_type`."""
    text = open(os.path.join(REPO, "configs", "l2fwd-veth.toml")).read()
    assert text.count('netns = "gnf-sw"') == 2 and text.count('type = "auto"') == 2, \
        "configs/l2fwd-veth.toml no longer has two auto links in namespace gnf-sw"
    config = tmp_path / name
    config.write_text(text.replace('netns = "gnf-sw"', 'netns = "%s"' % topo.g)
                      .replace('type = "auto"', 'type = "%s"' % link_type))
    return config


def line_of(config, text):
    return next(n for n, line in enumerate(config.read_text().splitlines(), 1) if line.startswith(text))


@pytest.fixture
def running(gnf, tmp_path):
    started = []

    def start(config, tag="gnf"):
        run = Running(gnf.binary, config, tmp_path, tag)
        started.append(run)
        run.wait_until_running()
        return run

    yield start
    for run in started:
        run.kill()


def rtt_text(result):
    rtts = sorted(result["rtt_ms"])
    return "p50 %.3f ms, max %.3f ms" % (statistics.median(rtts), rtts[-1]) if rtts else "no replies"


@pytest.mark.parametrize("link_type", ["af_packet", "af_xdp", "auto"])
def test_two_hosts_ping_and_talk_udp_through_gnf(gnf, tmp_path, topology, running, link_type):
    run = running(link_config(tmp_path, topology, link_type))
    # Auto takes AF_PACKET on a veth; explicit AF_XDP fails the run if gnf was built without libxdp.
    xdp = link_type == "af_xdp"
    # AF_XDP cannot tell a checksum left to the hardware from a finished one (AF_PACKET has the
    # kernel's metadata, and gnf completes it): with it the hosts compute their own, as they do on a
    # NIC without offloads. Otherwise Linux's defaults (the module's hosts share this setting).
    topology.offload_checksums(on=not xdp)
    server = subprocess.Popen(["ip", "netns", "exec", topology.b, sys.executable, PEER, "udp-server", str(UDP_PORT), "30"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(server.stdout.readline()) == {"listening": UDP_PORT}
        pinged = peer(topology.a, "ping", "10.0.0.2", PINGS, 0.01)
        udp = peer(topology.a, "udp-ping", "10.0.0.2", UDP_PORT, PINGS, 1000)
    finally:
        server.kill()
        server.wait()
    summary = run.stop()
    print("%s (%s): ICMP echo %s; UDP 1000 B %s" % (link_type, summary["ports"][0]["link"]["description"],
                                                    rtt_text(pinged), rtt_text(udp)))
    assert pinged["received"] == PINGS, pinged
    assert udp["received"] == PINGS, udp

    assert_balanced(summary)
    a, b = summary["ports"]
    for port, dev in ((a, "veth-ga"), (b, "veth-gb")):
        link = port["link"]
        assert link["interface"] == dev and link["netns"] == topology.g, link
        assert link["backend"] == ("af_xdp" if xdp else "af_packet"), (link, run.stderr())
        # What the port took is what came off the interface; what it sent went onto it.
        assert port["source_frames"] == link["rx_frames"], port
        assert port["source_malformed"] == link["rx_truncated"] + link["rx_too_big"] + link["rx_bad_offload"], port
        assert port["tx_packets"] == link["tx_frames"], port
        assert link["rx_dropped"] == link["rx_truncated"] == link["rx_too_big"] == link["rx_bad_offload"] == 0, link
        assert link["tx_ring_full"] == link["tx_errors"] == link["tx_send_errors"] == 0, link
    if not xdp:  # the UDP pings and their answers left their checksums to the veth's hardware
        assert a["link"]["rx_csum_completed"] >= PINGS and b["link"]["rx_csum_completed"] >= PINGS, (a, b)
        assert "auto: a veth interface" in a["link"]["description"] or link_type != "auto", a["link"]
    # Every request crossed A -> B and every answer B -> A (plus ARP, and whatever IPv6 sends).
    assert a["link"]["rx_frames"] >= 2 * PINGS and b["link"]["tx_frames"] >= 2 * PINGS, (a["link"], b["link"])
    assert b["link"]["rx_frames"] >= 2 * PINGS and a["link"]["tx_frames"] >= 2 * PINGS, (a["link"], b["link"])


def test_af_xdp_on_a_queue_another_socket_holds(gnf, tmp_path, topology, running):
    """Explicit af_xdp fails naming the file, the line and the kernel's reason; auto takes AF_PACKET
    on a veth without trying AF_XDP (no warning: it is the choice, not a fallback), and says why in
    the link's description."""
    running(link_config(tmp_path, topology, "af_xdp", "holder.toml"), "holder")  # holds queue 0 of both

    config = link_config(tmp_path, topology, "af_xdp")
    refused = gnf("--config", config, "--duration", "0.5")
    assert refused.returncode == 1, refused.stderr
    where = "gnf: error: %s:%d: port[0].link: AF_XDP on veth-ga (network namespace '%s'): " % (
        config, line_of(config, 'interface = "veth-ga"'), topology.g)
    assert refused.stderr.startswith(where), refused.stderr
    assert "Device or resource busy" in refused.stderr, refused.stderr
    assert refused.summary is None

    config = link_config(tmp_path, topology, "auto")
    chose = gnf("--config", config, "--duration", "0.5")
    assert chose.returncode == 0, chose.stderr
    assert "warning" not in chose.stderr, chose.stderr
    for port in (0, 1):
        link = chose.summary["ports"][port]["link"]
        assert link["backend"] == "af_packet", link
        assert link["description"].endswith("(auto: a veth interface; AF_XDP would not see its checksum and "
                                            "segmentation offload metadata)"), link


@pytest.mark.parametrize("link_type", ["af_packet", "af_xdp", "auto"])
def test_an_interface_that_is_not_there_is_named_with_its_namespace(gnf, tmp_path, topology, link_type):
    config = tmp_path / "missing.toml"
    config.write_text('[[port]]\n[port.link]\ntype = "%s"\ninterface = "veth-zz"\nnetns = "%s"\n'
                      '[[nf]]\ntype = "l2fwd"\n' % (link_type, topology.g))
    result = gnf("--config", config, "--duration", "0.5")
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("gnf: error: %s:4: port[0].link: " % config), result.stderr
    assert "no interface 'veth-zz' in network namespace '%s'" % topology.g in result.stderr, result.stderr
    assert "warning" not in result.stderr  # auto does not fall back over a missing interface


def test_a_namespace_that_is_not_there_says_how_to_make_it(gnf, tmp_path):
    config = tmp_path / "nons.toml"
    config.write_text('[[port]]\n[port.link]\ninterface = "veth0"\nnetns = "gnf-no-such-ns-%d"\n'
                      '[[nf]]\ntype = "l2fwd"\n' % os.getpid())
    result = gnf("--config", config, "--duration", "0.5")
    assert result.returncode == 1, result.stderr
    assert result.stderr.startswith("gnf: error: %s:3: port[0].link: network namespace 'gnf-no-such-ns-%d': cannot "
                                    "open /run/netns/gnf-no-such-ns-%d" % (config, os.getpid(), os.getpid())), \
        result.stderr


def xdp_programs(ns):
    """The interfaces in `ns` that have an XDP program attached."""
    shown = subprocess.run(["ip", "-n", ns, "-o", "link", "show"], capture_output=True, text=True, check=True)
    return [line.split(":")[1].strip().split("@")[0] for line in shown.stdout.splitlines() if "prog/xdp" in line]


def test_a_ctrl_c_at_any_moment_of_start_up_leaves_no_xdp_program_behind(gnf, tmp_path, topology):
    """A Ctrl-C while gnf starts (before, during or right after it attaches its AF_XDP sockets)
    either comes before main, when nothing is set up yet and the signal's default ends gnf, or
    ends the run in order: exit 0, a summary, and no XDP program left on the interfaces."""
    config = link_config(tmp_path, topology, "af_xdp")
    summary_file = tmp_path / "early.json"
    assert not xdp_programs(topology.g), "an earlier test left XDP programs behind"
    ended = {"before main": 0, "in order": 0}
    # Delays from 0 to ~40 ms cover start-up on this machine (a run's first stats line comes at ~10 ms).
    for delay_ms in [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 40] * 2:
        if summary_file.exists():
            summary_file.unlink()
        proc = subprocess.Popen([gnf.binary, "run", "--config", str(config), "--json", str(summary_file)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(delay_ms / 1000)
        proc.send_signal(signal.SIGINT)
        try:
            _, stderr = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail("a Ctrl-C %d ms after the start did not end gnf" % delay_ms)
        left = xdp_programs(topology.g)
        for dev in left:
            ip("-n", topology.g, "link", "set", "dev", dev, "xdp", "off")
        assert not left, "a Ctrl-C %d ms after the start (exit %d) left XDP on %s: %s" % (
            delay_ms, proc.returncode, left, stderr)
        if proc.returncode == -signal.SIGINT:
            assert stderr == "", stderr  # gnf had not begun: it said nothing and set up nothing
            ended["before main"] += 1
        else:
            assert proc.returncode == 0, "a Ctrl-C %d ms after the start: exit %d: %s" % (
                delay_ms, proc.returncode, stderr)
            assert_balanced(json.loads(summary_file.read_text()))
            ended["in order"] += 1
    print("Ctrl-C during start-up: %s" % ended)
    assert ended["in order"] > 0, ended  # the sweep reached the moments after the handler exists
