#!/usr/bin/env bash
# Session 14 device run 6: the GPU agent with a block per queue and direction. GPU tests of the agent, bypass,
# paths, nids, ipsec; bypass rows as run 3.
set -u
rm -rf .bundle && tar xJf devrun14/bundle.tar.xz
source devrun14/common.sh
timeout -k 5 300 gnf_gpu_tests --gtest_filter='GpuAgent*:Bypass*:Rings*:OneWay*:GpuPaths*:IpsecGpuPaths*:NidsGpuPaths*' > $R/gpu.log 2>&1; echo "gpu_tests rc=$?" | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]|PASSED|DMA fault" $R/gpu.log | head -12 | tee -a $S
B q4-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q32-1pct --path bypass --speed 100 --queues 32 --nic-threads 8 --load 1
B q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B q16-20 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 20000000
for r in 30 40; do B q48-b64-$r --path bypass --speed 100 --queues 48 --nic-threads 12 --burst 64 --rx-ring 1024 --tx-ring 1024 --rate-pps ${r}000000; done
B byp300-q16 --path bypass --speed 100 --queues 16 --nic-threads 8 --size 300 --rate-pps 12200000
B byp-1500-q8-t8 --path bypass --speed 100 --queues 8 --nic-threads 8 --size 1500 --load 99
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
