"""End-to-end tests: they run the gnf binary and read what it writes (pcaps, the JSON summary).

Run: /usr/bin/python3 -m pytest -q tests/e2e --gnf=build/gnf   (or GNF_BIN=build/gnf)
"""
import json
import os
import subprocess
import sys
from typing import NamedTuple, Optional

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # frames.py, whatever the rootdir

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def pytest_addoption(parser):
    parser.addoption("--gnf", default=os.environ.get("GNF_BIN") or os.path.join(REPO, "build", "gnf"),
                     help="path to the gnf binary (default: $GNF_BIN, else <repo>/build/gnf)")


class Result(NamedTuple):
    """What one gnf run left: unpacks as (returncode, stdout, stderr, summary)."""
    returncode: int
    stdout: str
    stderr: str
    summary: Optional[dict]  # the parsed --json FILE, None if gnf wrote none


@pytest.fixture(scope="session")
def gnf_binary(request):
    binary = os.path.abspath(request.config.getoption("--gnf"))
    if not os.access(binary, os.X_OK):
        pytest.fail("no gnf binary at %s: build it, then pass --gnf=PATH or set GNF_BIN" % binary, pytrace=False)
    return binary


@pytest.fixture
def gnf(gnf_binary, tmp_path):
    """gnf(*args, timeout=...) runs `gnf run ARGS --json FILE --quiet` and returns a Result.

    command=None leaves out `run`; json_summary=False leaves out --json and --quiet. A run that
    outlives `timeout` seconds is killed and the test fails (subprocess.TimeoutExpired).
    """

    def run(*args, timeout=60, json_summary=True, command="run"):
        summary_file = tmp_path / "summary.json"
        if summary_file.exists():
            summary_file.unlink()
        cmd = [gnf_binary] + ([command] if command else []) + [str(a) for a in args]
        if json_summary:
            cmd += ["--json", str(summary_file), "--quiet"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=str(tmp_path))
        # A crash (negative return code: killed by a signal) is never what a test expects.
        assert proc.returncode >= 0, "gnf died of signal %d: %s\n%s" % (-proc.returncode, cmd, proc.stderr[-4000:])
        summary = json.loads(summary_file.read_text()) if summary_file.exists() else None
        return Result(proc.returncode, proc.stdout, proc.stderr, summary)

    run.binary = gnf_binary
    return run
