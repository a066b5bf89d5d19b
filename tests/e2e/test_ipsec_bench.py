"""The ipsec benchmark configs (configs/ipsec-bench-*.toml) under `gnf bench` on the cpu path: every
generated frame is encrypted (and, in the tunnel configs, decrypted again) and leaves port 1; none
is an NF drop. The harness's ipsec scenario (bench/gnfbench/scenarios/ipsec.py) counts on this."""
import os

import pytest

from checks import assert_balanced

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def config(name):
    return os.path.join(REPO, "configs", "ipsec-bench-%s.toml" % name)


def trial(gnf, name, *args):
    # --no-drop-en: a driver thread descheduled on a 2-core machine stalls the port instead of
    # dropping at its ring (test_bench.py says why), and 2000 frames/s of 1420 B take its 512 KiB rx
    # buffer 180 ms to fill: low load for any cipher.
    result = gnf("--config", config(name), "--path", "cpu", "--rate-pps", 2000, "--warmup", 0.1,
                 "--duration", 0.4, "--no-drop-en", *args, command="bench", timeout=60)
    assert result.returncode == 0, result.stderr
    summary = result.summary["summary"]
    assert_balanced(summary)
    counters = [nf["counters"] for nf in summary["nf"]]
    assert [nf["type"] for nf in summary["nf"]][-1] == "l3fwd"
    for c in counters:
        assert not {k: v for k, v in c.items() if k.startswith("drop_") and v}, c
    assert result.summary["result"]["loss"]["where"]["nf_drop"] == 0
    outside = {s["port"]: s for s in summary["sinks"]}["outside"]
    return result.summary, counters, outside


@pytest.mark.parametrize("cipher", ["gcm", "cbc"])
@pytest.mark.parametrize("size", [["--size", 64], ["--size", 1420], ["--imix"]])
def test_the_gateway_encrypts_every_generated_frame_out_of_the_unprotected_port(gnf, cipher, size):
    doc, (ipsec, l3fwd), outside = trial(gnf, cipher, *size)
    generated = doc["summary"]["generated"]["frames"]
    # 1000 frames at 2000/s: all out at this load, each one ESP (foreign to the sink: no stamp readable).
    assert generated == 1000
    assert ipsec["out_protected"] == l3fwd["forwarded_ipv4"] == outside["foreign_frames"] == generated
    assert outside["stamped_frames"] == 0 and doc["result"]["received"] == 0


@pytest.mark.parametrize("cipher", ["gcm", "cbc"])
def test_the_tunnel_config_decrypts_what_it_encrypted_and_the_stamps_come_back(gnf, cipher):
    doc, (outbound, inbound, l3fwd), outside = trial(gnf, cipher + "-tunnel", "--size", 1420)
    generated = doc["summary"]["generated"]["frames"]
    assert outbound["out_protected"] == inbound["in_decrypted"] == l3fwd["forwarded_ipv4"] == generated == 1000
    r = doc["result"]
    assert outside["foreign_frames"] == 0
    assert r["sent"] == 800 and r["received"] == r["sent"] and r["loss"]["count"] == 0, r["loss"]
    assert r["latency"]["count"] == r["received"]
