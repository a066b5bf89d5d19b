#!/bin/bash
# Session 22 run 13: the review's mend (the trace's agent -> poll times in a LatencyHistogram, one
# place for which agent time is traced; gnf-pcie-probe on util/clock.h): the traces and the ping-pong
# once more, then the GPU tests but L3FwdOnGpu (no RouteViews table in the bundle).
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b13.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass --size 64 --queues 16"
B q16-rt $C
GNF_TRACE_HANDOVERS=agent B q16-rx-agent $C --one-way rx
GNF_TRACE_HANDOVERS=found B q16-rx-found $C --one-way rx
grep -H "trace:" $R/*.err | tee -a $S
gnf-pcie-probe ping-pong 20000
timeout 240 gnf_gpu_tests --gtest_filter='-*L3FwdOnGpu*' 2>&1 | tail -3
cd $O && tar -cJf results.tar.xz r && rm -rf r
