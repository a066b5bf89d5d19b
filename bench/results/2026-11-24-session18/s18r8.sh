#!/bin/bash
# Session 18 run 8: 32-bit big-endian loads and stores on the GPU as one 32-bit or two 16-bit accesses where the
# address allows (src/wire/bytes.h), instead of byte by byte: the GPU tests (every NF's device code uses them),
# memcheck over the ESP and NF-chain tests, then gnf-esp-bench before (gnf-esp-bench-old, ce161e7) and after.
cd "$(dirname "$0")/.." && tar -xJf devrun18/b.tar.xz
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
source devrun18/common.sh
export GNF_GPU_TEST_FILTER='-L3FwdOnGpu.ForwardsAsTheCpuDoesOverARealRoutingTableUpdatedWhileMirrored'
timeout -k 5 200 scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL" | tee -a $S
grep -hE "FAILED  \]|PASSED" $R/t/gpu_tests.log | head -8 | tee -a $S
timeout -k 5 120 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*Esp*:*Ipsec*:*NfChainOnGpu*:*NidsOnGpu.Tiles*' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.log | tee -a $S
for rep in 1 2; do for b in gnf-esp-bench-old gnf-esp-bench; do
  timeout -k 5 90 $b --cpu-seconds 0.05 --json $R/$b-$rep.json > $R/$b-$rep.log 2>&1; echo "$b rep $rep rc=$?" | tee -a $S
  grep -iE "gcm|cbc" $R/$b-$rep.log | head -12 >> $S
done; done
cd $O && tar -cJf results.tar.xz r && rm -rf r
