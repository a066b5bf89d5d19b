#include "nf/ipsec/ipsec_gateway.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "mem/block.h"
#include "nf/ipsec/host_cipher.h"
#include "sync/device_mirror.h"
#include "sync/ordering.h"
#include "util/error.h"
#include "util/files.h"

namespace gnf::nf {

namespace {

// "1", "1, 3": port numbers below `ports`, as a bit mask.
uint32_t parse_ports(const Params& params, const char* key, uint16_t ports) {
  const std::string text = params.get_string(key, "");
  uint32_t mask = 0;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    std::string_view word = std::string_view(text).substr(at, comma - at);
    while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    unsigned port = 0;
    auto [end, err] = std::from_chars(word.data(), word.data() + word.size(), port);
    if (word.empty() || err != std::errc() || end != word.data() + word.size() || port >= ports)
      params.fail(key, fmt::format("'{}' is not a port number below {} (the ports are numbered as configured, from 0)",
                                   word, ports));
    mask |= 1u << port;
    at = comma + 1;
  }
  return mask;
}

}  // namespace

void ipsec_process_on_host(const IpsecNfView& v, PacketBatch& batch, NfCounters& counters) {
  assert(batch.plane < v.planes && "a plane without its cipher");
  v.process_in_bursts(*v.ciphers[batch.plane], batch, counters);
}

// The GPU copies: one block holds the tables' image (IpsecTables::image), then the view over it,
// then the per-SA counters; the mirror reads the counters back while kernels add to them.
struct IpsecGateway::OnDevice {
  sync::DeviceMirror mirror;  // first: without CUDA its constructor says so
  DeviceEspKeys keys;
  mem::Block block;
  const IpsecView* tables;
  unsigned long long* sa_counters;

  OnDevice(const IpsecTables& host, const IpsecTables::Image& image, size_t counters)
      : keys(EspKeys(host.sas())), block(mem::Domain::Device, bytes(image, counters)) {
    const size_t image_bytes = image.words.size() * sizeof(uint64_t);
    const IpsecView view = host.view_at(image, block.data());
    block.copy_in(block.data(), image.words.data(), image_bytes);
    block.copy_in(block.data() + image_bytes, &view, sizeof view);
    tables = reinterpret_cast<const IpsecView*>(block.data() + image_bytes);
    sa_counters = reinterpret_cast<unsigned long long*>(block.data() + counters_offset(image_bytes));
  }

  static size_t counters_offset(size_t image_bytes) {
    return (image_bytes + sizeof(IpsecView) + sizeof(uint64_t) - 1) / sizeof(uint64_t) * sizeof(uint64_t);
  }
  static size_t bytes(const IpsecTables::Image& image, size_t counters) {
    return counters_offset(image.words.size() * sizeof(uint64_t)) + counters * sizeof(unsigned long long);
  }
};

IpsecGateway::IpsecGateway(const IpsecConfig& config, std::vector<std::string> files, uint32_t planes,
                           CpuCryptoLibrary cpu_library)
    : files_(std::move(files)),
      sa_lines_(config.sa_lines),
      tables_(config),
      tables_view_(tables_.view()),
      sa_counters_(config.sas.size() * kIpsecCounterCount, 0) {
  for (uint32_t p = 0; p < planes; ++p) {
    ciphers_.push_back(std::make_unique<HostEspCipher>(config.sas, cpu_library));
    cipher_table_.push_back(ciphers_.back().get());
  }
}

IpsecGateway::~IpsecGateway() = default;

IpsecNfView IpsecGateway::view(uint32_t unprotected_ports) {
  return IpsecNfView{&tables_view_, sa_counters_.data(), cipher_table_.data(), uint32_t(cipher_table_.size()),
                     unprotected_ports, DeviceEspCipher{}};
}

void IpsecGateway::device_view(IpsecNfView& view) {
  std::lock_guard lock(mutex_);
  if (!device_) device_ = std::make_unique<OnDevice>(tables_, tables_.image(), sa_counters_.size());
  view.tables = device_->tables;
  view.sa_counters = device_->sa_counters;
  view.device_cipher = device_->keys.view();
}

std::vector<unsigned long long> IpsecGateway::sa_counts() const {
  std::vector<unsigned long long> counts(sa_counters_.size(), 0);
  std::lock_guard lock(mutex_);
  if (device_ && !counts.empty())
    device_->mirror.copy_out(counts.data(), device_->sa_counters, counts.size() * sizeof(unsigned long long));
  for (size_t i = 0; i < counts.size(); ++i) counts[i] += __atomic_load_n(&sa_counters_[i], __ATOMIC_RELAXED);
  return counts;
}

std::optional<NfTableStats> IpsecGateway::table_stats() const {
  NfTableStats stats{"sas", files_.front(), 0, {}};
  const std::vector<IpsecSa>& sas = tables_.sas();
  const std::vector<unsigned long long> counts = sa_counts();
  for (size_t s = 0; s < sas.size(); ++s) {
    const bool out = sas[s].direction == IpsecDirection::Out;
    NfEntryStats entry{sa_lines_[s], fmt::format("sa {} {}", out ? "out" : "in", sas[s].spi), {}};
    // The SA's own outcome always, the others once they happened.
    const IpsecCounter own = out ? kIpsecOutProtected : kIpsecInDecrypted;
    for (uint32_t c = 0; c < kIpsecCounterCount; ++c) {
      const uint64_t n = counts[s * kIpsecCounterCount + c];
      if (n || c == own) entry.counters.emplace_back(kIpsecCounterNames[c], n);
    }
    stats.entries.push_back(std::move(entry));
  }
  return stats;
}

std::unique_ptr<IpsecGateway> configure_ipsec(const Params& params, const NfContext& context, IpsecNfView& view) {
  std::vector<std::string> files;
  for (const char* key : {"sa", "sp"}) {
    const std::string file = params.get_path(key);
    if (file.empty()) continue;
    try {
      check_input_file(file);
    } catch (const UserError& e) {
      params.fail(key, e.what());
    }
    files.push_back(file);
  }
  const uint32_t unprotected = parse_ports(params, "unprotected", context.ports);
  IpsecOptions options;
  options.replay_window = uint32_t(params.get_int("replay_window", options.replay_window, kMinReplayWindow, kMaxReplayWindow));
  options.esn = params.get_bool("esn", options.esn);
  const CpuCryptoLibrary cpu_library =
      cpu_crypto_library_from_name(params.get_choice("cpu_library", "auto", kCpuCryptoLibraryNames));
  params.reject_unknown();
  if (params.path_if_string("sa").empty())
    params.fail("sa", "an ipsec needs its SAs: sa = \"FILE\" with ipsec-secgw sa lines (and sp lines, or sp = \"FILE\")");
  if (options.replay_window % 64 != 0)
    params.fail("replay_window", fmt::format("{} is not a multiple of 64", options.replay_window));
  if (unprotected == 0)
    params.fail("unprotected", "no unprotected port: name the ports encrypted traffic arrives on (ipsec-secgw's -u)");
  auto gateway = std::make_unique<IpsecGateway>(read_ipsec_config_files(files, options), files, context.planes, cpu_library);
  view = gateway->view(unprotected);
  return gateway;
}

}  // namespace gnf::nf
