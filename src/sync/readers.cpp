#include "sync/readers.h"

#include <thread>

#include "mem/cuda_alloc.h"

namespace gnf::sync {

ReaderRegistry::ReaderRegistry(bool gpu_visible)
    : block_(gpu_visible && mem::cuda_device_available() ? mem::Domain::HostPinned : mem::Domain::Host,
             kSlots * sizeof(ReaderSlot)) {}

uint64_t ReaderRegistry::begin_grace() {
  std::lock_guard lock(mutex_);
  fence_seq_cst_sys();
  std::vector<uint64_t> ticket(kSlots);
  for (uint32_t i = 0; i < kSlots; ++i) ticket[i] = load_acquire_sys(&slot(i)->entered);
  tickets_.push_back(std::move(ticket));
  return next_grace_++;
}

bool ReaderRegistry::grace_over(uint64_t grace) {
  std::lock_guard lock(mutex_);
  // Tickets only grow, so graces end in order: check the oldest open ones up to `grace`.
  while (over_through_ <= grace && !tickets_.empty()) {
    const std::vector<uint64_t>& ticket = tickets_.front();
    for (uint32_t i = 0; i < kSlots; ++i)
      if (load_acquire_sys(&slot(i)->left) < ticket[i]) return false;
    tickets_.pop_front();
    ++over_through_;
  }
  return grace < over_through_;
}

bool ReaderRegistry::wait(uint64_t grace, std::chrono::microseconds timeout) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!grace_over(grace)) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return true;
}

void Recycler::release(uint32_t index) {
  if (readers_) unpublished_.push_back(index);
  else free_list_.push_back(index);
}

void Recycler::published() {
  if (!readers_ || unpublished_.empty()) return;
  const uint64_t grace = readers_->begin_grace();
  for (uint32_t index : unpublished_) retired_.emplace_back(grace, index);
  unpublished_.clear();
}

uint32_t Recycler::reclaim(bool wait) {
  if (!readers_ || retired_.empty()) return 0;
  if (wait && !readers_->grace_over(retired_.front().first)) readers_->wait(retired_.front().first, std::chrono::seconds(1));
  uint32_t back = 0;
  while (!retired_.empty() && readers_->grace_over(retired_.front().first)) {
    free_list_.push_back(retired_.front().second);
    retired_.pop_front();
    ++back;
  }
  return back;
}

uint32_t Recycler::waiting() const { return uint32_t(unpublished_.size() + retired_.size()); }

}  // namespace gnf::sync
