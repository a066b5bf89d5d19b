#!/bin/bash
# Session 22 run 9: run 8's build (the landed code: tail mirror included) through scripts/gpu-tests.sh's
# tests and sanitize stages.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b8.tar.xz
bash scripts/gpu-tests.sh $OUT/tests .bundle tests sanitize 2>&1 | tail -30
