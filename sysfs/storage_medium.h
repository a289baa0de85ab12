// Which block device and which kind of storage medium hold a path: the data-set location is a
// factor of the study (SD card vs eMMC vs NVMe vs USB disk change fetch stalls), so every run
// records it.
//
//   path --stat(2)--> st_dev --/sys/dev/block/MAJ:MIN--> /sys/devices/.../block/<disk>[/<partition>]
//
// File systems without a block device (tmpfs, overlay, nfs, btrfs's anonymous device numbers)
// are resolved through /proc/self/mountinfo. Classification is by kernel name and sysfs
// properties, never by a fixed device path:
//   - any device below a USB host ("/usb" path component)         -> USB storage (before SATA: a
//     USB-SATA bridge also shows up as sdX)
//   - mmcblkN with device/type "SD" / "MMC"                        -> SD card / eMMC
//   - nvme*                                                        -> NVMe SSD
//   - below a virtio device, vd*, xvd*                             -> virtual disk
//   - sd* with queue/rotational 0 / 1                              -> SATA SSD / HDD
//   - loop*, dm-*, md*, zram*, ram*, nbd*                          -> loop, device-mapper, RAID,
//                                                                     zram, RAM disk, network
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::sysfs {

enum class StorageMedium {
  kSdCard,
  kEmmc,
  kNvme,
  kSataSsd,
  kHdd,
  kUsb,
  /// virtio / Xen paravirtual disk (a VM; the physical medium is unknown).
  kVirtualDisk,
  kLoop,
  kDeviceMapper,
  /// md software RAID.
  kRaid,
  /// Compressed RAM block device.
  kZram,
  /// brd RAM disk (/dev/ramN).
  kRamDisk,
  /// tmpfs / ramfs: files live in RAM (page cache) only.
  kRam,
  /// nfs, cifs, 9p, sshfs, ... or a network block device.
  kNetwork,
  /// proc, sysfs, cgroup and other kernel pseudo file systems.
  kPseudo,
  kUnknown,
};

/// Stable machine-readable name ("sd_card", "emmc", "nvme", "sata_ssd", "hdd", "usb", ...), for
/// result files and database columns.
std::string_view to_string(StorageMedium medium);

/// A device number as the kernel prints it ("179:1").
struct DeviceNumber {
  unsigned major = 0;
  unsigned minor = 0;

  std::string to_string() const;
  bool operator==(const DeviceNumber&) const = default;
};

struct StorageInfo {
  /// st_dev of the path (or the device asked about).
  DeviceNumber device;
  /// Block device holding the file system ("mmcblk0p1"); empty when there is none (tmpfs, nfs).
  std::string device_name;
  /// Whole disk of that device ("mmcblk0"); the same as device_name for an unpartitioned disk.
  std::string disk_name;
  /// Canonical sysfs directory of the disk ("/sys/devices/.../block/mmcblk0"); empty when none.
  std::string disk_sysfs_path;
  StorageMedium medium = StorageMedium::kUnknown;
  /// For people: "SD card", "eMMC", "NVMe SSD", "tmpfs (RAM)", "overlay on NVMe SSD", or why the
  /// medium is unknown.
  std::string label;
  /// queue/rotational of the disk; nullopt when the disk has no such attribute or there is no disk.
  std::optional<bool> rotational;
  /// For device-mapper and RAID: the disks underneath ("nvme0n1"), recursively resolved.
  std::vector<std::string> underlying_disks;
  /// From the mountinfo entry of the file system; empty when no entry was found.
  std::string fs_type;
  std::string mount_point;
  std::string mount_source;
};

/// Classifies block device `device` from /sys/dev/block/MAJ:MIN under `root`. Fills everything
/// but the mount fields. Throws IoError (ENOENT) when there is no such block device.
StorageInfo classify_block_device(const Root& root, DeviceNumber device);

/// Storage of a file system identified by its st_dev `device`, with `path` (absolute, canonical,
/// may be empty) choosing among several mounts of the same device. Reads /sys and
/// /proc/self/mountinfo under `root`, so fixture trees can model any machine. Non-block file
/// systems are resolved through mountinfo (overlay to the mount holding its upper directory,
/// btrfs and the like to their /dev source). Throws IoError / FormatError for unreadable or
/// malformed kernel files; an undeterminable medium is not an error (kUnknown with the reason).
StorageInfo storage_of_device(const Root& root, DeviceNumber device, std::string_view path = {});

/// Storage of the file or directory `path`: a real path on this machine (a data set, a results
/// directory), not a kernel path, so it is stat(2)ed as given and not resolved under `root`;
/// /sys and /proc are read under `root`. Throws IoError naming the path when it cannot be
/// stat(2)ed.
StorageInfo storage_of_path(const Root& root, const std::filesystem::path& path);

}  // namespace jetchar::sysfs
