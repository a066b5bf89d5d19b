#!/usr/bin/env bash
# Session 15 device run 7: the final GPU code (all of session 15 merged): the whole GPU test suite, the bundled pcap
# and the router's conformance table on every path (gpu-tests.sh tests; its unit_tests step fails here by design:
# gnf_unit_tests was left out of the bundle to fit the carry, and runs on the build machine), memcheck over the
# NF kernels; then the nids bench chain (2,000 rules, 1500 B, line rate) on bypass with 0 and 3 NF blocks a queue.
set -u
rm -rf .bundle && tar xJf bench/results/2026-11-24-session15/bundle.tar.xz
source bench/results/2026-11-24-session15/common.sh
timeout -k 5 470 scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
grep -hE "FAILED  \]|PASSED" $R/t/gpu_tests.log | head -8 | tee -a $S
timeout -k 5 60 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*NfChainOnGpu*:*ReplayOnGpu*:*AclNfOnGpu*' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep "ERROR SUMMARY" $R/memcheck.log | tee -a $S
N="--config .bundle/configs/nids-bench.toml --speed 100 --queues 16 --nic-threads 8 --size 1500 --load 100 --path bypass"
B nidsb-nf0 $N
B nidsb-nf3 $N --nf-blocks 3
cd $R && tar czf $O/results.tgz --exclude='*.pcap' .
