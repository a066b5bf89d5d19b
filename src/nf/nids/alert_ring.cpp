#include "nf/nids/alert_ring.h"

namespace gnf::nf {

namespace {

uint64_t ring_size(uint32_t capacity) {
  uint64_t size = 2;
  while (size < capacity) size <<= 1;
  return size;
}

}  // namespace

// Both blocks start zero-filled: the claim counter at position 0. The sequences are written before
// any producer has the ref (pinned memory: plain host stores, which the GPU sees once it is given
// the ref through a later kernel launch).
NidsAlertRing::NidsAlertRing(uint32_t capacity, mem::Domain cells, mem::Domain claims)
    : mask_(ring_size(capacity) - 1),
      cells_(cells, (mask_ + 1) * sizeof(NidsAlertCell)),
      claimed_(claims, sizeof(unsigned long long)) {
  for (uint64_t i = 0; i <= mask_; ++i) this->cells()[i].sequence = i;
}

NidsAlertRingRef NidsAlertRing::ref() const {
  return {cells(), reinterpret_cast<unsigned long long*>(claimed_.data()), mask_};
}

bool NidsAlertRing::pop(NidsAlert& alert) {
  NidsAlertCell& cell = cells()[next_ & mask_];
  if (load_acquire_sys(&cell.sequence) != next_ + 1) return false;  // acquire: the record
  alert = cell.alert;
  store_release_sys(&cell.sequence, next_ + mask_ + 1);  // read: free for the next lap
  ++next_;
  return true;
}

}  // namespace gnf::nf
