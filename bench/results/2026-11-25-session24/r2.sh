#!/bin/bash
# Session 24 run 2, issue 11: the bypass kernel built for blocks of up to 256 threads (up to 255
# registers a thread; __launch_bounds__(1024) held it to 64, and it spilled 2 KB a thread), its NF
# chain and config as __grid_constant__ parameters (no 2 KB copy into local memory), and the round's
# end reading the clock only when a tail waits, as gnf; against gnf-r1 (fe28fd8's code, run 1's gnf),
# side by side; then scripts/gpu-tests.sh's tests stage with gnf.
cd "$(dirname "$0")/../../.." && tar -xJf devrun24/b2.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass --queues 16"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2; do
  for g in gnf-r1 gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64
    B $g-q16-rt1500-$rep $C --size 1500
    B $g-q16-tx72-$rep $C --size 72 --one-way tx
    B $g-q16-rx-$rep $C --size 64 --one-way rx
  done
done
for g in gnf-r1 gnf; do
  GNF=$g B $g-q4-rt --speed 100 --nic-threads 8 --load 1 --path bypass --queues 4 --size 64
  GNF=$g B $g-q48-40M $H --rate-pps 40000000
done
unset GNF
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r && cd - >/dev/null
bash scripts/gpu-tests.sh $OUT/tests .bundle tests 2>&1 | tail -30
cd $OUT && rm -f tests/*.pcap && tar -cJf tests.tar.xz tests && rm -rf tests
