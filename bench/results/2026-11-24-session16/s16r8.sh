#!/bin/bash
# Session 16 run 8 (ae84eda): the paths scenario at 100 G with the scaled model: cpu, staged and
# bypass one after another, the same 12 NIC-model threads, 3 driver threads on cpu and staged
# (16 cores: 12 + 3 + the rest of the process), 48 queues, 1024 flows, 5 % search resolution.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
timeout -k 5 560 python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $R/bench paths --speed 100 \
  --sizes 64,300,1518 --queues 48 --flows 1024 --nic-threads 12 --driver-threads 3 --resolution 5% \
  --repetitions 1 --trial-s 1 --warmup-s 0.3 2>&1 | tail -60 | tee -a $S
cd $R && tar -cJf $O/results.tar.xz . 
