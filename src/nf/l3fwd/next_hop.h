// Next hops: what a route leads to. A route's LPM entry holds a next-hop index; the record says
// where the packet goes and how its destination MAC is found.
#pragma once
#include <cstdint>

#include "nf/l3fwd/records.h"
#include "util/hd.h"

namespace gnf::nf {

enum class NextHopKind : uint8_t {
  Local = 0,      // the router itself (its own addresses): to the host
  Connected = 1,  // a directly attached network: the destination's own neighbour entry
  Gateway = 2,    // via a router: the gateway's neighbour entry
  Port = 3,       // DPDK l3fwd's "R<prefix> <port>": out of the port to a fixed MAC, no neighbour lookup
  Blackhole = 4,  // dropped (ip route add blackhole ...)
};

struct alignas(4) NextHop {
  NextHopKind kind;
  uint8_t family;     // of `gateway`: 4 or 6
  uint16_t port;      // out port
  uint8_t gateway[16];
  uint8_t mac[6];     // Port kind: the destination MAC
  uint8_t reserved[6];
};
static_assert(sizeof(NextHop) == 32);

struct NextHopView {
  const NextHop* records;
  uint32_t count;
};

GNF_INLINE bool next_hop_at(const NextHopView& view, uint32_t index, NextHop& out) {
  if (index >= view.count) return false;
  record_acquire_fence();
  out = load_record(view.records + index);
  return true;
}

}  // namespace gnf::nf
