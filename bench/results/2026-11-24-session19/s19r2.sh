#!/bin/bash
# Session 19 run 2: gnf-esp-bench before (gnf-esp-bench-old: 3ca7033, GCM a thread per packet with byte-array
# loads) and after (whole blocks loaded directly; GCM also on tiles of 4-32 lanes), then the GCM tunnel on bypass
# (IpsecNfView::process_tile) as session 15 run 2 measured it.
cd "$(dirname "$0")/.." && tar -xJf devrun19/b.tar.xz
cp -r configs bench .bundle/ && mkdir -p .bundle/tests && cp -r tests/data tests/conformance .bundle/tests/
source devrun19/common.sh
for b in gnf-esp-bench gnf-esp-bench-old; do
  timeout -k 5 100 $b --cpu-seconds 0.03 --launches 5 --json $R/$b.json > $R/$b.log 2>&1; echo "$b rc=$?" | tee -a $S
  grep -iE "gcm|cbc|algorithm" $R/$b.log | head -26 >> $S
done
T=.bundle/configs/ipsec-bench-gcm-tunnel.toml
C="--speed 100 --queues 16 --nic-threads 8 --size 1420 --config $T --path bypass --burst 256 --rx-ring 1024 --tx-ring 1024"
B tun-b256-nf3 $C --load 100 --nf-blocks 3
B tun-b256-nf0 $C --load 100
B tun-b256-nf3-1pct $C --load 1 --nf-blocks 3
cd $O && tar -cJf results.tar.xz r && rm -rf r
