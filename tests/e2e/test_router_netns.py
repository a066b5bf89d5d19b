"""gnf as the router between two hosts in network namespaces, on the cpu path (or the one that
GNF_TEST_PATH names: staged, bypass), configured from a third namespace through netlink:
configs/l3fwd-veth.toml as shipped, with this run's namespaces and that path.

    ns A: a0 10.0.0.2/24 ── ga ┐                                         ┌ gb ── b0 10.0.1.2/24 :ns B
          2001:db8::2/64       └ ns wire: gnf port west ⇄ l3fwd ⇄ port east ┘     2001:db8:1::2/64
    ns ctl: west 10.0.0.1/24 2001:db8::1/64, east 10.0.1.1/24 2001:db8:1::1/64 (veths, peers west-p
            and east-p): gnf's [netlink] namespace, so what `ip route` does there, gnf does.

The hosts route through gnf by default, learn its ports' MACs from its slow path (ARP, ND), ping
each other one hop apart, ping gnf, traceroute through it (UDP probes) and send TCP and UDP
through it (iperf3; a direct veth pair, measured before gnf starts, gives the scale). The hosts'
veths keep Linux's default offloads (checksums left partial, 64 KB TSO segments): gnf's
AF_PACKET links finish them as a NIC would, and hand consecutive segments to the receiving
host's veth as super-frames again. Routes added and deleted in the
control namespace take effect while a ping runs, and a port's interface taken down there takes
its routes along. gnf runs once for the module; the last test stops it and reads its summary.
Needs root, iproute2, ping, traceroute and iperf3 (scripts/install-deps.sh installs them); skips,
saying why, when the namespaces or the tools are not there.
"""
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import pytest

from checks import assert_balanced, nonzero
from conftest import REPO
from netns import A, B, DATA_PATH, EAST, PEER, WEST, Running, host, hosts_either_side, ip, namespaces, run_in, veth

PINGS = 10
IPERF_SECONDS = 10
UDP_SECONDS, UDP_RATE = 3, "50M"  # well below what the cpu path forwards on a 2-core machine
# Behind B, reachable only once the control namespace has a route to it: (address, route).
BEHIND_B = {4: ("10.9.0.2", "10.9.0.0/24"), 6: ("2001:db8:9::2", "2001:db8:9::/64")}


class Router:
    """The namespaces, gnf running as their router, TCP's rate over a direct veth for scale, and the
    least each summary counter must show for what the tests have done so far."""

    def __init__(self, names, gnf, direct_tcp):
        self.a, self.b, self.wire, self.ctl = names
        self.gnf = gnf
        self.direct_tcp = direct_tcp
        self.expected = collections.Counter()


def need(*tools):
    for tool in tools:
        if shutil.which(tool) is None:
            pytest.skip("no `%s` here: scripts/install-deps.sh installs it" % tool)


def iperf3(client_ns, server_ns, server_address, seconds=IPERF_SECONDS, udp_rate=None):
    """TCP (or UDP at `udp_rate`) from `client_ns` to an iperf3 server in `server_ns`: iperf3's
    JSON summary."""
    server = subprocess.Popen(["ip", "netns", "exec", server_ns, "iperf3", "--server", "--one-off"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):
            if run_in(server_ns, "ss", "-Hltn", "sport = :5201").stdout.strip():
                break
            assert server.poll() is None, server.communicate()[1]
            time.sleep(0.02)
        udp = ["--udp", "--bitrate", udp_rate, "--length", "1400"] if udp_rate else []
        client = run_in(client_ns, "iperf3", "--client", server_address, "--time", seconds, "--json", *udp,
                        timeout=seconds + 30)
        result = json.loads(client.stdout)
        assert "error" not in result, result["error"]
        return result["end"]
    finally:
        server.kill()
        server.wait()


def tcp_rate(end):
    """(bits per second received, retransmits) of an iperf3 TCP run."""
    return end["sum_received"]["bits_per_second"], end["sum_sent"].get("retransmits", 0)


@pytest.fixture(scope="module")
def direct_tcp(request):
    """iperf3 over a direct veth pair with Linux's default offloads, measured before gnf starts so that
    its poll-mode threads do not share the cores: (bits per second, retransmits)."""
    need("iperf3")
    d1, d2 = namespaces(request, "direct", "1", "2")
    veth(d1, "d1", "d2", d2)
    host(d1, "d1", ["10.8.0.1/24"], [])
    host(d2, "d2", ["10.8.0.2/24"], [])
    return tcp_rate(iperf3(d1, d2, "10.8.0.2"))


@pytest.fixture(scope="module")
def router(request, gnf_binary, tmp_path_factory, direct_tcp):
    need("ping", "traceroute")
    names = namespaces(request, "rt", "a", "b", "wire", "ctl")
    a, b, wire, ctl = names
    hosts_either_side(wire, a, b)
    ip("-n", b, "link", "set", "lo", "up")
    for address, _ in BEHIND_B.values():
        ip("-n", b, "addr", "add", address, "dev", "lo")
    for port, addresses in (("west", WEST), ("east", EAST)):
        veth(ctl, port, port + "-p")
        ip("-n", ctl, "addr", "add", addresses[4] + "/24", "dev", port)
        ip("-n", ctl, "addr", "add", addresses[6] + "/64", "dev", port, "nodad")

    text = open(os.path.join(REPO, "configs", "l3fwd-veth.toml")).read()
    assert text.count('netns = "gnf-wire"') == 2 and text.count('netns = "gnf-ctl"') == 1, \
        "configs/l3fwd-veth.toml no longer links its ports in gnf-wire and syncs from gnf-ctl"
    assert DATA_PATH in ("cpu", "staged", "bypass"), "GNF_TEST_PATH=%s: cpu, staged or bypass" % DATA_PATH
    assert text.count('path = "cpu"') == 1, "configs/l3fwd-veth.toml no longer says path = \"cpu\""
    text = text.replace('path = "cpu"', 'path = "%s"' % DATA_PATH)
    directory = tmp_path_factory.mktemp("router")
    config = directory / "l3fwd-veth.toml"
    config.write_text(text.replace('"gnf-wire"', '"%s"' % wire).replace('"gnf-ctl"', '"%s"' % ctl))
    gnf = Running(gnf_binary, config, directory)
    request.addfinalizer(gnf.kill)  # before the namespaces go: finalizers run last first
    gnf.wait_until_running()
    return Router(names, gnf, direct_tcp)


def ping(ns, address, count=PINGS, interval=0.02):
    """ping's replies from `address`: (ttl, rtt_ms) each."""
    proc = run_in(ns, "ping", "-n", "-c", count, "-i", interval, "-W", "1", address)
    return [(int(ttl), float(rtt)) for ttl, rtt in
            re.findall(r"bytes from %s: icmp_seq=\d+ ttl=(\d+) time=([\d.]+) ms" % re.escape(address), proc.stdout)]


def rtt_text(replies):
    rtts = sorted(rtt for _, rtt in replies)
    return "p50 %.3f ms, max %.3f ms" % (statistics.median(rtts), rtts[-1]) if rtts else "no replies"


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_hosts_ping_each_other_through_gnf_one_hop_apart(router, family):
    sniffer = subprocess.Popen(["ip", "netns", "exec", router.b, sys.executable, PEER, "echo-requests", "b0",
                                str(PINGS), "10"], stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(sniffer.stdout.readline()) == {"listening": "b0"}
        replies = ping(router.a, B[family])
        seen = json.loads(sniffer.communicate(timeout=15)[0].splitlines()[-1])["seen"]
    finally:
        sniffer.kill()
        sniffer.wait()
    print("ping A -> B over IPv%d through gnf: %s" % (family, rtt_text(replies)))
    assert len(replies) == PINGS
    # Each way the TTL / hop limit (64 at the sender) is one less where it arrives: the requests at
    # B, the replies at A.
    assert [s["ttl"] for s in seen if s["src"] == A[family]] == [63] * PINGS, seen
    assert [ttl for ttl, _ in replies] == [63] * PINGS
    router.expected["forwarded_ipv%d" % family] += 2 * PINGS


@pytest.mark.parametrize("address", [WEST[4], EAST[4], WEST[6], EAST[6]])
def test_gnf_answers_pings_to_its_own_addresses(router, address):
    replies = ping(router.a, address)
    print("ping A -> gnf %s: %s" % (address, rtt_text(replies)))
    assert len(replies) == PINGS
    router.expected["echo_replies"] += PINGS


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_traceroute_shows_gnf_as_the_first_hop(router, family):
    proc = run_in(router.a, "traceroute", "-%d" % family, "-n", "-q", "1", "-w", "1", "-m", "4", B[family])
    hops = dict((int(n), address) for n, address in re.findall(r"^\s*(\d+)\s+(\S+)", proc.stdout, re.M))
    assert hops == {1: WEST[family], 2: B[family]}, proc.stdout + proc.stderr
    router.expected["time_exceeded"] += 1


def test_tcp_crosses_gnf_for_10_s_slower_than_a_direct_veth(router):
    direct, direct_retransmits = router.direct_tcp
    routed, routed_retransmits = tcp_rate(iperf3(router.a, router.b, B[4]))
    print("iperf3 TCP %d s on the %s path: direct veth %.2f Gb/s (%d retransmits), "
          "A -> B through gnf %.2f Gb/s (%d retransmits), %.2fx slower"
          % (IPERF_SECONDS, DATA_PATH, direct / 1e9, direct_retransmits, routed / 1e9, routed_retransmits,
             direct / routed if routed else float("inf")))
    assert routed > 0
    assert direct > routed
    router.expected["forwarded_ipv4"] += 1000  # far more: every segment and ACK
    router.expected["gso_frames"] += 1  # the hosts' TSO: gnf cut their super-frames


def test_udp_crosses_gnf_with_checksums_the_hosts_left_partial(router):
    end = iperf3(router.a, router.b, B[4], seconds=UDP_SECONDS, udp_rate=UDP_RATE)
    udp = end["sum"]
    print("iperf3 UDP %d s at %s bit/s, 1400 B, through gnf on the %s path: %d of %d datagrams lost, "
          "jitter %.3f ms" % (UDP_SECONDS, UDP_RATE, DATA_PATH, udp["lost_packets"], udp["packets"],
                              udp["jitter_ms"]))
    # The server counts what arrived with a good checksum (the kernel drops the rest).
    assert udp["packets"] > 1000 and udp["lost_percent"] < 5, udp
    router.expected["forwarded_ipv4"] += udp["packets"] - udp["lost_packets"]
    router.expected["csum_completed"] += 1


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_a_route_added_in_the_control_namespace_takes_effect_while_a_ping_runs(router, family):
    target, prefix = BEHIND_B[family]
    # 5 s of probes (not -w 5: with a deadline ping ends at the first error).
    pinger = subprocess.Popen(["ip", "netns", "exec", router.a, "ping", "-n", "-D", "-i", "0.1", "-W", "0.5",
                               "-c", "50", target], stdout=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        added = time.time()
        ip("-n", router.ctl, "route", "add", prefix, "via", B[family], "dev", "east")
        time.sleep(2.0)
        deleted = time.time()
        ip("-n", router.ctl, "route", "del", prefix)
        output = pinger.communicate(timeout=10)[0]
    finally:
        pinger.kill()
        pinger.wait()
    replies = [float(t) for t in re.findall(r"^\[([\d.]+)\] \d+ bytes from ", output, re.M)]
    refused = [float(t) for t in re.findall(r"^\[([\d.]+)\] From %s icmp_seq=\d+ Destination (?:Net Unreachable|"
                                            r"unreachable: No route)" % re.escape(WEST[family]), output, re.M)]
    assert replies, output
    print("ping A -> %s: first reply %.3f s after the route was added, last %.3f s after it was deleted"
          % (target, replies[0] - added, replies[-1] - deleted))
    # Without the route gnf answers "no route" for each probe; with it B answers within a second, and
    # every probe from then on until the route goes; then gnf refuses again.
    assert not [t for t in replies if t < added] and len([t for t in refused if t < added]) >= 10, output
    assert replies[0] - added < 1.0, output
    assert len([t for t in replies if added + 1.0 <= t < deleted]) >= 8, output
    assert not [t for t in replies if t > deleted + 0.5] and [t for t in refused if t > deleted + 0.5], output
    router.expected["routes_added"] += 1
    router.expected["routes_removed"] += 1
    router.expected["unreachable"] += len(refused)


def test_a_port_interface_taken_down_in_the_control_namespace_takes_its_routes_along(router):
    """Linux drops a downed interface's IPv4 routes without a netlink message for each; gnf routes
    as the kernel does all the same: through east neither while it is down, nor after it is up
    again along a route the kernel has lost."""
    target, prefix = BEHIND_B[4]
    ip("-n", router.ctl, "route", "add", prefix, "via", B[4], "dev", "east")
    assert len(ping(router.a, target, count=3)) == 3
    ip("-n", router.ctl, "link", "set", "east", "down")
    try:
        time.sleep(0.2)
        assert not ping(router.a, B[4], count=3) and not ping(router.a, target, count=3)
    finally:
        ip("-n", router.ctl, "link", "set", "east", "up")
        # IPv6 addresses go with the link; the rest of the module needs the router's back.
        ip("-n", router.ctl, "addr", "add", EAST[6] + "/64", "dev", "east", "nodad")
    time.sleep(0.2)
    assert len(ping(router.a, B[4], count=3)) == 3 and len(ping(router.a, B[6], count=3)) == 3
    assert ip("-n", router.ctl, "route", "show", prefix).stdout == ""
    assert not ping(router.a, target, count=3)
    router.expected["routes_added"] += 1
    router.expected["routes_removed"] += 1


def test_gnf_stops_cleanly_and_its_summary_counts_what_the_tests_did(router):
    for family in (4, 6):  # something to count, whichever tests ran before
        assert ping(router.a, B[family], count=1) and ping(router.a, WEST[family], count=1)
        router.expected["forwarded_ipv%d" % family] += 2
        router.expected["echo_replies"] += 1
    summary = router.gnf.stop()
    print("path %s\nnetlink %s\nslow path %s\nl3fwd %s\ndrops %s" % (summary["config"]["path"],
        nonzero(summary["netlink"]), nonzero(summary["slow_path"]), nonzero(summary["nf"][0]["counters"]),
        {p["name"]: nonzero(p["drops"]) for p in summary["ports"]}))
    print("links %s" % {p["name"]: p["link"]["description"] for p in summary["ports"]})
    assert_balanced(summary)
    assert summary["config"]["path"] == DATA_PATH, summary["config"]
    netlink, slow_path, l3fwd = summary["netlink"], summary["slow_path"], summary["nf"][0]["counters"]
    # The dump at start: the two ports' addresses of each family and their connected routes.
    assert netlink["addresses"] >= 4 and netlink["errors"] == 0, netlink
    assert netlink["routes_added"] >= 4 + router.expected["routes_added"], netlink
    assert netlink["routes_removed"] >= router.expected["routes_removed"], netlink
    for name in ("echo_replies", "time_exceeded", "unreachable"):
        assert slow_path[name] >= router.expected[name], (name, slow_path)
    assert slow_path["arp_replies"] > 0 and slow_path["nd_advertisements"] > 0 and slow_path["tx_failed"] == 0, \
        slow_path
    # A packet held while its next hop was resolved was forwarded by the slow path, not by l3fwd.
    for name in ("forwarded_ipv4", "forwarded_ipv6"):
        assert l3fwd[name] + slow_path["held_forwarded"] >= router.expected[name], (name, l3fwd, slow_path)
    for port, interface in zip(summary["ports"], ("ga", "gb")):
        link = port["link"]
        assert link["interface"] == interface and link["rx_truncated"] == 0 and link["tx_errors"] == 0, link
        assert link["rx_too_big"] == 0 and link["rx_bad_offload"] == 0, link
    # Host A's TCP data came as TSO super-frames and its UDP with checksums left to the hardware.
    west = summary["ports"][0]["link"]
    print("west link %s" % nonzero({k: v for k, v in west.items() if isinstance(v, int)}))
    assert west["backend"] == "af_packet", west  # auto on a veth
    assert west["rx_gso_frames"] >= router.expected["gso_frames"], west
    assert west["rx_gso_segments"] > west["rx_gso_frames"] or not router.expected["gso_frames"], west
    assert west["rx_csum_completed"] >= router.expected["csum_completed"], west
    # ... and gnf handed its segments to host B's veth made back into super-frames.
    east = summary["ports"][1]["link"]
    assert east["tx_gso_frames"] >= router.expected["gso_frames"], east
    assert east["tx_gso_segments"] > east["tx_gso_frames"] or not router.expected["gso_frames"], east
