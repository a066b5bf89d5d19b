#!/usr/bin/env bash
# Session 11 device run 1: the whole tests stage (OneWay included, 100 M-packet leak test), then baseline rows.
set -u
source devrun/common.sh
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a $S
timeout -k 5 430 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
grep -hE "^\[  (PASSED|FAILED) |FAILED  \]|through the driver" $R/t/gpu_tests.log | head -12 | tee -a $S
B byp-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B byp-t8-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
B byp-t8-20 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 20000000
B cal-t8-40 --calibrate --speed 100 --queues 16 --nic-threads 8 --rate-pps 40000000
B ow-rx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way rx
cd $R && tar czf $O/results.tgz --exclude='*.pcap' .
