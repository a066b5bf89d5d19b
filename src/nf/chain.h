// An NF chain: the elements a packet batch goes through, in order, as the config lists them.
//
// The chain's view is trivially copyable and holds every element's view by value, so the same
// object is what a CPU plane reads and what a GPU kernel receives as a parameter. Dispatch is a
// switch over the element kind: no virtual calls, which device code cannot make across a copy.
// The kinds, their storage, the dispatch and the counter names all come from the list in nf/kinds.h.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sync/readers.h"
#include "nf/context.h"
#include "nf/kinds.h"
#include "nf/l3fwd/router.h"
#include "nf/packet.h"
#include "nf/params.h"
#include "nf/tables.h"

namespace gnf::nf {

inline constexpr uint32_t kMaxChainLength = 8;

#define GNF_NF_KIND(Kind, name, View, configure) Kind,
enum class NfKind : uint8_t { GNF_NF_KINDS(GNF_NF_KIND) };
#undef GNF_NF_KIND

// A set of NF kinds, a bit per NfKind: code built for a set holds only those kinds' NF code (a GPU
// kernel with every kind's code paid for it in every round: bench/results/2026-11-25-session24, run 8).
using NfKindSet = uint32_t;
#define GNF_NF_COUNT(Kind, name, View, configure) +1
inline constexpr uint32_t kNfKindCount = 0 GNF_NF_KINDS(GNF_NF_COUNT);
#undef GNF_NF_COUNT
static_assert(kNfKindCount <= 32, "NfKindSet has a bit per kind");
GNF_HD constexpr NfKindSet kind_bit(NfKind kind) { return NfKindSet(1) << uint32_t(kind); }
GNF_HD constexpr bool holds(NfKindSet set, NfKind kind) { return (set & kind_bit(kind)) != 0; }
inline constexpr NfKindSet kAllNfKinds = (NfKindSet(1) << kNfKindCount) - 1;

#define GNF_NF_VIEW_MEMBER(Kind, name, View, configure) View name;
struct NfElement {
  NfKind kind;
  union {
    GNF_NF_KINDS(GNF_NF_VIEW_MEMBER)
  };
};
#undef GNF_NF_VIEW_MEMBER

// A kernel receives every view by value, inside the chain's.
#define GNF_NF_VIEW_CHECKS(Kind, name, View, configure)                                    \
  static_assert(std::is_trivially_copyable_v<View>, #View " must be trivially copyable"); \
  static_assert(View::kCounterCount <= NfCounters::kMax, #View " has more counters than NfCounters holds");
GNF_NF_KINDS(GNF_NF_VIEW_CHECKS)
#undef GNF_NF_VIEW_CHECKS

struct NfChainView {
  NfElement elements[kMaxChainLength];
  uint32_t count;
  // With tables that change while traffic flows (nf/tables.h): the readers' slots, one per plane (by
  // queue), for the grace periods of sync/readers.h. Null otherwise.
  sync::ReaderSlot* readers;
};

// The kinds a chain's elements are of.
GNF_HD inline NfKindSet kinds_of(const NfChainView& chain) {
  NfKindSet kinds = 0;
  for (uint32_t e = 0; e < chain.count; ++e) kinds |= kind_bit(chain.elements[e].kind);
  return kinds;
}

// Kernels take the chain by value, and kernel parameters are limited to 4 KiB in all (before CUDA
// 12.1, and on GPUs older than Volta). nvcc checks the sum with the kernels' other parameters (a few
// pointers); this says which part grew.
static_assert(std::is_trivially_copyable_v<NfChainView>, "a GPU kernel receives the chain by value");
static_assert(sizeof(NfChainView) <= 4096, "the chain view must fit in a kernel's 4 KiB of parameters");

// Reader slots beyond the planes'.
inline constexpr uint32_t kSlowPathReader = 64;
inline constexpr uint32_t kTestReader = 65;

// What VPP's `show runtime` counts per node, per chain element: the calls that had packets for it,
// and those packets (the batch's packets no element before it dropped or punted).
struct NfRuntime {
  unsigned long long calls;
  unsigned long long packets;
};

// One element over a batch: a switch over its kind, the same on CPU and GPU. Built for `kKinds` (a
// caller chooses the build by the chain's kinds_of), an element of another kind is left alone.
#define GNF_NF_PROCESS(Kind, name, View, configure)                                     \
  case NfKind::Kind:                                                                    \
    if constexpr (holds(kKinds, NfKind::Kind)) element.name.process(batch, counters); \
    break;
template <NfKindSet kKinds = kAllNfKinds>
GNF_HD inline void process_element(const NfElement& element, PacketBatch& batch, NfCounters& counters) {
  switch (element.kind) { GNF_NF_KINDS(GNF_NF_PROCESS) }
}
#undef GNF_NF_PROCESS

// `counters` has one entry per element, and `runtime` too where given (a CPU plane's: a look at
// each packet's verdict per element, a byte each). Packets an element drops or punts skip the rest.
// On a GPU, a thread block runs the chain with nf/chain_device.cuh.
GNF_HD inline void run_chain(const NfChainView& chain, PacketBatch& batch, NfCounters* counters,
                             NfRuntime* runtime = nullptr) {
  for (uint32_t e = 0; e < chain.count; ++e) {
    if (runtime) {
      uint32_t live = 0;
      for (uint32_t i = 0; i < batch.count; ++i) live += batch.packets[i].verdict == Verdict::Forward;
      runtime[e].calls += live != 0;
      runtime[e].packets += live;
    }
    process_element(chain.elements[e], batch, counters[e]);
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
  // The owner of element `element`'s tables, or null for an NF without (nf/tables.h).
  NfTables* tables(uint32_t element) const { return tables_[element].get(); }
  // The router of element `element`, if it is an l3fwd (the control plane changes its tables).
  Router* router(uint32_t element) const { return dynamic_cast<Router*>(tables_[element].get()); }
  // The first element that has a router (the one the slow path and [netlink] serve), if any.
  std::optional<uint32_t> router_element() const;
  uint32_t size() const { return view_.count; }
  const std::string& name(uint32_t element) const { return names_[element]; }
  std::vector<std::string> counter_names(uint32_t element) const;

  // Every element's NfTables::reload(), while traffic flows: what each that has files to reload
  // did, or why it could not (its tables in use then stay). Throws std::runtime_error on a CUDA
  // failure.
  struct Reload {
    uint32_t element;
    bool done;
    std::string what;  // "nf[0] acl: 12 rules from acl.rules", or the error
  };
  std::vector<Reload> reload();

  static std::vector<std::string> known_types();

 private:
  NfChainView view_{};
  std::optional<NfChainView> device_view_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<NfTables>> tables_;  // per element; null for elements without tables
  std::unique_ptr<sync::ReaderRegistry> readers_;  // with any tables
};

}  // namespace gnf::nf
