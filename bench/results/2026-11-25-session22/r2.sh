#!/bin/bash
# Session 22 run 2, issue 11: where a frame's latency goes on bypass (l2fwd, 64 B, 1 % of 100 G,
# 8 NIC-model threads). gnf = f16fd3e (tail doorbells fenced at device scope) + polls of DD and
# completions at device scope + the GNF_TRACE_HANDOVERS diagnostic (util/trace.h); gnf-base = ff74a8f.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b2.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --size 64 --nic-threads 8 --load 1"
for g in gnf-base gnf; do
  export GNF=$g
  B $g-q16-rt $C --path bypass --queues 16
  B $g-q1-rt $C --path bypass --queues 1
  B $g-q16-rx $C --path bypass --queues 16 --one-way rx
  B $g-q16-tx $C --path bypass --queues 16 --one-way tx
done
export GNF=gnf
GNF_TRACE_HANDOVERS=agent B gnf-q16-rx-agent $C --path bypass --queues 16 --one-way rx
GNF_TRACE_HANDOVERS=admit,agent B gnf-q16-rx-admit $C --path bypass --queues 16 --one-way rx
GNF_TRACE_HANDOVERS=agent B gnf-q1-rx-agent $C --path bypass --queues 1 --one-way rx
B gnf-cal-q16 $C --calibrate --queues 16
B gnf-cpu-q16-rt $C --path cpu --queues 16
grep -h "trace:" $R/*.err | tee -a $S
grep -H "trace:" $R/*.err
unset GNF
timeout 240 gnf_gpu_tests 2>&1 | tail -4
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -4
cd $O && tar -cJf results.tar.xz r && rm -rf r
