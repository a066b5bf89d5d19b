#!/bin/bash
# Session 24 run 9, issue 11: bypass kernels built per NF kind (branch wip/chain-kind-kernels: a
# chain of one kind gets a kernel holding that NF's code alone), as gnf, against gnf-r7 (400e355),
# side by side; then every GPU test.
cd "$(dirname "$0")/../../.." && tar -xJf devrun24/b7.tar.xz
source bench/results/2026-11-25-session22/common.sh
C="--speed 100 --nic-threads 8 --load 1 --path bypass --queues 16"
for g in gnf-r7 gnf; do GNF=$g B $g-q16-rt $C --size 64; GNF=$g B $g-q16-rt1500 $C --size 1500; done
timeout 150 gnf_gpu_tests 2>&1 | tail -4
