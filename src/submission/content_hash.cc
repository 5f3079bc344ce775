#include "submission/content_hash.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace keval {

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) +
                             ": EVP_Digest(sha256) failed");
  }
  static constexpr char kHexDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHexDigits[digest[i] >> 4]);
    hex.push_back(kHexDigits[digest[i] & 0xf]);
  }
  return hex;
}

}  // namespace keval
