#!/bin/bash
# Session 19 run 1: GCM on tiles (gcm.h aes_gcm_lane, DeviceEspCipher::seal_tile, IpsecNfView::process_tile):
# the GPU test label (EspCipherOnGpu now per lanes-per-packet 1/4/16/32; IpsecGpuPaths runs process_tile on
# staged and bypass), then memcheck over the cipher's tests and synccheck over the tiled ones.
cd "$(dirname "$0")/.." && tar -xJf devrun19/b.tar.xz
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
source devrun19/common.sh
export GNF_GPU_TEST_FILTER='-L3FwdOnGpu.ForwardsAsTheCpuDoesOverARealRoutingTableUpdatedWhileMirrored'
timeout -k 5 270 scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E "PASS|FAIL" | tee -a $S
grep -hE "FAILED  \]|PASSED|ESP cipher on the GPU|Failure" $R/t/gpu_tests.log | head -12 | tee -a $S
timeout -k 5 170 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY|PASSED|FAILED|OK \]" $R/memcheck.log | tee -a $S
timeout -k 5 80 compute-sanitizer --tool synccheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*/1:*EspCipherOnGpu*/3' > $R/synccheck.log 2>&1; echo "synccheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY|PASSED|FAILED" $R/synccheck.log | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
