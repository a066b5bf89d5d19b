#!/usr/bin/env bash
# Session 14 device run 2 (9a60c12): agent refuses rx descriptors without a buffer (rx_dma_refused);
# unbiased round timing. GPU tests (agent, bypass, paths), sanitize, then bypass rows and the 300 B reproducer.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
timeout -k 5 240 gnf_gpu_tests --gtest_filter='GpuAgent*:Bypass*:Rings*:OneWay*' > $R/gpu.log 2>&1; echo "gpu_tests rc=$?" | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]|PASSED|DMA fault" $R/gpu.log | head -12 | tee -a $S
timeout -k 5 200 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | grep -E "PASS|FAIL|ERROR SUMMARY|RACECHECK SUMMARY" | tee -a $S
B q4-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q32-1pct --path bypass --speed 100 --queues 32 --nic-threads 8 --load 1
B q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B q48-b64-30 --path bypass --speed 100 --queues 48 --nic-threads 12 --burst 64 --rx-ring 1024 --tx-ring 1024 --rate-pps 30000000
for i in 1 2 3; do B byp300-q16-$i --path bypass --speed 100 --queues 16 --nic-threads 8 --size 300 --rate-pps 12200000; grep -h "DMA fault" $R/byp300-q16-$i.err | head -3 | tee -a $S; done
B staged-1pct --path staged --speed 100 --queues 4 --nic-threads 2 --load 1
B cpu-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
