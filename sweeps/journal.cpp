#include "sweeps/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <system_error>

#include "sysfs/unique_fd.h"

namespace jetchar::sweeps {

SweepJournal::SweepJournal(std::filesystem::path file) : file_(std::move(file)) {
  std::ifstream in(file_);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline: a torn append, never acknowledged
    if (line.rfind("start ", 0) == 0) {
      interrupted_.insert(line.substr(6));
    } else if (line.rfind("done ", 0) == 0) {
      interrupted_.erase(line.substr(5));
      finished_.insert(line.substr(5));
    }
  }
}

void SweepJournal::append(const std::string& line) {
  sysfs::UniqueFd fd(::open(file_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!fd) throw std::system_error(errno, std::generic_category(), "cannot write sweep journal " + file_.string());
  const std::string record = line + "\n";
  const ssize_t written = ::write(fd.get(), record.data(), record.size());
  const int error = written < 0 ? errno : 0;
  ::fsync(fd.get());
  fd.close();
  if (error != 0 || static_cast<size_t>(written) != record.size()) {
    throw std::system_error(error != 0 ? error : EIO, std::generic_category(),
                            "cannot write sweep journal " + file_.string());
  }
}

void SweepJournal::started(const std::string& run_id) { append("start " + run_id); }

void SweepJournal::finished(const std::string& run_id) {
  append("done " + run_id);
  interrupted_.erase(run_id);
  finished_.insert(run_id);
}

}  // namespace jetchar::sweeps
