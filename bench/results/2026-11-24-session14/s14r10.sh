#!/usr/bin/env bash
# Session 14 device run 10 (exploratory): where bypass's wire->GPU latency goes (one-way rx at 1 % load with 2, 8
# and 16 NIC-model threads), and the nids chain (configs/nids-pcap.toml, clean generator traffic) on each path.
set -u
rm -rf .bundle && tar xJf devrun14/bundle.tar.xz
source devrun14/common.sh
for t in 2 8 16; do B ow-rx-q16-t$t --path bypass --speed 100 --queues 16 --nic-threads $t --load 1 --one-way rx; done
B ow-tx-q16-t8 --path bypass --speed 100 --queues 16 --nic-threads 8 --load 1 --one-way tx
B ow-rx-q4-t2-b8 --path bypass --speed 100 --queues 4 --nic-threads 2 --load 1 --one-way rx --burst 8
for p in cpu staged bypass; do for sz in 64 1500; do
  B nids-$p-$sz --config devrun14/nids-bench.toml --path $p --speed 100 --queues 16 --nic-threads 8 --driver-threads 4 --size $sz --load 10
done; done
cd $R && tar czf $O/results.tgz .
