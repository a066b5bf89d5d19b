#!/usr/bin/env bash
# Session 12 device run 9: what the agent's round depends on (queues vs NIC threads), then the sanitize stage.
set -u
source devrun/common.sh
B q4-t2 --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
B q4-t8 --path bypass --speed 100 --queues 4 --nic-threads 8 --load 1
B q16-t2 --path bypass --speed 100 --queues 16 --nic-threads 2 --load 1
B q16-t8 --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
B q16-t8-owrx --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1 --one-way rx
B q8-t4 --path bypass --speed 100 --queues 8 --nic-threads 4 --load 1
timeout -k 5 450 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | tee -a $S
cd $R && tar czf $O/results.tgz .
