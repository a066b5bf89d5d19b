"""The nids NF end to end on the cpu path: configs/nids-pcap.toml (nids, then l2fwd) as shipped runs
tests/data/nids.pcap, whose cases (tests/data/make_nids_pcap.py) each raise the alert written beside
them or none. The EVE lines, the fast.log lines, the NF's counters, each rule's hits and the frames
that come out must be those; on a GPU path the same alerts, or where there is no GPU a clear error."""
import json
import os
import re
import sys

from scapy.all import rdpcap

from checks import assert_balanced, nonzero

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "data"))
import make_nids_pcap  # noqa: E402

# (signature_id, src_ip, src_port, dest_ip, dest_port, proto, action) per alert, in pcap order.
EXPECTED_EVE = [
    (1001, "198.18.0.1", 40000, "10.0.0.5", 80, "TCP", "allowed"),
    (1002, "198.18.0.2", 5353, "198.19.0.1", 53, "UDP", "blocked"),
    (1004, "198.18.0.3", 1000, "10.0.0.7", 69, "UDP", "allowed"),
    (1004, "2001:db8::9", 2000, "2001:db8::5", 2001, "UDP", "allowed"),
]


def shipped_config(tmp_path):
    text = open(os.path.join(REPO, "configs", "nids-pcap.toml")).read()
    replacements = {
        "file": os.path.join(REPO, "tests", "data", "nids.pcap"),
        "pcap": str(tmp_path / "out.pcap"),
        "rules": os.path.join(REPO, "configs", "nids.rules"),
        "eve_log": str(tmp_path / "eve.json"),
        "fast_log": str(tmp_path / "fast.log"),
    }
    for key, value in replacements.items():
        text, n = re.subn(r'(?m)^%s = "[^"]*"' % key, '%s = "%s"' % (key, value), text)
        assert n == 1, "configs/nids-pcap.toml no longer has one %s" % key
    config = tmp_path / "nids.toml"
    config.write_text(text)
    return config


def test_the_shipped_nids_config_alerts_drops_and_passes_as_its_cases_say(gnf, tmp_path):
    expected_alerts = [alert for _, _, alert in make_nids_pcap.CASES if alert]
    assert [(sid, action) for sid, *_, action in EXPECTED_EVE] == expected_alerts
    committed = [bytes(f) for f in rdpcap(os.path.join(REPO, "tests", "data", "nids.pcap"))]
    assert committed == [bytes(f) for f in make_nids_pcap.frames()], "stale: run tests/data/make_nids_pcap.py"

    result = gnf("--config", shipped_config(tmp_path))
    assert result.returncode == 0, result.stderr
    summary = result.summary
    assert_balanced(summary)

    eve = [json.loads(line) for line in (tmp_path / "eve.json").read_text().splitlines()]
    assert all(e["event_type"] == "alert" and re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+0000$", e["timestamp"])
               for e in eve), eve
    assert [(e["alert"]["signature_id"], e["src_ip"], e["src_port"], e["dest_ip"], e["dest_port"], e["proto"],
             e["alert"]["action"]) for e in eve] == EXPECTED_EVE
    assert eve[0]["alert"]["signature"] == "WEB cmd.exe in a GET"
    assert eve[0]["alert"]["category"] == "web-application-attack" and eve[0]["alert"]["severity"] == 1
    fast = (tmp_path / "fast.log").read_text().splitlines()
    assert len(fast) == len(EXPECTED_EVE)
    assert fast[1].split("  ", 1)[1] == ("[Drop] [**] [1:1002:1] DNS query with a bad marker [**] "
                                         "[Classification: (null)] [Priority: 3] {UDP} 198.18.0.2:5353 -> 198.19.0.1:53")

    nids, l2fwd = summary["nf"]
    assert nids["type"] == "nids" and l2fwd["type"] == "l2fwd"
    assert nonzero(nids["counters"]) == {"alerted": 3, "dropped": 1, "passed": 1, "clean": 3, "not_ip": 1,
                                         "malformed": 1, "alerts": 4}
    assert [(e["sid"], e["action"], e["hits"]) for e in nids["rules"]["entries"]] == [
        (1001, "alert", 1), (1002, "drop", 1), (1003, "pass", 1), (1004, "alert", 3)]
    assert summary["driver"]["nf_drops"] == 1
    assert l2fwd["counters"]["forwarded"] == len(make_nids_pcap.CASES) - 1
    assert len(rdpcap(str(tmp_path / "out.pcap"))) == len(make_nids_pcap.CASES) - 1


def test_a_gpu_path_alerts_as_the_cpu_path_or_says_it_needs_a_gpu(gnf, tmp_path):
    result = gnf("--config", shipped_config(tmp_path), "--path", "staged")
    if result.returncode != 0:
        assert "needs a CUDA GPU" in result.stderr, result.stderr
        return
    eve = [json.loads(line) for line in (tmp_path / "eve.json").read_text().splitlines()]
    assert sorted((e["alert"]["signature_id"], e["src_ip"], e["src_port"], e["dest_ip"], e["dest_port"], e["proto"],
                   e["alert"]["action"]) for e in eve) == sorted(EXPECTED_EVE)
    nids = result.summary["nf"][0]
    assert nonzero(nids["counters"]) == {"alerted": 3, "dropped": 1, "passed": 1, "clean": 3, "not_ip": 1,
                                         "malformed": 1, "alerts": 4}
    assert [(e["sid"], e["hits"]) for e in nids["rules"]["entries"]] == [(1001, 1), (1002, 1), (1003, 1), (1004, 3)]
