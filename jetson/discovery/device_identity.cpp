#include "jetson/discovery/device_identity.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <memory>
#include <optional>
#include <stdexcept>

namespace jetchar::jetson {

std::string sha256_text(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 of the board's serial number failed (OpenSSL EVP_Digest)");
  }
  std::string hex = "sha256:";
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

DeviceIdentity device_identity(const BoardIdentity& id, std::string_view hostname, bool redact) {
  DeviceIdentity device;
  // The module P-number names the SKU; boards without one fall back to what names the model.
  const std::optional<std::string> model = id.module_pnumber ? id.module_pnumber : id.family ? id.family : id.model;
  if (id.serial_number && !id.serial_number->empty()) {
    device.serial_number = redact ? sha256_text(*id.serial_number) : *id.serial_number;
    device.device_id = model.value_or("board") + "/" + device.serial_number;
  } else {
    // No serial number (a generic host, or a board whose device tree has none): the machine is
    // the device. A redacted host name is hashed as well, so that nothing identifying is stored.
    const std::string host = redact ? sha256_text(hostname) : std::string(hostname);
    device.device_id = (id.kind == jetson::BoardKind::kJetson && model ? *model : std::string("host")) + "/" + host;
  }
  return device;
}

}  // namespace jetchar::jetson
