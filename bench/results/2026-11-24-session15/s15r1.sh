#!/usr/bin/env bash
# Session 15 device run 1: the lock-free replay window (GPU tests, memcheck), then the IPsec tunnel (seal + open,
# AES-128-GCM, 1420 B, 100 G offered at line rate) and the nids chain (1500 B) per path, bypass with bursts
# (threads per queue's block) of 32, 256 and 1024.
set -u
rm -rf .bundle && tar xJf bench/results/2026-11-24-session15/bundle.tar.xz
source bench/results/2026-11-24-session15/common.sh
timeout -k 5 300 gnf_gpu_tests --gtest_filter='ReplayOnGpu*:EspCipherOnGpu*:IpsecGpuPaths*:NidsGpuPaths*' > $R/gpu.log 2>&1; echo "gpu_tests rc=$?" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|OK \]" $R/gpu.log | head -20 | tee -a $S
timeout -k 5 120 compute-sanitizer --tool memcheck gnf_gpu_tests --gtest_filter='ReplayOnGpu*' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep -E "ERROR SUMMARY" $R/memcheck.log | tee -a $S
T=.bundle/configs/ipsec-bench-gcm-tunnel.toml
E=.bundle/configs/ipsec-bench-gcm.toml
C="--speed 100 --queues 16 --nic-threads 8 --size 1420 --load 100"
B tun-cpu $C --config $T --path cpu --driver-threads 8
B tun-staged-zc $C --config $T --path staged --driver-threads 4
B tun-staged-copy $C --config $T --path staged --driver-threads 4 --staged-mode copy
B tun-byp-b32 $C --config $T --path bypass
B tun-byp-b256 $C --config $T --path bypass --burst 256 --rx-ring 1024 --tx-ring 1024
B tun-byp-b1024 $C --config $T --path bypass --burst 1024 --rx-ring 4096 --tx-ring 4096
B tun-byp-q64-b256 --speed 100 --queues 64 --nic-threads 8 --size 1420 --load 100 --config $T --path bypass --burst 256 --rx-ring 1024 --tx-ring 1024
B tun-byp-q32-b1024 --speed 100 --queues 32 --nic-threads 8 --size 1420 --load 100 --config $T --path bypass --burst 1024 --rx-ring 4096 --tx-ring 4096
B enc-byp-b1024 $C --config $E --path bypass --burst 1024 --rx-ring 4096 --tx-ring 4096
B tun-byp-b1024-1pct --speed 100 --queues 16 --nic-threads 8 --size 1420 --load 1 --config $T --path bypass --burst 1024 --rx-ring 4096 --tx-ring 4096
N="--config bench/results/2026-11-24-session15/nids-bench.toml --speed 100 --queues 16 --nic-threads 8 --size 1500 --load 100"
B nids-cpu $N --path cpu --driver-threads 8
B nids-byp-b32 $N --path bypass
B nids-byp-b256 $N --path bypass --burst 256 --rx-ring 1024 --tx-ring 1024
B nids-byp-b1024 $N --path bypass --burst 1024 --rx-ring 4096 --tx-ring 4096
cd $R && tar czf $O/results.tgz .
