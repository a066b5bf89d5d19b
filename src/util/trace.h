// Hand-over tracing: a diagnostic for finding where a frame's latency goes on the bypass path
// between the wire and the GPU driver (bench/results/2026-11-25-session22). Not a feature: only
// measurement scripts set GNF_TRACE_HANDOVERS, and unset it changes nothing. Its words, comma
// separated:
//   admit  the NIC model stamps each frame it stores for the GPU agent with the time it stored it
//          (host clock) instead of its wire time, so that a one-way rx trial measures model -> GPU
//          driver rather than wire -> GPU driver;
//   agent  the GPU agent writes the time it set a frame's DD (GPU clock, low 32 bits of ns) into
//          the write-back's header-split and VLAN fields, which the 82599 leaves zero here, and the
//          driver of a one-way rx trial reports DD -> its poll per frame; the bypass driver prints
//          that distribution when it stops;
//   found  the same with the time at which the agent's poll that found the frame began, in place
//          of the DD time (agent wins if both are given).
#pragma once
#include <cstdint>

namespace gnf {

enum TraceHandover : uint32_t { kTraceAdmit = 1, kTraceAgent = 2, kTraceFound = 4 };

// The words of GNF_TRACE_HANDOVERS as TraceHandover bits (read once); unknown words are ignored.
uint32_t trace_handovers();
// Which time the GPU agent writes into the write-back: kTraceAgent (its DD), kTraceFound (its
// poll's), or 0 for neither; agent wins if both are given.
uint32_t traced_agent_time();

}  // namespace gnf
