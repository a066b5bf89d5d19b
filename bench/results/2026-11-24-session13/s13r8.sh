#!/usr/bin/env bash
# Session 13 device run 8: everything merged (headroom, ipsec NF, GPU ESP cipher, nids, agent DMA check):
# the tests stage, the sanitize stage, and the 300 B trial that met DMA faults.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
timeout -k 5 330 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED" $R/t/gpu_tests.log | head -12 | tee -a $S
timeout -k 5 200 bash scripts/gpu-tests.sh $R/s .bundle sanitize 2>&1 | grep -E "PASS|FAIL|ERROR SUMMARY|RACECHECK SUMMARY" | tee -a $S
for i in 1 2 3; do B chk-300-$i --path bypass --speed 100 --queues 16 --size 300 --rate-pps 12207031 --nic-threads 8 > /dev/null; if grep -q illegal $R/chk-300-$i.err; then echo "chk-300-$i ILLEGAL" | tee -a $S; else row $R/chk-300-$i.json chk-300-$i | cut -c1-120 | tee -a $S; fi; grep -h "DMA fault" $R/chk-300-$i.err | head -3 | tee -a $S; done
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
