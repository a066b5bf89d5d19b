"""Local delivery through the kernel ([router] local_delivery = "tap"): gnf routes between two hosts
in network namespaces, as in test_router_netns.py, and what comes for its own addresses and is not
the slow path's to answer goes to the kernel of its [netlink] namespace through a TAP per port, so
ordinary services there answer; what the kernel sends leaves by the port.

    ns A: a0 10.0.0.2/24 ── ga ┐                                         ┌ gb ── b0 10.0.1.2/24 :ns B
          2001:db8::2/64       └ ns wire: gnf port west ⇄ l3fwd ⇄ port east ┘     2001:db8:1::2/64
    ns ctl: TAPs west 10.0.0.1/24 2001:db8::1/64, east 10.0.1.1/24 2001:db8:1::1/64, made beforehand
            (`ip tuntap add`, as an operator would: they keep their addresses), gnf's [netlink]
            namespace; an SSH-like TCP service and a UDP one listen there on gnf's addresses.

A client in A reaches the services on the port it faces and, through gnf, on the other one, and on
the router's IPv6 link-local address; a closed port answers with the kernel's RST; the kernel's own
ARP and ND go out through the TAPs and their answers come back to it; the summary balances and
counts both directions. Beside the module's gnf: TAPs gnf makes itself (and takes along when it
ends), and a port interface that is not a TAP refused. Configured from configs/l3fwd-veth.toml as
shipped, with a [router] table added. Needs root and /dev/net/tun; skips, saying why, without them.
"""
import ipaddress
import json
import os
import subprocess
import sys
import time

import pytest

from checks import assert_balanced, nonzero
from conftest import REPO
from netns import (A, B, DATA_PATH, EAST, PEER, WEST, Running, host, hosts_either_side, ip, namespaces, peer,
                   run_in, veth)

SERVICE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "local_service.py")
SSH_PORT = 2222
PINGS = 200
# Attaches to the TAPs named in argv (TUNSETIFF, IFF_TAP | IFF_NO_PI), so that they have a carrier
# until the kernel has given them link-local addresses, then lets go.
HOLD_TAPS = """
import fcntl, os, struct, subprocess, sys, time
fds = [os.open("/dev/net/tun", os.O_RDWR) for _ in sys.argv[1:]]
for fd, name in zip(fds, sys.argv[1:]):
    fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", name.encode(), 0x0002 | 0x1000))
end = time.monotonic() + 5
while time.monotonic() < end and any("scope link" not in subprocess.run(["ip", "-6", "addr", "show", "dev", n],
        capture_output=True, text=True).stdout for n in sys.argv[1:]):
    time.sleep(0.05)
"""


class Router:
    def __init__(self, names, gnf):
        self.a, self.b, self.wire, self.ctl = names
        self.gnf = gnf


def need_tun():
    """Skips unless this process may open /dev/net/tun (a container may lack it or deny it)."""
    try:
        os.close(os.open("/dev/net/tun", os.O_RDWR))
    except OSError as e:
        pytest.skip("cannot open /dev/net/tun to make TAP devices with: %s" % e.strerror)


def local_config(directory, wire, ctl):
    """configs/l3fwd-veth.toml with this run's namespaces and path, and local delivery on."""
    text = open(os.path.join(REPO, "configs", "l3fwd-veth.toml")).read()
    assert text.count('netns = "gnf-wire"') == 2 and text.count('netns = "gnf-ctl"') == 1, \
        "configs/l3fwd-veth.toml no longer links its ports in gnf-wire and syncs from gnf-ctl"
    assert text.count('path = "cpu"') == 1, "configs/l3fwd-veth.toml no longer says path = \"cpu\""
    text = text.replace('path = "cpu"', 'path = "%s"' % DATA_PATH)
    text = text.replace('"gnf-wire"', '"%s"' % wire).replace('"gnf-ctl"', '"%s"' % ctl)
    config = directory / "l3fwd-local.toml"
    config.write_text(text + '\n[router]\nlocal_delivery = "tap"\n')
    return config


@pytest.fixture(scope="module")
def router(request, gnf_binary, tmp_path_factory):
    need_tun()
    names = namespaces(request, "local", "a", "b", "wire", "ctl")
    a, b, wire, ctl = names
    hosts_either_side(wire, a, b, cable_checksums=True)
    ip("-n", ctl, "link", "set", "lo", "up")
    for port, addresses in (("west", WEST), ("east", EAST)):
        ip("-n", ctl, "tuntap", "add", "dev", port, "mode", "tap")
        ip("-n", ctl, "link", "set", port, "up")
        ip("-n", ctl, "addr", "add", addresses[4] + "/24", "dev", port)
        ip("-n", ctl, "addr", "add", addresses[6] + "/64", "dev", port, "nodad")
    # Held a moment before gnf, as by a daemon of the operator's: the kernel has made each a
    # link-local address from the MAC it had then, and does not make another for gnf's.
    held = run_in(ctl, sys.executable, "-c", HOLD_TAPS, "west", "east")
    assert held.returncode == 0, held.stderr
    for port in ("west", "east"):
        assert "scope link" in ip("-n", ctl, "-6", "addr", "show", "dev", port).stdout
    gnf = Running(gnf_binary, local_config(tmp_path_factory.mktemp("local"), wire, ctl), tmp_path_factory.mktemp("run"))
    request.addfinalizer(gnf.kill)  # before the namespaces go: finalizers run last first
    gnf.wait_until_running()
    # A TAP has its carrier while gnf holds it: only then do its IPv6 addresses stop being tentative.
    end = time.monotonic() + 10
    while ip("-n", ctl, "-6", "addr", "show", "tentative").stdout.strip() and time.monotonic() < end:
        time.sleep(0.05)
    assert not ip("-n", ctl, "-6", "addr", "show", "tentative").stdout.strip(), ip("-n", ctl, "addr").stdout
    return Router(names, gnf)


def serve(ns, kind, address, count):
    """local_service.py KIND-server in `ns` on `address`, listening when this returns."""
    server = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, SERVICE, kind + "-server", address,
                               str(SSH_PORT), str(count)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert json.loads(server.stdout.readline() or "{}") == {"listening": SSH_PORT}, server.communicate()[1]
    return server


def client(ns, kind, address, text):
    proc = run_in(ns, sys.executable, SERVICE, kind + "-client", address, SSH_PORT, text, timeout=30)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("address", [WEST[4], EAST[4], WEST[6], EAST[6]])
def test_an_ssh_like_tcp_service_on_gnfs_address_answers_through_the_kernel(router, address):
    server = serve(router.ctl, "tcp", address, 1)
    try:
        answer = client(router.a, "tcp", address, "hello from a")
        assert json.loads(server.communicate(timeout=15)[0].splitlines()[-1]) == {"served": 1}
    finally:
        server.kill()
        server.wait()
    assert answer == {"banner": "SSH-2.0-gnf-local-delivery-test\r\n", "reply": "HELLO FROM A\n"}, answer


def link_local(mac):
    """The EUI-64 link-local address of `mac` (RFC 4291 2.5.1), as the router answers for."""
    b = [int(x, 16) for x in mac.split(":")]
    words = [0xfe80, 0, 0, 0, (b[0] ^ 2) << 8 | b[1], b[2] << 8 | 0xff, 0xfe << 8 | b[3], b[4] << 8 | b[5]]
    return str(ipaddress.IPv6Address(":".join("%x" % w for w in words)))


def test_the_service_answers_on_the_routers_link_local_address(router):
    """Each TAP has the link-local address the slow path answers neighbour discovery for: gnf gives
    it, where the kernel did not make it from the MAC (a TAP up with another MAC before gnf)."""
    mac = ip("-n", router.ctl, "link", "show", "west").stdout.split("link/ether ")[1].split()[0]
    address = link_local(mac)
    addresses = ip("-n", router.ctl, "-6", "addr", "show", "dev", "west", "scope", "link").stdout
    assert address in addresses and addresses.count("inet6 fe80::") == 2, addresses  # the kernel's, gnf's
    server = serve(router.ctl, "tcp", address + "%west", 1)
    try:
        answer = client(router.a, "tcp", address + "%a0", "over link-local")
    finally:
        server.kill()
        server.wait()
    assert answer["reply"] == "OVER LINK-LOCAL\n", answer


@pytest.mark.parametrize("family", [4, 6], ids=["ipv4", "ipv6"])
def test_a_udp_service_on_gnfs_address_answers_through_the_kernel(router, family):
    server = serve(router.ctl, "udp", EAST[family], 1)
    try:
        answer = client(router.b, "udp", EAST[family], "ping from b")
    finally:
        server.kill()
        server.wait()
    assert answer == {"reply": "PING FROM B"}, answer


def test_udp_round_trips_through_the_kernel_lose_nothing(router):
    """UDP request/response to a service on gnf's address, beside ICMP echo that the slow path
    answers itself: the kernel's hop (a TAP each way, read on the slow path's ~100 µs rounds) in the
    time printed."""
    server = subprocess.Popen(["ip", "netns", "exec", router.ctl, sys.executable, PEER, "udp-server", str(SSH_PORT),
                               "30"], stdout=subprocess.PIPE, text=True)
    try:
        assert json.loads(server.stdout.readline()) == {"listening": SSH_PORT}
        udp = peer(router.a, "udp-ping", WEST[4], SSH_PORT, PINGS, 64)
        echo = peer(router.a, "ping", WEST[4], PINGS, 0)  # back to back, as the UDP ones
    finally:
        server.kill()
        server.wait()
    print("A -> gnf %s, %d each: UDP through the kernel %s; ICMP echo from the slow path %s"
          % (WEST[4], PINGS, rtt_text(udp["rtt_ms"]), rtt_text(echo["rtt_ms"])))
    assert udp["received"] == PINGS and echo["received"] == PINGS, (udp, echo)


def rtt_text(rtts):
    rtts = sorted(rtts)
    return "p50 %.3f ms, p99 %.3f ms" % (rtts[len(rtts) // 2], rtts[len(rtts) * 99 // 100]) if rtts else "no replies"


def test_a_tcp_port_nothing_listens_on_is_refused_by_the_kernel(router):
    """The kernel's RST comes back through gnf: the client is told at once, not left to time out."""
    proc = run_in(router.a, sys.executable, "-c", "import socket\ntry:\n socket.create_connection(('%s', %d), "
                  "timeout=5)\nexcept ConnectionRefusedError:\n print('refused')" % (WEST[4], SSH_PORT + 1))
    assert proc.stdout.strip() == "refused", proc.stdout + proc.stderr


def test_hosts_still_route_through_gnf_and_ping_it(router):
    for family in (4, 6):
        assert "1 received" in run_in(router.a, "ping", "-n", "-c", "1", "-W", "2", B[family]).stdout
        assert "1 received" in run_in(router.a, "ping", "-n", "-c", "1", "-W", "2", WEST[family]).stdout


def test_gnf_stops_cleanly_and_counts_both_directions(router):
    # Something to count, whichever tests ran before: a TCP exchange (a handshake, a line each way and
    # the close: at least 4 segments each way) and pings, which the slow path answers itself.
    test_an_ssh_like_tcp_service_on_gnfs_address_answers_through_the_kernel(router, WEST[4])
    for family in (4, 6):
        assert "1 received" in run_in(router.a, "ping", "-n", "-c", "1", "-W", "2", WEST[family]).stdout
    summary = router.gnf.stop()
    slow_path = summary["slow_path"]
    print("slow path %s\nnetlink %s" % (nonzero(slow_path), nonzero(summary["netlink"])))
    assert_balanced(summary)
    assert slow_path["to_kernel"] >= 4 and slow_path["from_kernel"] >= 4, slow_path
    assert slow_path["tap_write_failed"] == 0 and slow_path["tx_failed"] == 0, slow_path
    assert slow_path["echo_replies"] >= 2, slow_path  # echo requests stay the slow path's own
    # The TAPs were the operator's (persistent): they and their addresses outlive gnf.
    for port, addresses in (("west", WEST), ("east", EAST)):
        assert addresses[4] + "/24" in ip("-n", router.ctl, "addr", "show", "dev", port).stdout


def test_local_delivery_refuses_a_port_interface_that_is_not_a_tap(request, gnf_binary, tmp_path):
    need_tun()
    wire, ctl = namespaces(request, "notap", "wire", "ctl")
    veth(wire, "ga", "a0")
    veth(wire, "gb", "b0")
    veth(ctl, "west", "west-p")  # the port interfaces of test_router_netns.py: veths, not TAPs
    proc = subprocess.run([gnf_binary, "run", "--config", str(local_config(tmp_path, wire, ctl))], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode != 0
    assert "TAP 'west' in network namespace '%s': an interface 'west' exists and is not a TAP" % ctl in proc.stderr, \
        proc.stderr


def test_gnf_makes_the_taps_it_does_not_find_and_they_go_with_it(request, gnf_binary, tmp_path):
    """No TAPs beforehand: gnf makes them, with its ports' MACs, up; addresses given to them while it
    runs reach its tables through netlink and its services through the kernel; gnf takes them along
    when it ends."""
    need_tun()
    a, b, wire, ctl = namespaces(request, "mktap", "a", "b", "wire", "ctl")
    veth(wire, "ga", "a0", a)
    veth(wire, "gb", "b0", b)
    host(a, "a0", [A[4] + "/24"], [WEST[4]], cable_checksums=True)
    gnf = Running(gnf_binary, local_config(tmp_path, wire, ctl), tmp_path)
    request.addfinalizer(gnf.kill)
    gnf.wait_until_running()
    details = ip("-n", ctl, "-d", "link", "show", "west").stdout
    assert "tun type tap" in details and "UP" in details.split(">")[0], details
    ip("-n", ctl, "addr", "add", WEST[4] + "/24", "dev", "west")
    server = serve(ctl, "tcp", WEST[4], 1)
    try:
        answer = client(a, "tcp", WEST[4], "made by gnf")
    finally:
        server.kill()
        server.wait()
    assert answer["reply"] == "MADE BY GNF\n", answer
    tap_mac = details.split("link/ether ")[1].split()[0]
    assert "lladdr %s" % tap_mac in ip("-n", a, "neigh", "show", WEST[4]).stdout  # the port's MAC, from ARP
    summary = gnf.stop()
    assert summary["slow_path"]["to_kernel"] > 0 and summary["slow_path"]["from_kernel"] > 0, summary["slow_path"]
    assert ip("-n", ctl, "link", "show", "west", check=False).returncode != 0, "gnf's TAP outlived it"
