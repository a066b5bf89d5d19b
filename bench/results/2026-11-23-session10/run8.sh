#!/usr/bin/env bash
set -u
source .bundle/env.sh
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R; S=$O/summary.txt
GNF_TRACE=1 gnf bench --path bypass --speed 100 --queues 4 --nic-threads 2 --size 300 --load 1 --one-way tx --warmup 0.3 --duration 1 -q --json $R/ow-tx.json > $R/ow-tx.out 2> $R/ow-tx.err &
pid=$!
sleep 18
echo "-- after 18s:" | tee -a $S; tr '\r' '\n' < $R/ow-tx.err | tail -12 | tee -a $S
for task in /proc/$pid/task/*; do [ -d $task ] || continue; echo "$(cat $task/comm) $(awk '{print $3, $14}' $task/stat)"; done | sort | uniq -c | tee -a $S
kill -9 $pid 2>/dev/null
GNF_TRACE=1 timeout -k 2 15 gnf_gpu_tests '--gtest_filter=GpuClock.*' > $R/clock.log 2>&1; echo "clock rc=$?" | tee -a $S; grep -E "trace|OK|FAILED" $R/clock.log | head -8 | tee -a $S
