#!/bin/bash
# Session 17 run 2: the nids bench chain (configs/nids-bench.toml: 2,000 rules, 1500 B, 100 G line rate offered,
# 16 queues, 8 NIC threads), this session's gnf (NF tiles) against session 16's (gnf-s16, a thread per packet),
# interleaved, on bypass with 0, 3 and 7 NF blocks a queue, then staged (copy) and cpu (4 driver threads) once each.
cd "$(dirname "$0")/.." && tar -xJf devrun17/b.tar.xz
source devrun17/common.sh
N="--config .bundle/configs/nids-bench.toml --speed 100 --queues 16 --nic-threads 8 --size 1500 --load 100"
for rep in 1 2; do
  for nf in 0 3 7; do
    for bin in gnf gnf-s16; do GNF=$bin B nids-$bin-nf$nf-r$rep $N --path bypass --nf-blocks $nf; done
  done
done
for bin in gnf gnf-s16; do GNF=$bin B nids-$bin-staged $N --path staged; done
GNF=gnf B nids-gnf-cpu $N --path cpu --driver-threads 4
cd $O && tar -cJf results.tar.xz r && rm -rf r
