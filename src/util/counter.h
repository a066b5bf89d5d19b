// Statistics counters with one writer and any number of readers (the stats thread).
//
// The writer owns the counter, so an increment needs no atomic read-modify-write (no locked
// instruction in the hot path); the relaxed atomic load/store only keeps readers from seeing torn
// values. This is how DPDK's per-queue software counters work.
#pragma once
#include <atomic>
#include <cstdint>

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

}  // namespace gnf
