#!/bin/bash
# Session 21 run 7 (ef2d44b's gnf), issue 11 exploratory: bypass l2fwd at 1 % of 100 G, 64 B: wire -> GPU (one-way rx)
# and port to port, with 1, 4 and 16 queues, with the loops' rounds and phases: does the latency depend on the queue count?
cd "$(dirname "$0")/../../.." && tar -xJf devrun21/b6.tar.xz
source bench/results/2026-11-25-session21/common.sh
C="--speed 100 --size 64 --path bypass --nic-threads 8 --load 1"
for q in 1 4 16; do
  B q$q-rx $C --queues $q --one-way rx
  B q$q-rt $C --queues $q
done
B q16-rt-burst32 $C --queues 16 --burst 32
cd $O && tar -cJf results.tar.xz r && rm -rf r
