#!/bin/bash
# Session 16 run 9 (ae84eda): bypass 64 B at 40 and 45 Mpps, five trials each, as run 6.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
steal() { awk '/^cpu /{print $9}' /proc/stat; }
P="--path bypass --speed 100 --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048 --queues 48"
for i in 1 2 3 4 5; do for r in 40 45; do s0=$(steal); B byp-q48-$r-rep$i $P --rate-pps ${r}000000; echo "  steal $(( $(steal) - s0 ))" >> $S; done; done
cd $O && tar -cJf results.tar.xz r
