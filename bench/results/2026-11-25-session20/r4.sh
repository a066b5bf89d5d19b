#!/bin/bash
# Session 20 run 4: lane tables + GHASH multipliers + round keys in registers: the cipher's GPU tests, gnf-esp-bench, the probe beside it.
cd "$(dirname "$0")/.." && tar -xJf devrun20/b2.tar.xz
source devrun20/common.sh
timeout -k 5 200 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*:IpsecGpuPaths*:*NfChainOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|ESP cipher on the GPU" $R/gpu_tests.log | head -20 | tee -a $S
timeout -k 5 100 gnf-esp-bench --cpu-seconds 0.2 --json $R/gnf-esp-bench.json 2>&1 | tee -a $S
timeout -k 5 30 devrun20/probe_mb3 262144 2>&1 | grep -E "aes=(1|7) ghash=(1|2)" | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
