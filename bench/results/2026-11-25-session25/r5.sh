#!/bin/bash
# Session 25 run 5, issue 11: bypass l2fwd, 64 B, 48 rings, 11 NIC-model threads, at 40, 42 and 44
# Mpps with the default rings (512 descriptors) and with 2048, twice each: run 4's searches lost a
# few hundred frames at rx_ring in trials that were not model-bound. Build: 434098e.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b1.tar.xz
source bench/results/2026-11-25-session22/common.sh
T="--speed 100 --path bypass --size 64 --queues 48 --nic-threads 11"
for rep in 1 2; do for ring in 512 2048; do for r in 40 42 44; do
  B gnf-ring$ring-${r}M-$rep $T --rx-ring $ring --tx-ring $ring --rate-pps ${r}000000
done; done; done
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
