#!/bin/bash
# Session 20 run 12: E_K(J0) computed by lane 0 in a zero block beside the other lanes' counter blocks (gcm.h):
# the cipher's GPU tests and memcheck, then gnf-esp-bench's GCM rows, 5020f83's build (gnf-esp-bench-prev) and this one.
cd "$(dirname "$0")/.." && tar -xJf devrun20/b7.tar.xz
source devrun20/common.sh
timeout -k 5 150 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*:IpsecGpuPaths*:*NfChainOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|ESP cipher on the GPU" $R/gpu_tests.log | head -20 | tee -a $S
timeout -k 5 60 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*/2' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.log | tee -a $S
for b in gnf-esp-bench-prev gnf-esp-bench; do
  echo "== $b" | tee -a $S
  timeout -k 5 80 $b --cpu-seconds 0.01 --algorithm aes-128-gcm --algorithm aes-256-gcm --json $R/$b.json 2>&1 | grep -E "gcm" | tee -a $S
done
cd $O && tar -cJf results.tar.xz r && rm -rf r
