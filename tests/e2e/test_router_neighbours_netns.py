"""gnf's neighbour table against a hostile host on the link (issue 12), on the cpu path (or
GNF_TEST_PATH's): host A pings host B through gnf while host M, on B's link, floods gnf with ARP
requests and unsolicited replies from made-up senders and claims B's addresses (ARP, unsolicited
neighbour advertisements). B is a static neighbour (the neighbours file): every ping must come back.

    ns A: a0 10.0.0.2/24 ── ga ┐                               ┌ gb ── br0 ─┬─ b0 10.0.1.2/24     :ns B
          2001:db8::2/64       └ ns wire: gnf west ⇄ l3fwd ⇄ east ┘  (ns lan) └─ m0 10.0.1.66/24    :ns M

Needs root, iproute2 and ping; skips, saying why, when the namespaces or the tools are not there.
"""
import os
import re
import subprocess
import sys

from checks import assert_balanced, nonzero
from netns import Running, ip, namespaces, run_in, veth
from test_router_netns import DATA_PATH, host, need

B_MAC = "02:bb:00:00:00:02"
M_MAC = "02:ee:00:00:00:66"
EAST_MAC = "02:00:00:00:01:01"  # gnf's east port (the default MAC of port 1)
PINGS = 250
ATTACK_SECONDS = 8

CONFIG = """
path = "{path}"
duration = 0
[[port]]
name = "west"
ipv4 = "10.0.0.1/24"
ipv6 = "2001:db8::1/64"
[port.link]
type = "auto"
interface = "ga"
netns = "{wire}"
[[port]]
name = "east"
ipv4 = "10.0.1.1/24"
ipv6 = "2001:db8:1::1/64"
[port.link]
type = "auto"
interface = "gb"
netns = "{wire}"
[[nf]]
type = "l3fwd"
neighbours = "{neighbours}"
"""

# Runs in M: the attack, as raw frames (scapy builds them; an AF_PACKET socket sends them fast).
ATTACK = r"""
import random, socket, sys, time
from scapy.all import ARP, IPv6, Ether, ICMPv6ND_NA, ICMPv6NDOptDstLLAddr
seconds, m_mac, east_mac = float(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("m0", 0))
rnd = random.Random(12)
def mac():
    return "02:%02x:%02x:%02x:%02x:%02x" % tuple(rnd.randrange(256) for _ in range(5))
spoofs = [bytes(Ether(src=m_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=m_mac, psrc="10.0.1.2", pdst="10.0.1.1")),
          bytes(Ether(src=m_mac, dst=east_mac) / ARP(op=2, hwsrc=m_mac, psrc="10.0.1.2", hwdst=east_mac, pdst="10.0.1.1")),
          bytes(Ether(src=m_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(op=2, hwsrc=m_mac, psrc="10.0.1.2", pdst="10.0.1.2")),
          bytes(Ether(src=m_mac, dst="33:33:00:00:00:01") / IPv6(src="2001:db8:1::2", dst="ff02::1", hlim=255) /
                ICMPv6ND_NA(tgt="2001:db8:1::2", R=0, S=0, O=1) / ICMPv6NDOptDstLLAddr(lladdr=m_mac))]
sent, started, end = 0, False, time.monotonic() + seconds
while time.monotonic() < end:
    for _ in range(100):
        sender = "10.0.%d.%d" % (rnd.choice([1, 1, 1, 7]), rnd.randrange(2, 255))
        op = rnd.choice([1, 2])
        hw = mac()
        frame = Ether(src=hw, dst="ff:ff:ff:ff:ff:ff" if op == 1 else east_mac) / \
            ARP(op=op, hwsrc=hw, psrc=sender, pdst="10.0.1.1", hwdst="00:00:00:00:00:00" if op == 1 else east_mac)
        s.send(bytes(frame))
        sent += 1
    for frame in spoofs:
        s.send(frame)
        sent += 1
    if not started:
        print("started", flush=True)
        started = True
    time.sleep(0.005)
print(sent)
"""


def test_a_flooding_spoofing_host_does_not_cut_two_hosts_apart(request, gnf_binary, tmp_path):
    need("ping")
    a, b, m, lan, wire = namespaces(request, "nb", "a", "b", "m", "lan", "wire")
    veth(wire, "ga", "a0", a)
    veth(wire, "gb", "gb-p", lan)
    ip("-n", lan, "link", "add", "br0", "type", "bridge")
    ip("-n", lan, "link", "set", "br0", "up")
    ip("-n", lan, "link", "set", "gb-p", "master", "br0")
    for name, ns in (("b", b), ("m", m)):
        veth(lan, name + "-p", name + "0", ns)
        ip("-n", lan, "link", "set", name + "-p", "master", "br0")
    ip("-n", b, "link", "set", "b0", "address", B_MAC)
    ip("-n", m, "link", "set", "m0", "address", M_MAC)
    host(a, "a0", ["10.0.0.2/24", "2001:db8::2/64"], ["10.0.0.1", "2001:db8::1"])
    host(b, "b0", ["10.0.1.2/24", "2001:db8:1::2/64"], ["10.0.1.1", "2001:db8:1::1"])
    host(m, "m0", ["10.0.1.66/24"], [])

    neighbours = tmp_path / "neighbours.txt"
    neighbours.write_text("10.0.1.2 %s\n2001:db8:1::2 %s\n" % (B_MAC, B_MAC))
    config = tmp_path / "router.toml"
    config.write_text(CONFIG.format(path=DATA_PATH, wire=wire, neighbours=neighbours))
    gnf = Running(gnf_binary, config, tmp_path)
    request.addfinalizer(gnf.kill)
    gnf.wait_until_running()
    for address in ("10.0.1.2", "2001:db8:1::2"):
        assert run_in(a, "ping", "-n", "-c", "3", "-i", "0.1", "-W", "1", address).returncode == 0, "no path to " + address

    attacker = subprocess.Popen(["ip", "netns", "exec", m, sys.executable, "-c", ATTACK, str(ATTACK_SECONDS),
                                 M_MAC, EAST_MAC], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert attacker.stdout.readline() == "started\n", attacker.communicate()[1]
        pings = {family: subprocess.Popen(["ip", "netns", "exec", a, "ping", "-%d" % family, "-n", "-c", str(PINGS),
                                           "-i", "0.02", "-W", "1", address], stdout=subprocess.PIPE, text=True)
                 for family, address in ((4, "10.0.1.2"), (6, "2001:db8:1::2"))}
        outputs = {family: p.communicate(timeout=60)[0] for family, p in pings.items()}
        attack_out, attack_err = attacker.communicate(timeout=60)
    finally:
        attacker.kill()
        attacker.wait()
    assert attacker.returncode == 0, attack_err
    summary = gnf.stop()
    slow = summary["slow_path"]
    print("attacker sent %s frames; slow path %s" % (attack_out.strip(), nonzero(slow)))
    for family, output in outputs.items():
        replies = len(re.findall(r"bytes from ", output))
        assert replies == PINGS, "IPv%d: %d of %d pings came back while M attacked\n%s" % (family, replies, PINGS, output)
    assert_balanced(summary)
    # Every made-up sender and every spoof is refused (some may have been dropped on the way in).
    assert slow["neighbours_refused"] >= int(attack_out) // 2 and slow["neighbours_learnt"] <= 4, slow
    assert slow["tx_failed"] == 0, slow
