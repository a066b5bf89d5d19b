// gnf's exit codes, as the README documents them. Scripts and the bench harness tell a refused
// configuration (1) from a bad command line (2) and from gnf's own failure (3).
#pragma once

namespace gnf::app {

constexpr int kExitOk = 0;
// A configuration, input or output error: the message names the file, line and key, or the flag.
// Also a run whose outputs could not be written, after what was measured went to stderr.
constexpr int kExitError = 1;
// The command line itself: an unknown command or flag, a flag's value out of its range.
constexpr int kExitUsage = 2;
// An internal consistency check failed, or an unexpected exception: a bug in gnf.
constexpr int kExitInternal = 3;

}  // namespace gnf::app
