#!/bin/bash
# Session 20 run 10 (issue 11): run 9's matrix again (a second repetition, its trial JSONs kept as trials.tar.xz).
cd "$(dirname "$0")/.." && tar -xJf devrun20/b5.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
timeout -k 10 500 python3 bench/run.py matrix --gnf .bundle/bin/gnf --out $OUT/m --index $OUT/m/RESULTS.md \
  --speed 100 --sizes 64 --rings 16,48 --nic-threads 12 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 2% 2>&1 | tail -12
echo "rc=$?"
cd $OUT/m/*/ && XZ_OPT=-9 tar -cJf trials.tar.xz trials && rm -rf trials && ls
