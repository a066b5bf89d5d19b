#!/bin/bash
# Session 23 run 6, issue 11: release fences as PTX fence.release (gnf) where the agent, the driver
# and the doorbells used fence.sc (__threadfence, __threadfence_system) or fence.acq_rel, against
# gnf-base (8fa7b9a's code), side by side; then the GpuAgent and Bypass tests; the SASS of the fences.
cd "$(dirname "$0")/../../.." && tar -xJf devrun23/b6.tar.xz
source bench/results/2026-11-25-session22/common.sh
cuobjdump -sass devrun23/fences.cubin | grep -E "Function|MEMBAR|FENCE|CCTL|ERRBAR" > $O/sass.txt 2>&1
C="--speed 100 --nic-threads 8 --load 1 --path bypass --queues 16"
for rep in 1 2; do
  for g in gnf-base gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64
    B $g-q16-tx72-$rep $C --size 72 --one-way tx
  done
done
for g in gnf-base gnf; do GNF=$g GNF_TRACE_HANDOVERS=found B $g-q16-rx-found $C --size 64 --one-way rx; done
grep -H "trace:" $R/*.err | tee -a $S
unset GNF
timeout 100 gnf_gpu_tests --gtest_filter='*GpuAgent*:*Bypass*' 2>&1 | tail -3
cd $O && tar -cJf results.tar.xz r && rm -rf r
