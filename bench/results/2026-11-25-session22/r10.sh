#!/bin/bash
# Session 22 run 10: racecheck over gpu-tests.sh's sanitize filter, the ESP cipher's tests apart
# (run 9's racecheck ran out of its 200 s inside them: 43 s each under racecheck).
cd "$(dirname "$0")/../../.." && tar -xJf devrun22/b8.tar.xz
source .bundle/env.sh
f='*GpuAgent*:*NfChainOnGpu*:*MemoryDomains*:*GpuClock.Tracking*:*Lpm4OnGpu*:*Lpm6OnGpu*:*AclOnGpu*:*AclNfOnGpu*:*ReplayOnGpu*:*NidsOnGpu*'
timeout 300 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests --gtest_filter="$f" > $OUT/racecheck.log 2>&1; echo "racecheck rc=$?"
grep -E "^\[  (PASSED|FAILED)|RACECHECK SUMMARY|tests? from" $OUT/racecheck.log | tail -4
timeout 240 compute-sanitizer --tool racecheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*EspCipherOnGpu*/0:*EspCipherOnGpu*/1' > $OUT/racecheck-esp.log 2>&1; echo "racecheck esp rc=$?"
grep -E "^\[  (PASSED|FAILED)|RACECHECK SUMMARY|tests? from|^\[       OK" $OUT/racecheck-esp.log | tail -6
