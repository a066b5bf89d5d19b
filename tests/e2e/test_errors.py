"""Bad configuration stops gnf before it starts, naming file, line and key."""
import pytest


@pytest.mark.parametrize("text,line,message", [
    ("[[port]]\nspeed = 10\nqueus = 4\n", 3, "port[0].queus: unknown key"),
    ("[[port]]\nspeed = 11\n", 2, "port[0].speed: supported speeds are 10, 25, 40, 100, 200 and 400 (Gbit/s)"),
    ("[driver]\nburst = \"many\"\n[[port]]\n", 2, "driver.burst: expected an integer"),
    ("[[port]]\n[[nf]]\ntype = \"l2fwd\"\nmode = \"sideways\"\n", 4,
     "nf[0].mode: 'sideways' is not one of: pairs, reflect, to"),
    ("[[port]]\n[[nf]]\ntype = \"l9fwd\"\n", 3, "nf[0].type: unknown NF 'l9fwd' (known: l2fwd)"),
])
def test_a_bad_value_names_file_line_and_key(gnf, tmp_path, text, line, message):
    config = tmp_path / "bad.toml"
    config.write_text(text)
    result = gnf("--config", config, "--duration", "1")
    assert result.returncode == 1
    assert "%s:%d: %s" % (config, line, message) in result.stderr, result.stderr
    assert result.summary is None  # nothing started


def test_a_missing_pcap_is_named(gnf, tmp_path):
    config = tmp_path / "missing.toml"
    config.write_text('[[port]]\n[port.source]\ntype = "pcap"\nfile = "nowhere.pcap"\n[[nf]]\ntype = "l2fwd"\n')
    result = gnf("--config", config)
    assert result.returncode == 1
    assert str(tmp_path / "nowhere.pcap") in result.stderr, result.stderr


def test_a_path_that_is_not_built_is_refused(gnf, tmp_path):
    result = gnf("--gen", "--count", "10", "--path", "p2p")
    assert result.returncode == 1
    assert "path 'p2p' is not built yet" in result.stderr


def test_help_lists_the_options_a_dpdk_user_looks_for(gnf):
    result = gnf("--help", json_summary=False)
    assert result.returncode == 0
    for option in ("--config", "--pcap-in", "--pcap-out", "--queues", "--duration", "--json", "--path"):
        assert option in result.stdout


def test_version(gnf):
    result = gnf("--version", json_summary=False, command=None)
    assert result.returncode == 0 and result.stdout.strip()
