// `gnf run`: forwards until the sources end, the duration passes or Ctrl-C, printing a stats line
// per port per second and, at the end, what became of the frames (app/verdict.h) and the summary.
#pragma once
#include "app/run_flags.h"

namespace gnf::app {

// The exit code (app/exit_codes.h). Throws UserError for what stops the run before it starts.
int run_forwarding(const RunFlags& flags);

}  // namespace gnf::app
