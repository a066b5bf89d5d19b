#!/bin/bash
# Session 24 run 8, issue 11, a diagnostic: the bypass driver's NF phase with and without the NF
# chain's machinery. gnf-skip (run8-skip-chain-diagnostic.patch, never to land) does l2fwd's work
# (out port = in port ^ 1) in place of nf::run_chain_on_block; gnf is the landed 400e355. Side by side.
cd "$(dirname "$0")/../../.." && tar -xJf devrun24/b6.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass --queues 16"
for rep in 1 2; do
  for g in gnf gnf-skip; do
    export GNF=$g
    B $g-q16-rt-$rep $C --size 64
    B $g-q16-rt1500-$rep $C --size 1500
  done
done
unset GNF
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
