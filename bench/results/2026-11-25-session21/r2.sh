#!/bin/bash
# Session 21 run 2 (5cd5f33): why intel-ipsec-mb's all-cores figure in run 1 (16 threads: 74 Gbit/s of AES-128-GCM
# against 44 on one) does not scale: gnf-esp-bench's CPU half alone over 1-16 threads, with each thread's packets
# 4 MiB (the default 2048) and 256 KiB (128 packets); then the seed's streams experiment on the staged path.
cd "$(dirname "$0")/../../.." && tar -xJf devrun21/b1.tar.xz
source bench/results/2026-11-25-session21/common.sh
nproc | tee -a $S; grep -m1 "model name" /proc/cpuinfo | tee -a $S; grep MHz /proc/cpuinfo | sort | uniq -c | head -3 | tee -a $S
for packets in 2048 128; do
  for t in 1 2 4 8 16; do
    timeout -k 5 30 gnf-esp-bench --no-gpu --algorithm aes-128-gcm --size 1420 --threads $t --cpu-packets $packets \
      --cpu-seconds 0.2 --json $R/scale-$packets-$t.json 2>/dev/null | grep -E "^aes" | sed "s/^/packets $packets threads $t: /" | tee -a $S
  done
done
timeout -k 5 30 gnf-esp-bench --no-gpu --algorithm aes-128-cbc+hmac-sha1-96 --size 1420 --threads 16 --cpu-packets 128 \
  --cpu-seconds 0.2 --json $R/scale-cbc-128-16.json 2>/dev/null | grep -E "^aes" | tee -a $S
cp -r configs bench .bundle/ 2>/dev/null
timeout -k 5 330 python3 bench/run.py streams --depths 1,2,4,8,16 --speed 100 --queues 16 --nic-threads 8 \
  --driver-threads 4 --repetitions 1 --trial-s 0.3 --warmup-s 0.1 --resolution 10% --gnf .bundle/bin/gnf \
  --out $R/streams --index $R/streams/RESULTS.md 2>&1 | tail -12 | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
