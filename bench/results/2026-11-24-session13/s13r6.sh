#!/usr/bin/env bash
# Session 13 device run 6: which setting the illegal address (bypass, 300 B, 16 queues, 12.2 Mpps) needs.
set -u
source devrun/common.sh
T() { local name=$1; shift; for i in 1 2 3; do B $name-$i --path bypass --speed 100 --nic-threads 8 "$@" > /dev/null; if grep -q illegal $R/$name-$i.err; then echo "$name-$i ILLEGAL" | tee -a $S; else row $R/$name-$i.json "$name-$i" | cut -c1-160 | tee -a $S; fi; done; }
T base --queues 16 --size 300 --rate-pps 12207031
T head --queues 16 --size 300 --rate-pps 12207031 --tx-completion head
T wait --queues 16 --size 300 --rate-pps 12207031 --tx-full wait
T q4 --queues 4 --size 300 --rate-pps 6000000
T s256 --queues 16 --size 256 --rate-pps 12207031
T s320 --queues 16 --size 320 --rate-pps 12207031
T r3 --queues 16 --size 300 --rate-pps 3000000
cd $R && tar czf $O/results.tgz .
