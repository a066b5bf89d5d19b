#!/bin/bash
# Session 25 run 2, issue 11: (1) can the host map GPU memory here (gdrcopy, nvidia-peermem, BAR1)?
# A NIC model whose wire side wrote frames straight into GPU memory would save the GPU agent's two
# PCIe read round trips per rx frame. (2) bypass l2fwd, 64 B, 48 rings at 40 and 44 Mpps with 11,
# 13 and 14 NIC-model threads, twice: how many threads the model needs there (run 1: model-bound
# with 11). Build: run 1's gnf (434098e).
cd "$(dirname "$0")/../../.." && tar -xJf devrun25/b1.tar.xz
{ ls -la /dev | grep -i -E "gdr|nvidia"; lsmod | grep -i -E "nvidia|gdr|peermem"; cat /proc/driver/nvidia/version;
  nvidia-smi -q | grep -i -A3 "bar1"; nproc; lscpu | grep -i -E "thread|core|socket|model name|numa"; } > $OUT/probe.txt 2>&1
cat $OUT/probe.txt
source bench/results/2026-11-25-session22/common.sh
T="--speed 100 --path bypass --size 64 --queues 48"
for rep in 1 2; do for n in 11 13 14; do for r in 40 44; do
  B gnf-q48-t$n-${r}M-$rep $T --nic-threads $n --rate-pps ${r}000000
done; done; done
cd $O && tar -cJf results.tar.xz r summary.txt && rm -rf r
