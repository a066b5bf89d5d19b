#!/usr/bin/env bash
# Session 14 device run 9: gnf-esp-bench, then the ipsec scenario (quick: 1420 B, gcm and cbc, encrypt and tunnel,
# cpu/staged/bypass) at 100 G with 16 queues, 8 NIC-model threads, 4 driver threads.
set -u
rm -rf .bundle && tar xJf devrun14/bundle.tar.xz
source devrun14/common.sh
timeout -k 5 150 gnf-esp-bench --json $R/esp_bench.json 2>&1 | tail -12 | tee -a $S
harness=(python3 .bundle/bench/run.py --gnf .bundle/bin/gnf --out $R/bench)
timeout -k 5 420 "${harness[@]}" ipsec --quick --speed 100 --queues 16 --nic-threads 8 --driver-threads 4 --esp-json $R/esp_bench.json 2>&1 | tail -40 | tee -a $S
cd $R && tar czf $O/results.tgz .
