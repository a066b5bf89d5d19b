#!/bin/bash
# Session 21 run 4 (3dd6314): the cpu path's GCM tunnel (a seal and an open per frame) with each CPU library,
# side by side: configs/ipsec-bench-gcm-tunnel.toml with cpu_library = openssl, ipsec-mb and auto, NDR at
# 1420 B (bench/run.py sweep, one series per config) with 2 and with 4 driver threads.
cd "$(dirname "$0")/../../.." && tar -xJf devrun21/b4.tar.xz
source bench/results/2026-11-25-session21/common.sh
for lib in openssl ipsec-mb auto; do
  sed "s/^unprotected = \(.*\)$/unprotected = \1\ncpu_library = \"$lib\"/" configs/ipsec-bench-gcm-tunnel.toml > configs/gcm-tunnel-$lib.toml
done
grep -c cpu_library configs/gcm-tunnel-*.toml | tee -a $S
for threads in 2 4; do
  timeout -k 5 250 python3 bench/run.py sweep --paths cpu --sizes 1420 --speed 100 --queues 16 --nic-threads 8 \
    --driver-threads $threads --repetitions 1 --trial-s 0.3 --warmup-s 0.2 --resolution 2% \
    --config configs/gcm-tunnel-openssl.toml --config configs/gcm-tunnel-ipsec-mb.toml --config configs/gcm-tunnel-auto.toml \
    --gnf .bundle/bin/gnf --out $R/sweep-$threads --index $R/sweep-$threads/RESULTS.md 2>&1 | tail -8 | tee -a $S
done
cd $O && tar -cJf results.tar.xz r && rm -rf r
