#!/bin/bash
# Session 16 run 11: bypass 40 Mpps, ae84eda (gnf: the agent's ports admit behind the wire only
# while their FIFOs hold less than a burst) against gnf-nogate (670b3e9's rule: ungated), interleaved.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
steal() { awk '/^cpu /{print $9}' /proc/stat; }
P="--path bypass --speed 100 --flows 1024 --nic-threads 12 --burst 64 --queues 48 --rate-pps 40000000 --rx-ring 2048 --tx-ring 2048"
for i in 1 2 3 4 5; do for bin in gnf gnf-nogate; do s0=$(steal); GNF=$bin B byp-$bin-rep$i $P; echo "  steal $(( $(steal) - s0 ))" >> $S; done; done
cd $O && tar -cJf results.tar.xz r && rm -rf r
