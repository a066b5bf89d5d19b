#!/usr/bin/env bash
# Session 13 device run 7: the illegal address with the agent's DMA checks (diagnostic build); the
# tests stage after merging headroom, the ipsec NF and the GPU ESP cipher; gnf-esp-bench.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
for i in 1 2 3 4 5 6; do B chk-300-$i --path bypass --speed 100 --queues 16 --size 300 --rate-pps 12207031 --nic-threads 8 > /dev/null; if grep -q illegal $R/chk-300-$i.err; then echo "chk-300-$i ILLEGAL" | tee -a $S; else row $R/chk-300-$i.json chk-300-$i | cut -c1-120 | tee -a $S; fi; grep -h "DMA fault" $R/chk-300-$i.err | head -3 | tee -a $S; done
timeout -k 5 300 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL|step" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|EspCipher" $R/t/gpu_tests.log | head -12 | tee -a $S
timeout -k 5 150 gnf-esp-bench --json $R/esp_bench.json > $R/esp_bench.txt 2>&1; echo "esp bench rc=$?" | tee -a $S
cat $R/esp_bench.txt | tail -40 | tee -a $S
cd $R && tar czf $O/results.tgz --exclude='*.pcap' --exclude='conformance' .
