"""Issue 15: a running gnf serves Prometheus metrics where [metrics] listen says, each counter
named as `gnf ctl --json` names it; a scrape while traffic runs sees the counters grow. The config's
[ctl] socket is where gnf ctl finds it."""
import re
import signal
import socket
import subprocess
import time
import json
import urllib.request

import pytest

CONFIG = """
duration = 30
[[port]]
queues = 2
[port.source]
type = "generator"
rate_gbps = 0.05
flows = 8
[[nf]]
type = "l2fwd"
mode = "reflect"
[ctl]
socket = "gnf.sock"
[metrics]
listen = "127.0.0.1:{port}"
"""
SAMPLE = re.compile(r"^(\w+)(\{[^}]*\})? (\S+)$")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(url):
    """{(name, labels): value} of one scrape."""
    with urllib.request.urlopen(url, timeout=5) as reply:
        text = reply.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            match = SAMPLE.match(line)
            assert match, line
            samples[(match[1], match[2] or "")] = float(match[3])
    return samples


@pytest.fixture
def running(gnf, tmp_path):
    port = free_port()
    config = tmp_path / "metrics.toml"
    config.write_text(CONFIG.format(port=port))
    proc = subprocess.Popen([gnf.binary, "run", "--config", str(config), "--no-stats"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    url = "http://127.0.0.1:%d/metrics" % port
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            scrape(url)
            break
        except OSError:
            time.sleep(0.1)
    assert proc.poll() is None, proc.communicate(timeout=30)[1]
    proc.url, proc.socket = url, tmp_path / "gnf.sock"
    yield proc
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr


def test_a_scrape_while_traffic_runs_sees_the_counters_grow(running):
    rx = ("gnf_port_rx_packets", '{port="port0"}')
    first = scrape(running.url)
    deadline = time.monotonic() + 10
    while scrape(running.url)[rx] <= first[rx] + 1000 and time.monotonic() < deadline:
        time.sleep(0.1)
    later = scrape(running.url)
    assert later[rx] > first[rx] + 1000, (first[rx], later[rx])
    forwarded = ("gnf_nf_forwarded", '{nf="0",type="l2fwd"}')
    assert later[forwarded] > first[forwarded]
    assert later[("gnf_nf_calls", '{nf="0",type="l2fwd"}')] > 0
    assert ("gnf_port_rx_queue_packets", '{port="port0",queue="1"}') in later
    assert ("gnf_driver_tx_ring_full", "") in later


def test_every_counter_of_show_ports_is_a_metric_of_the_same_name(gnf, running):
    proc = subprocess.run([gnf.binary, "ctl", "--socket", str(running.socket), "show", "ports", "--json"],
                          capture_output=True, text=True, timeout=10)
    assert proc.returncode == 0, proc.stderr
    port = json.loads(proc.stdout)[0]
    names = [k for k, v in port.items() if isinstance(v, int)] + list(port["drops"])
    names_scraped = {name for name, _ in scrape(running.url)}
    assert names and all("gnf_port_" + name in names_scraped for name in names), (names, sorted(names_scraped))


def test_an_address_that_cannot_be_bound_stops_the_run_naming_the_key(gnf, running, tmp_path):
    taken = running.url.split("/")[2]
    result = gnf("--gen", "--count", "100", "--metrics-listen", taken, json_summary=False, timeout=30)
    assert result.returncode == 1, result.stderr
    assert "--metrics-listen: %s: cannot serve metrics there" % taken in result.stderr, result.stderr
