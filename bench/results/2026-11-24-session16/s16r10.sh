#!/bin/bash
# Session 16 run 10 (ae84eda): are bypass's tx_ring losses at 40 Mpps the VM's stalls? Rings of
# 4096 (twice the time to absorb a stall) against run 9's 2048, five trials each.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
steal() { awk '/^cpu /{print $9}' /proc/stat; }
P="--path bypass --speed 100 --flows 1024 --nic-threads 12 --burst 64 --queues 48 --rate-pps 40000000"
for i in 1 2 3 4 5; do for ring in 2048 4096; do s0=$(steal); B byp-q48-40-ring$ring-rep$i $P --rx-ring $ring --tx-ring $ring; echo "  steal $(( $(steal) - s0 ))" >> $S; done; done
cd $O && tar -cJf results.tar.xz r && rm -rf r
