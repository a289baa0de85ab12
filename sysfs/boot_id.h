// The kernel's identifier of the current boot: /proc/sys/kernel/random/boot_id, a random UUID the
// kernel draws once per boot and prints as 36 characters and a newline (drivers/char/random.c,
// proc_do_uuid, "%pU"). The change journal tags its records with it, so that a restore can tell a
// control the driver has reset since (NVML's power limit and locked clocks; nvml.h: "not
// persistent across reboots or driver unloads") from one still in force.
#pragma once

#include <string>

#include "sysfs/root.h"

namespace jetchar::sysfs {

/// The boot id read under `root` (a fixture tree may hold its own), lower-case, without the
/// newline; empty when the file is absent or does not hold a UUID (then no record is tagged and
/// every journalled control is restored, as for a journal written before tags existed).
std::string boot_id(const Root& root);

}  // namespace jetchar::sysfs
