// What a Python script of the tests writes into a folder, made once per build tree and shared.
// tests/experiments/tiny_hf_*.py write random Hugging Face checkpoints and the outputs of a plain
// PyTorch forward; each run spends seconds importing torch, and the suites that read them run once
// in each shard of a sharded test binary and once per case of an integration suite.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace jetchar::testing {

/// The folder `/usr/bin/python3 SCRIPT FOLDER ARGUMENTS` wrote, in one thread (LibTorch's and
/// OpenBLAS's: a test computes what it compares with the script's numbers in one thread too, see
/// tests/experiments/checkpoints/hf_reference.h): SCRIPT relative to the source tree, ARGUMENTS words
/// separated by spaces. The first caller for a content of SCRIPT (and of the Python files beside it,
/// which it may import) and ARGUMENTS runs it, under a lock that later callers, in this process or
/// another, wait on; they share its folder (under the build tree's tests/python-output/), which no
/// caller may change: copy what a test edits. nullopt where /usr/bin/python3 cannot import torch.
std::optional<std::filesystem::path> python_script_output(const std::string& script, const std::string& arguments);

/// Copies the files of `folder` (such an output) into `into`, created, but those named in `except`:
/// the folder a test that changes or removes a file works on.
void copy_files(const std::filesystem::path& folder, const std::filesystem::path& into,
                const std::vector<std::string>& except = {});

}  // namespace jetchar::testing
