"""End-to-end tests: they run the gnf binary and read what it writes (pcaps, the JSON summary)."""
import json
import os
import subprocess

import pytest


def pytest_addoption(parser):
    parser.addoption("--gnf", default=os.environ.get("GNF_BIN", os.path.join(os.path.dirname(__file__), "../../build/gnf")),
                     help="path to the gnf binary")


class Result:
    def __init__(self, proc, summary):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.summary = summary


@pytest.fixture
def gnf(request, tmp_path):
    """gnf(*args, timeout=...) runs `gnf run ARGS --json FILE -q` and returns a Result."""
    binary = os.path.abspath(request.config.getoption("--gnf"))

    def run(*args, timeout=120, json_summary=True, command="run", **popen):
        summary_file = tmp_path / "summary.json"
        if summary_file.exists():
            summary_file.unlink()
        cmd = [binary]
        if command:
            cmd.append(command)
        cmd += [str(a) for a in args]
        if json_summary:
            cmd += ["--json", str(summary_file), "--quiet"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **popen)
        summary = json.loads(summary_file.read_text()) if summary_file.exists() else None
        return Result(proc, summary)

    run.binary = binary
    return run


def write_config(path, text):
    path.write_text(text)
    return path
