#!/usr/bin/env bash
# Session 14 device run 8: main after merging p15-ops (logs, verdicts, ctl, metrics) on the agent split: the whole
# GPU suite and the sanitizers; bypass rows at 1 % load.
set -u
rm -rf .bundle && tar xJf devrun14/bundle.tar.xz
source devrun14/common.sh
timeout -k 5 330 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|DMA fault" $R/t/gpu_tests.log | head -12 | tee -a $S
timeout -k 5 200 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | grep -E "PASS|FAIL|ERROR SUMMARY|RACECHECK SUMMARY" | tee -a $S
B q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q48-1pct --path bypass --speed 100 --queues 48 --nic-threads 12 --burst 64 --rx-ring 1024 --tx-ring 1024 --load 1
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
