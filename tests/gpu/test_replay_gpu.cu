// The anti-replay window (nf/ipsec/replay.h) with thousands of GPU threads on one window at once,
// as the drivers' kernels use it: every number of a range arrives three times, in a shuffled order,
// and each is accepted exactly once. The lock-free ring's claim: no number is accepted twice
// whatever the interleaving, and none in the window is lost.
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "gpu_test.h"
#include "mem/block.h"
#include "nf/ipsec/replay.h"
#include "util/cuda_check.h"

using namespace gnf;
using namespace gnf::nf;

namespace {

// Each thread: check, then accept, as ipsec_inbound does around the ICV; counts the acceptances
// per number.
__global__ void check_and_accept(ReplayWindow* window, uint32_t size, const uint64_t* numbers, uint32_t count,
                                 unsigned int* accepted, unsigned int* refused_by_check) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    const uint64_t seq = numbers[i];
    if (replay_check(*window, size, seq) != ReplayVerdict::New) {
      atomicAdd(refused_by_check, 1u);
      continue;
    }
    if (replay_accept(*window, size, seq) == ReplayVerdict::New) atomicAdd(&accepted[seq], 1u);
  }
}

// Runs `numbers` through a fresh window on the GPU; returns the acceptances per number.
std::vector<uint32_t> run(uint32_t size, const std::vector<uint64_t>& numbers, uint64_t highest, ReplayWindow& after) {
  mem::Block window(mem::Domain::Device, sizeof(ReplayWindow)), list(mem::Domain::Device, numbers.size() * 8),
      accepted(mem::Domain::Device, (highest + 1) * 4), refused(mem::Domain::Device, 4);
  const ReplayWindow empty{};
  window.copy_in(window.data(), &empty, sizeof(empty));
  list.copy_in(list.data(), numbers.data(), numbers.size() * 8);
  GNF_CUDA_CHECK(cudaMemset(accepted.data(), 0, accepted.size()));
  GNF_CUDA_CHECK(cudaMemset(refused.data(), 0, 4));
  check_and_accept<<<132, 256>>>(reinterpret_cast<ReplayWindow*>(window.data()), size,
                                 reinterpret_cast<const uint64_t*>(list.data()), uint32_t(numbers.size()),
                                 reinterpret_cast<unsigned int*>(accepted.data()),
                                 reinterpret_cast<unsigned int*>(refused.data()));
  GNF_CUDA_CHECK_LAUNCH();
  GNF_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<uint32_t> counts(highest + 1);
  accepted.copy_out(counts.data(), accepted.data(), counts.size() * 4);
  window.copy_out(&after, window.data(), sizeof(after));
  return counts;
}

}  // namespace

TEST(ReplayOnGpu, ThreadsOnOneWindowAcceptEachNumberOnceWhenTheWindowHoldsThemAll) {
  GNF_REQUIRE_GPU();
  constexpr uint32_t kSize = kMaxReplayWindow;
  std::vector<uint64_t> numbers;
  for (int copy = 0; copy < 3; ++copy)
    for (uint64_t seq = 1; seq <= kSize; ++seq) numbers.push_back(seq);
  std::shuffle(numbers.begin(), numbers.end(), std::mt19937_64(4303));
  ReplayWindow after{};
  const std::vector<uint32_t> counts = run(kSize, numbers, kSize, after);
  for (uint64_t seq = 1; seq <= kSize; ++seq) ASSERT_EQ(counts[seq], 1u) << "number " << seq;
  EXPECT_EQ(after.top, kSize);
}

// Numbers far apart slide the window while others are checked: many are refused as outside it
// (which ones depends on the threads' timing), none is accepted twice, the highest always is.
TEST(ReplayOnGpu, ThreadsSlidingTheWindowNeverAcceptANumberTwice) {
  GNF_REQUIRE_GPU();
  constexpr uint32_t kSize = 64;
  constexpr uint64_t kHighest = 200'000;
  std::vector<uint64_t> numbers;
  for (int copy = 0; copy < 3; ++copy)
    for (uint64_t seq = 1; seq <= kHighest; ++seq) numbers.push_back(seq);
  // Shuffled within runs of 512: the window (64) is far smaller than the disorder, as on many rings.
  std::mt19937_64 rng(6479);
  std::sort(numbers.begin(), numbers.end());
  for (size_t i = 0; i < numbers.size(); i += 512)
    std::shuffle(numbers.begin() + i, numbers.begin() + std::min(numbers.size(), i + 512), rng);
  ReplayWindow after{};
  const std::vector<uint32_t> counts = run(kSize, numbers, kHighest, after);
  uint64_t accepted = 0;
  for (uint64_t seq = 1; seq <= kHighest; ++seq) {
    ASSERT_LE(counts[seq], 1u) << "number " << seq;
    accepted += counts[seq];
  }
  EXPECT_EQ(counts[kHighest], 1u);
  EXPECT_EQ(after.top, kHighest);
  EXPECT_GT(accepted, 0u);
}
