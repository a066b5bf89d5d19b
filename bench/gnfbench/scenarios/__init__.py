"""The named scenarios: `bench/run.py NAME` runs one. Each reproduces a figure of a source paper
(shared/SEEDS.md) and puts the paper's numbers beside ours, measures the harness itself, or (lookups)
answers an issue's question with a binary of its own."""
from . import (calibrate, ipsec, lookups, matrix, nids, one_way, paths, rings, staged_modes, streams, sweep,
               tail_batching, writeback)

SCENARIOS = {s.name: s for s in (rings.Rings(), tail_batching.TailBatching(), writeback.Writeback(), paths.Paths(),
                                 one_way.OneWay(), sweep.Sweep(), calibrate.Calibrate(), matrix.Matrix(),
                                 staged_modes.StagedModes(), lookups.Lookups(), ipsec.Ipsec(),
                                 nids.Nids(), streams.Streams())}
