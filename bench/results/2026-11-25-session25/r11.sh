#!/bin/bash
# Session 25 run 11, issue 11: is the GPU agent at 300 B slowed by how much pinned memory its reads
# sweep? Every rx FIFO can hold the port's whole on-NIC buffer (640 KiB of bytes with a 512 KiB
# buffer), so 96 FIFOs rotate through ~60 MiB. bypass l2fwd, 300 B at 100 G, 48 rings, 1024 flows,
# 14 NIC-model threads, at 30 and 35 Mpps, with the default 512 KiB buffer against 128 KiB
# (run11/*.toml), twice. Build: b1091e4.
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b3.tar.xz
source bench/results/2026-11-25-session22/common.sh
C=bench/results/2026-11-25-session25/run11
T="--speed 100 --path bypass --size 300 --queues 48 --flows 1024 --nic-threads 14"
for rep in 1 2; do for kib in 512 128; do for r in 30 35; do
  B rxbuf$kib-${r}M-$rep $T --config $C/l2fwd-rxbuf$kib.toml --rate-pps ${r}000000
done; done; done
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
