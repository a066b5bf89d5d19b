"""Checks a `gnf bench --json` document against bench/SCHEMA.md (schema 1).

The check is structural: every key the harness reads must be there with the right type, so that
a contract drift between the C++ side and this one fails loudly at the trial that caused it, not
as a KeyError deep inside a plot. Extra keys are allowed (the C++ side may add to the contract).
"""

SCHEMA_VERSION = 1
PATHS = ("cpu", "staged", "bypass", "calibrate")
LOSS_WHERE = ("nic_rx_buffer", "rx_ring", "tx_ring", "nf_drop", "to_host", "other")

NUM = (int, float)
INT = (int,)


class SchemaError(ValueError):
    """The JSON does not follow bench/SCHEMA.md; `problems` lists every deviation by key path."""

    def __init__(self, problems, source="gnf bench JSON"):
        self.problems = problems
        super().__init__("%s does not follow bench/SCHEMA.md:\n  %s" % (source, "\n  ".join(problems)))


def _is(value, types, nullable=False):
    if value is None:
        return nullable
    if isinstance(value, bool):  # bool is an int in Python; never a valid count or rate here
        return False
    return isinstance(value, types)


class _Checker:
    def __init__(self):
        self.problems = []

    def obj(self, doc, path, nullable=False):
        """The object at `path`, or None (with a problem noted unless nullable and null)."""
        if doc is None and nullable:
            return None
        if doc is None:
            self.problems.append("%s: missing (or null where an object is required)" % path)
            return None
        if not isinstance(doc, dict):
            self.problems.append("%s: expected an object, got %s" % (path, type(doc).__name__))
            return None
        return doc

    def keys(self, doc, path, spec):
        """spec: {key: types or (types, nullable)}; checks each key's presence and type."""
        if doc is None:
            return
        for key, types in spec.items():
            nullable = False
            if isinstance(types, tuple) and len(types) == 2 and isinstance(types[1], bool):
                types, nullable = types
            if key not in doc:
                self.problems.append("%s.%s: missing" % (path, key))
            elif not _is(doc[key], types, nullable):
                self.problems.append("%s.%s: expected %s%s, got %r" % (
                    path, key, "/".join(t.__name__ for t in types), " or null" if nullable else "", doc[key]))


def validate(doc, source="gnf bench JSON"):
    """Returns `doc` if it follows the schema; raises SchemaError listing every problem."""
    c = _Checker()
    root = c.obj(doc, "$")
    if root is None:
        raise SchemaError(c.problems, source)
    if root.get("kind") != "gnf-bench":
        c.problems.append("$.kind: expected 'gnf-bench', got %r" % root.get("kind"))
    if root.get("schema") != SCHEMA_VERSION:
        c.problems.append("$.schema: expected %d, got %r" % (SCHEMA_VERSION, root.get("schema")))
    c.keys(root, "$", {"gnf_version": (str,)})
    _environment(c, c.obj(root.get("environment"), "$.environment"))
    _trial(c, c.obj(root.get("trial"), "$.trial"))
    _result(c, c.obj(root.get("result"), "$.result"))
    c.obj(root.get("summary"), "$.summary")
    if c.problems:
        raise SchemaError(c.problems, source)
    return doc


def _environment(c, env):
    c.keys(env, "$.environment", {"hostname": (str,), "cpu_model": (str,), "cpu_cores": INT, "kernel": (str,)})
    if env is None:
        return
    gpu = c.obj(env.get("gpu"), "$.environment.gpu", nullable=True)
    c.keys(gpu, "$.environment.gpu", {"name": (str,), "driver": (str,), "memory_total_mib": NUM})
    build = c.obj(env.get("build"), "$.environment.build")
    c.keys(build, "$.environment.build", {"type": (str,)})
    if build is not None and not isinstance(build.get("cuda"), bool):
        c.problems.append("$.environment.build.cuda: expected true/false, got %r" % build.get("cuda"))


def _trial(c, trial):
    c.keys(trial, "$.trial", {"path": (str,), "staged_mode": ((str,), True), "nf": (list,), "ports": INT,
                              "queues": INT, "speed_gbps": NUM, "sizes": (list,), "flows": INT, "ip": INT,
                              "warmup_s": NUM, "duration_s": NUM, "nic_threads": INT})
    if trial is None:
        return
    if trial.get("path") not in PATHS:
        c.problems.append("$.trial.path: expected one of %s, got %r" % ("|".join(PATHS), trial.get("path")))
    if not isinstance(trial.get("imix"), bool):
        c.problems.append("$.trial.imix: expected true/false, got %r" % trial.get("imix"))
    c.keys(c.obj(trial.get("offered"), "$.trial.offered"), "$.trial.offered",
           {"pps": NUM, "gbps_l1": NUM, "gbps_l2": NUM, "load_pct": NUM})
    driver = c.obj(trial.get("driver"), "$.trial.driver", nullable=trial.get("path") == "calibrate")
    c.keys(driver, "$.trial.driver", {"burst": INT, "rx_ring": INT, "tx_ring": INT, "rx_tail_batch": INT,
                                      "tx_tail_batch": INT, "tail_timeout_ns": NUM, "tx_completion": (str,),
                                      "tx_full": (str,), "threads": INT})


def _result(c, result):
    c.keys(result, "$.result", {"sent": INT, "received": INT, "tail_writes_per_packet": (NUM, True)})
    if result is None:
        return
    c.keys(c.obj(result.get("forwarded"), "$.result.forwarded"), "$.result.forwarded",
           {"pps": NUM, "gbps_l1": NUM, "gbps_l2": NUM})
    loss = c.obj(result.get("loss"), "$.result.loss")
    c.keys(loss, "$.result.loss", {"count": INT, "ratio": NUM})
    if loss is not None:
        where = c.obj(loss.get("where"), "$.result.loss.where")
        c.keys(where, "$.result.loss.where", {k: INT for k in LOSS_WHERE})
    c.keys(c.obj(result.get("reordering"), "$.result.reordering"), "$.result.reordering",
           {"reordered": INT, "ratio": NUM, "extent_max": NUM, "extent_mean": NUM, "duplicates": INT})
    latency = c.obj(result.get("latency"), "$.result.latency")
    c.keys(latency, "$.result.latency", {k: NUM for k in ("count", "min", "p50", "p90", "p99", "p99_9", "max",
                                                           "mean", "stddev")})
    if latency is not None:
        _histogram(c, latency.get("histogram"), "$.result.latency.histogram")
    per_second = result.get("per_second")
    if not isinstance(per_second, list):
        c.problems.append("$.result.per_second: expected a list, got %r" % type(per_second).__name__)
    else:
        for i, second in enumerate(per_second):
            c.keys(c.obj(second, "$.result.per_second[%d]" % i), "$.result.per_second[%d]" % i,
                   {k: NUM for k in ("t", "sent", "received", "lost", "latency_p50", "latency_p99", "latency_max")})
    cpu = c.obj(result.get("cpu"), "$.result.cpu")
    c.keys(cpu, "$.result.cpu", {"wall_s": NUM})
    if cpu is not None:
        for role in ("driver", "nic"):
            # The calibration trial has no driver: its driver entry may be null.
            role_doc = c.obj(cpu.get(role), "$.result.cpu." + role, nullable=role == "driver")
            c.keys(role_doc, "$.result.cpu." + role, {"threads": INT, "cpu_s": NUM, "busy_s": NUM, "cores": NUM})
    gpu = c.obj(result.get("gpu"), "$.result.gpu", nullable=True)
    c.keys(gpu, "$.result.gpu", {"utilization_pct": NUM, "memory_used_mib": NUM, "samples": INT})
    model_bound = c.obj(result.get("model_bound"), "$.result.model_bound")
    c.keys(model_bound, "$.result.model_bound", {"nic_busy_share": (NUM, True), "busy_threshold": NUM,
                                                 "late_frames": INT, "late_share_threshold": NUM, "reasons": (list,)})
    if model_bound is not None and not isinstance(model_bound.get("bound"), bool):
        c.problems.append("$.result.model_bound.bound: expected true/false, got %r" % model_bound.get("bound"))
    # Optional: trials written before gnf judged the machine's load have none.
    host_load = c.obj(result.get("host_load"), "$.result.host_load", nullable=True)
    c.keys(host_load, "$.result.host_load", {"cpu_share": (NUM, True), "threshold": NUM, "reasons": (list,)})
    if host_load is not None and not isinstance(host_load.get("loaded"), bool):
        c.problems.append("$.result.host_load.loaded: expected true/false, got %r" % host_load.get("loaded"))
    pcie = c.obj(result.get("pcie"), "$.result.pcie")
    if pcie is not None:
        c.keys(c.obj(pcie.get("bytes_per_packet"), "$.result.pcie.bytes_per_packet"), "$.result.pcie.bytes_per_packet",
               {"to_memory": NUM, "from_memory": NUM, "total": NUM})


def _histogram(c, histogram, path):
    if not isinstance(histogram, list):
        c.problems.append("%s: expected a list of [low_edge_ns, count], got %r" % (path, type(histogram).__name__))
        return
    previous = -1
    for i, bucket in enumerate(histogram):
        if not (isinstance(bucket, list) and len(bucket) == 2 and all(_is(v, INT) for v in bucket)):
            c.problems.append("%s[%d]: expected [low_edge_ns, count] integers, got %r" % (path, i, bucket))
            return
        if bucket[0] <= previous:
            c.problems.append("%s[%d]: bucket edges must increase (%d after %d)" % (path, i, bucket[0], previous))
            return
        previous = bucket[0]
