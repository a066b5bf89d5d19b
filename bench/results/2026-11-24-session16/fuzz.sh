#!/usr/bin/env bash
# Every libFuzzer target (tests/fuzz, built with clang, ASan + UBSan, debug info stripped) in parallel on the
# device's 16 host cores for SECS seconds each, from the committed seed corpus or, given
# devfuzz/corpus.tar.xz, from an earlier part's corpus. Prints each target's executions; the
# corpora come back as corpus.tar.xz, anything found as art-* files.
set -u
SECS=${SECS:-290}
W=/tmp/fz; rm -rf $W; mkdir -p $W/bin $W/c
tar xJf devfuzz/bins.tar.xz -C $W/bin && tar xJf devfuzz/libs.tar.xz -C $W
export LD_LIBRARY_PATH=$W/lib
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
declare -A max_len=([frame_path_fuzz]=20000 [config_fuzz]=8192 [route_file_fuzz]=8192 [acl_rule_file_fuzz]=8192
                   [acl_frame_fuzz]=2048 [ipsec_config_fuzz]=8192 [esp_fuzz]=20000
                   [pcap_reader_fuzz]=65536 [router_fuzz]=20000 [nids_fuzz]=16384 [ctl_command_fuzz]=4096)
if [[ -f devfuzz/corpus.tar.xz ]]; then tar xJf devfuzz/corpus.tar.xz -C $W/c; fi
for t in "${!max_len[@]}"; do
  [[ -d $W/c/$t ]] || cp -r tests/fuzz/corpus/$t $W/c/$t
  ( cd $W && bin/$t -max_total_time=$( [[ $t == router_fuzz ]] && echo ${ROUTER_SECS:-$SECS} || echo $SECS ) -max_len=${max_len[$t]} -timeout=25 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix=$OUT/art-$t- c/$t > $OUT/$t.log 2>&1; echo "$t rc=$?" >> $OUT/rc.txt ) &
done
wait
for t in "${!max_len[@]}"; do
  echo "$t $(grep -h "rc=" $OUT/rc.txt | grep "^$t " | cut -d' ' -f2) $(grep -E "stat::number_of_executed_units" $OUT/$t.log) corpus $(ls $W/c/$t | wc -l)"
done | sort | tee $OUT/summary.txt
tar cJf $OUT/corpus.tar.xz -C $W/c .
ls $OUT/art-* 2>/dev/null
