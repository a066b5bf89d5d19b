#!/usr/bin/env bash
# Session 13 device run 13: the ipsec NF on the GPU paths (ee1b960): its GPU tests, the driver kernels' tests, racecheck
# on it, and bypass rows to compare with runs 1 and 3 (the driver kernels now carry the cipher).
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
timeout -k 5 300 gnf_gpu_tests > $R/gpu.log 2>&1; echo "gpu_tests (all) rc=$?" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|^\[  SKIPPED|IpsecGpuPaths.*OK" $R/gpu.log | head -20 | tee -a $S
timeout -k 5 150 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='IpsecGpuPaths.*' > $R/racecheck-ipsec.log 2>&1; echo "racecheck ipsec rc=$?" | tee -a $S
grep -hE "RACECHECK SUMMARY|PASSED|FAILED" $R/racecheck-ipsec.log | head -4 | tee -a $S
B byp-q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B byp-q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B byp-q48-b64-30 --path bypass --speed 100 --queues 48 --nic-threads 12 --burst 64 --rx-ring 1024 --tx-ring 1024 --rate-pps 30000000
cd $R && tar czf $O/results.tgz .
