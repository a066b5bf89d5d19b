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

// What the NIC model's own counters say of a run (nic/port_counters.h's diagnostics), beside the
// frames sent and the frames lost in the tx rings.
struct ModelHealth {
  uint64_t late_frames = 0;  // taken off the wire more than nic::kLateFrameNs late
  uint64_t sent = 0;
  bool on_schedule = true;   // the generator kept its schedule
  uint64_t tx_stalls = 0;    // polls of the tx side long after the one before that found frames waiting
  uint64_t tx_stalled_frames = 0;
  uint64_t tx_stall_max_ns = 0;
  uint64_t tx_ring_lost = 0;  // frames lost in the tx rings (loss "tx_ring")
};

// Whether the NIC model, not the path, was the limit: its threads (cpu_json's "nic") busy at least
// a threshold of the time, a share of the frames sent taken off the wire late, the generator behind
// its schedule, or frames lost in the tx rings while the model's tx side was away (a stalled NIC
// drains no ring). {"bound", "nic_busy_share", "busy_threshold", "late_frames",
// "late_share_threshold", "tx_stalls", "reasons"}; the rate measured is then the model's, never the
// path's.
nlohmann::json model_bound_json(const nlohmann::json& cpu, const ModelHealth& health);

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
