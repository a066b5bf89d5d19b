#!/usr/bin/env bash
# Session 13 device run 1: host jitter (is "late" the machine?), the PCIe probe with shared-line reads,
# the agent with a stop word per block; the agent's GPU tests.
set -u
source devrun/common.sh
nproc | tee -a $S; cat /proc/loadavg | tee -a $S
gnf-jitter-probe 2 0 1 2 4 8 12 14 16 | tee $R/jitter-unpinned.jsonl | tee -a $S
gnf-jitter-probe 2 1 1 2 4 8 12 14 | tee $R/jitter-pinned.jsonl | tee -a $S
timeout 150 gnf-pcie-probe 20000 > $R/pcie-probe.jsonl 2>&1; echo "probe rc=$?" | tee -a $S
python3 bench/pcie/table.py $R/pcie-probe.jsonl | tee -a $S
B q4-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q32-1pct --path bypass --speed 100 --queues 32 --nic-threads 8 --load 1
B q16-5 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 5000000
B q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B q16-20 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 20000000
B cpu-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1
B cal-1pct --calibrate --speed 100 --queues 4 --nic-threads 2 --load 1
B cal-20 --calibrate --speed 100 --queues 16 --nic-threads 8 --rate-pps 20000000
timeout -k 5 240 gnf_gpu_tests --gtest_filter='OneWay*:Rings*:Bypass*:GpuAgent*' > $R/gpu.log 2>&1; echo "gpu_tests rc=$?" | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]|PASSED" $R/gpu.log | head -12 | tee -a $S
cd $R && tar czf $O/results.tgz .
