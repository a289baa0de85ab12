#include "experiments/checkpoints/checkpoint_digest.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace jetchar::experiments {
namespace {

using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

void update(EVP_MD_CTX* context, const void* data, std::size_t size) {
  if (EVP_DigestUpdate(context, data, size) != 1) throw std::runtime_error("SHA-256 failed (OpenSSL EVP_DigestUpdate)");
}

void hash_file(EVP_MD_CTX* context, const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw std::runtime_error(fmt::format("checkpoint file {}: {}", file.string(), ec.message()));
  const auto length = static_cast<std::uint64_t>(size);
  update(context, &length, sizeof length);
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("checkpoint file {}: {}", file.string(), std::strerror(errno)));
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    update(context, buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw std::runtime_error(fmt::format("checkpoint file {}: read failed", file.string()));
}

}  // namespace

std::string checkpoint_digest(const std::filesystem::path& model_dir, const std::filesystem::path& weights_file) {
  DigestContext context(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_DigestInit_ex)");
  }
  hash_file(context.get(), model_dir / "config.json");
  hash_file(context.get(), weights_file);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), digest.data(), &length) != 1) {
    throw std::runtime_error("SHA-256 failed (OpenSSL EVP_DigestFinal_ex)");
  }
  std::string hex = "sha256:";
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace jetchar::experiments
