#include "sysfs/storage_medium.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "sysfs/error.h"
#include "tests/support/temp_dir.h"

namespace jetchar::sysfs {
namespace {

namespace fs = std::filesystem;

// A /sys + /proc tree laid out like the kernel's: block devices live under /sys/devices, and
// /sys/dev/block/MAJ:MIN and /sys/class/block/<name> are relative symlinks to them.
class FakeSystem {
 public:
  const Root& root() const { return root_; }

  // Adds a whole disk (kernel path of its sysfs directory) and returns that path.
  std::string disk(const std::string& sysfs_dir, DeviceNumber number, std::optional<int> rotational = 0) {
    add_block(sysfs_dir, number);
    if (rotational) write(sysfs_dir + "/queue/rotational", std::to_string(*rotational) + "\n");
    return sysfs_dir;
  }
  std::string partition(const std::string& disk_dir, const std::string& name, DeviceNumber number, int index) {
    const std::string dir = disk_dir + "/" + name;
    add_block(dir, number);
    write(dir + "/partition", std::to_string(index) + "\n");
    return dir;
  }
  void write(const std::string& kernel_path, const std::string& content) const {
    dir_.write(kernel_path.substr(1), content);
  }
  // A relative symlink, as the kernel makes them.
  void link(const std::string& kernel_link, const std::string& kernel_target) const {
    const fs::path at = root_.resolve(kernel_link);
    fs::create_directories(at.parent_path());
    fs::create_symlink(fs::path(kernel_target).lexically_relative(fs::path(kernel_link).parent_path()), at);
  }
  void mountinfo(const std::string& text) const { write("/proc/self/mountinfo", text); }

 private:
  void add_block(const std::string& dir, DeviceNumber number) const {
    write(dir + "/dev", number.to_string() + "\n");
    link("/sys/dev/block/" + number.to_string(), dir);
    link("/sys/class/block/" + fs::path(dir).filename().string(), dir);
  }

  testing::TempDir dir_;
  Root root_{dir_.path()};
};

constexpr const char* kSdHost = "/sys/devices/platform/bus@0/3400000.mmc/mmc_host/mmc1/mmc1:59b4";
constexpr const char* kEmmcHost = "/sys/devices/platform/bus@0/3460000.mmc/mmc_host/mmc0/mmc0:0001";
constexpr const char* kNvmeDisk =
    "/sys/devices/platform/bus@0/14160000.pcie/pci0004:00/0004:00:00.0/0004:01:00.0/nvme/nvme0/nvme0n1";
constexpr const char* kScsiHost = "/sys/devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0";
constexpr const char* kUsbScsiHost =
    "/sys/devices/platform/bus@0/3610000.usb/usb2/2-1/2-1:1.0/host1/target1:0:0/1:0:0:0";

TEST(StorageMediumFixture, SdCardPartitionMapsToItsDisk) {
  FakeSystem sys;
  const std::string disk = sys.disk(std::string(kSdHost) + "/block/mmcblk1", {179, 96});
  sys.partition(disk, "mmcblk1p1", {179, 97}, 1);
  sys.write(std::string(kSdHost) + "/type", "SD\n");
  sys.link(disk + "/device", kSdHost);
  const StorageInfo info = classify_block_device(sys.root(), {179, 97});
  EXPECT_EQ(info.medium, StorageMedium::kSdCard);
  EXPECT_EQ(info.label, "SD card");
  EXPECT_EQ(info.device_name, "mmcblk1p1");
  EXPECT_EQ(info.disk_name, "mmcblk1");
  EXPECT_EQ(info.disk_sysfs_path, disk);
  EXPECT_EQ(info.device, (DeviceNumber{179, 97}));
  EXPECT_EQ(info.rotational, false);
  EXPECT_EQ(to_string(info.medium), "sd_card");
}

TEST(StorageMediumFixture, EmmcAndUnknownMmcTypes) {
  FakeSystem sys;
  const std::string disk = sys.disk(std::string(kEmmcHost) + "/block/mmcblk0", {179, 0});
  sys.partition(disk, "mmcblk0p1", {179, 1}, 1);
  sys.write(std::string(kEmmcHost) + "/type", "MMC\n");
  sys.link(disk + "/device", kEmmcHost);
  EXPECT_EQ(classify_block_device(sys.root(), {179, 1}).medium, StorageMedium::kEmmc);
  EXPECT_EQ(classify_block_device(sys.root(), {179, 0}).label, "eMMC");
  EXPECT_EQ(classify_block_device(sys.root(), {179, 0}).device_name, "mmcblk0");

  sys.write(std::string(kEmmcHost) + "/type", "SDIO\n");
  const StorageInfo odd = classify_block_device(sys.root(), {179, 1});
  EXPECT_EQ(odd.medium, StorageMedium::kUnknown);
  EXPECT_NE(odd.label.find("SDIO"), std::string::npos) << odd.label;
}

TEST(StorageMediumFixture, Nvme) {
  FakeSystem sys;
  sys.partition(sys.disk(kNvmeDisk, {259, 0}), "nvme0n1p1", {259, 1}, 1);
  const StorageInfo info = classify_block_device(sys.root(), {259, 1});
  EXPECT_EQ(info.medium, StorageMedium::kNvme);
  EXPECT_EQ(info.label, "NVMe SSD");
  EXPECT_EQ(info.disk_name, "nvme0n1");
}

TEST(StorageMediumFixture, SataSsdAndHddByRotational) {
  FakeSystem sys;
  sys.partition(sys.disk(std::string(kScsiHost) + "/block/sda", {8, 0}, 0), "sda1", {8, 1}, 1);
  sys.disk("/sys/devices/pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sdb", {8, 16}, 1);
  sys.disk("/sys/devices/pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0/block/sdc", {8, 32}, std::nullopt);
  EXPECT_EQ(classify_block_device(sys.root(), {8, 1}).medium, StorageMedium::kSataSsd);
  EXPECT_EQ(classify_block_device(sys.root(), {8, 1}).label, "SATA SSD");
  EXPECT_EQ(classify_block_device(sys.root(), {8, 16}).medium, StorageMedium::kHdd);
  EXPECT_EQ(classify_block_device(sys.root(), {8, 16}).rotational, true);
  EXPECT_EQ(classify_block_device(sys.root(), {8, 32}).medium, StorageMedium::kUnknown);
}

TEST(StorageMediumFixture, UsbIsRecognizedBeforeSata) {
  FakeSystem sys;
  sys.partition(sys.disk(std::string(kUsbScsiHost) + "/block/sdd", {8, 48}, 0), "sdd1", {8, 49}, 1);
  const StorageInfo info = classify_block_device(sys.root(), {8, 49});
  EXPECT_EQ(info.medium, StorageMedium::kUsb);
  EXPECT_EQ(info.label, "USB storage");
  EXPECT_EQ(info.disk_name, "sdd");
}

TEST(StorageMediumFixture, VirtualDisks) {
  FakeSystem sys;
  sys.disk("/sys/devices/pci0000:00/0000:00:02.0/virtio1/block/vda", {254, 0}, 1);
  sys.disk("/sys/devices/pci0000:00/0000:00:04.0/virtio2/host0/target0:0:0/0:0:0:0/block/sda", {8, 0}, 1);
  sys.disk("/sys/devices/vbd-51712/block/xvda", {202, 0}, 0);
  EXPECT_EQ(classify_block_device(sys.root(), {254, 0}).medium, StorageMedium::kVirtualDisk);
  EXPECT_EQ(classify_block_device(sys.root(), {8, 0}).medium, StorageMedium::kVirtualDisk) << "virtio-scsi";
  EXPECT_EQ(classify_block_device(sys.root(), {202, 0}).label, "virtual disk (Xen)");
}

TEST(StorageMediumFixture, LoopZramAndRamDisk) {
  FakeSystem sys;
  sys.disk("/sys/devices/virtual/block/loop0", {7, 0});
  sys.write("/sys/devices/virtual/block/loop0/loop/backing_file", "/data/images/glds.img\n");
  sys.disk("/sys/devices/virtual/block/zram0", {253, 0});
  sys.disk("/sys/devices/virtual/block/ram0", {1, 0});
  EXPECT_EQ(classify_block_device(sys.root(), {7, 0}).medium, StorageMedium::kLoop);
  EXPECT_EQ(classify_block_device(sys.root(), {7, 0}).label, "loop device backed by /data/images/glds.img");
  EXPECT_EQ(classify_block_device(sys.root(), {253, 0}).medium, StorageMedium::kZram);
  EXPECT_EQ(classify_block_device(sys.root(), {1, 0}).medium, StorageMedium::kRamDisk);
}

TEST(StorageMediumFixture, DeviceMapperResolvesTheDisksBelow) {
  FakeSystem sys;
  const std::string nvme_part = sys.partition(sys.disk(kNvmeDisk, {259, 0}), "nvme0n1p2", {259, 2}, 2);
  const std::string dm = sys.disk("/sys/devices/virtual/block/dm-0", {252, 0});
  sys.write(dm + "/dm/name", "cryptroot\n");
  sys.link(dm + "/slaves/nvme0n1p2", nvme_part);
  const StorageInfo info = classify_block_device(sys.root(), {252, 0});
  EXPECT_EQ(info.medium, StorageMedium::kDeviceMapper);
  EXPECT_EQ(info.label, "device-mapper 'cryptroot' on NVMe SSD (nvme0n1)");
  EXPECT_EQ(info.underlying_disks, std::vector<std::string>{"nvme0n1"});
}

TEST(StorageMediumFixture, MissingBlockDeviceIsAnIoError) {
  FakeSystem sys;
  try {
    classify_block_device(sys.root(), {8, 0});
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.path(), "/sys/dev/block/8:0");
    EXPECT_EQ(e.error_number(), ENOENT);
  }
}

TEST(StorageMediumFixture, MountFieldsComeFromMountinfoAndFollowThePath) {
  FakeSystem sys;
  const std::string disk = sys.disk(std::string(kSdHost) + "/block/mmcblk1", {179, 96});
  sys.partition(disk, "mmcblk1p1", {179, 97}, 1);
  sys.write(std::string(kSdHost) + "/type", "SD\n");
  sys.link(disk + "/device", kSdHost);
  sys.mountinfo(
      "22 1 179:97 / / rw,relatime - ext4 /dev/mmcblk1p1 rw\n"
      "60 22 179:97 /data /srv/my\\040data rw,relatime - ext4 /dev/mmcblk1p1 rw\n");
  const StorageInfo at_root = storage_of_device(sys.root(), {179, 97});
  EXPECT_EQ(at_root.mount_point, "/");
  EXPECT_EQ(at_root.fs_type, "ext4");
  EXPECT_EQ(at_root.mount_source, "/dev/mmcblk1p1");
  EXPECT_EQ(at_root.medium, StorageMedium::kSdCard);
  const StorageInfo bound = storage_of_device(sys.root(), {179, 97}, "/srv/my data/mnist/train-images");
  EXPECT_EQ(bound.mount_point, "/srv/my data");
  EXPECT_EQ(bound.medium, StorageMedium::kSdCard);
}

TEST(StorageMediumFixture, TmpfsNetworkAndPseudoFileSystems) {
  FakeSystem sys;
  sys.mountinfo(
      "22 1 179:1 / / rw - ext4 /dev/mmcblk0p1 rw\n"
      "30 22 0:27 / /tmp rw - tmpfs tmpfs rw,size=100k\n"
      "31 22 0:50 / /mnt/nas rw - nfs4 nas:/export rw,vers=4.2\n"
      "32 22 0:21 / /proc rw - proc proc rw\n"
      "33 22 0:60 / /mnt/z rw - zfs tank/data rw\n");
  const StorageInfo tmp = storage_of_device(sys.root(), {0, 27}, "/tmp/x");
  EXPECT_EQ(tmp.medium, StorageMedium::kRam);
  EXPECT_EQ(tmp.label, "tmpfs (RAM)");
  EXPECT_EQ(tmp.fs_type, "tmpfs");
  EXPECT_EQ(tmp.mount_point, "/tmp");
  EXPECT_TRUE(tmp.device_name.empty());
  EXPECT_EQ(tmp.device, (DeviceNumber{0, 27}));
  const StorageInfo nas = storage_of_device(sys.root(), {0, 50}, "/mnt/nas/set");
  EXPECT_EQ(nas.medium, StorageMedium::kNetwork);
  EXPECT_EQ(nas.label, "network file system (nfs4)");
  EXPECT_EQ(nas.mount_source, "nas:/export");
  EXPECT_EQ(storage_of_device(sys.root(), {0, 21}).medium, StorageMedium::kPseudo);
  const StorageInfo zfs = storage_of_device(sys.root(), {0, 60}, "/mnt/z/a");
  EXPECT_EQ(zfs.medium, StorageMedium::kUnknown);
  EXPECT_NE(zfs.label.find("not determinable"), std::string::npos) << zfs.label;
  const StorageInfo nothing = storage_of_device(sys.root(), {0, 99});
  EXPECT_EQ(nothing.medium, StorageMedium::kUnknown);
  EXPECT_NE(nothing.label.find("0:99"), std::string::npos) << nothing.label;
}

TEST(StorageMediumFixture, OverlayResolvesToTheMountOfItsUpperDirectory) {
  FakeSystem sys;
  sys.partition(sys.disk(kNvmeDisk, {259, 0}), "nvme0n1p1", {259, 1}, 1);
  sys.mountinfo(
      "22 1 179:1 / / rw - ext4 /dev/mmcblk0p1 rw\n"
      "40 22 259:1 / /mnt/nvme rw - ext4 /dev/nvme0n1p1 rw\n"
      "39 40 0:39 / /mnt/nvme/up rw - tmpfs decoy rw\n"  // wins only if the escaped ',' is split on
      "41 22 0:40 / /srv/work rw - overlay overlay "
      "rw,lowerdir=/mnt/nvme/lower,upperdir=/mnt/nvme/up\\054per,workdir=/mnt/nvme/work\n"
      "42 22 0:41 / /srv/ro rw - overlay overlay ro,lowerdir=/mnt/nvme/a:/mnt/nvme/b\n");
  const StorageInfo work = storage_of_device(sys.root(), {0, 40}, "/srv/work/data");
  EXPECT_EQ(work.medium, StorageMedium::kNvme);
  EXPECT_EQ(work.label, "overlay on NVMe SSD");
  EXPECT_EQ(work.device_name, "nvme0n1p1");
  EXPECT_EQ(work.fs_type, "overlay");
  EXPECT_EQ(work.mount_point, "/srv/work");
  EXPECT_EQ(work.device, (DeviceNumber{0, 40}));
  EXPECT_EQ(storage_of_device(sys.root(), {0, 41}, "/srv/ro").medium, StorageMedium::kNvme);
}

TEST(StorageMediumFixture, OverlayWhoseLayersAreHiddenSaysSo) {
  // A container: the overlay is "/" and its upperdir is a host path outside this namespace.
  FakeSystem sys;
  sys.mountinfo(
      "500 400 0:45 / / rw - overlay overlay rw,lowerdir=/var/lib/docker/l/A,"
      "upperdir=/var/lib/docker/overlay2/x/diff,workdir=/var/lib/docker/overlay2/x/work\n");
  const StorageInfo info = storage_of_device(sys.root(), {0, 45}, "/data");
  EXPECT_EQ(info.medium, StorageMedium::kUnknown);
  EXPECT_NE(info.label.find("overlay (underlying device not determinable"), std::string::npos) << info.label;
  EXPECT_NE(info.label.find("/var/lib/docker/overlay2/x/diff"), std::string::npos) << info.label;
  EXPECT_EQ(info.fs_type, "overlay");
}

TEST(StorageMediumFixture, AnonymousDeviceResolvesThroughTheMountSource) {
  // btrfs on LUKS: st_dev is anonymous (0:33); the source /dev/mapper/cryptroot -> ../dm-0.
  FakeSystem sys;
  const std::string nvme_part = sys.partition(sys.disk(kNvmeDisk, {259, 0}), "nvme0n1p2", {259, 2}, 2);
  const std::string dm = sys.disk("/sys/devices/virtual/block/dm-0", {252, 0});
  sys.write(dm + "/dm/name", "cryptroot\n");
  sys.link(dm + "/slaves/nvme0n1p2", nvme_part);
  sys.write("/dev/dm-0", "");
  sys.link("/dev/mapper/cryptroot", "/dev/dm-0");
  sys.mountinfo("22 1 0:33 /@ / rw - btrfs /dev/mapper/cryptroot rw,subvol=/@\n");
  const StorageInfo info = storage_of_device(sys.root(), {0, 33}, "/home/data");
  EXPECT_EQ(info.medium, StorageMedium::kDeviceMapper);
  EXPECT_EQ(info.device_name, "dm-0");
  EXPECT_EQ(info.underlying_disks, std::vector<std::string>{"nvme0n1"});
  EXPECT_EQ(info.fs_type, "btrfs");
  EXPECT_EQ(info.device, (DeviceNumber{0, 33}));
}

TEST(StorageMediumFixture, MalformedMountinfoIsAFormatError) {
  FakeSystem sys;
  sys.mountinfo("22 1 179:1 / / rw ext4 /dev/mmcblk0p1 rw\n");
  EXPECT_THROW(storage_of_device(sys.root(), {0, 27}, "/tmp"), FormatError);
}

TEST(StorageMediumIntegration, ClassifiesWhatWorkIsOn) {
  const fs::path here = fs::exists("/work") ? fs::path("/work") : fs::current_path();
  const StorageInfo info = storage_of_path(Root(), here);
  EXPECT_FALSE(info.label.empty());
  EXPECT_FALSE(info.fs_type.empty()) << info.label;
  EXPECT_FALSE(info.mount_point.empty()) << info.label;
  if (info.device.major != 0) {
    EXPECT_FALSE(info.device_name.empty()) << info.label;
    EXPECT_NE(info.medium, StorageMedium::kUnknown) << info.label;
  }
  std::cout << here << ": " << info.label << " [" << to_string(info.medium) << "] device " << info.device.to_string()
            << " " << info.device_name << " disk " << info.disk_name << ", " << info.fs_type << " on "
            << info.mount_point << "\n";
}

TEST(StorageMediumIntegration, RamBackedFileSystemIsRam) {
  if (!fs::is_directory("/dev/shm")) GTEST_SKIP() << "no /dev/shm here";
  const StorageInfo info = storage_of_path(Root(), "/dev/shm");
  if (info.fs_type != "tmpfs") GTEST_SKIP() << "/dev/shm is " << info.fs_type << ", not tmpfs";
  EXPECT_EQ(info.medium, StorageMedium::kRam);
}

TEST(StorageMediumIntegration, MissingPathNamesThePath) {
  try {
    storage_of_path(Root(), "/nonexistent/jetchar/data");
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_EQ(e.path(), "/nonexistent/jetchar/data");
    EXPECT_EQ(e.error_number(), ENOENT);
  }
}

}  // namespace
}  // namespace jetchar::sysfs
