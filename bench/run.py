#!/usr/bin/env python3
"""Runs one benchmark scenario of gnf and writes its report: bench/run.py SCENARIO [options].

Scenarios: rings, tail-batching, writeback, paths, one-way, matrix, staged-modes, sweep, calibrate
(bench/README.md).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gnfbench.cli import main  # noqa: E402  (after the path is set)

if __name__ == "__main__":
    sys.exit(main())
