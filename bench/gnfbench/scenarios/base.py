"""What a scenario declares: its name, what it reproduces, its defaults, and how it runs."""


class Scenario:
    name = None
    title = None
    reproduces = None
    searches = False  # True: RFC 2544 searches (shorter trials by default: there are many)
    binary = "gnf"    # the binary it runs: "gnf" (--gnf) or "lookup_bench" (--lookup-bench)

    def defaults(self, quick):
        """Option defaults for this scenario (the command line overrides them)."""
        if quick:  # small enough for a 2-core CI box without a GPU
            common = {"repetitions": 1, "trial_s": 0.3 if self.searches else 0.5, "warmup_s": 0.1,
                      "resolution": "10%"}
        else:
            # Four NIC-model threads unless told: with gnf's default of one, the seeds' 4.2 Mpps of
            # 300 B at 10 G left the model late on 10-107 % of the frames even with no driver at all
            # (bench/results/2026-11-25-session23, run 3), so every trial measured the model.
            common = {"repetitions": 3, "trial_s": 1.0 if self.searches else 2.0, "warmup_s": 0.5,
                      "resolution": "1%", "nic_threads": 4}
        common.update({"speed": 10, "flows": 64, "pdr_loss": 0.001, "load": None})
        common.update(self.own_defaults(quick))
        return common

    def own_defaults(self, quick):
        """Scenario-specific defaults (paths, sizes, load, ...)."""
        return {}

    def estimate_trials(self, options):
        """A rough trial count, printed before a long run starts."""
        return None

    def run(self, ctx):
        """Runs the trials and fills ctx.report (method, tables, figures, headline)."""
        raise NotImplementedError(self.name)
