#!/bin/bash
# Session 16 run 5 (670b3e9): the model catching up after a stall; calibrate and bypass at
# 40-80 Mpps with repetitions, 1500 B at line rate, 1 % latency; then the GPU tests.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
steal() { awk '/^cpu /{print $9}' /proc/stat; }
s0=$(steal)
C="--calibrate --speed 100 --queues 16 --size 64 --flows 1024"
for i in 1 2 3; do B cal-t12-60-rep$i $C --nic-threads 12 --rate-pps 60000000; done
for i in 1 2; do B cal-t12-70-rep$i $C --nic-threads 12 --rate-pps 70000000; done
B cal-t12-80 $C --nic-threads 12 --rate-pps 80000000
B cal-t14-80 $C --nic-threads 14 --rate-pps 80000000
for i in 1 2; do B cal-f64-t12-60-rep$i --calibrate --speed 100 --queues 16 --size 64 --nic-threads 12 --rate-pps 60000000; done
P="--path bypass --speed 100 --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048"
for r in 40 45; do for i in 1 2; do B byp-q48-$r-rep$i $P --queues 48 --rate-pps ${r}000000; done; done
B byp-q48-50 $P --queues 48 --rate-pps 50000000
for r in 45 50; do B byp-q64-$r $P --queues 64 --rate-pps ${r}000000; done
B byp-1500-line --path bypass --speed 100 --queues 16 --nic-threads 8 --size 1500 --load 100
B byp-q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
echo "steal jiffies over the trials: $(( $(steal) - s0 ))" >> $S
bash scripts/gpu-tests.sh $O/tests .bundle tests > $O/tests.log 2>&1; echo "tests rc=$?" >> $S
grep -E "^(PASS|FAIL)|PASSED|FAILED" $O/tests.log | head -20 >> $S
cd $O && tar -cJf results.tar.xz r tests && rm -rf r tests
