#!/usr/bin/env python3
"""gnf-pcie-probe's JSON lines as a table: one row per op, ns per op / total Mops per block count."""
import json
import sys

for path in sys.argv[1:]:
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    ops = list(dict.fromkeys(r["op"] for r in rows))
    blocks = sorted({r["blocks"] for r in rows})
    print(path.split("/")[-1])
    print("op".ljust(24) + "".join(f"b{b} ns/Mops".rjust(16) for b in blocks))
    for op in ops:
        cells = {r["blocks"]: f"{r['ns_per_op']:.0f}/{r['total_mops']:.1f}" for r in rows if r["op"] == op}
        print(op.ljust(24) + "".join(cells.get(b, "-").rjust(16) for b in blocks))
