#!/usr/bin/env bash
# Session 12 device run 8: OneWay tests and one-way trials after the tx clock is read after the acquire.
set -u
source devrun/common.sh
GNF_GPU_TEST_FILTER='OneWay.*:Rings*:*Bypass*' timeout -k 5 300 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | head -4 | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]|PASSED" $R/t/gpu_tests.log | head -12 | tee -a $S
B ow-tx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way tx
B ow-rx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way rx
B byp-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B cpu-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1
B byp-q16-5 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 5000000
cd $R && tar czf $O/results.tgz --exclude='*.pcap' .
