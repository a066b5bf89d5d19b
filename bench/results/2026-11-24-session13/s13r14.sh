#!/usr/bin/env bash
# Session 13 device run 14: branch p13-ipsecgpu with the agent copying tx frames from any byte address: the ipsec GPU
# test and the agent's tests.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
timeout -k 5 300 gnf_gpu_tests --gtest_filter='IpsecGpuPaths.*:GpuPaths.*:GpuAgent*:Bypass*:OneWay*:Rings*:StagedModes*' > $R/gpu.log 2>&1; echo "gpu_tests rc=$?" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|DMA fault" $R/gpu.log | head -12 | tee -a $S
B byp-q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
cd $R && tar czf $O/results.tgz .
