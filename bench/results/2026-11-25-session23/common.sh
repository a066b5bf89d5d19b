# sourced by device scripts (session 22's): row/B helpers
source .bundle/env.sh
export PATH=$PWD/.bundle/bin:$PATH
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p $R; S=$O/summary.txt
row() { python3 - "$@" <<'PY'
import json,sys
try:
  d=json.load(open(sys.argv[1])); r=d['result']; l=r['latency']; g=r.get('gpu_loops',{}); c=r['cpu']
  def loop(k):
    x=g.get(k,{})
    if not x or not x.get('rounds_per_s'): return ''
    return ' %s sms %s %.0fk/s %.1fus [%s]' % (k, x.get('sms'), x['rounds_per_s']/1e3, x['round_ns']/1e3, ' '.join('%s %.1f' % (n, v/1e3) for n,v in x['phase_ns'].items() if v >= 50))
  sk=r.get('clock_skew',{})
  print(sys.argv[2], 'recv %.2fM loss %.4f p50 %s p99 %s late %s nic %.2f/%.2f skew %s/%s' % (r['received']/1e6, r['loss']['ratio'], l.get('p50'), l.get('p99'), r['nic_model']['late_frames'], c['nic']['cores'], c['nic']['busy_s']/max(c['wall_s'],1e-9), sk.get('frames'), sk.get('max_ns')) + loop('driver') + loop('agent_rx') + loop('agent_tx') + ' where %s' % {k:v for k,v in r['loss']['where'].items() if v})
except Exception as e: print(sys.argv[2], 'no result', repr(e))
PY
}
B() { local name=$1; shift; timeout -k 3 30 ${GNF:-gnf} bench "$@" --warmup 0.3 --duration 1 -q --json $R/$name.json 2>$R/$name.err; echo "rc=$?" >> $R/$name.err; row $R/$name.json "$name" | tee -a $S; }
