#!/bin/bash
# Session 18 run 5: what limits TCP through gnf (issue 15 asks for within 2x of a direct veth pair): the netns
# TCP test (iperf3 10 s, direct veth measured first, hosts' default offloads) on cpu and bypass with the NIC-model
# threads spinning or backing off, one or two of them, and for cpu one or two driver threads (GNF_TEST_ARGS).
cd "$(dirname "$0")/.." && tar -xJf devrun18/b.tar.xz && tar -xJf devrun18/netns.tar.xz -C /tmp
source devrun18/common.sh
D=/tmp/netns18; export PATH=$D/bin:$PATH PYTHONPATH=$D/py
run() {  # PATH ARGS...
  local p=$1; shift
  GNF_TEST_PATH=$p GNF_TEST_ARGS="$*" timeout -k 5 60 python3 -m pytest -s -q -p no:cacheprovider --basetemp=/tmp/pt5 \
    tests/e2e/test_router_netns.py -k tcp_crosses --gnf=$PWD/.bundle/bin/gnf > $R/tcp.txt 2>&1
  echo "[$p $*] $(grep -o 'iperf3 TCP.*' $R/tcp.txt) $(tail -1 $R/tcp.txt)" | tee -a $S
  f=$(find /tmp/pt5 -name gnf.stderr | head -1); [ -n "$f" ] && tail -4 $f >> $R/stderr-$p-$(echo $* | tr ' ' '_').txt
}
run cpu
run cpu --idle spin
run cpu --idle spin --nic-threads 2
run cpu --idle spin --nic-threads 2 --driver-threads 2
run bypass
run bypass --idle spin
run bypass --idle spin --nic-threads 2
cd $O && tar -cJf results.tar.xz r && rm -rf r
