#include "sysfs/storage_medium.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <system_error>

#include "sysfs/attribute.h"
#include "sysfs/error.h"
#include "sysfs/proc_mountinfo.h"
#include "sysfs/proc_text.h"

namespace fs = std::filesystem;

namespace jetchar::sysfs {
namespace {

// dm on dm on md is fine; a deeper chain means a loop in a corrupt fixture or kernel tree.
constexpr int kMaxDepth = 8;

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string parent_of(std::string_view kernel_path) {
  const size_t slash = kernel_path.rfind('/');
  return slash == 0 || slash == std::string_view::npos ? "/" : std::string(kernel_path.substr(0, slash));
}

std::string base_name(std::string_view kernel_path) {
  const size_t slash = kernel_path.rfind('/');
  return std::string(slash == std::string_view::npos ? kernel_path : kernel_path.substr(slash + 1));
}

bool has_component_starting_with(std::string_view path, std::string_view prefix) {
  for (const auto& part : fs::path(path)) {
    if (starts_with(part.string(), prefix)) return true;
  }
  return false;
}

std::optional<DeviceNumber> parse_device_number(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto major = parse_u64(text.substr(0, colon));
  const auto minor = parse_u64(text.substr(colon + 1));
  if (!major || !minor || *major > 0xfff || *minor > 0xfffff) return std::nullopt;
  return DeviceNumber{static_cast<unsigned>(*major), static_cast<unsigned>(*minor)};
}

// Device number of a block device by kernel name, from /sys/class/block/<name>/dev.
std::optional<DeviceNumber> device_number_of(const Root& root, const std::string& name) {
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  const std::string path = "/sys/class/block/" + name + "/dev";
  const auto text = try_read_string(root, path);
  if (!text) return std::nullopt;
  const auto number = parse_device_number(*text);
  if (!number) throw FormatError(path, excerpt(*text), "a device number 'major:minor'");
  return number;
}

StorageInfo classify(const Root& root, DeviceNumber device, int depth);

// device-mapper and md: the medium of the stack is that of the disks in slaves/.
void add_underlying(const Root& root, StorageInfo& info, int depth) {
  std::vector<std::string> labels;
  for (const auto& slave : root.list(info.disk_sysfs_path + "/slaves")) {
    const auto number = device_number_of(root, slave);
    if (!number || depth >= kMaxDepth) continue;
    const StorageInfo below = classify(root, *number, depth + 1);
    if (below.underlying_disks.empty()) {
      info.underlying_disks.push_back(below.disk_name);
    } else {
      info.underlying_disks.insert(info.underlying_disks.end(), below.underlying_disks.begin(),
                                   below.underlying_disks.end());
    }
    labels.push_back(below.label + " (" + below.disk_name + ")");
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  for (size_t i = 0; i < labels.size(); ++i) info.label += (i == 0 ? " on " : " + ") + labels[i];
}

StorageInfo classify(const Root& root, DeviceNumber device, int depth) {
  const std::string link = "/sys/dev/block/" + device.to_string();
  if (!root.exists(link)) throw IoError(link, "find block device", ENOENT);
  StorageInfo info;
  info.device = device;
  const std::string device_path = root.canonical(link);
  // A partition is a subdirectory of its disk with a "partition" attribute.
  info.disk_sysfs_path = root.exists(device_path + "/partition") ? parent_of(device_path) : device_path;
  info.device_name = base_name(device_path);
  info.disk_name = base_name(info.disk_sysfs_path);
  if (const auto rotational = try_read_int(root, info.disk_sysfs_path + "/queue/rotational")) {
    info.rotational = *rotational != 0;
  }
  const std::string& disk = info.disk_name;
  const auto set = [&](StorageMedium medium, std::string label) {
    info.medium = medium;
    info.label = std::move(label);
  };
  if (starts_with(disk, "zram")) {
    set(StorageMedium::kZram, "zram (compressed RAM)");
  } else if (starts_with(disk, "loop")) {
    const auto backing = try_read_string(root, info.disk_sysfs_path + "/loop/backing_file");
    set(StorageMedium::kLoop, backing ? "loop device backed by " + *backing : "loop device");
  } else if (starts_with(disk, "dm-")) {
    const auto name = try_read_string(root, info.disk_sysfs_path + "/dm/name");
    set(StorageMedium::kDeviceMapper, name ? "device-mapper '" + *name + "'" : "device-mapper");
    add_underlying(root, info, depth);
  } else if (starts_with(disk, "md")) {
    set(StorageMedium::kRaid, "software RAID");
    add_underlying(root, info, depth);
  } else if (starts_with(disk, "ram")) {
    set(StorageMedium::kRamDisk, "RAM disk");
  } else if (starts_with(disk, "nbd")) {
    set(StorageMedium::kNetwork, "network block device");
  } else if (has_component_starting_with(info.disk_sysfs_path, "usb")) {
    set(StorageMedium::kUsb, "USB storage");
  } else if (starts_with(disk, "mmcblk")) {
    const auto type = try_read_string(root, info.disk_sysfs_path + "/device/type");
    if (type == "SD") {
      set(StorageMedium::kSdCard, "SD card");
    } else if (type == "MMC") {
      set(StorageMedium::kEmmc, "eMMC");
    } else {
      set(StorageMedium::kUnknown,
          type ? "MMC device of type '" + excerpt(*type) + "'" : "MMC device (device/type unreadable)");
    }
  } else if (starts_with(disk, "nvme")) {
    set(StorageMedium::kNvme, "NVMe SSD");
  } else if (has_component_starting_with(info.disk_sysfs_path, "virtio") || starts_with(disk, "vd")) {
    set(StorageMedium::kVirtualDisk, "virtual disk (virtio)");
  } else if (starts_with(disk, "xvd")) {
    set(StorageMedium::kVirtualDisk, "virtual disk (Xen)");
  } else if (starts_with(disk, "sd")) {
    if (info.rotational == false) {
      set(StorageMedium::kSataSsd, "SATA SSD");
    } else if (info.rotational == true) {
      set(StorageMedium::kHdd, "HDD");
    } else {
      set(StorageMedium::kUnknown, "SCSI/SATA disk (queue/rotational unreadable)");
    }
  } else {
    set(StorageMedium::kUnknown, "block device '" + disk + "' of an unrecognized kind");
  }
  return info;
}

// "/a/b" is under "/a" and under "/", not under "/a/bc".
bool is_under(std::string_view path, std::string_view mount_point) {
  if (mount_point == "/") return starts_with(path, "/");
  return starts_with(path, mount_point) && (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

bool is_one_of(std::string_view value, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), value) != names.end();
}

StorageInfo resolve(const Root& root, DeviceNumber device, const MountInfo* mount, const std::vector<MountInfo>& mounts,
                    int depth) {
  StorageInfo info;
  if (root.exists("/sys/dev/block/" + device.to_string())) {
    info = classify(root, device, depth);
  } else if (mount == nullptr) {
    info.medium = StorageMedium::kUnknown;
    info.label = "device " + device.to_string() + " has neither a block device nor a mount entry";
  } else {
    const std::string& type = mount->fs_type;
    if (is_one_of(type, {"tmpfs", "ramfs", "devtmpfs"})) {
      info.medium = StorageMedium::kRam;
      info.label = type + " (RAM)";
    } else if (type == "overlay") {
      // Writes (and copied-up files) live in upperdir; a read-only overlay has only lowerdirs.
      auto layer = mount_option(mount->super_options, "upperdir");
      if (!layer) {
        layer = mount_option(mount->super_options, "lowerdir");
        if (layer) layer = layer->substr(0, layer->find(':'));
      }
      const MountInfo* below = layer && !layer->empty() ? find_mount_containing(mounts, *layer) : nullptr;
      if (below != nullptr && below->mount_id != mount->mount_id && depth < kMaxDepth) {
        info = resolve(root, {below->major, below->minor}, below, mounts, depth + 1);
        info.label = "overlay on " + info.label;
      } else {
        info.medium = StorageMedium::kUnknown;
        info.label = layer ? "overlay (underlying device not determinable: layer " + *layer +
                                 " is not visible in this mount namespace)"
                           : "overlay (underlying device not determinable: no upperdir/lowerdir option)";
      }
    } else if (is_one_of(type, {"nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "ceph", "glusterfs", "afs", "fuse.sshfs",
                                "fuse.glusterfs", "fuse.s3fs", "lustre", "virtiofs"})) {
      info.medium = StorageMedium::kNetwork;
      info.label = "network file system (" + type + ")";
    } else if (const auto number = starts_with(mount->source, "/dev/")
                                       ? device_number_of(root, base_name(root.canonical(mount->source)))
                                       : std::nullopt;
               number && depth < kMaxDepth && root.exists("/sys/dev/block/" + number->to_string())) {
      // btrfs and friends report an anonymous st_dev; the mount source names the real device.
      info = classify(root, *number, depth + 1);
    } else if (is_one_of(type, {"proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs",
                                "configfs", "bpf", "mqueue", "pstore", "hugetlbfs", "fusectl", "autofs", "binfmt_misc",
                                "efivarfs", "nsfs", "rpc_pipefs"})) {
      info.medium = StorageMedium::kPseudo;
      info.label = "kernel pseudo file system (" + type + ")";
    } else {
      info.medium = StorageMedium::kUnknown;
      info.label = type + " from '" + mount->source + "' (device not determinable)";
    }
  }
  info.device = device;
  if (mount != nullptr) {
    info.fs_type = mount->fs_type;
    info.mount_point = mount->mount_point;
    info.mount_source = mount->source;
  }
  return info;
}

}  // namespace

std::string_view to_string(StorageMedium medium) {
  switch (medium) {
    case StorageMedium::kSdCard: return "sd_card";
    case StorageMedium::kEmmc: return "emmc";
    case StorageMedium::kNvme: return "nvme";
    case StorageMedium::kSataSsd: return "sata_ssd";
    case StorageMedium::kHdd: return "hdd";
    case StorageMedium::kUsb: return "usb";
    case StorageMedium::kVirtualDisk: return "virtual_disk";
    case StorageMedium::kLoop: return "loop";
    case StorageMedium::kDeviceMapper: return "device_mapper";
    case StorageMedium::kRaid: return "raid";
    case StorageMedium::kZram: return "zram";
    case StorageMedium::kRamDisk: return "ram_disk";
    case StorageMedium::kRam: return "ram";
    case StorageMedium::kNetwork: return "network";
    case StorageMedium::kPseudo: return "pseudo";
    case StorageMedium::kUnknown: return "unknown";
  }
  return "unknown";
}

std::string DeviceNumber::to_string() const { return std::to_string(major) + ":" + std::to_string(minor); }

StorageInfo classify_block_device(const Root& root, DeviceNumber device) { return classify(root, device, 0); }

StorageInfo storage_of_device(const Root& root, DeviceNumber device, std::string_view path) {
  const std::vector<MountInfo> mounts =
      root.exists("/proc/self/mountinfo") ? read_proc_mountinfo(root) : std::vector<MountInfo>{};
  // Of the mounts of this device, the one holding `path` (longest mount point), or without a
  // path the first that mounts the file system's root.
  const MountInfo* mount = nullptr;
  for (const auto& candidate : mounts) {
    if (candidate.major != device.major || candidate.minor != device.minor) continue;
    if (!path.empty()) {
      if (!is_under(path, candidate.mount_point)) continue;
      if (mount == nullptr || candidate.mount_point.size() >= mount->mount_point.size()) mount = &candidate;
    } else if (mount == nullptr || (mount->root != "/" && candidate.root == "/")) {
      mount = &candidate;
    }
  }
  // btrfs subvolumes stat(2) with a device number of their own that mountinfo does not show.
  if (mount == nullptr && !path.empty()) mount = find_mount_containing(mounts, path);
  return resolve(root, device, mount, mounts, 0);
}

StorageInfo storage_of_path(const Root& root, const fs::path& path) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec) throw IoError(path.string(), "resolve", ec.value());
  struct stat status {};
  if (::stat(real.c_str(), &status) != 0) throw IoError(path.string(), "stat", errno);
  return storage_of_device(root, {::major(status.st_dev), ::minor(status.st_dev)}, real.string());
}

}  // namespace jetchar::sysfs
