#!/usr/bin/env bash
# Session 14 device run 5: the paths scenario (quick) at 100 GbE with the bypass driver's plane in shared memory
# and the write-back fix; same model threads for every path.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
harness=(python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $R/bench)
timeout -k 5 480 "${harness[@]}" paths --quick --speed 100 --sizes 64,300,1500 --queues 16 --nic-threads 8 --driver-threads 4 2>&1 | tail -60 | tee -a $S
cd $R && tar czf $O/results.tgz .
