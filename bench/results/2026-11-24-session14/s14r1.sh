#!/usr/bin/env bash
# Session 14 device run 1: branch p13-ipsecgpu (ipsec on the GPU paths) + the bypass driver's plane in
# shared memory, lazy tx reclaim, 32-bit slot division: the GPU tests, then bypass rows as session 13 run 1/3.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
timeout -k 5 330 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|DMA fault" $R/t/gpu_tests.log | head -12 | tee -a $S
B q4-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q32-1pct --path bypass --speed 100 --queues 32 --nic-threads 8 --load 1
B q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B q16-20 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 20000000
for r in 30 40 50; do B byp-q48-t12-b64-$r --path bypass --speed 100 --queues 48 --nic-threads 12 --burst 64 --rx-ring 1024 --tx-ring 1024 --rate-pps ${r}000000; done
B byp-1500-q8-t8 --path bypass --speed 100 --queues 8 --nic-threads 8 --size 1500 --load 99
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
