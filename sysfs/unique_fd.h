// A file descriptor owned by one object and closed when that object goes away, so an early return
// or an exception between open(2) and close(2) cannot leak it (a leaked descriptor of a sysfs
// attribute or of the change journal keeps its lock and its file alive until the process ends).
#pragma once

namespace jetchar::sysfs {

class UniqueFd {
 public:
  UniqueFd() = default;
  /// Takes ownership of `fd`; a negative value (a failed open's result) owns nothing.
  explicit UniqueFd(int fd) noexcept : fd_(fd < 0 ? -1 : fd) {}
  /// Closes the descriptor; an error of close(2) here is dropped (call close() to see it).
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }

  /// Gives up ownership without closing; returns the descriptor (-1 when none was owned).
  int release() noexcept;
  /// Closes the owned descriptor (if any) and takes `fd` instead.
  void reset(int fd = -1) noexcept;
  /// Closes now and says how that went: 0, or close(2)'s errno (EIO for a write-back that failed;
  /// EBADF for a number that was not open). Nothing is owned afterwards, whatever the result:
  /// Linux releases the descriptor even when close(2) reports EINTR, so it is never retried (a
  /// retry could close a descriptor another thread has just been given).
  int close() noexcept;

 private:
  int fd_ = -1;
};

}  // namespace jetchar::sysfs
