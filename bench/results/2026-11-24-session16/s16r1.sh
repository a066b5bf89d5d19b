#!/bin/bash
# Session 16 run 1: does the NIC model scale with threads once groups stop writing the port's
# shared buffer count and line every poll? base = fdd2e5c, rx = group-held buffer credit,
# gnf = that + the line judged by the group's own last reservation.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
{ nproc; lscpu; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $O/machine.txt 2>&1
for t in 8 12 14; do for bin in gnf-base gnf-rx gnf; do for r in 40 60 80; do
  GNF=$bin B cal-$bin-t$t-$r --calibrate --speed 100 --queues 16 --size 64 --nic-threads $t --rate-pps ${r}000000
done; done; done
for bin in gnf-base gnf; do for r in 30 40 50; do
  GNF=$bin B byp-$bin-q48-$r --path bypass --speed 100 --queues 48 --nic-threads 12 --burst 64 --rx-ring 1024 --tx-ring 1024 --rate-pps ${r}000000
done; done
GNF=gnf B byp-q16-1pct --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1
GNF=gnf B byp-q16-1pct-rx --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1 --one-way rx
GNF=gnf B byp-q16-1pct-tx --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1 --one-way tx
cd $O && tar -cJf results.tar.xz r && rm -rf r
