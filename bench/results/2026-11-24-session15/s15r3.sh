#!/usr/bin/env bash
# Session 15 device run 3: gnf-esp-bench, then the ipsec scenario (quick: 1420 B, gcm and cbc, encrypt and tunnel,
# cpu/staged/bypass) at 100 G with 16 queues, 8 NIC-model threads, 4 driver threads, on the configs of f85eff3+
# (burst 256, rings 1024, 3 NF blocks a queue, staged copy mode; the lock-free replay window).
set -u
rm -rf .bundle && tar xJf bench/results/2026-11-24-session15/bundle.tar.xz
source bench/results/2026-11-24-session15/common.sh
timeout -k 5 150 gnf-esp-bench --json $R/esp_bench.json > $R/esp.log 2>&1; echo "esp rc=$?" | tee -a $S
harness=(python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $R/bench)
timeout -k 5 430 "${harness[@]}" ipsec --quick --speed 100 --queues 16 --nic-threads 8 --driver-threads 4 --esp-json $R/esp_bench.json 2>&1 | tail -40 | tee -a $S
cd $R && tar czf $O/results.tgz .
