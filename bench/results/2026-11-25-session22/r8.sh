#!/bin/bash
# Session 22 run 8, issue 11: the bypass driver mirrors each TDT into GPU memory and the GPU agent's
# tx blocks poll that (taking a tail kPostedWriteNs after it was written) instead of TDT across PCIe
# (gnf), against gnf-r2 (2d1bad8), side by side; then the GPU tests.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b8.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2; do
  for g in gnf-r2 gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64 --queues 16
    B $g-q1-rt-$rep $C --size 64 --queues 1
    B $g-q16-tx72-$rep $C --size 72 --queues 16 --one-way tx
    B $g-q16-rt1500-$rep $C --size 1500 --queues 16
  done
done
for g in gnf-r2 gnf; do GNF=$g B $g-q48-40M $H --rate-pps 40000000; GNF=$g B $g-q16-1500-line --speed 100 --size 1500 --path bypass --queues 16 --nic-threads 8 --load 100; done
unset GNF
timeout 240 gnf_gpu_tests 2>&1 | tail -3
cd $O && tar -cJf results.tar.xz r && rm -rf r
