#!/usr/bin/env bash
# Session 13 device run 4: the paths scenario (quick: RFC 2544 NDR per path and size, same NIC-model
# threads for every path) at 100 GbE on the new code, and the calibration floor.
set -u
source devrun/common.sh
harness=(python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $R/bench)
timeout -k 5 90 "${harness[@]}" calibrate --quick --speed 100 --queues 16 --nic-threads 8 2>&1 | tail -25 | tee -a $S
timeout -k 5 440 "${harness[@]}" paths --quick --speed 100 --sizes 64,300,1500 --queues 16 --nic-threads 8 --driver-threads 4 2>&1 | tail -60 | tee -a $S
cd $R && tar czf $O/results.tgz .
