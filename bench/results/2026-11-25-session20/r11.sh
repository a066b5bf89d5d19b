#!/bin/bash
# Session 20 run 11: OpenSSL on the H100 host, streaming (openssl speed, the system's libcrypto) against
# gnf-esp-bench's per-packet ESP calls (the bundled libcrypto, and the system's), AES-128-GCM at 1420 B.
cd "$(dirname "$0")/.." && tar -xJf devrun20/b6.tar.xz
openssl version; grep -m1 "model name" /proc/cpuinfo; grep -m1 -o -w "vaes\|avx512f\|vpclmulqdq" /proc/cpuinfo | sort -u | tr '\n' ' '; echo
openssl speed -evp aes-128-gcm -bytes 1420 -seconds 2 2>&1 | tail -1
openssl speed -evp aes-128-gcm -bytes 1420 -seconds 2 -multi 16 2>&1 | tail -1
( source .bundle/env.sh; ldd .bundle/bin/gnf-esp-bench | grep crypto; timeout 60 .bundle/bin/gnf-esp-bench --no-gpu --algorithm aes-128-gcm --algorithm aes-128-cbc+hmac-sha1-96 --size 1420 --cpu-seconds 1 --json $OUT/bundled.json )
rm -f .bundle/lib/libcrypto.so* .bundle/lib/libssl.so*
( source .bundle/env.sh; ldd .bundle/bin/gnf-esp-bench | grep crypto; timeout 60 .bundle/bin/gnf-esp-bench --no-gpu --algorithm aes-128-gcm --algorithm aes-128-cbc+hmac-sha1-96 --size 1420 --cpu-seconds 1 --json $OUT/system.json )
