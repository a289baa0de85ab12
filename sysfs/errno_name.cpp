#include "sysfs/errno_name.h"

#include <cerrno>
#include <cstring>

namespace jetchar::sysfs {
namespace {

struct Named {
  int value;
  std::string_view name;
};

// The errors sysfs, procfs and debugfs attributes return in the kernels jetchar supports (show/
// store functions, the i2c and runtime-PM paths behind them), plus what the VFS adds (EACCES,
// ENOENT). A table of our own rather than strerrorname_np: that needs glibc 2.32, and JetPack 5
// ships 2.31.
constexpr Named kNames[] = {
    {EPERM, "EPERM"},           {ENOENT, "ENOENT"},       {EIO, "EIO"},
    {ENXIO, "ENXIO"},           {EAGAIN, "EAGAIN"},       {ENOMEM, "ENOMEM"},
    {EACCES, "EACCES"},         {EBUSY, "EBUSY"},         {ENODEV, "ENODEV"},
    {EINVAL, "EINVAL"},         {ENOSPC, "ENOSPC"},       {ERANGE, "ERANGE"},
    {ENOSYS, "ENOSYS"},         {ENODATA, "ENODATA"},     {ETIMEDOUT, "ETIMEDOUT"},
    {EOPNOTSUPP, "EOPNOTSUPP"}, {EREMOTEIO, "EREMOTEIO"}, {EROFS, "EROFS"},
    {EFAULT, "EFAULT"},         {ESHUTDOWN, "ESHUTDOWN"}, {EISDIR, "EISDIR"},
    {ENOTDIR, "ENOTDIR"},       {ELOOP, "ELOOP"},
};

}  // namespace

std::string errno_name(int error_number) {
  for (const auto& named : kNames) {
    if (named.value == error_number) return std::string(named.name);
  }
  return "errno " + std::to_string(error_number);
}

std::string errno_text(int error_number) {
  return std::string(std::strerror(error_number)) + " (" + errno_name(error_number) + ")";
}

std::optional<int> errno_from_name(std::string_view name) {
  for (const auto& named : kNames) {
    if (named.name == name) return named.value;
  }
  return std::nullopt;
}

std::string known_errno_names() {
  std::string names;
  for (const auto& named : kNames) {
    if (!names.empty()) names += ' ';
    names += named.name;
  }
  return names;
}

}  // namespace jetchar::sysfs
