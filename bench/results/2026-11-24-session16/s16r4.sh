#!/bin/bash
# Session 16 run 4: keeping the other threads off the poll cores, or not (gnf-nokeep = e5856c3
# without it), side by side; the VM's steal time and where threads run.
cd "$(dirname "$0")/.." && tar -xJf devrun16/bundle.tar.xz
source devrun16/common.sh
steal() { awk '/^cpu /{print "steal_jiffies", $9}' /proc/stat; }
snap() { sleep 0.8; ps -eLo tid,psr,pcpu,comm --sort=-pcpu | head -40 > $R/$1.ps; }
for i in 1 2 3; do for bin in gnf-nokeep gnf; do
  steal >> $R/steal-$bin-$i.txt; snap cal-$bin-$i &
  GNF=$bin B cal-$bin-$i --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 12 --rate-pps 60000000
  wait; steal >> $R/steal-$bin-$i.txt; echo "$(cat $R/steal-$bin-$i.txt | tr '\n' ' ')" >> $S
done; done
for i in 1 2; do for bin in gnf-nokeep gnf; do
  GNF=$bin B byp-$bin-$i --path bypass --speed 100 --queues 48 --flows 1024 --nic-threads 12 --burst 64 --rx-ring 2048 --tx-ring 2048 --rate-pps 40000000
done; done
for bin in gnf-nokeep gnf; do GNF=$bin B cal-$bin-t8-40 --calibrate --speed 100 --queues 16 --size 64 --flows 1024 --nic-threads 8 --rate-pps 40000000; done
cd $O && tar -cJf results.tar.xz r && rm -rf r
