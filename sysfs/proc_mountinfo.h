// /proc/self/mountinfo (proc(5)): one line per mount of this process's mount namespace,
//   36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue
// The kernel escapes space, tab, newline and backslash in paths as octal ("\040"); paths are
// decoded here. Option lists stay as printed, because there an escaped ',' ("\054", e.g. in an
// overlay upperdir) is part of a value and not a separator: use mount_option() to read them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sysfs/root.h"

namespace jetchar::sysfs {

struct MountInfo {
  int mount_id = 0;
  int parent_id = 0;
  /// st_dev of files on this mount; major 0 for file systems without a block device (tmpfs,
  /// overlay, nfs, btrfs subvolumes).
  unsigned major = 0;
  unsigned minor = 0;
  /// Directory of the file system that is mounted here ("/" unless a bind mount of a subtree).
  std::string root;
  /// Where it is mounted, in this process's namespace.
  std::string mount_point;
  /// Per-mount options as printed ("rw,relatime"); see mount_option().
  std::string mount_options;
  /// Tagged fields before the " - " separator ("shared:1", "master:2"); often none.
  std::vector<std::string> optional_fields;
  /// "ext4", "tmpfs", "overlay", "nfs4", "fuse.sshfs", ...
  std::string fs_type;
  /// Mount source ("/dev/mmcblk0p1", "tmpfs", "server:/export", "none").
  std::string source;
  /// Per-superblock options as printed, octal escapes kept ("rw,errors=remount-ro"; overlay's
  /// "rw,lowerdir=...,upperdir=..."); see mount_option().
  std::string super_options;
};

/// Decodes the kernel's octal escapes ("\040" -> ' '); other backslashes are kept as they are.
std::string decode_mount_escapes(std::string_view text);

/// A comma-separated option list split into options, each decoded:
/// "rw,upperdir=/a\054b" -> {"rw", "upperdir=/a,b"}.
std::vector<std::string> split_mount_options(std::string_view options);
/// Decoded value of "key=value" in an option list; nullopt when the key is absent or has no value.
std::optional<std::string> mount_option(std::string_view options, std::string_view key);

/// Parses mountinfo text (blank lines skipped). Throws FormatError naming `source` and the line
/// for a line without the " - " separator, with a bad id or "major:minor", or with a wrong
/// number of fields.
std::vector<MountInfo> parse_proc_mountinfo(std::string_view text, std::string_view source = "/proc/self/mountinfo");
/// Reads and parses `kernel_path` (default: this process's mountinfo) under `root`.
/// Throws IoError / FormatError.
std::vector<MountInfo> read_proc_mountinfo(const Root& root, std::string_view kernel_path = "/proc/self/mountinfo");

/// The mount whose mount point is the longest prefix (whole components) of the absolute,
/// normalized `path`; of several mounts on the same point, the last one (the one on top).
/// nullptr when none matches (no "/" mount in the table).
const MountInfo* find_mount_containing(const std::vector<MountInfo>& mounts, std::string_view path);

}  // namespace jetchar::sysfs
