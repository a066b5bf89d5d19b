"""A run's report: report.md (environment, method, fidelity, tables, figures, notes), report.json
(the same data, plus every trial's command and JSON path), and the bench/RESULTS.md index line."""
import collections
import datetime
import json
import os
import platform
import subprocess

# DESIGN.md, "Fidelity and honesty": every benchmark report states this, word for word.
FIDELITY = (
    "A trial in which the NIC model, not the data path, was the limit (its threads ≥ 90 % busy, or frames "
    "taken off the wire late) is **model-bound**: the harness marks it, and its rate is never reported as a "
    "path's capacity. The model must be far faster than what it feeds. "
    "The softnic exists because no bypass-capable NIC is on our machines. Its job is to make the GPU "
    "driver do exactly what it would do against an 82599: poll real descriptors, refill, write tails, "
    "and suffer overload in the same place (the on-NIC buffer). Where emulation costs differ from "
    "hardware, the difference must favour the CPU baseline (host-memory DMA is a `memcpy`, device-memory "
    "DMA goes over PCIe through a copy engine). Every benchmark report states this. A real-hardware "
    "backend (VFIO + dma-buf GPU memory) is designed to slot in behind the same `nic/` interface.")

# What the model does today where DESIGN.md's words above are older than it (DESIGN.md is the
# project's shared document; the report quotes it unchanged and says this beside it).
FIDELITY_TODAY = (
    "Since DESIGN.md was written: device-memory DMA is the GPU agent (src/nic/gpu_agent.cu), a persistent "
    "kernel that moves frames between pinned host FIFOs and GPU memory across PCIe, not a copy engine; the "
    "bypass driver's tx tails reach it through a copy in GPU memory, taken only 600 ns after it was written "
    "(a modelled posted write: the driver still pays the write across PCIe, the agent does not poll for it "
    "across PCIe); and a trial whose generator fell behind its schedule is marked model-bound too "
    "(`result.model_bound`). Against an 82599 with rings in GPU memory, the agent's tx side reads descriptors "
    "and packets locally, where the NIC would fetch each across PCIe (two read round trips, ~2 µs, of which only "
    "the tail's posted write is modelled), and its rx side makes two PCIe round trips more than the NIC's posted "
    "writes (it polls the wire side's FIFO in pinned memory and reads the frames: ~8 µs from the model's store "
    "to DD at 1 % load, bench/results/2026-11-25-session23): on balance bypass's latency carries several "
    "microseconds of the model's.")

FLOOR_LABEL = "calibration floor"

# A run of another binary than `gnf bench` (gnf-lookup-bench): its label, argv, JSON path and JSON,
# whose `environment` has SCHEMA.md's shape.
Run = collections.namedtuple("Run", "label command json_path doc")


class Table:
    """A Markdown table. A latency table must carry the calibration floor (FD.io CSIT's habit:
    the measurement's own latency, beside the device's), as rows in `floor_rows`."""

    def __init__(self, title, headers, rows, latency=False, floor_rows=(), note=None):
        self.title = title
        self.headers = list(headers)
        self.rows = [list(r) for r in rows]
        self.latency = latency
        self.floor_rows = [list(r) for r in floor_rows]
        self.note = note
        for row in self.rows + self.floor_rows:
            if len(row) != len(self.headers):
                raise ValueError("table %r: row %r has %d cells for %d columns" % (title, row, len(row), len(headers)))
        if latency and not self.floor_rows:
            raise ValueError("latency table %r has no calibration floor row" % title)

    def markdown(self):
        def line(cells):
            return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"
        out = ["### " + self.title, "", line(self.headers), "|" + "---|" * len(self.headers)]
        out += [line(r) for r in self.rows]
        out += [line(r) for r in self.floor_rows]
        if self.note:
            out += ["", self.note]
        return "\n".join(out)

    def as_dict(self):
        return {"title": self.title, "headers": self.headers, "rows": self.rows, "floor_rows": self.floor_rows,
                "note": self.note}


class Report:
    def __init__(self, scenario, title, reproduces, command):
        self.scenario = scenario
        self.title = title
        self.reproduces = reproduces
        self.command = list(command)
        self.method = []     # paragraphs
        self.tables = []
        self.figures = []    # (caption, file name in the report folder)
        self.notes = []
        self.runs = []       # Run: what ran besides `gnf bench` trials
        self.searches = []   # every RFC 2544 search's answer, model-bound or not
        self.headline = ""
        self.started = datetime.datetime.now().astimezone()

    def table(self, *args, **kwargs):
        self.tables.append(Table(*args, **kwargs))

    def search(self, label, frame_size, repetition, result):
        """Keeps a search's answer (search.SearchResult) for report.json."""
        self.searches.append(dict(label=label, size=frame_size, repetition=repetition, **result.as_dict()))

    def figure(self, caption, file_name):
        self.figures.append((caption, file_name))

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)

    def docs(self, trials):
        """The JSON of everything that ran, trials first: each one's `environment` says where."""
        return [t.doc for t in trials] + [r.doc for r in self.runs]

    def write(self, folder, trials, options):
        """Writes report.md and report.json into `folder`; returns report.md's path."""
        for _, name in self.figures:
            if not os.path.exists(os.path.join(folder, name)):
                raise FileNotFoundError("figure %s was never drawn" % name)
        env = environment(self.docs(trials), self.command)
        md = self._markdown(env, trials, folder)
        path = os.path.join(folder, "report.md")
        with open(path, "w") as f:
            f.write(md)
        with open(os.path.join(folder, "report.json"), "w") as f:
            json.dump(self._json(env, trials, folder, options), f, indent=1, default=str)
        return path

    def _markdown(self, env, trials, folder):
        out = ["# " + self.title, "", self.reproduces, ""]
        out += ["## Environment", "", "| | |", "|---|---|"]
        out += ["| %s | %s |" % (k, str(v).replace("|", "\\|")) for k, v in env.items()]
        out += ["", "All numbers in this report were measured on this machine in this one run; ratios between "
                "rows (paths, ring counts, settings) are measured side by side, in the same run. Paper figures "
                "beside them are the papers' own, on their hardware (shared/SEEDS.md).", ""]
        out += ["## Method", ""] + [p + "\n" for p in self.method]
        out += ["## Fidelity", "", "From DESIGN.md, *Fidelity and honesty*:", "", "> " + FIDELITY, "",
                FIDELITY_TODAY, ""]
        out += ["## Results", ""]
        if self.headline:
            out += ["**" + self.headline + "**", ""]
        for table in self.tables:
            out += [table.markdown(), ""]
        for caption, name in self.figures:
            out += ["![%s](%s)" % (caption, name), "", "*%s*" % caption, ""]
        if self.notes:
            out += ["## Notes", ""] + ["- " + n for n in self.notes] + [""]
        out += ["## Trials", ""]
        if trials or not self.runs:
            out += ["%d trials; each one's command, knobs and `gnf bench` JSON are listed in `report.json`, the JSON "
                    "files lie in `trials/`." % len(trials), ""]
        if self.runs:
            out += ["%d run(s) of %s; each one's command and JSON are listed in `report.json` (`runs`), the JSON "
                    "files and logs lie in `runs/`." % (len(self.runs), os.path.basename(self.runs[0].command[0])), ""]
        return "\n".join(out)

    def _json(self, env, trials, folder, options):
        return {
            "kind": "gnf-bench-report", "scenario": self.scenario, "title": self.title,
            "reproduces": self.reproduces, "command": self.command, "options": options,
            "started": self.started.isoformat(timespec="seconds"), "environment": env,
            "method": self.method, "fidelity": FIDELITY, "fidelity_today": FIDELITY_TODAY, "headline": self.headline,
            "tables": [t.as_dict() for t in self.tables],
            "figures": [{"caption": c, "file": n} for c, n in self.figures], "notes": self.notes,
            "searches": self.searches,
            "trials": [{"label": t.label, "knobs": t.knobs, "command": t.command,
                        "json": os.path.relpath(t.json_path, folder)} for t in trials],
            "runs": [{"label": r.label, "command": r.command, "json": os.path.relpath(r.json_path, folder)}
                     for r in self.runs],
        }


def _git_commit():
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              timeout=10)
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown (no git)"
    if head.returncode != 0:
        return "unknown (not a git checkout)"
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def environment(docs, command):
    """What ran where: from the first document's `environment` (the binary's view) and the harness."""
    env = {}
    if docs:
        e = docs[0]["environment"]
        gpu = e.get("gpu")
        build = e.get("build", {})
        env.update({
            "host": e["hostname"], "CPU": "%s, %d cores" % (e["cpu_model"], e["cpu_cores"]), "kernel": e["kernel"],
            "GPU": ("%s, %s MiB, driver %s, CUDA driver %s / runtime %s" % (
                gpu["name"], gpu["memory_total_mib"], gpu["driver"], gpu.get("cuda_driver"), gpu.get("cuda_runtime"))
                if gpu else "none usable"),
            "gnf": "%s, %s build%s" % (docs[0]["gnf_version"], build.get("type"),
                                       ", with CUDA" if build.get("cuda") else ", without CUDA"),
        })
        hosts = sorted({d["environment"]["hostname"] for d in docs})
        if len(hosts) > 1:
            env["host"] = "several: " + ", ".join(hosts)
    else:
        env["host"] = platform.node() + " (no trial ran)"
    env["source"] = "git " + _git_commit()
    env["harness"] = "Python %s, bench/run.py" % platform.python_version()
    env["date"] = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    env["command"] = "`%s`" % " ".join(command)
    return env


INDEX_HEADER = """# Benchmark results: the latest run of each scenario

Written by `bench/run.py` (see bench/README.md): one line per scenario, pointing to its latest report.
Every report states the machine it ran on; compare numbers only between rows of one report.

| scenario | latest run | host | GPU | headline |
|---|---|---|---|---|
"""


def update_index(index_path, scenario, report_md, docs, headline):
    """Replaces `scenario`'s line in the index, or adds it where it sorts among the others; keeps
    every other line as it stands, their order and any text after the table (notes written by hand)."""
    rows, tail, in_table = {}, [], False
    if os.path.exists(index_path):
        with open(index_path) as f:
            for line in f:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if line.startswith("|") and not tail:
                    in_table = True
                    if line.startswith("| ") and len(cells) == 5 and cells[0] not in ("scenario", "") and not (
                            set(cells[0]) <= set("-")):
                        rows[cells[0]] = line.rstrip("\n")
                elif in_table or tail:
                    tail.append(line)
    link = os.path.relpath(report_md, os.path.dirname(os.path.abspath(index_path)))
    env = docs[0]["environment"] if docs else {}
    gpu = (env.get("gpu") or {}).get("name", "none")
    row = "| %s | [%s](%s) | %s | %s | %s |" % (
        scenario, os.path.basename(os.path.dirname(report_md)), link, env.get("hostname", "?"), gpu,
        headline.replace("|", "\\|"))
    names = list(rows)
    if scenario not in rows:
        names.insert(next((i for i, n in enumerate(names) if n > scenario), len(names)), scenario)
    rows[scenario] = row
    with open(index_path, "w") as f:
        f.write(INDEX_HEADER + "\n".join(rows[n] for n in names) + "\n" + "".join(tail))
