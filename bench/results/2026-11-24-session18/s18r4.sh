#!/bin/bash
# Session 18 run 4: issue 15's netns tests on the H100 with the hosts' default offloads (no ethtool step):
# test_router_netns.py (ping, UDP traceroute, iperf3 TCP and UDP, routes through netlink) and
# test_router_local_netns.py (TCP/UDP services on gnf's own addresses answered by the kernel through TAP),
# on bypass, then cpu; then gnf_gpu_tests on the merged tree (ctl, TAP, AF_PACKET offloads merged). Tools carried in devrun18/netns.tar.xz (Debian 12's ip/ss/ping/traceroute/iperf3 run
# through the device's ld.so; pytest wheels), built as bench/results/2026-11-23-h100-session9/netns-bypass/prep.sh.
cd "$(dirname "$0")/.." && tar -xJf devrun18/b.tar.xz && tar -xJf devrun18/netns.tar.xz -C /tmp
source devrun18/common.sh
D=/tmp/netns18; export PATH=$D/bin:$PATH PYTHONPATH=$D/py
{ uname -r; nvidia-smi -L; ls -la /dev/net/tun; which ip iperf3; } > $R/env.txt 2>&1
for p in bypass cpu; do
  GNF_TEST_PATH=$p timeout -k 5 $([ $p = bypass ] && echo 200 || echo 150) python3 -m pytest -v -s -p no:cacheprovider --basetemp=/tmp/pt-$p \
     tests/e2e/test_router_netns.py tests/e2e/test_router_local_netns.py --gnf=$PWD/.bundle/bin/gnf > $R/pytest-$p.txt 2>&1
  echo "rc=$?" >> $R/pytest-$p.txt
  grep -E "PASSED|FAILED|SKIPPED|ERROR|passed|failed|iperf3|ping A|links|rc=" $R/pytest-$p.txt | tail -40 | tee -a $S
done
export GNF_GPU_TEST_FILTER='-L3FwdOnGpu.ForwardsAsTheCpuDoesOverARealRoutingTableUpdatedWhileMirrored'
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
timeout -k 5 190 scripts/gpu-tests.sh $R/t .bundle tests 2>&1 | grep -E 'PASS|FAIL' | tee -a $S
cd $O && tar -cJf results.tar.xz r && rm -rf r
