// util/nvml.h against a fake libnvidia-ml (tests/fake_nvml): loading, finding the GPU, sampling.
#include <gtest/gtest.h>

#include <dlfcn.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "util/nvml.h"

namespace gnf {
namespace {

constexpr uint64_t kMib = 1024 * 1024;

// The fake's own controls, through a handle of the test's (which also keeps it loaded).
struct FakeNvml {
  FakeNvml() : handle(dlopen(GNF_FAKE_NVML, RTLD_NOW | RTLD_LOCAL)) {
    // Thrown, not EXPECTed: the calls below would go through null pointers (gtest reports it).
    if (!handle) throw std::runtime_error(std::string("cannot load the fake NVML: ") + dlerror());
    initialised = reinterpret_cast<int (*)()>(dlsym(handle, "fake_nvml_initialised"));
    utilization_calls = reinterpret_cast<unsigned (*)()>(dlsym(handle, "fake_nvml_utilization_calls"));
    reinterpret_cast<void (*)()>(dlsym(handle, "fake_nvml_reset"))();
  }
  ~FakeNvml() { dlclose(handle); }
  void* handle;
  int (*initialised)();
  unsigned (*utilization_calls)();
};

TEST(Nvml, OpensDeviceZeroAndReadsItsNameDriverAndMemory) {
  FakeNvml fake;
  {
    std::unique_ptr<Nvml> nvml = Nvml::open("", GNF_FAKE_NVML);
    ASSERT_NE(nvml, nullptr);
    EXPECT_EQ(nvml->info().name, "Fake GPU 80GB");
    EXPECT_EQ(nvml->info().driver_version, "999.01.02");
    EXPECT_EQ(nvml->info().memory_total_bytes, 80 * 1024 * kMib);
    EXPECT_EQ(fake.initialised(), 1);
  }
  EXPECT_EQ(fake.initialised(), 0);  // shut down with the object
}

TEST(Nvml, FindsTheGpuByPciBusIdAndNoOther) {
  FakeNvml fake;
  EXPECT_NE(Nvml::open("0000:41:00.0", GNF_FAKE_NVML), nullptr);
  EXPECT_EQ(Nvml::open("0000:99:00.0", GNF_FAKE_NVML), nullptr);
  EXPECT_EQ(fake.initialised(), 0);  // a failed open shuts NVML down again
}

TEST(Nvml, NoLibraryOrALibraryWithoutNvmlMeansNoGpu) {
  EXPECT_EQ(Nvml::open("", "/nonexistent/libnvidia-ml.so.1"), nullptr);
  EXPECT_EQ(Nvml::open("", "libm.so.6"), nullptr);
}

TEST(Nvml, ASampleIsUtilisationAndMemoryUsedNow) {
  FakeNvml fake;
  std::unique_ptr<Nvml> nvml = Nvml::open("", GNF_FAKE_NVML);
  ASSERT_NE(nvml, nullptr);
  std::optional<Nvml::Sample> first = nvml->sample(), second = nvml->sample();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->utilization_pct, 20u);
  EXPECT_EQ(first->memory_used_bytes, 101 * kMib);
  EXPECT_EQ(second->utilization_pct, 60u);
  EXPECT_EQ(second->memory_used_bytes, 102 * kMib);
}

TEST(GpuSampler, SamplesAtStartAndEveryPeriodUntilStopped) {
  FakeNvml fake;
  std::unique_ptr<Nvml> nvml = Nvml::open("", GNF_FAKE_NVML);
  ASSERT_NE(nvml, nullptr);
  GpuSampler sampler(*nvml, std::chrono::milliseconds(2));
  EXPECT_EQ(sampler.summary().samples, 0u);
  sampler.start();
  EXPECT_TRUE(sampler.running());
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  sampler.stop();
  EXPECT_FALSE(sampler.running());
  GpuSampler::Summary s = sampler.summary();
  uint64_t n = s.samples;
  EXPECT_GE(n, 2u);
  EXPECT_EQ(n, fake.utilization_calls());  // none after stop()
  // 20, 60, 20, ...: the mean of the first n readings; memory grew to 100 + n MiB.
  EXPECT_DOUBLE_EQ(s.utilization_pct_mean, double(20 * ((n + 1) / 2) + 60 * (n / 2)) / double(n));
  EXPECT_EQ(s.memory_used_bytes_max, (100 + n) * kMib);
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(fake.utilization_calls(), n);
}

}  // namespace
}  // namespace gnf
