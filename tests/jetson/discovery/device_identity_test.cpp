#include "jetson/discovery/device_identity.h"

#include <gtest/gtest.h>

namespace jetchar::jetson {
namespace {

TEST(DeviceIdentity, SerialAndModuleNameTheBoardRedactionHashesTheSerial) {
  BoardIdentity id;
  id.serial_number = "1421022123456";
  id.module_pnumber = "p3701-0005";
  const auto plain = device_identity(id, "orin-7", false);
  EXPECT_EQ(plain.serial_number, "1421022123456");
  EXPECT_EQ(plain.device_id, "p3701-0005/1421022123456");
  const auto redacted = device_identity(id, "orin-7", true);
  // SHA-256 of "1421022123456" (sha256sum of the string without a newline).
  EXPECT_EQ(redacted.serial_number, sha256_text("1421022123456"));
  EXPECT_EQ(redacted.serial_number.size(), 7u + 64u);
  EXPECT_EQ(redacted.device_id.find("1421022123456"), std::string::npos);
  // Two boards of one model are two devices.
  jetson::BoardIdentity other = id;
  other.serial_number = "1421022999999";
  EXPECT_NE(device_identity(other, "orin-8", true).device_id, redacted.device_id);
}

TEST(DeviceIdentity, KnownDigestAndHostWithoutSerial) {
  EXPECT_EQ(sha256_text("abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const jetson::BoardIdentity host;
  EXPECT_EQ(device_identity(host, "workstation", false).device_id, "host/workstation");
  EXPECT_EQ(device_identity(host, "workstation", true).device_id, "host/" + sha256_text("workstation"));
  EXPECT_TRUE(device_identity(host, "workstation", false).serial_number.empty());
  // A Jetson whose device tree has no serial number is its host.
  jetson::BoardIdentity nx;
  nx.kind = jetson::BoardKind::kJetson;
  nx.family = "Xavier NX";
  EXPECT_EQ(device_identity(nx, "nx-3", false).device_id, "Xavier NX/nx-3");
}

}  // namespace
}  // namespace jetchar::jetson
