#!/bin/bash
# Session 16 run 3 (e5856c3): the GPU tests on the scaled model, then the model with the other
# threads kept off the poll cores: calibrate at 60-70 Mpps, bypass 40-50 Mpps, 1 % latency.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
bash scripts/gpu-tests.sh $O/tests .bundle tests > $O/tests.log 2>&1; echo "tests rc=$?" >> $S
grep -E "^(PASS|FAIL)|PASSED|FAILED" $O/tests.log | head -20 >> $S
for i in 1 2 3; do B cal-f1024-t12-60-rep$i --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 12 --rate-pps 60000000; done
for i in 1 2; do B cal-f64-t12-60-rep$i --calibrate --speed 100 --queues 16 --size 64 --nic-threads 12 --rate-pps 60000000; done
for i in 1 2; do B cal-f1024-t12-70-rep$i --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 12 --rate-pps 70000000; done
B cal-f1024-t14-80 --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 14 --rate-pps 80000000
for r in 40 45 50; do B byp-f1024-q64-$r --path bypass --speed 100 --queues 64 --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048 --rate-pps ${r}000000; done
B byp-f1024-q48-40 --path bypass --speed 100 --queues 48 --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048 --rate-pps 40000000
B byp-q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
cd $O && tar -cJf results.tar.xz r tests && rm -rf r tests
