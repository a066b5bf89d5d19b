#!/bin/bash
# Session 20 run 1: the review mends' GPU tests, the GCM variant probe, gnf-esp-bench, ncu of two probe kernels.
cd "$(dirname "$0")/.." && tar -xJf devrun20/b1.tar.xz
source devrun20/common.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv | tee -a $S
timeout -k 5 150 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*:IpsecGpuPaths*:*NfChainOnGpu*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" $R/gpu_tests.log | head | tee -a $S
timeout -k 5 120 probe 262144 2>&1 | tee -a $S
timeout -k 5 100 gnf-esp-bench --cpu-seconds 0.3 --json $R/gnf-esp-bench.json 2>&1 | tee -a $S
timeout -k 5 60 ncu --clock-control none --launch-skip 0 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis probe 65536 > $R/ncu-repo.txt 2>&1; echo "ncu1 rc=$?" | tee -a $S
timeout -k 5 60 ncu --clock-control none --launch-skip 14 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis probe 65536 > $R/ncu-banked.txt 2>&1; echo "ncu2 rc=$?" | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
