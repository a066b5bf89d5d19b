#!/bin/bash
# Session 22 run 5, issue 11: the bypass driver polls every rx ring of its plane at once (one L2
# round trip and one fence a round, not one a ring; gnf) against gnf-r2 (2d1bad8), side by side;
# then the GPU tests.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b5.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2; do
  for g in gnf-r2 gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64 --queues 16
    B $g-q16-rt72-$rep $C --size 72 --queues 16
    B $g-q1-rt-$rep $C --size 64 --queues 1
    GNF_TRACE_HANDOVERS=agent B $g-q16-rx-agent-$rep $C --size 64 --queues 16 --one-way rx
    B $g-q16-tx72-$rep $C --size 72 --queues 16 --one-way tx
  done
done
for g in gnf-r2 gnf; do GNF=$g B $g-q48-40M $H --rate-pps 40000000; done
grep -H "trace:" $R/*.err | tee -a $S
unset GNF
timeout 240 gnf_gpu_tests 2>&1 | tail -3
cd $O && tar -cJf results.tar.xz r && rm -rf r
