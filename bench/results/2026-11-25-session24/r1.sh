#!/bin/bash
# Session 24 run 1, issue 11: the GPU loops' idle rounds (agent: a round with nothing to move is its
# poll alone; driver: every port's rx ring polled at once, counters published a word per thread)
# and release fences (session 23's run-6 patch), as gnf, against gnf-base (2648c1c's code), side by
# side; then scripts/gpu-tests.sh's tests stage, racecheck and memcheck of GpuAgent.*.
cd "$(dirname "$0")/../../.." && tar -xJf devrun24/b1.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass --queues 16"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2; do
  for g in gnf-base gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64
    B $g-q16-rt1500-$rep $C --size 1500
    B $g-q16-tx72-$rep $C --size 72 --one-way tx
    B $g-q16-rx-$rep $C --size 64 --one-way rx
  done
done
for g in gnf-base gnf; do
  GNF=$g B $g-q1-rt $C --size 64 --queues 1
  GNF=$g B $g-q48-40M $H --rate-pps 40000000
  GNF=$g B $g-q48-60M $H --rate-pps 60000000
done
unset GNF
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r && cd - >/dev/null
bash scripts/gpu-tests.sh $OUT/tests .bundle tests 2>&1 | tail -30
# The bypass driver's kernel cannot run under compute-sanitizer (it needs the agent beside it).
for tool in racecheck memcheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' > $OUT/tests/$tool.log 2>&1; echo "$tool rc=$?"; tail -2 $OUT/tests/$tool.log
done
cd $OUT && rm -f tests/*.pcap && tar -cJf tests.tar.xz tests && rm -rf tests
