"""One trial: a dict of knobs -> a `gnf bench` command line -> its validated JSON.

Knob names are the command's long flags with '_' for '-' (bench/SCHEMA.md): "rx_ring": 64 becomes
`--rx-ring 64`; True adds a bare flag (`"calibrate": True`); None or False leaves the flag out;
"size" takes a list (`--size 64 128`). Offered load is one of "load" (percent of line rate),
"rate_pps" or "rate_gbps" (layer 1).
"""
import json
import os
import re
import subprocess

from . import schema

# Every flag of `gnf bench` in SCHEMA.md except --json and --quiet, which the runner owns.
VALUE_FLAGS = ("config", "path", "ports", "speed", "queues", "size", "flows", "ip", "load", "rate_pps", "rate_gbps",
               "warmup", "duration", "burst", "rx_ring", "tx_ring", "rx_tail_batch", "tx_tail_batch",
               "tail_timeout_ns", "tx_completion", "tx_full", "nic_threads", "driver_threads", "staged_mode",
               "staged_depth", "nf_blocks", "one_way")
BARE_FLAGS = ("calibrate", "imix", "no_drop_en", "tx_writeback_fc")
RATE_KNOBS = ("load", "rate_pps", "rate_gbps")

# After the measured window the binary drains for at most 1 s; start-up (CUDA context, pinned
# memory) takes a few more on the GPU machine. A trial that outlives this is stuck.
START_AND_DRAIN_ALLOWANCE_S = 60


class TrialError(RuntimeError):
    """`gnf bench` failed; the message names the command, its exit code and its last words."""

    def __init__(self, command, returncode, stderr, reason=None):
        self.command = command
        self.returncode = returncode
        self.stderr = stderr
        self.reason = reason or "exited with %s" % returncode
        tail = "\n".join(stderr.strip().splitlines()[-8:])
        super().__init__("%s: %s\n%s" % (" ".join(command), self.reason, tail))

    @property
    def refused(self):
        """Exit 1 or 2: a configuration or a flag the binary will not run (not a crash or a broken
        invariant: exit 3 or a signal)."""
        return self.returncode in (1, 2)

    @property
    def needs_gpu(self):
        """The path asked for needs a CUDA GPU and this machine has none usable."""
        return self.refused and "needs a CUDA GPU" in self.stderr

    def message(self):
        """The binary's own error line(s), for a note in a report."""
        lines = [l.strip() for l in self.stderr.strip().splitlines() if l.strip()]
        errors = [l for l in lines if "error" in l.lower()]
        return (errors or lines or [self.reason])[-1]


def command_line(gnf, knobs, json_path):
    """The argv for one trial. Unknown knobs are an error here, not a surprise in the binary."""
    unknown = sorted(set(knobs) - set(VALUE_FLAGS) - set(BARE_FLAGS))
    if unknown:
        raise ValueError("unknown gnf bench knob(s): %s" % ", ".join(unknown))
    rates = [k for k in RATE_KNOBS if knobs.get(k) is not None]
    if len(rates) > 1:
        raise ValueError("give one offered load, not %s" % " and ".join(rates))
    argv = [gnf, "bench"]
    for key in VALUE_FLAGS:
        value = knobs.get(key)
        if value is None or value is False:
            continue
        argv.append("--" + key.replace("_", "-"))
        argv.extend(_format(v) for v in (value if isinstance(value, (list, tuple)) else [value]))
    argv.extend("--" + key.replace("_", "-") for key in BARE_FLAGS if knobs.get(key))
    return argv + ["--json", json_path, "--quiet"]


def _format(value):
    if isinstance(value, float):
        return repr(value) if value != int(value) else str(int(value))
    return str(value)


def timeout_s(knobs, default_warmup_s=0.5, default_duration_s=2.0):
    warmup = knobs.get("warmup", default_warmup_s)
    duration = knobs.get("duration", default_duration_s)
    return warmup + duration + START_AND_DRAIN_ALLOWANCE_S


def run(gnf, knobs, json_path, log_path=None):
    """Runs one trial, returns its validated JSON document. Raises TrialError on failure."""
    argv = command_line(gnf, knobs, json_path)
    if os.path.exists(json_path):
        os.unlink(json_path)  # never read a previous trial's answer
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s(knobs))
    except subprocess.TimeoutExpired as e:
        stderr = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        raise TrialError(argv, None, stderr, "still running after %.0f s (killed)" % timeout_s(knobs)) from None
    except OSError as e:
        raise TrialError(argv, None, "", "could not start: %s" % e) from None
    if log_path and (proc.stderr or proc.stdout):
        with open(log_path, "w") as log:
            log.write(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        reason = ("died of signal %d" % -proc.returncode) if proc.returncode < 0 else None
        raise TrialError(argv, proc.returncode, proc.stderr, reason)
    try:
        with open(json_path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise TrialError(argv, 0, proc.stderr, "exited 0 but left no valid JSON at %s (%s)" % (json_path, e)) from None
    try:
        return schema.validate(doc, source=json_path)
    except schema.SchemaError as e:
        raise TrialError(argv, 0, proc.stderr, str(e)) from None


class Trial:
    """A finished trial: what was asked, the command, where its JSON lies, and the JSON."""

    def __init__(self, label, knobs, command, json_path, doc):
        self.label = label
        self.knobs = dict(knobs)
        self.command = command
        self.json_path = json_path
        self.doc = doc

    @property
    def result(self):
        return self.doc["result"]

    @property
    def environment(self):
        return self.doc["environment"]

    @property
    def offered_pps(self):
        return self.doc["trial"]["offered"]["pps"]

    @property
    def loss_count(self):
        return self.result["loss"]["count"]

    @property
    def loss_ratio(self):
        return self.result["loss"]["ratio"]

    @property
    def on_schedule(self):
        """The generator sent its whole schedule in real time (SCHEMA.md): the load was offered."""
        return self.result.get("on_schedule", True)

    @property
    def late_frames(self):
        """Frames the NIC model took off the wire late (SCHEMA.md, `result.nic_model`); 0 if not reported.

        They do not fail a trial (on the H100 VM every trial had some) but make it model-bound.
        Scenarios show them beside rates."""
        return (self.result.get("nic_model") or {}).get("late_frames", 0)

    @property
    def model_bound(self):
        """Whether the NIC model, not the path, was the limit: `gnf bench`'s verdict (SCHEMA.md,
        `result.model_bound`), never recomputed here."""
        return self.result["model_bound"]["bound"]

    @property
    def model_bound_reasons(self):
        return self.result["model_bound"]["reasons"]

    @property
    def host_loaded(self):
        """Whether the machine kept the trial's poll-mode threads from their cores: `gnf bench`'s
        verdict (SCHEMA.md, `result.host_load`; False in JSON from before it)."""
        return bool((self.result.get("host_load") or {}).get("loaded"))

    @property
    def host_load_reasons(self):
        return (self.result.get("host_load") or {}).get("reasons", [])


class Runner:
    """Runs trials into `folder`/trials/, numbered in the order they ran, and keeps them all."""

    def __init__(self, gnf, folder, base_knobs=None):
        self.gnf = gnf
        self.folder = os.path.join(folder, "trials")
        self.base_knobs = dict(base_knobs or {})
        self.trials = []
        self.started = 0  # failed trials keep their number (and their log)
        os.makedirs(self.folder, exist_ok=True)

    def __call__(self, label, **knobs):
        merged = dict(self.base_knobs)
        merged.update(knobs)
        self.started += 1
        stem = "%04d-%s" % (self.started, re.sub(r"[^A-Za-z0-9_.-]+", "_", label))
        json_path = os.path.join(self.folder, stem + ".json")
        doc = run(self.gnf, merged, json_path, log_path=os.path.join(self.folder, stem + ".log"))
        trial = Trial(label, merged, command_line(self.gnf, merged, json_path), json_path, doc)
        self.trials.append(trial)
        return trial
