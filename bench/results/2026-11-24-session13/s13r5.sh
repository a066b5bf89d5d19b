#!/usr/bin/env bash
# Session 13 device run 5: the illegal address of run 4 (bypass, 300 B, 16 queues, 12.2 Mpps): how often, and where (memcheck).
set -u
source devrun/common.sh
for i in 1 2 3 4 5 6; do B ill-300-$i --path bypass --speed 100 --queues 16 --size 300 --rate-pps 12207031 --nic-threads 8; grep -h "illegal\|error" $R/ill-300-$i.err | head -2 | tee -a $S; done
for i in 1 2 3; do B ill-64-$i --path bypass --speed 100 --queues 16 --size 64 --rate-pps 12207031 --nic-threads 8; grep -h "illegal\|error" $R/ill-64-$i.err | head -2 | tee -a $S; done
for i in 1 2; do B ill-1500-$i --path bypass --speed 100 --queues 16 --size 1500 --rate-pps 4000000 --nic-threads 8; grep -h "illegal\|error" $R/ill-1500-$i.err | head -2 | tee -a $S; done
timeout -k 5 300 compute-sanitizer --tool memcheck --show-backtrace device --print-limit 20 gnf bench --path bypass --speed 100 --queues 16 --size 300 --rate-pps 12207031 --nic-threads 8 --warmup 0.5 --duration 3 -q > $R/memcheck.txt 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -v "^\s*$" $R/memcheck.txt | head -60 | tee -a $S
cd $R && tar czf $O/results.tgz .
