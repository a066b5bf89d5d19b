#!/bin/bash
# Session 22 run 1, issue 11: bypass latency with the GPU agent polling FIFO records (no `produced`
# round trip) and the driver's tail doorbells fenced at device scope, against ff74a8f's gnf (gnf-base)
# in the same run; then the GPU tests (tests stage of scripts/gpu-tests.sh).
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b1.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --size 64 --path bypass --nic-threads 8"
for g in gnf-base gnf; do
  export GNF=$g
  B $g-q16-rt $C --queues 16 --load 1
  B $g-q16-rx $C --queues 16 --load 1 --one-way rx
  B $g-q1-rt $C --queues 1 --load 1
  B $g-q16-l20 $C --queues 16 --load 20
done
unset GNF
bash scripts/gpu-tests.sh $O/tests .bundle tests 2>&1 | tail -20
cd $O && tar -cJf results.tar.xz r && rm -rf r
