#!/bin/bash
# Session 16 run 2: the model with groups dealt by flows (up to 2 per thread), the reorder
# tracker's in-order path kept in the tracker, fewer clock reads; base = fdd2e5c.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
for f in 64 1024; do for t in 8 12; do for r in 40 50 60 70; do
  B cal-f$f-t$t-$r --calibrate --speed 100 --queues 16 --size 64 --flows $f --nic-threads $t --rate-pps ${r}000000
done; done; done
GNF=gnf-base B cal-base-f1024-t12-60 --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 12 --rate-pps 60000000
for i in 1 2 3; do B cal-f1024-t12-60-rep$i --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 12 --rate-pps 60000000; done
for q in 48 64; do for r in 40 45; do
  B byp-f1024-q$q-$r --path bypass --speed 100 --queues $q --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048 --rate-pps ${r}000000
done; done
GNF=gnf-base B byp-base-f1024-q48-40 --path bypass --speed 100 --queues 48 --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048 --rate-pps 40000000
B byp-q16-1pct-tx --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1 --size 128 --one-way tx
B byp-q16-1pct-rx128 --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1 --size 128 --one-way rx
B byp-q16-1pct-128 --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1 --size 128
cd $O && tar -cJf results.tar.xz r && rm -rf r
