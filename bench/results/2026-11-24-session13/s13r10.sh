#!/usr/bin/env bash
# Session 13 device run 10: the agent's tail check (RDT moves only forward, never past RDH) on the 300 B trial; the agent's GPU tests.
set -u
rm -rf .bundle && tar xJf devrun/bundle.tar.xz
source devrun/common.sh
for i in 1 2 3 4 5 6; do B tail-300-$i --path bypass --speed 100 --queues 16 --size 300 --rate-pps 12207031 --nic-threads 8 > /dev/null; if grep -q illegal $R/tail-300-$i.err; then echo "tail-300-$i ILLEGAL" | tee -a $S; else row $R/tail-300-$i.json tail-300-$i | cut -c1-120 | tee -a $S; fi; grep -h "DMA fault" $R/tail-300-$i.err | head -4 | tee -a $S; done
timeout -k 5 240 gnf_gpu_tests --gtest_filter='OneWay*:Rings*:Bypass*:GpuAgent*:GpuPaths*' > $R/gpu.log 2>&1; echo "gpu_tests rc=$?" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|DMA fault" $R/gpu.log | head -12 | tee -a $S
cd $R && tar czf $O/results.tgz .
