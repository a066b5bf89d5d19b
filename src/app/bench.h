// `gnf bench`: one benchmark trial and the JSON the harness reads (bench/SCHEMA.md).
//
// The generator on port 0 sends for warm-up + duration; the measured window is the frames it
// *sent* in the last `duration` seconds (by their stamps' scheduled send time). Then the sources
// stop and in-flight packets drain (at most 1 s).
#pragma once
#include "app/bench_flags.h"

namespace gnf::app {

// Runs the trial the flags describe and writes its JSON; returns the exit code (as `gnf run`:
// 0, or 3 when an internal consistency check failed). Throws gnf::UserError for bad input.
int run_bench(const BenchFlags& flags);

}  // namespace gnf::app
