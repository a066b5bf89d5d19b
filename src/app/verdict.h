// How far a run's numbers describe the data path, said once for `gnf run` and `gnf bench`: whether
// the NIC model, not the path, was the limit (model-bound), whether the machine gave the poll-mode
// threads their cores (host load), and the end-of-run lines that say what became of the frames.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/poll_thread.h"

namespace gnf::app {

// CPU time per thread role ("driver", "nic") over `wall_s`: threads, cpu_s, busy_s, slept_s (backing
// off, util/idle_backoff.h) and cores (cpu_s / wall_s), beside "wall_s". On the cpu path the NF chain runs inside the driver threads;
// the wire (generator, sinks) inside the NIC-model threads.
nlohmann::json cpu_json(const std::vector<ThreadCpu>& threads, double wall_s);

// Whether the NIC model, not the path, was the limit: its threads (cpu_json's "nic") busy at least
// a threshold of the time, a share of the `sent` frames taken off the wire late (`late_frames`), or
// the generator behind its schedule. {"bound", "nic_busy_share", "busy_threshold", "late_frames",
// "late_share_threshold", "reasons"}; the rate measured is then the model's, never the path's.
nlohmann::json model_bound_json(const nlohmann::json& cpu, uint64_t late_frames, uint64_t sent, bool on_schedule);

// Whether the machine gave the poll-mode threads their cores: each spins on one, so a role whose
// threads ran less than a threshold of the time they were awake waited for a core that other work (or more
// poll-mode threads than cores) held. {"loaded", "cpu_share" (the lowest role's), "threshold",
// "reasons"}; losses and latencies then describe the machine's load.
nlohmann::json host_load_json(const nlohmann::json& cpu);

// `gnf run`'s last words on its frames, from its summary (app/report.h): what was offered and
// accounted for, forwarded, dropped by the NFs, handed to the host and lost, each beside the
// counters that took them, in one line, and one line per port.
std::vector<std::string> verdict_lines(const nlohmann::json& summary);

// The warnings a run's model_bound_json and host_load_json call for, if any.
std::vector<std::string> limit_warnings(const nlohmann::json& model_bound, const nlohmann::json& host_load);

}  // namespace gnf::app
