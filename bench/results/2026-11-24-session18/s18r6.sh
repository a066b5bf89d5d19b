#!/bin/bash
# Session 18 run 6: the GPU agent's tx FIFOs a quarter of the port's tx buffer each (were an even share, 10 KiB with
# 16 queues). gnf-old (4ae4248) against gnf (this change), interleaved: l2fwd and the nids chain at 1500 B on bypass
# (16 queues, 8 NIC threads) near and at line rate; the agent's and bypass's GPU tests; then the harness's nids
# scenario on bypass alone at 512 and 1500 B with the new binary.
cd "$(dirname "$0")/.." && tar -xJf devrun18/b.tar.xz
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
source devrun18/common.sh
L="--speed 100 --size 1500 --queues 16 --nic-threads 8 --path bypass"
N="--config configs/nids-bench.toml $L"
for rep in 1 2; do for bin in gnf-old gnf; do
  GNF=$bin B l2fwd-$bin-line-r$rep $L --load 100
  GNF=$bin B nids-$bin-7mpps-r$rep $N --rate-pps 7000000
  GNF=$bin B nids-$bin-line-r$rep $N --load 100
done; done
timeout -k 5 120 gnf_gpu_tests --gtest_filter='*Bypass*:*GpuAgent*:*Rings*:*OneWay*:*GpuPaths*' > $R/gpu.log 2>&1; echo "gpu tests rc=$?" | tee -a $S
grep -E "PASSED|FAILED" $R/gpu.log | tail -5 | tee -a $S
timeout -k 5 250 python3 bench/run.py nids --gnf .bundle/bin/gnf --out $O/h --index $O/h/RESULTS.md --speed 100 --paths bypass \
  --sizes 512,1500 --queues 16 --nic-threads 8 --repetitions 1 --trial-s 1 --warmup-s 0.3 --resolution 5% > $R/harness.log 2>&1
echo "harness rc=$?" | tee -a $S; grep -E "^\| (512|1500) B" $O/h/*/report.md | head -4 | cut -c1-300 | tee -a $S
cd $O && tar -cJf results.tar.xz r h && rm -rf r h
