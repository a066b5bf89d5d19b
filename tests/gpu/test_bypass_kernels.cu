// Which build of the bypass kernel a chain runs on (driver/gpu_bypass_kernel.cu). The builds
// themselves run in the path tests on the device (test_paths.cpp, the IPsec and NIDS path tests,
// scripts/gpu-tests.sh's router and conformance steps); this needs no GPU.
#include <gtest/gtest.h>

#include "driver/gpu_bypass_kernel.cuh"

using namespace gnf::driver::bypass;
using gnf::nf::kind_bit;
using gnf::nf::NfKind;

TEST(BypassKernels, AChainOfOneKindGetsThatKindsBuild) {
  const NfKind own[] = {NfKind::L2Fwd, NfKind::L3Fwd, NfKind::Acl, NfKind::EtherFilter, NfKind::Nids};
  for (NfKind a : own) {
    EXPECT_NE(bypass_kernel_for(kind_bit(a)), bypass_kernel_with_every_kind()) << int(a);
    for (NfKind b : own)
      if (a != b) EXPECT_NE(bypass_kernel_for(kind_bit(a)), bypass_kernel_for(kind_bit(b))) << int(a) << " " << int(b);
  }
  EXPECT_EQ(bypass_kernel_for(0), bypass_kernel_for(kind_bit(NfKind::L2Fwd)));
}

TEST(BypassKernels, ChainsWithoutIpsecShareABuildWithoutIt) {
  const auto mixed = bypass_kernel_for(kind_bit(NfKind::Acl) | kind_bit(NfKind::L3Fwd));
  EXPECT_EQ(mixed, bypass_kernel_for(kind_bit(NfKind::Nids) | kind_bit(NfKind::L2Fwd)));
  EXPECT_NE(mixed, bypass_kernel_with_every_kind());
  EXPECT_NE(mixed, bypass_kernel_for(kind_bit(NfKind::L3Fwd)));
}

TEST(BypassKernels, AnyChainWithIpsecGetsEveryKindsBuild) {
  EXPECT_EQ(bypass_kernel_for(kind_bit(NfKind::Ipsec)), bypass_kernel_with_every_kind());
  EXPECT_EQ(bypass_kernel_for(kind_bit(NfKind::Ipsec) | kind_bit(NfKind::L3Fwd) | kind_bit(NfKind::Acl)),
            bypass_kernel_with_every_kind());
}
