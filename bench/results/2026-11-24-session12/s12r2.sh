#!/usr/bin/env bash
# Session 12 device run 2: agent poll/commit variants (GNF_AGENT_EXPERIMENT bits), tail batching, the tx clock fix.
set -u
source devrun/common.sh
for e in 0 1 2 3; do
  export GNF_AGENT_EXPERIMENT=$e
  B e$e-q4-1pct --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1
  B e$e-q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
done
export GNF_AGENT_EXPERIMENT=1
B e1-q16-10-tb8 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000 --rx-tail-batch 8 --tx-tail-batch 8
B e1-q16-20 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 20000000
B e1-q8-10 --path bypass --speed 100 --queues 8 --nic-threads 8 --rate-pps 10000000
B e1-ow-tx --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way tx
B cpu-ow-1pct --path cpu --speed 100 --queues 4 --nic-threads 2 --load 1
cd $R && tar czf $O/results.tgz --exclude='*.pcap' .
