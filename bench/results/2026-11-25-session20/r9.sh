#!/bin/bash
# Session 20 run 9 (issue 11): the matrix scenario at 100 G, 64 B, 16 and 48 rings, 12 NIC-model threads, with its
# overload (150 %, 300 % of each NDR) and "CPU cores for 100 G" tables; one repetition, 1 s trials, 2 % resolution.
cd "$(dirname "$0")/.." && tar -xJf devrun20/b5.tar.xz
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
python3 -c "import matplotlib; print('matplotlib', matplotlib.__version__)"
timeout -k 10 540 python3 bench/run.py matrix --gnf .bundle/bin/gnf --out $OUT/m --index $OUT/m/RESULTS.md \
  --speed 100 --sizes 64 --rings 16,48 --nic-threads 12 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 2% 2>&1 | tail -40
echo "rc=$?"
cd $OUT && for d in m/*/; do [ -d "$d" ] && ls $d; done
