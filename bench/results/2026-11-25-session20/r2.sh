#!/bin/bash
# Session 20 run 2: GCM probe round 2 (position tables in shared memory, launch bounds), ncu per-opcode and pipes, SASS.
cd "$(dirname "$0")/.."
source devrun20/common.sh
export PATH=$PWD/devrun20:$PATH
timeout -k 5 60 probe_mb1 262144 2>&1 | tee -a $S
timeout -k 5 60 probe_mb3 262144 2>&1 | tee -a $S
M=sass__inst_executed_per_opcode,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,l1tex__throughput.avg.pct_of_peak_sustained_active
for k in 0 1 2 4 5 6 7; do
  timeout -k 5 40 ncu --clock-control none --launch-skip $((7*k)) --launch-count 1 --metrics $M --section WarpStateStats --print-details all --print-metric-instances values probe_mb1 65536 > $R/ncu-$k.txt 2>&1; echo "ncu $k rc=$?" | tee -a $S
done
cuobjdump --dump-sass devrun20/probe_mb1 > $R/probe.sass 2>&1; echo "sass rc=$?" | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
