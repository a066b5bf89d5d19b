#!/bin/bash
# Session 16 run 6 (the agent's catch-up gated too): bypass 40-50 Mpps with repetitions, cpu and
# staged beside it at 40 Mpps, calibrate at 60 once more; then the GPU tests.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
steal() { awk '/^cpu /{print $9}' /proc/stat; }
s0=$(steal)
P="--path bypass --speed 100 --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048"
for r in 40 45 50; do for i in 1 2 3; do B byp-q48-$r-rep$i $P --queues 48 --rate-pps ${r}000000; done; done
for i in 1 2; do B byp-q64-50-rep$i $P --queues 64 --rate-pps 50000000; done
B cpu-q48-40 --path cpu --speed 100 --flows 1024 --nic-threads 12 --queues 48 --burst 64 --rx-ring 2048 --tx-ring 2048 --rate-pps 40000000
B staged-q48-40 --path staged --speed 100 --flows 1024 --nic-threads 12 --queues 48 --burst 64 --rx-ring 2048 --tx-ring 2048 --rate-pps 40000000
for i in 1 2; do B cal-t12-60-rep$i --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 12 --rate-pps 60000000; done
B byp-1500-line-q32 --path bypass --speed 100 --queues 32 --nic-threads 8 --size 1500 --load 100 --tx-ring 2048 --rx-ring 2048
echo "steal jiffies over the trials: $(( $(steal) - s0 ))" >> $S
bash scripts/gpu-tests.sh $O/tests .bundle tests > $O/tests.log 2>&1; echo "tests rc=$?" >> $S
grep -E "^(PASS|FAIL)|PASSED|FAILED" $O/tests.log | head -20 >> $S
cd $O && tar -cJf results.tar.xz r tests && rm -rf r tests
