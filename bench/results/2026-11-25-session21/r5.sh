#!/bin/bash
# Session 21 run 5 (10378d5): the cpu path's ipsec in bursts. The ipsec GPU tests (cpu, staged and bypass give the
# same bytes), then the GCM and CBC tunnels on the cpu path with cpu_library = openssl (EVP a packet a call) and
# auto (intel-ipsec-mb in bursts), NDR at 1420 B with 4 driver threads, and the ipsec scenario's cores table again.
cd "$(dirname "$0")/../../.." && tar -xJf devrun21/b5.tar.xz
source bench/results/2026-11-25-session21/common.sh
timeout -k 5 150 gnf_gpu_tests --gtest_filter='IpsecGpuPaths*:*NfChainOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $R/gpu_tests.log | head -20 | tee -a $S
for c in gcm cbc; do for lib in openssl auto; do
  sed "s/^unprotected = \(.*\)$/unprotected = \1\ncpu_library = \"$lib\"/" configs/ipsec-bench-$c-tunnel.toml > configs/$c-tunnel-$lib.toml
done; done
timeout -k 5 200 python3 bench/run.py sweep --paths cpu --sizes 1420 --speed 100 --queues 16 --nic-threads 8 \
  --driver-threads 4 --repetitions 1 --trial-s 0.3 --warmup-s 0.2 --resolution 2% \
  --config configs/gcm-tunnel-openssl.toml --config configs/gcm-tunnel-auto.toml \
  --config configs/cbc-tunnel-openssl.toml --config configs/cbc-tunnel-auto.toml \
  --gnf .bundle/bin/gnf --out $R/sweep --index $R/sweep/RESULTS.md 2>&1 | tail -6 | tee -a $S
cp -r configs bench .bundle/ 2>/dev/null
timeout -k 5 150 python3 bench/run.py ipsec --quick --paths cpu --ciphers gcm,cbc --variants tunnel --speed 100 \
  --queues 16 --nic-threads 8 --driver-threads 4 --esp-json bench/results/2026-11-25-session21/esp_bench.json \
  --gnf .bundle/bin/gnf --out $R/ipsec --index $R/ipsec/RESULTS.md 2>&1 | tail -8 | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
