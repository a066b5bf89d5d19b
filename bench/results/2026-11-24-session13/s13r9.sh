#!/usr/bin/env bash
# Session 13 device run 9: the paths scenario (quick RFC 2544 NDR per path and size, the same 8
# NIC-model threads for every path, 4 driver threads on cpu and staged) at 100 GbE, as run 4 but with
# the agent's DMA check, so that a fault no longer ends the run.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
harness=(python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $R/bench)
timeout -k 5 500 "${harness[@]}" paths --quick --speed 100 --sizes 64,300,1500 --queues 16 --nic-threads 8 --driver-threads 4 2>&1 | tail -70 | tee -a $S
grep -l "DMA fault" $R/bench/*/trials/*.err 2>/dev/null | head | tee -a $S
cd $R && tar czf $O/results.tgz .
