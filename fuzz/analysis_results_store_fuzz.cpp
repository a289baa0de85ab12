// The results-store reader on arbitrary bytes written as a results.db (seed it with a real store:
// corrupt pages, odd column types and values must all end as InputError naming the file, never
// as a crash or another exception), then what the report does with what was read.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/config_point.h"
#include "analysis/input_error.h"
#include "analysis/pareto.h"
#include "analysis/results_store_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace jetchar::analysis;
  // One file per process, rewritten each time (SQLite reads a file, not memory).
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("jetchar-store-fuzz-" + std::to_string(::getpid()) + ".db");
  for (const char* suffix : {"-wal", "-shm", "-journal"}) std::filesystem::remove(file.string() + suffix);
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    ResultsStoreReader reader(file);
    auto points = aggregate(reader.records());
    pareto_groups(points);
    if (auto trace = reader.power_trace()) {
      for (std::size_t i = 1; i < trace->samples.size(); ++i) {
        if (trace->samples[i].t_s < trace->samples[i - 1].t_s) std::abort();  // the report needs time order
      }
    }
  } catch (const InputError& e) {
    if (e.where().file != file) std::abort();
  }
  return 0;
}
