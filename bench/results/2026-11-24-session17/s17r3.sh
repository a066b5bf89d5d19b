#!/bin/bash
# Session 17 run 3: configs/nids-bench.toml now with nf_blocks = 3 and staged_mode = "copy". First single trials at
# line rate (1500 B): staged copy (tiles of 32 lanes) against staged zero-copy (a thread per packet), bypass; then
# the harness's nids scenario (NDR per path and size, all sizes) with this session's gnf.
cd "$(dirname "$0")/.." && tar -xJf devrun17/b.tar.xz
source devrun17/common.sh
N="--config .bundle/configs/nids-bench.toml --speed 100 --queues 16 --nic-threads 8 --size 1500 --load 100"
B nids-staged-copy $N --path staged
B nids-staged-zero-copy $N --path staged --staged-mode zero-copy
B nids-bypass-nf3 $N --path bypass
timeout -k 5 480 python3 bench/run.py nids --gnf .bundle/bin/gnf --out $O/h --index $O/h/RESULTS.md --speed 100 \
  --queues 16 --nic-threads 8 --driver-threads 4 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 5% \
  > $R/harness.log 2>&1; echo "harness rc=$?" | tee -a $S
tail -30 $R/harness.log >> $S
cd $O && tar -cJf results.tar.xz r h && rm -rf r h
