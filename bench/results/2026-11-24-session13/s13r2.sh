#!/usr/bin/env bash
# Session 13 device run 2: poll-mode threads pinned, late = 100 us; the model's and bypass's ceilings.
set -u
source devrun/common.sh
B cpu-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1
B cpu-1pct-nopin --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1 --no-pin-threads
B cal-1pct --calibrate --speed 100 --queues 4 --nic-threads 2 --load 1
B byp-q4-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
for r in 20 40 60 80; do B cal-q16-t12-$r --calibrate --speed 100 --queues 16 --nic-threads 12 --rate-pps ${r}000000; done
for r in 40 60; do B cal-q32-t14-$r --calibrate --speed 100 --queues 32 --nic-threads 14 --rate-pps ${r}000000; done
for r in 20 30 40 50; do B byp-q16-t12-$r --path bypass --speed 100 --queues 16 --nic-threads 12 --rate-pps ${r}000000; done
for r in 30 40; do B byp-q32-t12-$r --path bypass --speed 100 --queues 32 --nic-threads 12 --rate-pps ${r}000000; done
B byp-q32-t12-1pct --path bypass --speed 100 --queues 32 --nic-threads 12 --load 1
for r in 5 10 20; do B cpu-q4-t8-$r --path cpu --speed 100 --queues 4 --nic-threads 8 --rate-pps ${r}000000; done
for r in 10 20; do B stg-q8-t8-$r --path staged --speed 100 --queues 8 --nic-threads 8 --rate-pps ${r}000000; done
cd $R && tar czf $O/results.tgz .
