#!/bin/bash
# Session 22 run 11, issue 11: the GPU agent's rx round issues its record read (PCIe), the port's
# stalled count and the next descriptors' buffer addresses (GPU memory) together (gnf), against
# gnf-r3 (4b8daab), side by side; then the GPU tests but the L3FwdOnGpu ones (the bundle has no
# RouteViews table) and memcheck of the agent's.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b11.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass"
H="--speed 100 --size 64 --path bypass --queues 48 --nic-threads 12 --burst 64"
for rep in 1 2; do
  for g in gnf-r3 gnf; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64 --queues 16
    B $g-q1-rt-$rep $C --size 64 --queues 1
    GNF_TRACE_HANDOVERS=found B $g-q16-rx-found-$rep $C --size 64 --queues 16 --one-way rx
  done
done
for g in gnf-r3 gnf; do GNF=$g B $g-q48-40M $H --rate-pps 40000000; done
grep -H "trace:" $R/*.err | tee -a $S
unset GNF
timeout 240 gnf_gpu_tests --gtest_filter='-*L3FwdOnGpu*' 2>&1 | tail -3
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*GpuAgent*' 2>&1 | tail -2
cd $O && tar -cJf results.tar.xz r && rm -rf r
