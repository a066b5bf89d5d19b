"""Issue 15: what gnf run says while and after it runs. Lines carry a time; the per-second stats
show a low rate in kpps and can be turned off without losing the end-of-run summary."""
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
    assert re.search(r"gnf: done: offered \d+, accounted \d+", result.stderr), result.stderr


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
