#!/usr/bin/env bash
# Session 12 device run 15: the tests stage on the final code (p12-options merged) and rows.
set -u
source devrun/common.sh
timeout -k 5 420 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]|PASSED" $R/t/gpu_tests.log | head -12 | tee -a $S
B q4-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q16-5 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 5000000
B q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B cpu-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
