#!/usr/bin/env bash
# Session 14 device run 4: main with nids on the GPU paths merged: the whole GPU suite, sanitize, and
# gnf-nids-bench (GPU thread/warp per packet vs Hyperscan on 1 and 16 threads).
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
timeout -k 5 330 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|DMA fault|Nids" $R/t/gpu_tests.log | head -20 | tee -a $S
timeout -k 5 200 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | grep -E "PASS|FAIL|ERROR SUMMARY|RACECHECK SUMMARY" | tee -a $S
timeout -k 5 200 gnf-nids-bench --json $R/nids_bench.json 2>&1 | tee $R/nids_bench.txt | tee -a $S
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
