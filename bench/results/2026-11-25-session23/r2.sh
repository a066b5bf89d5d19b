#!/bin/bash
# Session 23 run 2, issue 11: the GPU agent's rx window again (gnf), now read by the block's other
# warps into shared memory while the first warp reads the records (run 1's, in every warp's
# registers, made the round a round trip longer), against gnf-fence (9162951's code), side by side,
# three times; then GpuAgent.* under memcheck and racecheck.
cd "$(dirname "$0")/../../.." && tar -xJf devrun23/b2.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2 3; do
  for g in gnf-fence gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64 --queues 16
    B $g-q16-rt1500-$rep $C --size 1500 --queues 16
  done
done
for rep in 1 2; do for g in gnf-fence gnf; do GNF=$g B $g-q48-40M-$rep $H --rate-pps 40000000; done; done
for g in gnf-fence gnf; do
  export GNF=$g
  GNF_TRACE_HANDOVERS=found B $g-q16-rx-found $C --size 64 --queues 16 --one-way rx
  GNF_TRACE_HANDOVERS=agent B $g-q16-rx-agent $C --size 64 --queues 16 --one-way rx
  B $g-q1-rt $C --size 64 --queues 1
done
grep -H "trace:" $R/*.err | tee -a $S
unset GNF
timeout 100 gnf_gpu_tests --gtest_filter='*GpuAgent*:*Bypass*' 2>&1 | tail -3
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -2
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -2
cd $O && tar -cJf results.tar.xz r && rm -rf r
