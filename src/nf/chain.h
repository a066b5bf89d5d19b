// An NF chain: the elements a packet batch goes through, in order, as the config lists them.
//
// The chain's view is trivially copyable and holds every element's view by value, so the same
// object is what a CPU plane reads and what a GPU kernel receives as a parameter. Dispatch is a
// switch over the element kind: no virtual calls, which device code cannot make across a copy.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "nf/context.h"
#include "nf/ether_filter/ether_filter.h"
#include "nf/l2fwd/l2fwd.h"
#include "nf/l3fwd/l3fwd.h"
#include "nf/l3fwd/router.h"
#include "nf/packet.h"
#include "nf/params.h"

namespace gnf::nf {

inline constexpr uint32_t kMaxChainLength = 8;

enum class NfKind : uint8_t { L2Fwd, EtherFilter, L3Fwd };

struct NfElement {
  NfKind kind;
  union {
    L2FwdView l2fwd;
    EtherFilterView ether_filter;
    L3FwdView l3fwd;
  };
};

struct NfChainView {
  NfElement elements[kMaxChainLength];
  uint32_t count;
};

// `counters` has one entry per element. Packets an element drops or punts skip the rest.
GNF_HD inline void run_chain(const NfChainView& chain, PacketBatch& batch, NfCounters* counters) {
  for (uint32_t e = 0; e < chain.count; ++e) {
    const NfElement& element = chain.elements[e];
    switch (element.kind) {
      case NfKind::L2Fwd: element.l2fwd.process(batch, counters[e]); break;
      case NfKind::EtherFilter: element.ether_filter.process(batch, counters[e]); break;
      case NfKind::L3Fwd: element.l3fwd.process(batch, counters[e]); break;
    }
  }
}

struct NfSpec {
  std::string type;
  Params params;
};

// The host-side owner: configures each element from its spec (throwing UserError on bad
// parameters) and describes the counters.
class NfChain {
 public:
  NfChain(const std::vector<NfSpec>& specs, const NfContext& context);
  ~NfChain();

  // The view over tables in host memory, for CPU planes.
  const NfChainView& view() const { return view_; }
  // The same chain over GPU copies of the elements' tables (made on first call), for kernels.
  const NfChainView& device_view();
  // The router of element `element`, if it is an l3fwd (the control plane changes its tables).
  Router* router(uint32_t element) const { return routers_[element].get(); }
  // The first element that has a router (the one the slow path and [netlink] serve), if any.
  std::optional<uint32_t> router_element() const;
  uint32_t size() const { return view_.count; }
  const std::string& name(uint32_t element) const { return names_[element]; }
  std::vector<std::string> counter_names(uint32_t element) const;

  static std::vector<std::string> known_types();

 private:
  NfChainView view_{};
  std::optional<NfChainView> device_view_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<Router>> routers_;  // per element; null for elements without tables
};

}  // namespace gnf::nf
