#!/bin/bash
# Session 21 run 6 (ef2d44b): auto's bursts of one or two a packet at a time. The ipsec GPU tests; the ipsec scenario
# on cpu (low-load p50 of the CBC tunnel back?); then bypass at 200 G (the issue's end-to-end goal) with 12 NIC-model
# threads and 32 queues, GCM, both variants.
cd "$(dirname "$0")/../../.." && tar -xJf devrun21/b6.tar.xz
source bench/results/2026-11-25-session21/common.sh
timeout -k 5 150 gnf_gpu_tests --gtest_filter='IpsecGpuPaths*:*NfChainOnGpu*:*EspCipherOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $R/gpu_tests.log | head -20 | tee -a $S
cp -r configs bench .bundle/ 2>/dev/null
timeout -k 5 150 python3 bench/run.py ipsec --quick --paths cpu --ciphers gcm,cbc --variants tunnel --speed 100 \
  --queues 16 --nic-threads 8 --driver-threads 4 --esp-json bench/results/2026-11-25-session21/esp_bench.json \
  --gnf .bundle/bin/gnf --out $R/ipsec --index $R/ipsec/RESULTS.md 2>&1 | tail -8 | tee -a $S
timeout -k 5 200 python3 bench/run.py ipsec --quick --paths bypass --ciphers gcm --variants encrypt,tunnel --speed 200 \
  --queues 32 --nic-threads 12 --esp-json bench/results/2026-11-25-session21/esp_bench.json \
  --gnf .bundle/bin/gnf --out $R/ipsec200 --index $R/ipsec200/RESULTS.md 2>&1 | tail -8 | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
