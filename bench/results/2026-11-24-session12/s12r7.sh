#!/usr/bin/env bash
# Session 12 device run 7: the whole tests stage after merging acl, ipsec, conformance.
set -u
source devrun/common.sh
start=$(date +%s)
timeout -k 5 570 bash scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
echo "tests stage took $(( $(date +%s) - start )) s" | tee -a $S
grep -hE "^one-way|Failure|FAILED  \]" $R/t/gpu_tests.log | head -12 | tee -a $S
tail -15 $R/t/conformance.log 2>/dev/null | tee -a $S
cd $R && tar czf $O/results.tgz --exclude='*.pcap' .
