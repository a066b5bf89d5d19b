#!/bin/bash
# Session 25 run 4, issue 11: bypass alone, 64 B at 100 G with 48 rings, three repetitions of the
# NDR search at 1 % resolution (run 3's single search stopped at 39.5 Mpps because the step above,
# 41.9, was model-bound), the same 11 NIC-model threads; 434098e.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b1.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
timeout -k 10 560 python3 bench/run.py matrix --gnf .bundle/bin/gnf --out $OUT/m --index $OUT/m/RESULTS.md \
  --paths bypass --speed 100 --sizes 64 --rings 48 --nic-threads 11 --repetitions 3 \
  --trial-s 0.5 --warmup-s 0.2 --resolution 1% 2>&1 | tail -8
echo "rc=$?"
cd $OUT/m/*/ && XZ_OPT=-9 tar -cJf trials.tar.xz trials && rm -rf trials && cd $OUT && tar -cf m.tar m && rm -rf m && ls -la
