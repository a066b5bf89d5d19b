#!/bin/bash
# Session 25 run 3, issue 11: the papers' comparison at 100 G, 64 B: bench/run.py matrix, cpu,
# staged and bypass with 1, 4, 16, 48 and 64 rings, the same 11 NIC-model threads for every path and
# up to 4 driver threads (cpu, staged), as session 24's run 3 did, on 434098e (since fd455ae an
# l2fwd chain runs on a bypass kernel holding l2fwd's code alone). Run 1 ran every GPU test on it.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b1.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
timeout -k 10 560 python3 bench/run.py matrix --gnf .bundle/bin/gnf --out $OUT/m --index $OUT/m/RESULTS.md \
  --speed 100 --sizes 64 --rings 1,4,16,48,64 --nic-threads 11 --driver-threads 4 --repetitions 1 \
  --trial-s 0.5 --warmup-s 0.2 --resolution 2% 2>&1 | tail -12
echo "rc=$?"
cd $OUT/m/*/ && XZ_OPT=-9 tar -cJf trials.tar.xz trials && rm -rf trials && cd $OUT && tar -cf m.tar m && rm -rf m && ls -la
