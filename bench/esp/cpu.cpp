#include "cpu.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "nf/ipsec/host_cipher.h"
#include "nf/ipsec/openssl_cipher.h"

namespace gnf::esp_bench {

namespace {

using Clock = std::chrono::steady_clock;

// The workload's packets sealed by OpenSSL: what an opening pass starts from.
std::vector<uint8_t> sealed_slots(const Workload& w) {
  nf::OpensslEspCipher cipher(w.sas);
  std::vector<uint8_t> slots = w.slots;
  for (const PacketJob& j : w.jobs)
    if (!cipher.seal(j.sa, w.sas[j.sa], crypto_job(j, slots.data()))) throw std::runtime_error("OpenSSL failed to seal");
  return slots;
}

// One pass over the workload's packets, in bursts as the cpu path's NF hands them to its cipher
// (HostEspCipher: OpenSSL then takes them a packet at a time).
void pass(nf::HostEspCipher& cipher, const Workload& w, uint8_t* slots, bool seal) {
  nf::EspBurstJob burst[kIpsecMbBurst];
  bool ok[kIpsecMbBurst];
  for (size_t first = 0; first < w.jobs.size(); first += kIpsecMbBurst) {
    const size_t n = std::min<size_t>(kIpsecMbBurst, w.jobs.size() - first);
    for (size_t i = 0; i < n; ++i) {
      const PacketJob& j = w.jobs[first + i];
      burst[i] = {seal ? j.sa : j.sa + 1, crypto_job(j, slots)};
    }
    if (seal) cipher.seal_burst(burst, uint32_t(n), ok);
    else cipher.open_burst(burst, uint32_t(n), ok);
    for (size_t i = 0; i < n; ++i)
      if (!ok[i]) throw std::runtime_error(seal ? "the CPU library failed to seal" : "the CPU library refused a packet OpenSSL sealed");
  }
}

// One thread's passes; returns its rate over the time its cipher calls took.
Rate one_thread(nf::CpuCryptoLibrary library, const Workload& w, const std::vector<uint8_t>& start, bool seal,
                double seconds, const std::atomic<bool>& go) {
  nf::HostEspCipher cipher(w.sas, library);
  std::vector<uint8_t> slots = start;
  while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
  Clock::duration busy{};
  uint64_t passes = 0;
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (passes == 0 || Clock::now() < end) {
    if (!seal) slots = start;
    const Clock::time_point t0 = Clock::now();
    pass(cipher, w, slots.data(), seal);
    busy += Clock::now() - t0;
    ++passes;
  }
  const double s = std::chrono::duration<double>(busy).count();
  return Rate{double(w.inner_bytes) * 8 * double(passes) / s / 1e9, double(w.jobs.size()) * double(passes) / s / 1e6};
}

}  // namespace

Rate cpu_rate(nf::CpuCryptoLibrary library, const Workload& w, bool seal, unsigned threads, double seconds) {
  const std::vector<uint8_t> start = seal ? w.slots : sealed_slots(w);
  std::vector<Rate> rates(threads);
  std::vector<std::exception_ptr> errors(threads);
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        rates[t] = one_thread(library, w, start, seal, seconds, go);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  go.store(true, std::memory_order_release);
  for (std::thread& t : pool) t.join();
  Rate total{0, 0};
  for (unsigned t = 0; t < threads; ++t) {
    if (errors[t]) std::rethrow_exception(errors[t]);
    total.gbps += rates[t].gbps;
    total.mpps += rates[t].mpps;
  }
  return total;
}

}  // namespace gnf::esp_bench
