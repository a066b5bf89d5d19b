#!/bin/bash
# Device run: test_router_netns.py on bypass (then staged, then cpu if time allows), tools carried.
cd "$(dirname "$0")/.."
source .bundle/env.sh
D=$PWD/.netns-gpu
export PATH=$D/bin:$PATH PYTHONPATH=$D/py
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
{ uname -a; cat /etc/os-release | head -2; nvidia-smi -L; python3 --version; which ip ping traceroute iperf3 ss;
  ip -V; iperf3 -v | head -1; ls /sys/fs/bpf 2>&1 | head -2; } > $OUT/env.txt 2>&1
for p in bypass staged cpu; do
  GNF_TEST_PATH=$p timeout ${BUDGET_S:-150} python3 -m pytest -v -s -p no:cacheprovider --basetemp=/tmp/pt-$p \
     $D/tests/e2e/test_router_netns.py --gnf=$PWD/.bundle/bin/gnf > $OUT/pytest-$p.txt 2>&1
  echo "rc=$?" >> $OUT/pytest-$p.txt
  f=$(find /tmp/pt-$p -name gnf.json | head -1); [ -n "$f" ] && cp $f $OUT/gnf-$p.json
  f=$(find /tmp/pt-$p -name gnf.stderr | head -1); [ -n "$f" ] && tail -c 200000 $f > /tmp/gnf-$p.stderr
  tail -25 $OUT/pytest-$p.txt
done
tar -C /tmp -czf $OUT/gnf-stderr.tgz $(cd /tmp && ls gnf-*.stderr)
