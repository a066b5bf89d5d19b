#!/usr/bin/env bash
# Session 15 device run 2: NF blocks (driver.nf_blocks): the GPU tests of the paths (the new variant "bypass, 3 NF
# blocks a queue" runs in every pcap, ipsec and nids path test), the sanitizers' list, then the ipsec tunnel and
# the nids chain on bypass with 0-7 NF blocks a queue.
set -u
rm -rf .bundle && tar xJf bench/results/2026-11-24-session15/bundle.tar.xz
source bench/results/2026-11-24-session15/common.sh
timeout -k 5 300 gnf_gpu_tests --gtest_filter='GpuPaths*:IpsecGpuPaths*:NidsGpuPaths*:Bypass*:Rings*:ReplayOnGpu*:GpuAgent*' > $R/gpu.log 2>&1; echo "gpu_tests rc=$?" | tee -a $S
grep -hE "Failure|FAILED  \]|PASSED|OK \]" $R/gpu.log | head -30 | tee -a $S
T=.bundle/configs/ipsec-bench-gcm-tunnel.toml
C="--speed 100 --queues 16 --nic-threads 8 --size 1420 --load 100 --config $T"
R256="--burst 256 --rx-ring 1024 --tx-ring 1024"
B tun-b256-nf0 $C --path bypass $R256
B tun-b256-nf1 $C --path bypass $R256 --nf-blocks 1
B tun-b256-nf3 $C --path bypass $R256 --nf-blocks 3
B tun-b256-nf6 $C --path bypass $R256 --nf-blocks 6
B tun-b1024-nf3 $C --path bypass --burst 1024 --rx-ring 4096 --tx-ring 4096 --nf-blocks 3
B tun-b256-nf3-1pct --speed 100 --queues 16 --nic-threads 8 --size 1420 --load 1 --config $T --path bypass $R256 --nf-blocks 3
B tun-cpu-b256 $C --path cpu --driver-threads 8 $R256
N="--config bench/results/2026-11-24-session15/nids-ndr.toml --speed 100 --queues 16 --nic-threads 8 --size 1500 --load 100"
B nids-cpu $N --path cpu --driver-threads 8
B nids-b256-nf0 $N --path bypass $R256
B nids-b256-nf3 $N --path bypass $R256 --nf-blocks 3
B nids-b256-nf6 $N --path bypass $R256 --nf-blocks 6
B l2fwd-64-nf3-1pct --speed 100 --queues 16 --nic-threads 8 --load 1 --path bypass --nf-blocks 3
B l2fwd-64-nf0-1pct --speed 100 --queues 16 --nic-threads 8 --load 1 --path bypass
timeout -k 5 250 compute-sanitizer --tool memcheck --error-exitcode 1 gnf_gpu_tests --gtest_filter='*ReplayOnGpu*:*EspCipherOnGpu*:*NidsOnGpu*' > $R/memcheck.log 2>&1; echo "memcheck rc=$?" | tee -a $S
grep "ERROR SUMMARY" $R/memcheck.log | tee -a $S
cd $R && tar czf $O/results.tgz .
