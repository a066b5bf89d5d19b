#!/usr/bin/env bash
# Session 13 device run 3: busy share as work beyond an empty round; late share 1 %; the model's
# ceiling by queue/thread balance; bypass with larger bursts and rings.
set -u
source devrun/common.sh
B cal-1pct --calibrate --speed 100 --queues 4 --nic-threads 2 --load 1
for r in 10 20 40 60; do B cal-q28-t14-$r --calibrate --speed 100 --queues 28 --nic-threads 14 --rate-pps ${r}000000; done
for r in 20 40; do B cal-q24-t12-$r --calibrate --speed 100 --queues 24 --nic-threads 12 --rate-pps ${r}000000; done
B byp-q24-t12-1pct --path bypass --speed 100 --queues 24 --nic-threads 12 --load 1
for r in 20 30 40; do B byp-q24-t12-$r --path bypass --speed 100 --queues 24 --nic-threads 12 --rate-pps ${r}000000; done
for r in 30 40 50; do B byp-q24-t12-b128-$r --path bypass --speed 100 --queues 24 --nic-threads 12 --burst 128 --rx-ring 1024 --tx-ring 1024 --rate-pps ${r}000000; done
for r in 30 40; do B byp-q48-t12-b64-$r --path bypass --speed 100 --queues 48 --nic-threads 12 --burst 64 --rx-ring 1024 --tx-ring 1024 --rate-pps ${r}000000; done
B byp-q24-t12-b128-1pct --path bypass --speed 100 --queues 24 --nic-threads 12 --burst 128 --rx-ring 1024 --tx-ring 1024 --load 1
B byp-1500-q8-t8 --path bypass --speed 100 --queues 8 --nic-threads 8 --size 1500 --load 99
B cal-1500-q8-t8 --calibrate --speed 100 --queues 8 --nic-threads 8 --size 1500 --load 99
cd $R && tar czf $O/results.tgz .
