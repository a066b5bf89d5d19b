"""Bad input stops gnf before it starts (exit 1), naming the file, the line and the key:
"FILE:LINE: key: message", as src/ctl/toml_table.cpp, src/nf/params.cpp and src/ctl/config.cpp write it."""
import re

import pytest

from frames import write_raw_pcap

GOOD_TAIL = '[[nf]]\ntype = "l2fwd"\n'


@pytest.mark.parametrize("text,line,message", [
    # unknown keys, at every level
    ("[[port]]\nspeed = 10\nqueus = 4\n", 3, "port[0].queus: unknown key"),
    ("dration = 3\n[[port]]\n", 1, "dration: unknown key"),
    ("[driver]\nburst = 32\nringsize = 64\n[[port]]\n", 3, "driver.ringsize: unknown key"),
    ("[[port]]\n[port.source]\ntype = \"generator\"\nbogus = 1\n" + GOOD_TAIL, 4, "port[0].source.bogus: unknown key"),
    ("[[port]]\n[[port]]\nname = \"b\"\n[port.sink]\npcapfile = \"x.pcap\"\n", 5, "port[1].sink.pcapfile: unknown key"),
    ("[[port]]\n[[nf]]\ntype = \"l2fwd\"\n\nfoo = 3\n", 5, "nf[0].foo: unknown parameter"),
    # bad values
    ("[[port]]\nspeed = 11\n", 2, "port[0].speed: supported speeds are 10, 25, 40, 100, 200 and 400 (Gbit/s)"),
    ("[[port]]\nqueues = 65\n", 2, "port[0].queues: 65 is out of range [1, 64]"),
    ("[[port]]\nflow_control = 1\n", 2, "port[0].flow_control: expected true or false"),
    ("[[port]]\nmac = \"02:00:00:00:00\"\n", 2, "port[0].mac: expected a MAC address like \"02:00:00:00:00:01\""),
    ("[driver]\nburst = \"many\"\n[[port]]\n", 2, "driver.burst: expected an integer"),
    ("[driver]\nrx_ring = 100\n[[port]]\n", 2,
     "driver.rx_ring: must be a multiple of 8 (the ring length in bytes is a multiple of 128)"),
    ("path = \"gpu\"\n[[port]]\n", 1, "path: 'gpu' is not one of: cpu, staged, bypass, p2p"),
    ("[driver]\nstaged_mode = \"fast\"\n[[port]]\n", 2,
     "driver.staged_mode: 'fast' is not one of: zero-copy, copy, persistent"),
    ("[driver]\ntx_completion = \"never\"\n[[port]]\n", 2,
     "driver.tx_completion: 'never' is not one of: auto, writeback, head, head-writeback, none"),
    ("[driver]\none_way = \"both\"\n[[port]]\n", 2, "driver.one_way: 'both' is not one of: off, rx, tx"),
    ("[[port]]\n[port.source]\ntype = \"generator\"\nsize = [64, 20000]\n", 4,
     "port[0].source.size: 20000 is out of range [64, 9018]"),
    ("[[port]]\n[port.source]\ntype = \"pcap\"\ntiming = \"rate\"\nfile = \"x.pcap\"\n", 4,
     "port[0].source.timing: timing = \"rate\" needs exactly one of rate_pps and rate_gbps"),
    ("[[port]]\n[[nf]]\ntype = \"l2fwd\"\nmode = \"sideways\"\n", 4,
     "nf[0].mode: 'sideways' is not one of: pairs, reflect, to"),
    ("[[port]]\n[[nf]]\ntype = \"l2fwd\"\nmode = \"pairs\"\n", 4, "nf[0].mode: 'pairs' needs an even number of ports"),
    ("path = \"cpu\"\n", 1, "port: configure at least one [[port]]"),
    ("[[port]]\n[port.link]\ninterface = \"veth0\"\n[port.source]\ntype = \"generator\"\n", 2,
     "port[0].link: a port attached to an interface has it as both its source and its sink: drop [port.source] and "
     "[port.sink], or [port.link]"),
    ("[[port]]\n[port.link]\ninterface = \"veth0\"\ntype = \"dpdk\"\n", 4,
     "port[0].link.type: 'dpdk' is not one of: auto, af_packet, af_xdp"),
])
def test_a_bad_config_names_file_line_and_key(gnf, tmp_path, text, line, message):
    config = tmp_path / "bad.toml"
    config.write_text(text)
    result = gnf("--config", config, "--duration", "1")
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "gnf: error: %s:%d: %s\n" % (config, line, message) in result.stderr, result.stderr
    assert result.summary is None  # nothing started


@pytest.mark.parametrize("nf_type", ["l9fwd", "L2FWD", ""])
def test_an_unknown_nf_type_is_refused_with_the_known_ones(gnf, tmp_path, nf_type):
    config = tmp_path / "bad.toml"
    config.write_text('[[port]]\n[port.source]\ntype = "generator"\ncount = 10\n\n[[nf]]\ntype = "%s"\n' % nf_type)
    result = gnf("--config", config)
    assert result.returncode == 1, result.stderr
    if nf_type:
        # The list of known NFs grows; l2fwd is on it.
        assert re.search(r"gnf: error: %s:7: nf\[0\]\.type: unknown NF '%s' \(known: [^)]*\bl2fwd\b[^)]*\)\n"
                         % (re.escape(str(config)), nf_type), result.stderr), result.stderr
    else:
        assert "gnf: error: %s:7: nf[0].type: each [[nf]] needs a type\n" % config in result.stderr, result.stderr


def test_a_toml_syntax_error_names_file_and_line(gnf, tmp_path):
    config = tmp_path / "syntax.toml"
    config.write_text("[[port]]\nspeed = 10\nqueues = \n")
    result = gnf("--config", config)
    assert result.returncode == 1
    assert re.search(r"gnf: error: %s:3: \S" % re.escape(str(config)), result.stderr), result.stderr


def test_a_missing_pcap_is_named(gnf, tmp_path):
    config = tmp_path / "missing.toml"
    config.write_text('[[port]]\n[port.source]\ntype = "pcap"\nfile = "nowhere.pcap"\n' + GOOD_TAIL)
    result = gnf("--config", config)
    assert result.returncode == 1, result.stderr
    # Relative to the config file's folder, and named in full.
    assert "gnf: error: pcap file %s: cannot read it" % (tmp_path / "nowhere.pcap") in result.stderr, result.stderr
    assert result.summary is None


def test_a_missing_pcap_on_the_command_line_is_named(gnf, tmp_path):
    result = gnf("--pcap-in", tmp_path / "nowhere.pcap")
    assert result.returncode not in (0, 2, 3), result.stderr  # refused, not an internal error
    assert str(tmp_path / "nowhere.pcap") in result.stderr


def test_a_file_that_is_not_a_pcap_is_named(gnf, tmp_path):
    bogus = tmp_path / "text.pcap"
    bogus.write_text("this is not a capture\n" * 10)
    result = gnf("--pcap-in", bogus)
    assert result.returncode == 1
    assert "gnf: error: pcap file %s: cannot read it: " % bogus in result.stderr, result.stderr


def test_a_missing_config_file_is_named(gnf, tmp_path):
    result = gnf("--config", tmp_path / "nowhere.toml")
    assert result.returncode not in (0, 2, 3)
    assert str(tmp_path / "nowhere.toml") in result.stderr


def test_a_path_that_is_not_built_is_refused(gnf, tmp_path):
    result = gnf("--gen", "--count", "10", "--path", "p2p")
    assert result.returncode == 1
    assert "path 'p2p' is not built yet" in result.stderr


def test_a_run_without_a_source_is_refused(gnf):
    result = gnf()
    assert result.returncode == 1
    assert "gnf: error: no port has a source" in result.stderr


def test_a_generator_size_too_small_for_ipv6_is_refused(gnf):
    result = gnf("--gen", "--ip", "6", "--size", "80", "--count", "10")
    assert result.returncode == 1
    assert "generator: frame size 80 B is out of range: UDP/IPv6 test frames are 84..9018 B" in result.stderr


def test_run_help_lists_the_options(gnf):
    result = gnf("--help", json_summary=False)
    assert result.returncode == 0
    for option in ("--config", "--pcap-in", "--pcap-out", "--gen", "--queues", "--duration", "--json", "--path"):
        assert option in result.stdout, option


def test_no_subcommand_is_an_error(gnf):
    result = gnf(json_summary=False, command=None)
    assert result.returncode != 0
    assert "subcommand" in result.stdout + result.stderr


def test_version_matches_the_summary(gnf, tmp_path):
    result = gnf("--version", json_summary=False, command=None)
    assert result.returncode == 0
    version = result.stdout.strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", version), result.stdout
    run = gnf("--gen", "--count", "10", "--rate-gbps", "0.01")
    assert run.returncode == 0, run.stderr
    assert run.summary["gnf_version"] == version
