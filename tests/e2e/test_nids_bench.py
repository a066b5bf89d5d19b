"""The nids benchmark config (configs/nids-bench.toml) under `gnf bench` on the cpu path: its 2,000
rules load, every generated frame is inspected without a match and leaves port 1, stamped. The
harness's nids scenario (bench/gnfbench/scenarios/nids.py) counts on this."""
import os

import pytest

from checks import assert_balanced, nonzero

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.mark.parametrize("size", [["--size", 64], ["--size", 1500], ["--imix"]])
def test_every_generated_frame_is_inspected_clean_and_forwarded(gnf, size):
    # --no-drop-en: a driver thread descheduled on a 2-core machine stalls the port instead of
    # dropping at its ring (test_ipsec_bench.py says the same); 2000 frames/s is low load.
    result = gnf("--config", os.path.join(REPO, "configs", "nids-bench.toml"), "--path", "cpu", "--rate-pps", 2000,
                 "--warmup", 0.1, "--duration", 0.4, "--no-drop-en", *size, command="bench", timeout=60)
    assert result.returncode == 0, result.stderr
    doc = result.summary
    summary = doc["summary"]
    assert_balanced(summary)
    nids, l2fwd = summary["nf"]
    generated = summary["generated"]["frames"]
    assert generated == 1000
    assert (nids["type"], l2fwd["type"]) == ("nids", "l2fwd")
    assert nonzero(nids["counters"]) == {"clean": generated}
    entries = nids["rules"]["entries"]
    assert len(entries) == 2000 and not [e for e in entries if e["hits"]]
    assert l2fwd["counters"]["forwarded"] == generated
    assert doc["trial"]["driver"]["burst"] == 256
    r = doc["result"]
    assert r["sent"] == 800 and r["received"] == r["sent"] and r["loss"]["count"] == 0, r["loss"]
