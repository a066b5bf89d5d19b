#!/bin/bash
# Session 22 run 6 (issue 11): session 20 run 10's matrix (100 G, 64 B, 16 and 48 rings, 12 NIC-model
# threads, every path) again with 2d1bad8's gnf (tail doorbells fenced at device scope), from run 5's bundle.
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b5.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
timeout -k 10 520 python3 bench/run.py matrix --gnf .bundle/bin/gnf-r2 --out $OUT/m --index $OUT/m/RESULTS.md \
  --speed 100 --sizes 64 --rings 16,48 --nic-threads 12 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 2% 2>&1 | tail -12
echo "rc=$?"
cd $OUT/m/*/ && XZ_OPT=-9 tar -cJf trials.tar.xz trials && rm -rf trials && ls
