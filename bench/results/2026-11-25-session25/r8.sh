#!/bin/bash
# Session 25 run 8, issue 11: the papers' comparison at 100 G, 64 B, again with 4096 flows (runs 6-7:
# with 64 flows RSS left some of 48 rings idle and gave others three flows, and that, not the path,
# stopped bypass near 40 Mpps): cpu, staged and bypass, 1-64 rings, the same 11 NIC-model threads, up
# to 4 driver threads; then bypass alone at 48 rings with 1024 flows and 14 NIC-model threads, three
# repetitions. Build: run 6's.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b2.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
M="python3 bench/run.py matrix --gnf .bundle/bin/gnf --speed 100 --sizes 64 --trial-s 0.5 --warmup-s 0.2"
timeout -k 10 420 $M --out $OUT/m --index $OUT/m/RESULTS.md --rings 1,4,16,48,64 --flows 4096 --nic-threads 11 \
  --driver-threads 4 --repetitions 1 --resolution 2% 2>&1 | tail -5
timeout -k 10 150 $M --out $OUT/b --index $OUT/b/RESULTS.md --paths bypass --rings 48 --flows 1024 --nic-threads 14 \
  --repetitions 3 --resolution 1% 2>&1 | tail -4
for d in m b; do cd $OUT/$d/*/ && XZ_OPT=-9 tar -cJf trials.tar.xz trials && rm -rf trials; done
cd $OUT && tar -cf mb.tar m b && rm -rf m b
