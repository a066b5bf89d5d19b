"""Issue 12's first part, as a careless operator meets it: an output that cannot be written fails
the run (exit 1) after what was measured went to stderr; an output that is also an input, or
another output, is refused before anything runs; a bad command line is a usage error (exit 2);
files that are folders, devices or runaway text are refused naming the key that named them; errors
across fields name the line of the key the user gave."""
import os
import signal
import subprocess
import time

import pytest

from frames import write_raw_pcap

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "data", "sample.pcap")
GEN = ["--gen", "--count", "200", "--rate-gbps", "0.1"]


def raw(gnf, *args, timeout=60):
    """gnf run ARGS, without the fixture's --json."""
    return gnf(*args, json_summary=False, timeout=timeout)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_capture_that_cannot_be_written_fails_the_run_and_the_summary_survives(gnf):
    result = raw(gnf, *GEN, "--pcap-out", "/dev/full", "-q")
    assert result.returncode == 1, result.stderr
    assert "gnf: error: pcap file /dev/full: writing it failed" in result.stderr, result.stderr
    # -q asked for silence, but what was measured is not thrown away with the capture.
    assert "gnf: done: offered 200, accounted 200" in result.stderr, result.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_json_summary_that_cannot_be_written_fails_the_run_and_goes_to_stderr(gnf):
    result = raw(gnf, *GEN, "--json", "/dev/full", "-q")
    assert result.returncode == 1, result.stderr
    assert "gnf: error: --json: /dev/full: writing the summary failed: No space left on device" in result.stderr
    assert '"accounting"' in result.stderr  # the summary itself


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_bench_json_that_cannot_be_written_fails_the_trial(gnf):
    result = gnf("--duration", "0.2", "--warmup", "0.1", "--rate-pps", "1000", "--json", "/dev/full", "-q",
                 command="bench", json_summary=False)
    assert result.returncode == 1, result.stderr
    assert "gnf: error: --json: /dev/full: writing the summary failed" in result.stderr
    assert '"result"' in result.stderr


def test_an_output_that_is_an_input_is_refused_and_the_input_kept(gnf, tmp_path):
    capture = tmp_path / "capture.pcap"
    write_raw_pcap(capture, [(bytes(60), 60)] * 3)
    before = capture.read_bytes()
    result = raw(gnf, "--pcap-in", capture, "--pcap-out", capture)
    assert result.returncode == 1, result.stderr
    assert "gnf: error: --pcap-out: %s is also an input (--pcap-in)" % capture in result.stderr, result.stderr
    assert capture.read_bytes() == before
    result = raw(gnf, "--pcap-in", capture, "--json", capture)
    assert result.returncode == 1 and "--json: %s is also an input" % capture in result.stderr, result.stderr
    assert capture.read_bytes() == before


def test_a_json_summary_onto_the_config_or_a_route_file_is_refused(gnf, tmp_path):
    routes = tmp_path / "routes.txt"
    routes.write_text("10.1.0.0/16 10.0.0.2\n")
    config = tmp_path / "r.toml"
    config.write_text('[[port]]\nipv4 = "10.0.0.1/24"\n[port.source]\ntype = "generator"\ncount = 10\n'
                      '[[nf]]\ntype = "l3fwd"\nroutes = "routes.txt"\n')
    for target, named in ((config, str(config)), (routes, "%s:8: nf[0].routes" % config)):
        before = target.read_text()
        result = raw(gnf, "--config", config, "--json", target)
        assert result.returncode == 1, result.stderr
        assert "--json: %s is also an input (%s)" % (target, named) in result.stderr, result.stderr
        assert target.read_text() == before


def test_two_outputs_into_one_file_are_refused(gnf, tmp_path):
    config = tmp_path / "two.toml"
    config.write_text('[[port]]\n[port.source]\ntype = "generator"\ncount = 10\n[port.sink]\npcap = "out.pcap"\n'
                      '[[port]]\n[port.sink]\npcap = "./out.pcap"\n[[nf]]\ntype = "l2fwd"\n')
    result = raw(gnf, "--config", config)
    assert result.returncode == 1, result.stderr
    assert ("gnf: error: %s:9: port[1].sink.pcap: %s is also the output of %s:6: port[0].sink.pcap"
            % (config, tmp_path / "out.pcap", config)) in result.stderr, result.stderr


def test_an_output_in_a_missing_folder_is_refused_before_the_run(gnf, tmp_path):
    result = raw(gnf, *GEN, "--pcap-out", tmp_path / "nowhere" / "x.pcap")
    assert result.returncode == 1
    assert "cannot create it: the folder %s does not exist" % (tmp_path / "nowhere") in result.stderr, result.stderr
    assert "offered" not in result.stderr  # nothing ran
    result = gnf(*GEN, "--json", tmp_path / "nowhere" / "s.json", json_summary=False)
    assert result.returncode == 1 and "--json: " in result.stderr, result.stderr


def test_a_refused_run_leaves_no_empty_json(gnf, tmp_path):
    result = gnf("--pcap-in", tmp_path / "missing.pcap")  # the fixture adds --json summary.json
    assert result.returncode == 1, result.stderr
    assert not (tmp_path / "summary.json").exists()


@pytest.mark.parametrize("args,message", [
    (["bogus"], "gnf: error: 'bogus' is not a command; the commands are run, bench and route"),
    (["run", "--count", "-1", "--gen"], "--count: -1 is out of range"),
    (["run", "--gen", "--rate-pps", "1e400"], "--rate-pps: inf is out of range"),
    (["run", "--gen", "--rate-gbps", "nan"], "--rate-gbps: nan is out of range"),
    (["run", "--gen", "--duration", "nan"], "--duration: nan is out of range"),
    (["run", "--gen", "--pcap-in", SAMPLE], "excludes"),
    (["run", "--no-such-flag"], "--no-such-flag"),
])
def test_a_bad_command_line_is_a_usage_error(gnf, args, message):
    result = gnf(*args, command=None, json_summary=False)
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert message in result.stdout + result.stderr, result.stderr


@pytest.mark.parametrize("args,message", [
    (["--rate-gbps", "50"], "gnf: error: --rate-gbps: 50 Gbit/s is above the line rate of its port (10 Gbit/s)"),
    (["--rate-pps", "2e7"], "gnf: error: --rate-pps: 20000000 frames/s is above the line rate of its port"),
])
def test_a_rate_above_the_line_is_refused_not_clamped(gnf, args, message):
    result = gnf("--gen", "--count", "10", *args)
    assert result.returncode == 1, result.stderr
    assert message in result.stderr, result.stderr


def test_files_that_are_not_files_are_refused_naming_them(gnf, tmp_path):
    result = gnf("--config", "/dev/zero", timeout=20)
    assert result.returncode == 1 and "gnf: error: /dev/zero: is a device or a socket, not a file" in result.stderr
    result = gnf("--config", tmp_path)
    assert result.returncode == 1 and "gnf: error: %s: is a folder, not a file" % tmp_path in result.stderr
    config = tmp_path / "r.toml"
    for routes, problem in (("/dev/zero", "is a device or a socket, not a file"), (str(tmp_path), "is a folder"),
                            (str(tmp_path / "none.txt"), "cannot read it: No such file or directory")):
        config.write_text('[[port]]\nipv4 = "10.0.0.1/24"\n[port.source]\ntype = "generator"\ncount = 10\n'
                          '[[nf]]\ntype = "l3fwd"\nroutes = "%s"\n' % routes)
        result = gnf("--config", config, timeout=20)
        assert result.returncode == 1, result.stderr
        assert "gnf: error: %s:8: nf[0].routes: %s: %s" % (config, routes, problem) in result.stderr, result.stderr


@pytest.mark.parametrize("line,message", [
    (b"10.1.0.1/16 10.0.0.2\n", "'10.1.0.1/16' has bits set beyond its length: the network is 10.1.0.0/16"),
    (b"10.1.0.0/16 10.0\x00.0.2\n", "the line holds a NUL byte: this is not a text file"),
])
def test_a_bad_route_line_is_named_whole(gnf, tmp_path, line, message):
    (tmp_path / "routes.txt").write_bytes(b"# routes\n" + line)
    config = tmp_path / "r.toml"
    config.write_text('[[port]]\nipv4 = "10.0.0.1/24"\n[port.source]\ntype = "generator"\ncount = 10\n'
                      '[[nf]]\ntype = "l3fwd"\nroutes = "routes.txt"\n')
    result = gnf("--config", config)
    assert result.returncode == 1, result.stderr
    assert "gnf: error: %s:2: %s\n" % (tmp_path / "routes.txt", message) in result.stderr, result.stderr


@pytest.mark.parametrize("text,line,message", [
    ('[driver]\nslot_size = 1024\n[[port]]\n', 2,
     "driver.slot_size: 1024 B slots cannot hold the frames of port 'port0' (max_frame 1518 B)"),
    ('[driver]\nslot_size = 1024\n[[port]]\nmax_frame = 2000\n', 4,
     "port[0].max_frame: 2000 B does not fit in driver.slot_size (1024 B)"),
    ('[[port]]\nqueues = 2\n[[port]]\nqueues = 4\n', 4,
     "port[1].queues: port 'port1': every port needs the same number of rx and tx queues"),
    ('[[port]]\nname = "a"\n[[port]]\nname = "a"\n', 4, "port[1].name: 'a' is port 0's name too"),
    ('[driver]\npool_slots = 16000000\nslot_size = 16384\n[[port]]\n', 2,
     "driver.pool_slots: 1 pools of 16000000 slots of 16512 B would take 246.0 GiB, more than half of this machine's"),
    ('[[port]]\n[[nf]]\ntype = "l3fwd"\nlpm4_groups = 16777216\n', 4,
     "nf[0].lpm4_groups: 16777216 groups would take 16.0 GiB, more than half of this machine's"),
])
def test_errors_across_fields_name_the_line_of_the_key_given(gnf, tmp_path, text, line, message):
    config = tmp_path / "bad.toml"
    config.write_text(text + ('' if "[[nf]]" in text else '[[nf]]\ntype = "l2fwd"\n'))
    result = gnf("--config", config, "--duration", "1")
    if "lpm4_groups" in text and "more than half" not in result.stderr:
        pytest.skip("this machine has more than 32 GiB: 16 GiB of tables fit")
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert "gnf: error: %s:%d: %s" % (config, line, message) in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["run", "bench"])
def test_a_pool_of_4_gib_is_refused_with_its_line_before_the_data_path_starts(gnf, tmp_path, command):
    config = tmp_path / "pool.toml"
    config.write_text('[driver]\npool_slots = 1973791\n[[port]]\n[[port]]\n[[nf]]\ntype = "l2fwd"\n')
    result = gnf("--config", config, "--duration", "1", command=command, json_summary=False)
    if "more than half of this machine's" in result.stderr:
        pytest.skip("two 4 GiB pools are more than half of this machine's memory: that check comes first")
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert ("gnf: error: %s:2: driver.pool_slots: a pool of 1973791 slots of 2176 B spans 4 GiB or more" % config
            in result.stderr), result.stderr


def test_a_ctrl_c_at_once_still_ends_with_a_summary(gnf, tmp_path):
    summary_file = tmp_path / "s.json"
    proc = subprocess.Popen([gnf.binary, "run", "--gen", "--rate-gbps", "0.1", "--quiet", "--json", str(summary_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.05)  # while gnf is still starting (the handler is in before the config is read)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    assert summary_file.exists() and '"accounting"' in summary_file.read_text(), stderr
