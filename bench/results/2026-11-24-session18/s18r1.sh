#!/bin/bash
# Session 18 run 1: the GPU test suite on main after the idle/placement merge and the NIC model's
# catch-up hold (370e418); then nids at 1500 B on bypass at fixed rates (do rx-buffer drops remain?),
# issue 11's l2fwd table (64 B, 4 queues, 4 NIC threads) on cpu and bypass, and bypass with each idle mode.
cd "$(dirname "$0")/.." && tar -xJf devrun18/b.tar.xz
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
source devrun18/common.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
export GNF_GPU_TEST_FILTER='-L3FwdOnGpu.ForwardsAsTheCpuDoesOverARealRoutingTableUpdatedWhileMirrored'
timeout -k 5 330 scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | tee -a $S
grep -hE "FAILED  \]|PASSED" $R/t/gpu_tests.log | head -12 | tee -a $S
N="--config configs/nids-bench.toml --speed 100 --queues 16 --nic-threads 8 --size 1500"
for rep in 1 2; do for r in 1000000 2000000 4000000 6000000; do B nids-$r-r$rep $N --path bypass --rate-pps $r; done; done
L="--speed 100 --size 64 --queues 4 --nic-threads 4"
for r in 1000000 3000000 6000000; do for p in cpu bypass; do B l2fwd-$p-$r $L --path $p --rate-pps $r; done; done
for idle in spin backoff; do B l2fwd-bypass-1000000-idle-$idle $L --path bypass --rate-pps 1000000 --idle $idle; done
cd $O && tar -cJf results.tar.xz r && rm -rf r
