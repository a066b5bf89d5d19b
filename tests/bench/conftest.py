"""Tests of the measurement harness (bench/gnfbench). Unit tests use fake_gnf.py in place of
`gnf bench` and fake_lookup_bench.py in place of gnf-lookup-bench; test_integration.py and
test_lookup_bench.py run the real binaries.

Run: /usr/bin/python3 -m pytest -q tests/bench --gnf=build/gnf   (or GNF_BIN=build/gnf)
     /usr/bin/python3 -m pytest -q tests/bench/test_lookup_bench.py --lookup-bench=build/bench/lookup/gnf-lookup-bench
"""
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench"))  # gnfbench, whatever the rootdir

FAKE_GNF = os.path.join(HERE, "fake_gnf.py")
FAKE_LOOKUP_BENCH = os.path.join(HERE, "fake_lookup_bench.py")
FAKE_ENV = ("FAKE_GNF_CAPACITY_PPS", "FAKE_GNF_CAPACITY_SCALE", "FAKE_GNF_LATE_ABOVE_PPS",
            "FAKE_GNF_NIC_BUSY_ABOVE_PPS", "FAKE_GNF_NO_GPU", "FAKE_GNF_REFUSE", "FAKE_GNF_EXIT",
            "FAKE_GNF_BAD_SCHEMA", "FAKE_GNF_UNSTAMPED", "FAKE_GNF_IPSEC_DROP", "FAKE_GNF_NIDS_ALERTED", "FAKE_GNF_LOG",
            "FAKE_GNF_HOST_LOADED")


def pytest_addoption(parser):
    parser.addoption("--gnf", default=os.environ.get("GNF_BIN") or os.path.join(REPO, "build", "gnf"),
                     help="path to the real gnf binary for test_integration.py (default: $GNF_BIN, else "
                          "<repo>/build/gnf)")
    parser.addoption("--lookup-bench", default=os.environ.get("GNF_LOOKUP_BENCH") or os.path.join(
        REPO, "build", "bench", "lookup", "gnf-lookup-bench"), help="path to the real gnf-lookup-bench for "
        "test_lookup_bench.py (default: $GNF_LOOKUP_BENCH, else <repo>/build/bench/lookup/gnf-lookup-bench)")


class FakeGnf:
    """fake_gnf.py with its knobs (FAKE_GNF_* environment) and a log of every argv it got."""

    def __init__(self, monkeypatch, folder):
        # A wrapper that runs the fake with this interpreter: `env python3` may find a slower
        # one (a pyenv shim costs more than the fake itself) or none.
        self.path = str(folder / "gnf")
        with open(self.path, "w") as f:
            f.write('#!/bin/sh\nexec "%s" "%s" "$@"\n' % (sys.executable, FAKE_GNF))
        os.chmod(self.path, 0o755)
        self.log = folder / "fake_gnf_argv.log"
        self._monkeypatch = monkeypatch

    def set(self, **env):
        """set(capacity_pps=2e6, no_gpu=1): sets FAKE_GNF_CAPACITY_PPS, FAKE_GNF_NO_GPU, ..."""
        for key, value in env.items():
            self._monkeypatch.setenv("FAKE_GNF_" + key.upper(), str(value))

    def calls(self):
        """The argv of every call so far, in order (without the program name)."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


def make_fake_gnf(monkeypatch, folder):
    """A FakeGnf in `folder` (made here) with none of the FAKE_GNF_* knobs set, logging its calls."""
    for name in FAKE_ENV:
        monkeypatch.delenv(name, raising=False)
    folder.mkdir()
    fake = FakeGnf(monkeypatch, folder)
    monkeypatch.setenv("FAKE_GNF_LOG", str(fake.log))
    return fake


@pytest.fixture
def fake_gnf(monkeypatch, tmp_path):
    return make_fake_gnf(monkeypatch, tmp_path / "fake")


@pytest.fixture(scope="session")
def real_gnf(request):
    binary = os.path.abspath(request.config.getoption("--gnf"))
    if not os.access(binary, os.X_OK):
        pytest.fail("no gnf binary at %s: build it, then pass --gnf=PATH or set GNF_BIN" % binary, pytrace=False)
    return binary


@pytest.fixture
def fake_lookup_bench(monkeypatch, tmp_path):
    """A wrapper that runs fake_lookup_bench.py with this interpreter; its FAKE_LOOKUP_* knobs unset."""
    for name in ("FAKE_LOOKUP_EXIT", "FAKE_LOOKUP_NO_GPU", "FAKE_LOOKUP_GNF_RATE", "FAKE_LOOKUP_LOG"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "gnf-lookup-bench"
    path.write_text('#!/bin/sh\nexec "%s" "%s" "$@"\n' % (sys.executable, FAKE_LOOKUP_BENCH))
    os.chmod(path, 0o755)
    return str(path)


@pytest.fixture(scope="session")
def real_lookup_bench(request):
    binary = os.path.abspath(request.config.getoption("--lookup-bench"))
    if not os.access(binary, os.X_OK):
        pytest.skip("no gnf-lookup-bench at %s: it is built only where libdpdk (dpdk-dev) is; pass "
                    "--lookup-bench=PATH or set GNF_LOOKUP_BENCH" % binary)
    return binary
