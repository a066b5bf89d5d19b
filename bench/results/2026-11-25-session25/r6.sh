#!/bin/bash
# Session 25 run 6, issue 11: bypass l2fwd, 64 B at 100 G, 11 NIC-model threads. (1) 64 flows over
# 48 rings leave some rings idle and give others three flows (run 5's per-queue counts): 4096 flows
# against 64 at 40-48 Mpps. (2) The GPU agent with a block per queue and direction beyond one
# block per SM (GNF_AGENT_SPLIT=1, a diagnostic) against its default (a block per queue from 67
# queues on), at 48 and 64 rings, loaded and at 1 % load. Build: 434098e + the diagnostic switch.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b2.tar.xz
source bench/results/2026-11-25-session22/common.sh
T="--speed 100 --path bypass --size 64 --nic-threads 11"
for rep in 1 2; do
  for r in 40 44 48; do B q48-f64-${r}M-$rep $T --queues 48 --rate-pps ${r}000000; done
  for s in 0 1; do
    for q in 48 64; do
      for r in 40 44 48 52; do GNF_AGENT_SPLIT=$s B q$q-f4096-split$s-${r}M-$rep $T --queues $q --flows 4096 --rate-pps ${r}000000; done
      GNF_AGENT_SPLIT=$s B q$q-f4096-split$s-low-$rep $T --queues $q --flows 4096 --load 1
    done
  done
done
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
