"""The acl NF end to end on the cpu path: configs/acl-pcap.toml (acl, then l2fwd) as shipped runs
tests/data/sample.pcap; what comes out, the NF's counters and each rule's hits must be what a
model of the rule file written here (scapy's parsing, Python's ipaddress) says. And SIGHUP swaps the
rule set while generated traffic flows, losing nothing."""
import collections
import ipaddress
import json
import os
import re
import signal
import subprocess
import time

from scapy.all import IP, TCP, UDP, Ether, IPv6, rdpcap

from checks import assert_balanced, nonzero

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RULE = re.compile(r"@(\S+)\s+(\S+)\s+(\d+)\s*:\s*(\d+)\s+(\d+)\s*:\s*(\d+)\s+(\w+)/(\w+)\s*(\w*)")


def read_rules(path):
    """(line, rule) for each '@' line: prefixes, port ranges, protocol/mask, action."""
    rules = []
    for number, line in enumerate(open(path), 1):
        m = RULE.match(line.split("#")[0].strip())
        if m:
            rules.append((number, m))
    return rules


def five_tuple(frame):
    """(src, dst, sport, dport, proto), or None for a frame that is not IP."""
    for layer in (IP, IPv6):
        if layer in frame:
            ip = frame[layer]
            proto = ip.proto if layer is IP else ip.nh
            l4 = TCP if TCP in frame else UDP if UDP in frame else None
            ports = (frame[l4].sport, frame[l4].dport) if l4 else (0, 0)
            return ipaddress.ip_address(ip.src), ipaddress.ip_address(ip.dst), ports[0], ports[1], proto
    return None


def first_match(rules, key):
    src, dst, sport, dport, proto = key
    for index, (_, m) in enumerate(rules):
        src_net, dst_net = ipaddress.ip_network(m[1]), ipaddress.ip_network(m[2])
        if src_net.version != src.version:
            continue
        if (src in src_net and dst in dst_net and int(m[3]) <= sport <= int(m[4]) and int(m[5]) <= dport <= int(m[6])
                and proto & int(m[8], 0) == int(m[7], 0)):
            return index
    return None


def swap_macs(frame):
    return frame[6:12] + frame[0:6] + frame[12:]


def test_the_shipped_acl_config_passes_what_its_rules_permit_and_counts_each_rule(gnf, tmp_path):
    text = open(os.path.join(REPO, "configs", "acl-pcap.toml")).read()
    sample = os.path.join(REPO, "tests", "data", "sample.pcap")
    text, n_in = re.subn(r'(?m)^file = "[^"]*"', 'file = "%s"' % sample, text)
    text, n_out = re.subn(r'(?m)^pcap = "[^"]*"', 'pcap = "%s"' % (tmp_path / "out.pcap"), text)
    text, n_rules = re.subn(r'(?m)^rules = "[^"]*"', 'rules = "%s"' % os.path.join(REPO, "configs", "acl.rules"), text)
    assert n_in == n_out == n_rules == 1, "configs/acl-pcap.toml no longer has one source, one sink and one rule file"
    config = tmp_path / "acl.toml"
    config.write_text(text)
    result = gnf("--config", config)
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert_balanced(summary)

    rules = read_rules(os.path.join(REPO, "configs", "acl.rules"))
    counters, hits, expected = collections.Counter(), [0] * len(rules), []
    for frame in rdpcap(sample):
        key = five_tuple(frame)
        if key is None:
            counters["not_ip"] += 1
            expected.append(swap_macs(bytes(frame)))
            continue
        rule = first_match(rules, key)
        action = rules[rule][1][9] if rule is not None else "default_deny"
        counters[action] += 1
        if rule is not None:
            hits[rule] += 1
        if action in ("permit", "count"):
            expected.append(swap_macs(bytes(frame)))
    assert all(counters[k] for k in ("permit", "count", "deny", "not_ip")), counters  # the sample exercises each

    acl, l2fwd = summary["nf"]
    assert acl["type"] == "acl" and l2fwd["type"] == "l2fwd"
    assert nonzero(acl["counters"]) == dict(counters)
    assert [(e["line"], e["action"], e["hits"]) for e in acl["rules"]["entries"]] == [
        (line, m[9], n) for (line, m), n in zip(rules, hits)]
    assert acl["rules"]["reloads"] == 0
    assert summary["driver"]["nf_drops"] == counters["deny"] + counters["default_deny"]
    assert l2fwd["counters"]["forwarded"] == len(expected)
    out = [bytes(p) for p in rdpcap(str(tmp_path / "out.pcap"))]
    assert collections.Counter(out) == collections.Counter(expected)


GENERATED = """
path = "cpu"
[driver]
drop_en = false
tx_full = "wait"
[[port]]
name = "in"
queues = 2
flow_control = true
[port.source]
type = "generator"
size = 64
flows = 16
rate_gbps = 0.1
count = {count}
[[port]]
name = "out"
queues = 2
flow_control = true
[[nf]]
type = "acl"
rules = "live.rules"
[[nf]]
type = "l2fwd"
mode = "pairs"
mac = "rewrite"
"""
# Both sets pass every generated (UDP) frame, through different rules: permit in one, count in the other.
SET_A = "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff permit\n"
SET_B = "@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 6/0xff deny\n@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 count\n"


def write_rules(path, text):
    """As an operator would: the new file replaces the old whole, never seen half written."""
    staged = path.with_suffix(".new")
    staged.write_text(text)
    os.replace(staged, path)


def test_sighup_swaps_the_rules_under_traffic_and_loses_nothing(gnf, tmp_path):
    count = 500000  # about 3.4 s at 0.1 Gbit/s of 64-byte frames
    rules = tmp_path / "live.rules"
    write_rules(rules, SET_A)
    config = tmp_path / "live.toml"
    config.write_text(GENERATED.format(count=count))
    summary_file = tmp_path / "summary.json"
    proc = subprocess.Popen([gnf.binary, "run", "--config", str(config), "--json", str(summary_file), "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)  # gnf catches SIGHUP once it has read its command line
    swaps = 0
    while proc.poll() is None and swaps < 6:
        write_rules(rules, SET_B if swaps % 2 == 0 else SET_A)
        proc.send_signal(signal.SIGHUP)
        swaps += 1
        time.sleep(0.25)
    write_rules(rules, "@0.0.0.0/0 0.0.0.0/0 0:65535 0:65535 0/0 allow\n")
    proc.send_signal(signal.SIGHUP)  # a bad file: the rules in use stay
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert swaps == 6, "gnf ended before the rules could be swapped under traffic"
    assert "gnf: error: nf[0] acl: not reloaded: %s:1: action: 'allow' is not permit, deny or count" % rules in stderr
    summary = json.loads(summary_file.read_text())
    assert_balanced(summary)
    generated = summary["generated"]
    assert generated["frames"] == count and generated["lost"] == 0, generated
    acl = summary["nf"][0]
    reloads = len(re.findall(r"gnf: nf\[0\] acl: \d+ rules from ", stderr))
    assert 3 <= reloads <= swaps and acl["rules"]["reloads"] == reloads, stderr  # SIGHUPs close together: one reload
    c = acl["counters"]
    assert c["permit"] > 0 and c["count"] > 0, c  # traffic went through both sets
    assert c["permit"] + c["count"] == count and c["deny"] == c["default_deny"] == 0, c
    assert summary["nf"][1]["counters"]["forwarded"] == count
