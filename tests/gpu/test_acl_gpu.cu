// The ACL classifier on the GPU: the same inline acl_classify() over a copy of the classifier's arena
// in GPU memory answers exactly as on the host (where tests/oracle checks it against DPDK's rte_acl,
// on rule sets from the same generator). The arena is immutable once built: copied before launch.
#include <cuda_runtime.h>

#include <vector>

#include "../oracle/acl_rules.h"
#include "gpu_test.h"
#include "mem/block.h"
#include "nf/acl/classifier.h"
#include "util/cuda_check.h"

using namespace gnf;

namespace {

template <typename Key>
__global__ void classify_all(nf::AclView view, const Key* keys, uint32_t count, uint32_t* rules) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
    rules[i] = nf::acl_classify(view, keys[i]);
}

// Classifies `keys` on the GPU with `view` (pointing into GPU memory); returns the rule numbers.
template <typename Key>
std::vector<uint32_t> classify_on_gpu(const nf::AclView& view, const std::vector<Key>& keys) {
  mem::Block in(mem::Domain::Device, keys.size() * sizeof(Key)), out(mem::Domain::Device, keys.size() * 4);
  GNF_CUDA_CHECK(cudaMemcpy(in.data(), keys.data(), keys.size() * sizeof(Key), cudaMemcpyHostToDevice));
  classify_all<Key><<<1024, 256>>>(view, reinterpret_cast<const Key*>(in.data()), uint32_t(keys.size()),
                                   reinterpret_cast<uint32_t*>(out.data()));
  GNF_CUDA_CHECK_LAUNCH();
  std::vector<uint32_t> got(keys.size());
  GNF_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), got.size() * 4, cudaMemcpyDeviceToHost));
  return got;
}

template <typename Key>
uint64_t count_mismatches(const nf::AclView& host, const std::vector<Key>& keys, const std::vector<uint32_t>& got,
                          uint64_t& matched) {
  uint64_t mismatches = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t want = nf::acl_classify(host, keys[i]);
    matched += want != nf::kAclNoMatch;
    if (got[i] != want && ++mismatches <= 5) ADD_FAILURE() << "tuple " << i << ": GPU rule " << got[i] << ", host " << want;
  }
  return mismatches;
}

}  // namespace

TEST(AclOnGpu, EveryDecisionMatchesTheHostClassifier) {
  GNF_REQUIRE_GPU();
  oracle::AclRuleGenerator gen(2005);
  std::vector<nf::AclMatch> rules;
  for (int i = 0; i < 10'000; ++i) rules.push_back(gen.rule(4));
  for (int i = 0; i < 4'000; ++i) rules.push_back(gen.rule(6));
  const nf::AclClassifier classifier(rules);

  std::vector<nf::AclKey4> keys4;
  std::vector<nf::AclKey6> keys6;
  for (int i = 0; i < 10'000; ++i) gen.edges(rules[i], keys4);
  for (int i = 10'000; i < 14'000; ++i) gen.edges(rules[i], keys6);
  for (int i = 0; i < 1'000'000; ++i) {
    keys4.push_back(i % 2 ? gen.random_tuple<nf::AclKey4>() : gen.tuple_near<nf::AclKey4>(rules[gen.pick(10'000)], 31));
    keys6.push_back(i % 2 ? gen.random_tuple<nf::AclKey6>()
                          : gen.tuple_near<nf::AclKey6>(rules[10'000 + gen.pick(4'000)], 31));
  }

  mem::Block arena(mem::Domain::Device, classifier.arena_bytes());
  GNF_CUDA_CHECK(cudaMemcpy(arena.data(), classifier.arena(), classifier.arena_bytes(), cudaMemcpyHostToDevice));
  const nf::AclView device = classifier.view_at(arena.data());
  const std::vector<uint32_t> got4 = classify_on_gpu(device, keys4), got6 = classify_on_gpu(device, keys6);

  uint64_t matched = 0;
  const uint64_t mismatches = count_mismatches(classifier.view(), keys4, got4, matched) +
                              count_mismatches(classifier.view(), keys6, got6, matched);
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(matched, (keys4.size() + keys6.size()) / 4);  // the tuples hit rules: decisions mean something
  std::printf("ACL on the GPU: %zu IPv4 + %zu IPv6 tuples (%llu matched), %zu rules, %.1f MiB arena: %llu mismatches\n",
              keys4.size(), keys6.size(), (unsigned long long)matched, rules.size(),
              double(classifier.arena_bytes()) / (1 << 20), (unsigned long long)mismatches);
}
