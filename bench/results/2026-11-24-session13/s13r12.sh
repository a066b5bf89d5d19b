#!/usr/bin/env bash
# Session 13 device run 12: congested bypass at 300 B (14-20 Mpps offered), where the DMA faults came: does the agent's RDT check fire?
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
for r in 14 16 18 20; do for i in 1 2; do n=c300-$r-$i; B $n --path bypass --speed 100 --queues 16 --size 300 --rate-pps ${r}000000 --nic-threads 8 > /dev/null; if grep -q illegal $R/$n.err; then echo "$n ILLEGAL" | tee -a $S; else row $R/$n.json $n | cut -c1-100 | tee -a $S; fi; grep -h "DMA fault" $R/$n.err | head -4 | tee -a $S; done; done
cd $R && tar czf $O/results.tgz .
