"""gnfbench: the measurement harness around `gnf bench` (one trial; see bench/SCHEMA.md).

trial   builds and runs one `gnf bench` command and validates its JSON (schema.py)
search  RFC 2544 zero-loss (NDR) and partial-drop (PDR) rate search over trials
stats   percentiles of the sink's histogram, spread over repetitions, RFC 4737, loss attribution
plots   matplotlib figures (Agg); report: the Markdown report, report.json and bench/RESULTS.md
scenarios  the named runs that reproduce the source papers' figures
"""
