#include "nf/ipsec/openssl_primitives.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <stdexcept>

namespace gnf::nf {

void OpensslFree::operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
void OpensslFree::operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }

namespace {

// Keys are set once, when an SA is loaded: a failure then is the library's (out of memory), not
// the packet's, and the SA cannot work at all.
void require(int ok, const char* what) {
  if (ok != 1) throw std::runtime_error(std::string("OpenSSL: ") + what + " failed");
}

std::unique_ptr<EVP_CIPHER_CTX, OpensslFree> keyed(const EVP_CIPHER* cipher, const uint8_t* key, bool encrypt) {
  std::unique_ptr<EVP_CIPHER_CTX, OpensslFree> ctx(EVP_CIPHER_CTX_new());
  if (!ctx) throw std::runtime_error("OpenSSL: EVP_CIPHER_CTX_new failed");
  require(EVP_CipherInit_ex(ctx.get(), cipher, nullptr, key, nullptr, encrypt), "setting a key");
  require(EVP_CIPHER_CTX_set_padding(ctx.get(), 0), "turning padding off");
  return ctx;
}

}  // namespace

AesCbc128::AesCbc128(const uint8_t* key, bool encrypt)
    : cbc_(keyed(EVP_aes_128_cbc(), key, encrypt)), ecb_(keyed(EVP_aes_128_ecb(), key, true)), encrypt_(encrypt) {}

bool AesCbc128::run(const uint8_t* iv, const uint8_t* in, uint8_t* out, uint32_t bytes) {
  int n = 0;
  return EVP_CipherInit_ex(cbc_.get(), nullptr, nullptr, nullptr, iv, encrypt_) == 1 &&
         EVP_CipherUpdate(cbc_.get(), out, &n, in, int(bytes)) == 1 && uint32_t(n) == bytes;
}

bool AesCbc128::encrypt_block(const uint8_t* in, uint8_t* out) {
  int n = 0;
  return EVP_CipherUpdate(ecb_.get(), out, &n, in, 16) == 1 && n == 16;
}

AesGcm::AesGcm(const uint8_t* key, uint32_t key_bytes, bool encrypt)
    : ctx_(keyed(key_bytes == 32 ? EVP_aes_256_gcm() : EVP_aes_128_gcm(), key, encrypt)) {}

bool AesGcm::seal(const uint8_t* nonce, const uint8_t* aad, uint32_t aad_bytes, const uint8_t* in, uint8_t* out,
                  uint32_t bytes, uint8_t* tag) {
  int n = 0, last = 0;
  return EVP_EncryptInit_ex(ctx_.get(), nullptr, nullptr, nullptr, nonce) == 1 &&
         EVP_EncryptUpdate(ctx_.get(), nullptr, &n, aad, int(aad_bytes)) == 1 &&
         EVP_EncryptUpdate(ctx_.get(), out, &n, in, int(bytes)) == 1 &&
         EVP_EncryptFinal_ex(ctx_.get(), out + n, &last) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
}

bool AesGcm::open(const uint8_t* nonce, const uint8_t* aad, uint32_t aad_bytes, const uint8_t* in, uint8_t* out,
                  uint32_t bytes, const uint8_t* tag) {
  int n = 0, last = 0;
  return EVP_DecryptInit_ex(ctx_.get(), nullptr, nullptr, nullptr, nonce) == 1 &&
         EVP_DecryptUpdate(ctx_.get(), nullptr, &n, aad, int(aad_bytes)) == 1 &&
         EVP_DecryptUpdate(ctx_.get(), out, &n, in, int(bytes)) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx_.get(), EVP_CTRL_GCM_SET_TAG, 16, const_cast<uint8_t*>(tag)) == 1 &&
         EVP_DecryptFinal_ex(ctx_.get(), out + n, &last) == 1;
}

HmacSha1::HmacSha1(const uint8_t* key, uint32_t key_bytes) {
  EVP_MAC* hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (!hmac) throw std::runtime_error("OpenSSL: no HMAC");
  ctx_.reset(EVP_MAC_CTX_new(hmac));
  EVP_MAC_free(hmac);  // the context keeps its own reference
  if (!ctx_) throw std::runtime_error("OpenSSL: EVP_MAC_CTX_new failed");
  char digest[] = "SHA1";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  require(EVP_MAC_init(ctx_.get(), key, key_bytes, params), "setting an HMAC key");
}

bool HmacSha1::mac(const uint8_t* data, uint32_t bytes, const uint8_t* extra, uint32_t extra_bytes,
                   uint8_t digest[20]) {
  size_t n = 0;
  // A NULL key keeps the one set at construction (its padded blocks precomputed).
  return EVP_MAC_init(ctx_.get(), nullptr, 0, nullptr) == 1 && EVP_MAC_update(ctx_.get(), data, bytes) == 1 &&
         (extra_bytes == 0 || EVP_MAC_update(ctx_.get(), extra, extra_bytes) == 1) &&
         EVP_MAC_final(ctx_.get(), digest, &n, 20) == 1 && n == 20;
}

}  // namespace gnf::nf
