"""Issue 15: what gnf run says while and after it runs. Lines carry a time; the per-second stats
show a low rate in kpps and can be turned off without losing the end-of-run summary; the summary
says forwarded, lost and where, and "every packet accounted for" never hides a loss."""
import re

TIME = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} gnf: "


def raw(gnf, *args, timeout=60):
    return gnf(*args, json_summary=False, timeout=timeout)


def test_stats_lines_carry_a_time_and_show_a_low_rate_in_kpps(gnf):
    # 0.01 Gbit/s of 64 B frames: ~14.9 kpps, which "0.015 Mpps" would hide.
    result = raw(gnf, "--gen", "--rate-gbps", "0.01", "--duration", "1.6")
    assert result.returncode == 0, result.stderr
    stats = [line for line in result.stderr.splitlines() if "port0    rx" in line]
    assert stats, result.stderr
    assert re.match(TIME + r"\[\s+1\.0s\] port0    rx\s+1\d\.\d{3} kpps", stats[0]), stats[0]
    assert re.search(r"gnf: done: offered \d+, accounted \d+: forwarded \d+", result.stderr), result.stderr


def test_no_stats_keeps_the_summary_and_quiet_hides_both(gnf):
    result = raw(gnf, "--gen", "--rate-gbps", "0.01", "--duration", "1.3", "--no-stats")
    assert result.returncode == 0, result.stderr
    assert "port0    rx" not in result.stderr, result.stderr
    assert "gnf: done: offered" in result.stderr and "gnf: port0: rx" in result.stderr, result.stderr
    result = raw(gnf, "--gen", "--count", "200", "--rate-gbps", "0.1", "-q")
    assert result.returncode == 0 and "gnf: done" not in result.stderr, result.stderr


def test_log_level_debug_says_more_and_error_says_less(gnf):
    result = raw(gnf, "--gen", "--count", "200", "--rate-gbps", "0.1", "--log-level", "error")
    assert result.returncode == 0 and "gnf: done" not in result.stderr and "control socket" not in result.stderr
    result = raw(gnf, "--gen", "--count", "200", "--rate-gbps", "0.1", "-v")
    assert result.returncode == 0 and "gnf: done" in result.stderr, result.stderr
    result = raw(gnf, "--gen", "--count", "200", "--log-level", "loud")
    assert result.returncode == 2, result.stderr


def test_a_run_without_loss_says_lost_0_and_every_packet_accounted_for(gnf):
    result = raw(gnf, "--gen", "--count", "200", "--rate-gbps", "0.1")
    assert result.returncode == 0, result.stderr
    assert ("gnf: done: offered 200, accounted 200: forwarded 200, lost 0: every packet accounted for\n"
            in result.stderr), result.stderr


OVERLOAD = """
duration = 1
[driver]
rx_ring = 64
[[port]]
speed = 100
rx_buffer_kib = 64
[port.source]
type = "generator"
size = 64
[[nf]]
type = "l2fwd"
mode = "reflect"
"""


def test_a_lossy_run_says_what_it_lost_and_where_with_its_accounting(gnf, tmp_path):
    config = tmp_path / "overload.toml"
    config.write_text(OVERLOAD)
    result = gnf("--config", config, "--no-stats", json_summary=False, timeout=90)
    assert result.returncode == 0, result.stderr
    line = re.search(r"gnf: done: offered (\d+), accounted (\d+): forwarded (\d+), lost (\d+) \(([^)]*)\)(.*)$",
                     result.stderr, re.M)
    assert line, result.stderr
    offered, accounted, forwarded, lost, where, rest = (int(line[1]), int(line[2]), int(line[3]), int(line[4]),
                                                        line[5], line[6])
    assert lost > 0, "no loss at 148.8 Mpps offered: this machine kept up, the test proves nothing here"
    assert offered == accounted == forwarded + lost, line[0]
    # Each counter that lost frames, by port, and the sum is the loss.
    counts = [int(n) for n in re.findall(r"port0\.rx_\w+ (\d+)", where)]
    assert sum(counts) == lost, where
    assert rest == ": every packet accounted for, %d of them lost" % lost, rest
    # 148.8 Mpps is beyond the NIC model on any 2-core machine: the run says it fell behind.
    assert "warning: the NIC model fell behind the wire" in result.stderr, result.stderr
