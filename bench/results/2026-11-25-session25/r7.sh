#!/bin/bash
# Session 25 run 7, issue 11: bypass l2fwd, 64 B at 100 G, 48 rings. Run 6: with 4096 flows (RSS
# then spreads them evenly; 64 flows left rings idle or with three flows) bypass lost nothing at
# 40-52 Mpps, but the NIC model's 11 threads, evenly loaded now, were late on 1-7 % of frames
# (model-bound). Here 13 and 14 threads with 1024 and 4096 flows, then the harness's search with
# 4096 flows and 13 threads, three repetitions. Build: run 6's.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b2.tar.xz
source bench/results/2026-11-25-session22/common.sh
T="--speed 100 --path bypass --size 64 --queues 48"
for n in 13 14; do for f in 1024 4096; do for r in 44 48 52; do
  B t$n-f$f-${r}M $T --nic-threads $n --flows $f --rate-pps ${r}000000
done; done; done
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r && cd - >/dev/null
timeout -k 10 300 python3 bench/run.py matrix --gnf .bundle/bin/gnf --out $OUT/m --index $OUT/m/RESULTS.md \
  --paths bypass --speed 100 --sizes 64 --rings 48 --flows 4096 --nic-threads 13 --repetitions 3 \
  --trial-s 0.5 --warmup-s 0.2 --resolution 1% 2>&1 | tail -6
cd $OUT/m/*/ && XZ_OPT=-9 tar -cJf trials.tar.xz trials && rm -rf trials && cd $OUT && tar -cf m.tar m && rm -rf m
