#!/bin/bash
# Session 20 run 8: GCM kernels per key size (seal_gcm_tile<10>/<14>): the cipher's GPU tests, then gnf-esp-bench's GCM
# rows with AES-128 at 2 blocks an SM and AES-256 at 3 (gnf-esp-bench), both at 3 (esp-all3), both at 2 (esp-all2).
cd "$(dirname "$0")/.." && tar -xJf devrun20/b4.tar.xz
source devrun20/common.sh
timeout -k 5 150 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*:IpsecGpuPaths*:*NfChainOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|ESP cipher on the GPU" $R/gpu_tests.log | head -20 | tee -a $S
timeout -k 5 60 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*/6' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.log | tee -a $S
for b in gnf-esp-bench esp-all3 esp-all2; do
  echo "== $b" | tee -a $S
  timeout -k 5 60 $b --cpu-seconds 0.01 --algorithm aes-128-gcm --algorithm aes-256-gcm --json $R/$b.json 2>&1 | grep -E "gcm" | tee -a $S
done
cd $O && tar -cJf results.tar.xz r && rm -rf r
