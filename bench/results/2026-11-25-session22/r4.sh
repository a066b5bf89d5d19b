#!/bin/bash
# Session 22 run 4, issue 11: the GPU agent polls the rx FIFOs' records themselves (8 a poll, lap
# tags; gnf) against run 3's build (gnf-r2 = 2d1bad8, polls `produced`, then reads the records), side
# by side: latency at 1 % load (64 and 72 B), the hand-over traces, and rates under load; then the GPU
# tests and memcheck of the agent's tests.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b4.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for g in gnf-r2 gnf; do
  export GNF=$g
  B $g-q16-rt $C --size 64 --queues 16
  B $g-q1-rt $C --size 64 --queues 1
  GNF_TRACE_HANDOVERS=found B $g-q16-rx-found $C --size 64 --queues 16 --one-way rx
  GNF_TRACE_HANDOVERS=agent B $g-q16-rx-agent $C --size 64 --queues 16 --one-way rx
  B $g-q16-rt72 $C --size 72 --queues 16
  B $g-q48-40M $H --rate-pps 40000000
  B $g-q48-60M $H --rate-pps 60000000
  B $g-q48-120M $H --rate-pps 120000000
done
grep -H "trace:" $R/*.err | tee -a $S
unset GNF
timeout 240 gnf_gpu_tests 2>&1 | tail -3
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -3
cd $O && tar -cJf results.tar.xz r && rm -rf r
