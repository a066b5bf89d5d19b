#!/bin/bash
# Session 25 run 9, issue 11: bypass l2fwd at line rate of 100 G with 1500 B (8.22 Mpps) and 300 B
# (39.06 Mpps), 1024 flows against 64 (runs 6-8: 64 flows load the rings unevenly). 1500 B: 16 rings,
# 11 NIC-model threads (session 24's best: 8.07 of 8.22 Mpps forwarded, 1.8 % lost at nic_rx_buffer);
# 300 B: 48 rings, 14 threads. Two repetitions. Build: run 6's.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b2.tar.xz
source bench/results/2026-11-25-session22/common.sh
for rep in 1 2; do
  for f in 64 1024; do
    for r in 8000000 8220000; do B s1500-q16-f$f-$r-$rep --speed 100 --path bypass --size 1500 --queues 16 --nic-threads 11 --flows $f --rate-pps $r; done
    for r in 35000000 39000000; do B s300-q48-f$f-$r-$rep --speed 100 --path bypass --size 300 --queues 48 --nic-threads 14 --flows $f --rate-pps $r; done
  done
done
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
