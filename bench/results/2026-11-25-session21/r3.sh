#!/bin/bash
# Session 21 run 3: intel-ipsec-mb's code paths (GNF_IPSEC_MB_ARCH) on the H100 host, 1-16 threads, AES-128-GCM
# and CBC + HMAC-SHA1 at 1420 B, 128 packets a thread: does the AVX-512 path alone fail to scale (run 2)?
cd "$(dirname "$0")/../../.." && tar -xJf devrun21/b3.tar.xz
source bench/results/2026-11-25-session21/common.sh
for arch in avx512 avx2 sse; do
  for t in 1 4 16; do
    for alg in aes-128-gcm aes-128-cbc+hmac-sha1-96; do
      GNF_IPSEC_MB_ARCH=$arch timeout -k 5 30 gnf-esp-bench --no-gpu --algorithm $alg --size 1420 --threads $t \
        --cpu-packets 128 --cpu-seconds 0.2 --json $R/arch-$arch-$t-$alg.json 2>/dev/null | grep -E "^aes" | sed "s/^/$arch threads $t: /" | tee -a $S
    done
  done
done
cd $O && tar -cJf results.tar.xz r && rm -rf r
