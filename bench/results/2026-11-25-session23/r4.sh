#!/bin/bash
# Session 23 run 4: the landed code (581d272, run 3's bundle) through scripts/gpu-tests.sh's tests
# stage (every GPU test, unit tests, the pcap through every path, the router on every path,
# conformance), then memcheck with the sanitize stage's filter (racecheck of GpuAgent.* ran in run 2).
cd "$(dirname "$0")/../../.." && tar -xJf devrun23/b3.tar.xz
bash scripts/gpu-tests.sh $OUT/tests .bundle tests 2>&1 | tail -30
source .bundle/env.sh; export PATH=$PWD/.bundle/bin:$PATH
filter='--gtest_filter=*GpuAgent*:*NfChainOnGpu*:*MemoryDomains*:*GpuClock.Tracking*:*Lpm4OnGpu*:*Lpm6OnGpu*:*AclOnGpu*:*AclNfOnGpu*:*EspCipherOnGpu*:*ReplayOnGpu*:*NidsOnGpu*'
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests "$filter:*L3FwdOnGpu.Forwards*" > $OUT/tests/memcheck.log 2>&1; echo "memcheck rc=$?"; tail -3 $OUT/tests/memcheck.log
cd $OUT && rm -f tests/*.pcap && tar -cJf tests.tar.xz tests && rm -rf tests
