#!/usr/bin/env bash
# Session 15 device run 4: gnf-nids-bench (matching alone), then the nids scenario (quick: 1500 B, cpu/staged/bypass)
# at 100 G with 16 queues, 8 NIC-model threads, 4 driver threads, on configs/nids-bench.toml (2,000 rules, burst 256).
set -u
rm -rf .bundle && tar xJf bench/results/2026-11-24-session15/bundle.tar.xz
source bench/results/2026-11-24-session15/common.sh
timeout -k 5 200 gnf-nids-bench --json $R/nids_bench.json > $R/nids-bench.log 2>&1; echo "nids-bench rc=$?" | tee -a $S
tail -20 $R/nids-bench.log >> $S
harness=(python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $R/bench)
timeout -k 5 360 "${harness[@]}" nids --quick --speed 100 --queues 16 --nic-threads 8 --driver-threads 4 --nids-json $R/nids_bench.json 2>&1 | tail -30 | tee -a $S
cd $R && tar czf $O/results.tgz .
