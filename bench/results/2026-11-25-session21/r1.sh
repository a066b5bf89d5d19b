#!/bin/bash
# Session 21 run 1 (5cd5f33): intel-ipsec-mb on the H100 host (its cipher's unit tests there), the cipher's GPU
# tests and memcheck (GhashPowers without its H^1 multiplier), gnf-esp-bench with both CPU libraries, and the ipsec
# scenario's tunnel on cpu and bypass.
cd "$(dirname "$0")/../../.." && tar -xJf devrun21/b1.tar.xz
source bench/results/2026-11-25-session21/common.sh
lscpu | grep -E "Model name|Flags" | sed 's/Flags:.*/flags: &/' | tr ' ' '\n' | grep -E "^(Model|name|Xeon|vaes|vpclmulqdq|avx512f|sha_ni|gfni)" | tr '\n' ' ' | tee -a $S; echo | tee -a $S
timeout -k 5 120 gnf_unit_tests --gtest_filter='IpsecMb*:DeviceEspCipher*:IpsecNf*' > $R/unit.log 2>&1; echo "unit rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]| on avx| on sse" $R/unit.log | head -10 | tee -a $S
timeout -k 5 150 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*:IpsecGpuPaths*:*NfChainOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $R/gpu_tests.log | head -20 | tee -a $S
timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*/0:*EspCipherOnGpu*/2:*EspCipherOnGpu*/5' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.log | tee -a $S
timeout -k 5 200 gnf-esp-bench --cpu-seconds 0.25 --threads 16 --json $R/gnf-esp-bench.json > $R/gnf-esp-bench.log 2>&1; echo "esp-bench rc=$?" | tee -a $S
cat $R/gnf-esp-bench.log >> $S
cp $R/gnf-esp-bench.json $O/
# The gateway end to end (tunnel: a seal and an open per frame) on cpu (now intel-ipsec-mb's GCM) and bypass.
cp -r configs bench .bundle/ 2>/dev/null
timeout -k 5 230 python3 bench/run.py ipsec --quick --paths cpu,bypass --ciphers gcm,cbc --variants tunnel --speed 100 \
  --queues 16 --nic-threads 8 --driver-threads 4 --esp-json $R/gnf-esp-bench.json --gnf .bundle/bin/gnf \
  --out $R/ipsec --index $R/ipsec/RESULTS.md 2>&1 | tail -30 | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
