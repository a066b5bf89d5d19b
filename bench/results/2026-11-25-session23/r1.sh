#!/bin/bash
# Session 23 run 1, issue 11: side by side, gnf-base (0849a6f, the landed code), gnf-fence (+ the
# one-way acquire fences, sync/ordering.h) and gnf (+ the GPU agent's rx window: the frames' bytes
# read in the same round trip as their records); then the GPU tests but L3FwdOnGpu, memcheck and
# racecheck of GpuAgent.*, and the SASS of the fences.
cd "$(dirname "$0")/../../.." && tar -xJf devrun23/b1.tar.xz
source bench/results/2026-11-25-session22/common.sh
(command -v cuobjdump && cuobjdump -sass devrun23/fences.cubin | grep -E "Function|MEMBAR|FENCE|CCTL|LD|ERRBAR") > $O/sass.txt 2>&1
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2; do
  for g in gnf-base gnf-fence gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64 --queues 16
    B $g-q16-rt1500-$rep $C --size 1500 --queues 16
    B $g-q48-40M-$rep $H --rate-pps 40000000
  done
done
for g in gnf-base gnf-fence gnf; do
  export GNF=$g
  B $g-q16-tx72 $C --size 72 --queues 16 --one-way tx
  GNF_TRACE_HANDOVERS=found B $g-q16-rx-found $C --size 64 --queues 16 --one-way rx
  GNF_TRACE_HANDOVERS=agent B $g-q16-rx-agent $C --size 64 --queues 16 --one-way rx
  B $g-q1-rt $C --size 64 --queues 1
done
for g in gnf-base gnf; do GNF=$g B $g-q16-1500-line --speed 100 --size 1500 --path bypass --queues 16 --nic-threads 8 --load 100; done
grep -H "trace:" $R/*.err | tee -a $S
unset GNF
timeout 240 gnf_gpu_tests --gtest_filter='-*L3FwdOnGpu*' 2>&1 | tail -3
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -2
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -2
cd $O && tar -cJf results.tar.xz r && rm -rf r
