// Statistics counters with one writer and any number of readers (the stats thread), and the tables
// that name them.
//
// The writer owns the counter, so an increment needs no atomic read-modify-write (no locked
// instruction in the hot path); the relaxed atomic load/store only keeps readers from seeing torn
// values. This is how DPDK's per-queue software counters work.
//
// A block of counters is a struct template over its value type: Block<Counter> is what the hot path
// writes, Block<uint64_t> a snapshot of it (or what a GPU publishes). Each block lists its counters
// once more, in a table beside it (DPDK xstats' {name, offset}): the name the JSON summary gives the
// counter, and where it stands in the accounting of frames. Snapshots, sums, the JSON and the
// accounting walk the tables, so a new counter is one field and one table line.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>

namespace gnf {

class Counter {
 public:
  Counter() = default;
  // A copy is a snapshot of the value (sums of several writers' counters are copies).
  Counter(const Counter& other) : value_(other.get()) {}
  Counter& operator=(const Counter& other) {
    set(other.get());
    return *this;
  }

  void add(uint64_t n = 1) { value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed); }
  uint64_t get() const { return value_.load(std::memory_order_relaxed); }
  void set(uint64_t v) { value_.store(v, std::memory_order_relaxed); }
  void reset() { value_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Where a counter stands in the accounting of frames (path::Snapshot::accounted, Pipeline::drained).
// A frame a source offers passes the hand-overs between port and driver and ends in exactly one
// counter whose role is an end.
enum class Role : uint8_t {
  Count,       // not frames the accounting follows: bytes, events
  Diagnostic,  // how the NIC model worked, not what a device would show (the summary's nic_model)
  ToDriver,    // port: put into an rx descriptor, for the driver to take
  FromNic,     // driver: taken from an rx ring
  ToNic,       // driver: queued on a tx ring, for the port to send
  Sent,        // port: left on a wire (an end)
  NicRxDrop,   // port: dropped on its way in (an end)
  NicTxDrop,   // port: taken from a tx ring but never sent (an end)
  DriverEnd,   // driver: dropped, handed to the host, or consumed by the GPU as a sink (an end)
};

constexpr bool dropped_at_nic(Role role) { return role == Role::NicRxDrop || role == Role::NicTxDrop; }

constexpr bool is_end(Role role) { return role == Role::Sent || dropped_at_nic(role) || role == Role::DriverEnd; }

// Where `gnf bench` files the frames a counter lost (bench/SCHEMA.md, result.loss.where).
enum class Loss : uint8_t { None, NicRxBuffer, RxRing, TxRing, NfDrop, ToHost, Other };
inline constexpr const char* kLossNames[] = {"", "nic_rx_buffer", "rx_ring", "tx_ring", "nf_drop", "to_host", "other"};

// One line of a block's table.
template <typename Block, typename T>
struct CounterField {
  const char* name;  // in the JSON summary
  T Block::*member;
  Role role = Role::Count;
  Loss loss = Loss::None;
  const char* line = nullptr;  // its name on the per-second stats line, when it is there
};

inline uint64_t value_of(const Counter& c) { return c.get(); }
inline uint64_t value_of(uint64_t v) { return v; }

// Adds every counter of `part` (live counters or values) to the same counter of `sum`. Both
// tables come from one template, so they list the same counters in the same order.
template <template <typename> class Block, typename T>
void add_counters(Block<uint64_t>& sum, const Block<T>& part) {
  for (size_t i = 0; i < std::size(Block<T>::kFields); ++i)
    sum.*Block<uint64_t>::kFields[i].member += value_of(part.*Block<T>::kFields[i].member);
}

// Subtracts every counter of `baseline` from the same counter of `values` (snapshots of one block).
template <template <typename> class Block>
void subtract_counters(Block<uint64_t>& values, const Block<uint64_t>& baseline) {
  for (const auto& field : Block<uint64_t>::kFields) values.*field.member -= baseline.*field.member;
}

// The sum of the counters of `block` whose table line satisfies `pick`.
template <template <typename> class Block, typename T, typename Pick>
uint64_t sum_counters(const Block<T>& block, Pick pick) {
  uint64_t n = 0;
  for (const auto& field : Block<T>::kFields)
    if (pick(field)) n += value_of(block.*field.member);
  return n;
}

// A `pick` for sum_counters: the counters of one role.
inline auto with_role(Role role) {
  return [role](const auto& field) { return field.role == role; };
}

template <template <typename> class Block, typename T>
uint64_t frames(const Block<T>& block, Role role) {
  return sum_counters(block, with_role(role));
}

template <template <typename> class Block, typename T>
uint64_t frames_ended(const Block<T>& block) {
  return sum_counters(block, [](const auto& field) { return is_end(field.role); });
}

}  // namespace gnf
