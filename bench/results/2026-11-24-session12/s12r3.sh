#!/usr/bin/env bash
# Session 12 device run 3: the PCIe probe, then the whole tests stage on the final code.
set -u
source devrun/common.sh
timeout 120 gnf-pcie-probe 20000 > $R/pcie-probe.jsonl 2>&1; echo "probe rc=$?" | tee -a $S
python3 bench/pcie/table.py $R/pcie-probe.jsonl | tee -a $S
timeout -k 5 430 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]" $R/t/gpu_tests.log | head -12 | tee -a $S
B byp-q16-10 --path bypass --speed 100 --queues 16 --nic-threads 8 --rate-pps 10000000
cd $R && tar czf $O/results.tgz --exclude='*.pcap' .
