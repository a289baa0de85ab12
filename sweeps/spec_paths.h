// The paths inside a spec, and where a relative one points: a spec's relative paths resolve from the
// folder of the spec file (as an #include does), so `jetchar sweep plan examples/x.textproto` reads
// the same data from the checkout, from any other folder and from /usr/share/jetchar/examples.
//
// Paths of a spec: a data set's PATH and the options that name files (?vocab=, ?dev=;
// loaders/dataset_spec.h), not a synthetic data set's PATH (a shape); workload.pretrained; a meter's
// device; a simulated board given as a manifest path ("sim:boards/mine.manifest", a value holding a
// '/' or ending in .manifest; "sim:agx-orin-r36" is a name); axis values of workload.dataset and
// workload.pretrained. Absolute paths stay as written. A sweep's `results` folder is no input: like
// --results it stays relative to the working directory (the examples' folder may be read-only).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "proto/experiment_spec.pb.h"
#include "proto/sweep_spec.pb.h"

namespace jetchar::sweeps {

/// The folder a spec file's relative paths resolve from: the file's own, absolute with symbolic
/// links resolved (so that "../data" means what it means to the kernel).
std::filesystem::path spec_folder(const std::filesystem::path& spec_file);

/// `path` against `base` (an absolute folder), normalized; empty and absolute paths unchanged.
std::string resolve_spec_path(std::string_view path, const std::filesystem::path& base);

/// A data set text (KIND[/SPLIT]:PATH[?KEY=VALUE&...]) with its PATH and its file options (vocab,
/// dev) resolved; a synthetic data set, and text that is no KIND:PATH (validation names it), as it is.
std::string resolve_dataset_paths(std::string_view dataset, const std::filesystem::path& base);

/// The relative paths of a spec resolved against `base`. `changes` (optional) receives each value
/// that changed as written (for an axis value, its text-format literal) and what it became.
using PathChanges = std::map<std::string, std::string>;
void resolve_spec_paths(proto::ExperimentSpec& spec, const std::filesystem::path& base, PathChanges* changes = nullptr);
void resolve_spec_paths(proto::SweepSpec& sweep, const std::filesystem::path& base, PathChanges* changes = nullptr);

/// Spec `text` with the string values of `changes` replaced where a path field or an axis's
/// `values` holds them; comments, layout and every other value stay byte for byte.
std::string rewrite_spec_paths(std::string_view text, const PathChanges& changes);

}  // namespace jetchar::sweeps
