// The NF kinds, one line each (Click's EXPORT_ELEMENT). From this list nf/chain.h derives the kind
// enum, the element storage, the dispatch on CPU and GPU, configuration by [[nf]] type name and the
// counter names, so that a new NF is its own folder, its #include and one line here.
//
// An NF's folder holds
//   - its view: trivially copyable (a GPU kernel receives it by value), with
//       GNF_HD void process(PacketBatch&, NfCounters&) const;
//       enum Counter { ..., kCounterCount };   static constexpr const char* kCounterNames[];
//   - its configure function, which validates the parameters (throwing gnf::UserError) and either
//       View configure(const Params&, const NfContext&);
//     or, for an NF with tables (built on the host, copied to the GPU, changed live), whose owner
//     derives from NfTablesFor<View> (nf/tables.h: l3fwd's Router, acl's AclRules),
//       std::unique_ptr<Owner> configure(const Params&, const NfContext&, View& view);
#pragma once
#include "nf/acl/acl_rules.h"
#include "nf/ether_filter/ether_filter.h"
#include "nf/ipsec/ipsec_gateway.h"
#include "nf/l2fwd/l2fwd.h"
#include "nf/l3fwd/l3fwd.h"
#include "nf/nids/nids_rules.h"

// X(Kind: the NfKind enumerator, name: the [[nf]] type and the element's member, View, configure)
#define GNF_NF_KINDS(X)                                                 \
  X(Acl, acl, AclNfView, configure_acl)                                 \
  X(EtherFilter, ether_filter, EtherFilterView, configure_ether_filter) \
  X(Ipsec, ipsec, IpsecNfView, configure_ipsec)                         \
  X(L2Fwd, l2fwd, L2FwdView, configure_l2fwd)                           \
  X(L3Fwd, l3fwd, L3FwdView, configure_l3fwd)                           \
  X(Nids, nids, NidsNfView, configure_nids)
