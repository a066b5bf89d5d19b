"""`gnf route` against `ip route get` in a network namespace: the router gnf builds through
[netlink] from a namespace's table sends every address where that namespace's kernel does.

The control namespace gets veths west and east with the router's addresses, and routes from
RouteViews (python3-pyasn's tables: the first IPv4 prefixes of 2014's, the first IPv6 ones of
2015's), nested as real tables are, with gateways alternating over three addresses in each port's
network and every tenth a blackhole. Every route's first and last address, the addresses just
outside it, and random ones (half inside routes) go to both; each answer must name the same next
hop (type, gateway, port), or both must have no route. Skips, saying why, when namespaces cannot
be made or the RouteViews tables are not installed.
"""
import gzip
import ipaddress
import json
import os
import random

import pytest

from netns import ip, namespaces, veth

TABLES = {4: "/usr/lib/python3/dist-packages/data/ipasn_20140513.dat.gz",
          6: "/usr/lib/python3/dist-packages/data/ipasn6_20151101.dat.gz"}
ROUTES = {4: 1500, 6: 500}
RANDOM_ADDRESSES = 5000
PORTS = {"west": ("10.0.0.1/24", "2001:db8::1/64"), "east": ("10.0.1.1/24", "2001:db8:1::1/64")}
GATEWAYS = {(4, "west"): ["10.0.0.2", "10.0.0.3", "10.0.0.4"], (4, "east"): ["10.0.1.2", "10.0.1.3", "10.0.1.4"],
            (6, "west"): ["2001:db8::2", "2001:db8::3", "2001:db8::4"],
            (6, "east"): ["2001:db8:1::2", "2001:db8:1::3", "2001:db8:1::4"]}
# What `ip route get` says without an answer (its errno), as a next hop.
KERNEL_ERRORS = {"Invalid argument": ("blackhole",), "Network is unreachable": ("unreachable",)}


def routeviews_prefixes(family, count):
    """The first `count` prefixes of a pyasn table ("prefix<TAB>asn" lines) of that family."""
    prefixes = {}  # in the table's order
    with gzip.open(TABLES[family], "rt") as table:
        for line in table:
            if line.startswith(";") or (":" in line) != (family == 6):
                continue
            prefixes[ipaddress.ip_network(line.split()[0])] = None
            if len(prefixes) == count:
                break
    return list(prefixes)


def routes():
    """(prefix, "ip route" arguments): gateways alternate over ports and addresses; every tenth drops."""
    out = []
    for family in (4, 6):
        for i, prefix in enumerate(routeviews_prefixes(family, ROUTES[family])):
            port = ("west", "east")[i % 2]
            gateway = GATEWAYS[family, port][i // 2 % 3]
            via = "%s via %s dev %s" % (prefix, gateway, port)
            out.append((prefix, "blackhole %s" % prefix if i % 10 == 9 else via))
    return out


def addresses(prefixes, rng):
    """Every prefix's first and last address and their outside neighbours, then random ones: half in
    a random prefix, half anywhere between the family's lowest and highest routed address; and a
    few in the router's own networks. Addresses the kernel will not route (0/8, loopback,
    multicast, reserved) are left out."""
    def address(family, value):
        bits, kind = (32, ipaddress.IPv4Address) if family == 4 else (128, ipaddress.IPv6Address)
        return kind(value) if 0 <= value < 2 ** bits else None

    chosen = []
    for p in prefixes:
        first, last = int(p.network_address), int(p.broadcast_address)
        chosen += [address(p.version, a) for a in (first - 1, first, last, last + 1)]
    by_family = {f: [p for p in prefixes if p.version == f] for f in (4, 6)}
    span = {f: (min(int(p.network_address) for p in ps), max(int(p.broadcast_address) for p in ps))
            for f, ps in by_family.items()}
    for n in range(RANDOM_ADDRESSES):
        family = 4 if n % 4 else 6
        if n % 2:
            p = rng.choice(by_family[family])
            chosen.append(p.network_address + rng.randrange(p.num_addresses))
        else:
            chosen.append(address(family, rng.randrange(span[family][0], span[family][1] + 1)))
    chosen += [ipaddress.ip_address(a) for a in ("10.0.0.1", "10.0.0.7", "10.0.1.1", "10.0.1.200", "2001:db8::1",
                                                 "2001:db8::7", "2001:db8:1::1", "2001:db8:1::abcd")]
    refused = [ipaddress.ip_network(n) for n in ("0.0.0.0/8", "127.0.0.0/8", "224.0.0.0/3", "::/8", "ff00::/8")]
    return [a for a in chosen if a is not None and not any(a.version == n.version and a in n for n in refused)]


def kernel_answers(ns, queries):
    """`ip route get` for each address in one `ip -batch`: a next hop tuple per address."""
    proc = ip("-n", ns, "-json", "-force", "-batch", "-", check=False,
              input="".join("route get %s\n" % a for a in queries))
    failed = {}
    reason = None
    for line in proc.stderr.splitlines():
        if line.startswith("RTNETLINK answers: "):
            reason = line[len("RTNETLINK answers: "):]
        elif line.startswith("Command failed -:"):
            assert reason in KERNEL_ERRORS, proc.stderr
            failed[int(line.rsplit(":", 1)[1]) - 1] = KERNEL_ERRORS[reason]
    decoder, text, at, answers = json.JSONDecoder(), proc.stdout, 0, []
    for n in range(len(queries)):
        if n in failed:
            answers.append(failed[n])
            continue
        while text[at].isspace():
            at += 1
        routes, at = decoder.raw_decode(text, at)
        route = routes[0]
        if route.get("type") == "local":
            answers.append(("local",))
        else:
            assert route.get("type", "unicast") == "unicast", route
            answers.append(("unicast", ipaddress.ip_address(route["gateway"]) if "gateway" in route else None,
                            route["dev"]))
    return answers


def gnf_answers(gnf, config, queries):
    """`gnf route` for each address: a next hop tuple per address, as kernel_answers gives them."""
    result = gnf("--config", config, *queries, command="route", json_summary=False)
    assert result.returncode == 0, result.stderr
    answers = []
    for line, query in zip(result.stdout.splitlines(), queries):
        words = line.split()
        if words[0] in ("unreachable", "blackhole", "local"):
            assert ipaddress.ip_address(words[1]) == query, line
            answers.append((words[0],))
            continue
        assert ipaddress.ip_address(words[0]) == query, line
        if words[1] == "via":
            answers.append(("unicast", ipaddress.ip_address(words[2]), words[4]))
        else:
            answers.append(("unicast", None, words[2]))
    assert len(answers) == len(queries), result.stdout[-2000:]
    return answers


def test_gnf_route_answers_as_ip_route_get_for_a_routeviews_table(gnf, tmp_path, request):
    if not all(os.path.exists(t) for t in TABLES.values()):
        pytest.skip("no RouteViews tables (%s): scripts/install-deps.sh installs python3-pyasn"
                    % ", ".join(TABLES.values()))
    ns, = namespaces(request, "oracle", "ctl")
    for port, (v4, v6) in PORTS.items():
        veth(ns, port, port + "-p")
        ip("-n", ns, "addr", "add", v4, "dev", port)
        ip("-n", ns, "addr", "add", v6, "dev", port, "nodad")
    table = routes()
    ip("-n", ns, "-batch", "-", input="".join("route add %s\n" % r for _, r in table))
    config = tmp_path / "route.toml"
    config.write_text('[[port]]\nname = "west"\n[[port]]\nname = "east"\n[netlink]\nnetns = "%s"\n'
                      '[[nf]]\ntype = "l3fwd"\n' % ns)

    queries = addresses([p for p, _ in table], random.Random(20140513))
    kernel, ours = kernel_answers(ns, queries), gnf_answers(gnf, config, queries)
    differ = [(str(q), k, o) for q, k, o in zip(queries, kernel, ours) if k != o]
    kinds = {}
    for answer in kernel:
        kind = answer[0] if answer[0] != "unicast" else "via a gateway" if answer[1] else "connected"
        kinds[kind] = kinds.get(kind, 0) + 1
    print("%d routes, %d addresses: %s; %d differ" % (len(table), len(queries), kinds, len(differ)))
    assert not differ, differ[:20]
    assert all(kinds.get(k, 0) > 100 for k in ("via a gateway", "blackhole", "unreachable")), kinds
    assert kinds.get("local") == 4 and kinds.get("connected") >= 4, kinds
