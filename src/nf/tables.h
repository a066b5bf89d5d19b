// The owner of an NF's tables and device state: what an NF with tables (l3fwd's Router, acl's
// AclRules) gives the chain, which learns nothing else about it (DPDK lib/lpm style: each function
// with its error contract).
//
// Life cycle. The NF's configure function (nf/kinds.h) validates its parameters, builds the tables
// on the host and returns their owner, with the element's view over the host copy. Then the chain
//   1. set_readers(): once, before any reader (a plane, a kernel's block, the slow path) starts;
//   2. device_view(): at most once, before the kernels start, when the path runs the chain on a GPU;
//   3. while traffic flows, from control threads: reload() (on SIGHUP) and table_stats() (every
//      snapshot); an NF's own changes (a router's routes from netlink) go through the owner's own
//      functions. The owner serialises them.
// Memory a reader may still look at is reused or freed only after a grace period of the readers
// (sync/readers.h); tables replaced whole are published as sync/swapped.h says.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sync/readers.h"

namespace gnf::nf {

// One entry of an NF's tables (an ACL rule), with its counters, read while traffic flows.
struct NfEntryStats {
  uint32_t line = 0;   // where its file defines it
  std::string action;  // what it does (permit, deny, count)
  std::vector<std::pair<std::string, uint64_t>> counters;
};

struct NfTableStats {
  std::string name;     // what the entries are ("rules"): the key they are reported under
  std::string file;     // where they were read from
  uint64_t reloads = 0;  // tables replaced live since the start
  std::vector<NfEntryStats> entries;
};

class NfTables {
 public:
  virtual ~NfTables() = default;

  // The readers whose grace periods freed memory waits for. Never throws.
  virtual void set_readers(sync::ReaderRegistry* readers) = 0;

  // Reads the NF's files again and replaces its tables while traffic flows; what it did, in a few
  // words ("12 rules from acl.rules"), or nullopt when the NF has nothing to reload. Throws
  // gnf::UserError on a bad file (its "file:line: field: problem") or when readers do not leave the
  // old tables; the tables in use then stay. Throws std::runtime_error on a CUDA failure.
  virtual std::optional<std::string> reload() { return std::nullopt; }

  // Per-entry counters, or nullopt for an NF that keeps none. Never throws but for a CUDA failure
  // (std::runtime_error) when the counters are on the GPU.
  virtual std::optional<NfTableStats> table_stats() const { return std::nullopt; }
};

// The owner of the tables of an NF whose view is View.
template <class View>
class NfTablesFor : public NfTables {
 public:
  // Points `view`, a copy of the element's host view, at GPU copies of the tables, made on the
  // first call (later calls give the same). Throws gnf::UserError in a build without CUDA,
  // std::runtime_error on a CUDA failure.
  virtual void device_view(View& view) = 0;
};

}  // namespace gnf::nf
