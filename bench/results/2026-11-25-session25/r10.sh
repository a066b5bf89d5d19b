#!/bin/bash
# Session 25 run 10, issue 11: the sink's order tracking touching one cache line per in-order frame
# (b1091e4), bypass l2fwd, 64 B at 100 G, 48 rings, 4096 flows: run 7 had the NIC model late on
# 1.2-3.4 % of frames there (model-bound) where 1024 flows left it on time. Build: b1091e4.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b3.tar.xz
source bench/results/2026-11-25-session22/common.sh
T="--speed 100 --path bypass --size 64 --queues 48 --flows 4096"
for rep in 1 2; do for n in 13 14; do for r in 44 48 52; do
  B t$n-f4096-${r}M-$rep $T --nic-threads $n --rate-pps ${r}000000
done; done; done
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
