#!/bin/bash
# Session 17 run 4: issue 14's report in one run: gnf-nids-bench (matching alone on the GPU beside Hyperscan on 1
# and 16 cores, 147 / 2,000 / 10,000+ patterns, 64 / 512 / 1500 B / IMIX), then the harness's nids scenario (NDR of
# the chain per path and size) with its JSON beside; then bypass at 1500 B and 2 Mpps (25 % of line rate), with 0
# and with 3 NF blocks, three times each, interleaved: does the small rx-buffer loss run 3's NDR search met recur?
cd "$(dirname "$0")/.." && tar -xJf devrun17/b.tar.xz
source devrun17/common.sh
timeout -k 5 200 gnf-nids-bench --json $R/nids_bench.json > $R/nids-bench.log 2>&1; echo "nids-bench rc=$?" | tee -a $S
tail -20 $R/nids-bench.log >> $S
timeout -k 5 330 python3 bench/run.py nids --gnf .bundle/bin/gnf --out $O/h --index $O/h/RESULTS.md --speed 100 \
  --queues 16 --nic-threads 8 --driver-threads 4 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 5% \
  --nids-json $R/nids_bench.json > $R/harness.log 2>&1; echo "harness rc=$?" | tee -a $S
grep -E "^\*\*" $O/h/*/report.md >> $S
N="--config .bundle/configs/nids-bench.toml --speed 100 --queues 16 --nic-threads 8 --size 1500 --rate-pps 2000000"
for rep in 1 2 3; do for nf in 0 3; do B nids-2mpps-nf$nf-r$rep $N --path bypass --nf-blocks $nf; done; done
cd $O && tar -cJf results.tar.xz r h && rm -rf r h
