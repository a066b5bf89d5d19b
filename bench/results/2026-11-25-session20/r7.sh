#!/bin/bash
# Session 20 run 7 (5020f83): the cipher's GPU tests and memcheck, gnf-esp-bench (this build, and 930553d's as
# gnf-esp-bench-old), the GCM tunnel on bypass with both builds' gnf (gnf-old), as session 19 run 2 measured it.
cd "$(dirname "$0")/.." && tar -xJf devrun20/b3.tar.xz
cp -r configs bench .bundle/
source devrun20/common.sh
timeout -k 5 150 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*:IpsecGpuPaths*:*NfChainOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]|ESP cipher on the GPU" $R/gpu_tests.log | head -20 | tee -a $S
timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*/0:*EspCipherOnGpu*/2:*EspCipherOnGpu*/5' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.log | tee -a $S
timeout -k 5 150 gnf-esp-bench --cpu-seconds 0.25 --json $R/gnf-esp-bench.json > $R/gnf-esp-bench.log 2>&1; echo "esp-bench rc=$?" | tee -a $S
cat $R/gnf-esp-bench.log >> $S
T=.bundle/configs/ipsec-bench-gcm-tunnel.toml
C="--speed 100 --queues 16 --nic-threads 8 --size 1420 --config $T --path bypass --burst 256 --rx-ring 1024 --tx-ring 1024"
for g in gnf gnf-old; do
  GNF=$g B $g-tun-b256-nf3 $C --load 100 --nf-blocks 3
  GNF=$g B $g-tun-b256-nf3-1pct $C --load 1 --nf-blocks 3
done
timeout -k 5 120 gnf-esp-bench-old --cpu-seconds 0.01 --json $R/gnf-esp-bench-old.json > $R/gnf-esp-bench-old.log 2>&1; echo "esp-bench-old rc=$?" | tee -a $S
grep -E "gcm|cbc" $R/gnf-esp-bench-old.log >> $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
