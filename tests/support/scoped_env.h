// An environment variable set for as long as the object lives, then put back as it was found (set
// to its old value, or unset). A test's child processes inherit it meanwhile.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>

namespace jetchar::testing {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* found = std::getenv(name_.c_str())) before_ = found;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (before_) ::setenv(name_.c_str(), before_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

  /// Sets it again; the value it is put back to stays the one found first.
  void set(const std::string& value) const { ::setenv(name_.c_str(), value.c_str(), 1); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::optional<std::string> before_;
};

}  // namespace jetchar::testing
