#!/bin/bash
# Session 18 run 7: run 3 again with e513853 (the agent's tx FIFOs a quarter of the port's buffer each), on another VM:
# wait for buffer room (370e418): the harness's nids scenario, every path and size, with session 17's
# gnf-nids-bench JSON (the matcher is unchanged since) beside it.
cd "$(dirname "$0")/.." && tar -xJf devrun18/b.tar.xz
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
source devrun18/common.sh
timeout -k 5 560 python3 bench/run.py nids --gnf .bundle/bin/gnf --out $O/h --index $O/h/RESULTS.md --speed 100 \
  --queues 16 --nic-threads 8 --driver-threads 4 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 5% \
  --nids-json bench/results/2026-11-24-session17/nids_bench.json > $R/harness.log 2>&1; echo "harness rc=$?" | tee -a $S
grep -E "^\*\*" $O/h/*/report.md >> $S
cd $O && tar -cJf results.tar.xz r h && rm -rf r h
