#!/usr/bin/env bash
# Session 13 device run 11: the tests and sanitize stages on the final code (e7d6ad3).
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
timeout -k 5 330 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|DMA fault" $R/t/gpu_tests.log | head -12 | tee -a $S
timeout -k 5 200 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | grep -E "PASS|FAIL|ERROR SUMMARY|RACECHECK SUMMARY" | tee -a $S
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
