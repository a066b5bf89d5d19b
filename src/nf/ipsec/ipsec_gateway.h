// The owner of an ipsec element (nf/tables.h): its SAs and policies from ipsec-secgw `sa`/`sp`
// files (config_file.h), their sequence counters and anti-replay windows (tables.h), the per-SA
// counters the run's JSON lists, and one host cipher per plane (host_cipher.h); on a path that runs the chain
// on a GPU, GPU copies of all of it and of the device cipher's keys (device_view).
//
// One copy of the per-SA state is in use: the host's on the cpu path, the GPU's on the others (the
// host view is then never run: nothing punts ipsec's packets to the host), so a sequence number is
// never given twice under one key.
//
// No live reload: an SA's sequence counter must not start again under the same key (AES-GCM's
// IV is the sequence number, RFC 4106 §3.1), so a reload would have to carry every kept SA's
// counter and window across; change SAs by restarting gnf, as ipsec-secgw does.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "nf/context.h"
#include "nf/ipsec/config_file.h"
#include "nf/ipsec/host_cipher.h"
#include "nf/ipsec/ipsec_nf.h"
#include "nf/ipsec/tables.h"
#include "nf/params.h"
#include "nf/tables.h"

namespace gnf::nf {

class IpsecGateway final : public NfTablesFor<IpsecNfView> {
 public:
  // Builds the tables of `config` (read from `files`, the first naming the entries' lines) and a
  // cipher for each of `planes` from `cpu_library` (host_cipher.h). Throws std::runtime_error when a
  // CPU library cannot key an SA.
  IpsecGateway(const IpsecConfig& config, std::vector<std::string> files, uint32_t planes,
               CpuCryptoLibrary cpu_library = CpuCryptoLibrary::Auto);
  ~IpsecGateway() override;

  // The view over these tables, with the given unprotected ports.
  IpsecNfView view(uint32_t unprotected_ports);

  void set_readers(sync::ReaderRegistry*) override {}
  // Points `view` at GPU copies of the tables, the per-SA state and counters, and the device
  // cipher's keys (made on the first call, from the host's state as it is then).
  void device_view(IpsecNfView& view) override;
  std::optional<NfTableStats> table_stats() const override;

 private:
  struct OnDevice;
  // The per-SA counters, the GPU's added to the host's when the chain runs there.
  std::vector<unsigned long long> sa_counts() const;

  std::vector<std::string> files_;
  std::vector<uint32_t> sa_lines_;
  IpsecTables tables_;
  IpsecView tables_view_;
  std::vector<unsigned long long> sa_counters_;
  std::vector<std::unique_ptr<HostEspCipher>> ciphers_;
  std::vector<HostEspCipher*> cipher_table_;
  mutable std::mutex mutex_;  // device_view against table_stats
  std::unique_ptr<OnDevice> device_;
};

// Validates the parameters, reads the sa and sp files and builds the gateway. Throws
// gnf::UserError naming file, line and key (a bad rule: the rule's own "file:line: field").
//
// Parameters (config table [[nf]] with type = "ipsec"):
//   sa            = "file"  ipsec-secgw sa lines (sp lines too: its -f file serves as it is)
//   sp            = "file"  more sp lines (optional), which may protect with the sa file's SAs
//   unprotected   = "1"     ports whose frames are inbound, comma-separated (ipsec-secgw's -u
//                           port mask); the others are protected: their frames go outbound
//   replay_window = 64      inbound SAs' anti-replay window, packets (64-4096, a multiple of 64; -w)
//   esn           = false   extended sequence numbers on every SA (-e)
std::unique_ptr<IpsecGateway> configure_ipsec(const Params& params, const NfContext& context, IpsecNfView& view);

}  // namespace gnf::nf
