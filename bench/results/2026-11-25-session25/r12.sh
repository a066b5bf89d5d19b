#!/bin/bash
# Session 25 run 12, issue 11: a queue group catching up keeps what the GPU agent has in flight plus
# a burst waiting (f0e0711), where run 11 (b1091e4) fell behind by 0.36 s at 300 B, 35 Mpps and run
# 1 by 0.1-0.6 s at 64 rings with 64 flows. bypass l2fwd at 100 G: 300 B, 48 rings, 1024 flows, 14
# NIC-model threads at 30 and 35 Mpps, twice; 64 B, 64 rings, 64 flows, 11 threads at 40 Mpps.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b4.tar.xz
source bench/results/2026-11-25-session22/common.sh
T="--speed 100 --path bypass --size 300 --queues 48 --flows 1024 --nic-threads 14"
for rep in 1 2; do for r in 30 35; do B s300-${r}M-$rep $T --rate-pps ${r}000000; done; done
B s64-q64-f64-40M --speed 100 --path bypass --size 64 --queues 64 --nic-threads 11 --rate-pps 40000000
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
