#include "driver/gpu_bypass_kernel_body.cuh"

namespace gnf::driver::bypass {

// Which build a chain runs on. A kernel holding every kind's code paid for it in every phase of
// every round, whatever the chain did: 5.7 µs a round at 1 % load where l2fwd's own build took 3.0
// (bench/results/2026-11-25-session24, runs 8-9; ptxas: a 7.9 KB stack and 2 KB of spills against
// 1 KB and none). So a chain of one kind gets that kind's build, and a chain without IPsec (whose
// crypto is most of the code: 55 of the every-kind build's 77 s of compiling) one without it.
BypassKernel bypass_kernel_for(nf::NfKindSet kinds) {
  using nf::kind_bit;
  using nf::NfKind;
  constexpr nf::NfKindSet kWithoutIpsec = nf::kAllNfKinds & ~kind_bit(NfKind::Ipsec);
  switch (kinds) {
    case 0:  // no NF: the smallest build runs nothing of its NF code
    case kind_bit(NfKind::L2Fwd): return bypass_kernel<kind_bit(NfKind::L2Fwd)>;
    case kind_bit(NfKind::L3Fwd): return bypass_kernel<kind_bit(NfKind::L3Fwd)>;
    case kind_bit(NfKind::Acl): return bypass_kernel<kind_bit(NfKind::Acl)>;
    case kind_bit(NfKind::EtherFilter): return bypass_kernel<kind_bit(NfKind::EtherFilter)>;
    case kind_bit(NfKind::Nids): return bypass_kernel<kind_bit(NfKind::Nids)>;
    default: break;
  }
  return nf::holds(kinds, NfKind::Ipsec) ? bypass_kernel_with_every_kind() : bypass_kernel<kWithoutIpsec>;
}

}  // namespace gnf::driver::bypass
