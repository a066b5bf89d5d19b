#!/bin/bash
# Session 22 run 12, issue 11: run 4's records poll (8 records a poll, lap tags) again, on top of the
# tail mirror (gnf), against gnf-r3 (4b8daab, the landed code), side by side and repeated, with
# 48 queues at 40 and 60 Mpps three times each to see whether its tx_ring losses in run 4 were its
# own; then the GPU tests but L3FwdOnGpu (no RouteViews table in the bundle), memcheck of GpuAgent.*.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b12.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2 3; do
  for g in gnf-r3 gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64 --queues 16
    B $g-q48-40M-$rep $H --rate-pps 40000000
    B $g-q48-60M-$rep $H --rate-pps 60000000
  done
done
unset GNF
timeout 240 gnf_gpu_tests --gtest_filter='-*L3FwdOnGpu*' 2>&1 | tail -3
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -2
cd $O && tar -cJf results.tar.xz r && rm -rf r
