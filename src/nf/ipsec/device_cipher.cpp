#include "nf/ipsec/device_cipher.h"

#include <algorithm>

namespace gnf::nf {

EspSaKeys esp_sa_keys(const IpsecSa& sa) {
  EspSaKeys k{};
  // A NULL cipher has no key: its schedules stay zero and are never read.
  if (aes_encryption_key(sa.cipher_key, esp_cipher_key_bytes(sa.cipher), k.encryption)) {
    k.decryption = aes_decryption_key(k.encryption);
    k.ghash = ghash_powers(aes_tables(), k.encryption);
  }
  if (sa.auth == EspAuth::HmacSha1_96) k.hmac = hmac_sha1_key(sa.auth_key, esp_auth_key_bytes(sa.auth));
  return k;
}

EspKeys::EspKeys(const std::vector<IpsecSa>& sas) {
  keys_.reserve(sas.size());
  for (const IpsecSa& sa : sas) keys_.push_back(esp_sa_keys(sa));
}

// A set without SAs still gets a (page-sized) block, so that the view's pointers are GPU memory.
DeviceEspKeys::DeviceEspKeys(const EspKeys& keys)
    : tables_(mem::Domain::Device, sizeof(AesTables)),
      keys_(mem::Domain::Device, std::max<size_t>(keys.keys().size(), 1) * sizeof(EspSaKeys)) {
  tables_.copy_in(tables_.data(), &aes_tables(), sizeof(AesTables));
  keys_.copy_in(keys_.data(), keys.keys().data(), keys.keys().size() * sizeof(EspSaKeys));
}

DeviceEspCipher DeviceEspKeys::view() const {
  return DeviceEspCipher{AesTablesAt{reinterpret_cast<const AesTables*>(tables_.data())},
                         reinterpret_cast<const EspSaKeys*>(keys_.data())};
}

}  // namespace gnf::nf
