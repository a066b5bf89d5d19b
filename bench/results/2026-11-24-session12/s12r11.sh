#!/usr/bin/env bash
# Session 12 device run 16: on how many SMs the GPU loops' blocks run (gpu_loops.*.sms), against queue count.
set -u
source devrun/common.sh
B q4 --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B q8 --path bypass --speed 100 --queues 8 --nic-threads 4 --load 1
B q16 --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q32 --path bypass --speed 100 --queues 32 --nic-threads 8 --load 1
GNF_GPU_TEST_FILTER='OneWay.*:*Bypass*:GpuAgent*' timeout -k 5 300 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | head -4 | tee -a $S
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
