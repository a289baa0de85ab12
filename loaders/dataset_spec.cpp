#include "loaders/dataset_spec.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <stdexcept>

#include "loaders/cifar10_dataset.h"
#include "loaders/image_files_dataset.h"
#include "loaders/mnist_dataset.h"
#include "loaders/synthetic_dataset.h"
#include "loaders/text/conll2003_dataset.h"
#include "loaders/text/squad_dataset.h"
#include "loaders/text/text_datasets.h"
#include "loaders/text/wordpiece_tokenizer.h"
#include "loaders/transform.h"

namespace jetchar::loaders {
namespace {

const char* const kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

std::string kinds_list() {
  std::string names;
  for (const auto& [name, description] : dataset_kinds()) names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
  return names;
}

std::int64_t integer_option(const DatasetSpec& spec, const std::string& key, std::int64_t fallback, std::int64_t lo,
                            std::int64_t hi) {
  const auto it = spec.options.find(key);
  if (it == spec.options.end()) return fallback;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  if (error != std::errc() || end != it->second.data() + it->second.size() || value < lo || value > hi) {
    throw std::invalid_argument(fmt::format("data set '{}': option {}={} is not valid; expected an integer {}..{}",
                                            spec.text, key, it->second, lo, hi));
  }
  return value;
}

// A probability-like option in [lo, hi] (`lo_open`: lo itself is not valid).
double fraction_option(const DatasetSpec& spec, const std::string& key, double fallback, double lo, bool lo_open,
                       double hi) {
  const auto it = spec.options.find(key);
  if (it == spec.options.end()) return fallback;
  double value = 0;
  const auto [end, error] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  if (error != std::errc() || end != it->second.data() + it->second.size() || !(lo_open ? value > lo : value >= lo) ||
      !(value <= hi)) {
    throw std::invalid_argument(fmt::format("data set '{}': option {}={} is not valid; expected a number in {}{}, {}]",
                                            spec.text, key, it->second, lo_open ? "(" : "[", lo, hi));
  }
  return value;
}

void check_options(const DatasetSpec& spec, std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : spec.options) {
    bool ok = false;
    for (auto name : allowed) ok = ok || key == name;
    if (!ok) {
      std::string names;
      for (auto name : allowed) names += fmt::format("{}{}", names.empty() ? "" : ", ", name);
      throw std::invalid_argument(fmt::format("data set '{}': unknown option '{}'; {} takes {}", spec.text, key,
                                              spec.kind, names.empty() ? "none" : names));
    }
  }
}

text::WordPieceTokenizer tokenizer_for(const DatasetSpec& spec) {
  const auto it = spec.options.find("vocab");
  if (it == spec.options.end()) {
    throw std::invalid_argument(
        fmt::format("data set '{}': {} needs ?vocab=PATH (a BERT vocab.txt)", spec.text, spec.kind));
  }
  return text::WordPieceTokenizer::from_file(it->second);
}

}  // namespace

// A spec's relative paths resolve from its folder: sweeps/spec_paths.cpp knows a data set's PATH
// (every kind's but synthetic's) and the options that name files (vocab, dev). A new option that
// names a file goes there too.
std::vector<std::pair<std::string, std::string>> dataset_kinds() {
  return {
      {"mnist", "MNIST IDX files (train-/t10k-{images-idx3,labels-idx1}-ubyte[.gz]) in PATH"},
      {"fashion-mnist", fmt::format("Fashion-MNIST IDX files in PATH (default {})", kFashionMnistDir)},
      {"cifar10", "CIFAR-10 binary batches (data_batch_N.bin / test_batch.bin, batches.meta.txt) in PATH"},
      {"imagefolder", "JPEG/PNG files in one sub-folder per class of PATH"},
      {"gld23k", "GLD-23k: split CSV user_id,image_id,class (PATH or found in PATH) and <image_id>.jpg"},
      {"synthetic", "generated samples of shape PATH (e.g. 3x32x32); ?samples=N&classes=K&delay_us=D"},
      {"conll2003", "CoNLL-2003 NER (PATH: directory or file); ?vocab=vocab.txt&max_length=128"},
      {"textcls",
       "sequence classification, GLUE-style TSV/CSV/JSONL with text, text_pair, label (PATH: directory with train.*, "
       "dev.*, test.*, or the training file); ?vocab=vocab.txt&max_length=128"},
      {"corpus",
       "masked-LM pretraining text: UTF-8, one sentence per line, documents separated by blank lines (PATH: the "
       "file; corpus/validation: ?dev=FILE), packed into [CLS] A [SEP] B [SEP] sequences and masked; "
       "?vocab=vocab.txt&max_length=128 and &mask_prob=0.15, &short_seq_prob=0.1, &seed=12345, &dev=FILE"},
      {"squad",
       "SQuAD v1.1 JSON (PATH, or a directory with train-v1.1.json; squad/validation: dev-v1.1.json beside it, or "
       "?dev=FILE); ?vocab=vocab.txt&max_length=384&stride=128&max_query_length=64"},
  };
}

DatasetSpec DatasetSpec::parse(std::string_view text) {
  DatasetSpec spec;
  spec.text = std::string(text);
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) {
    throw std::invalid_argument(
        fmt::format("data set '{}' is not valid; expected KIND[/SPLIT]:PATH[?KEY=VALUE&...] with KIND one of {}", text,
                    kinds_list()));
  }
  std::string_view head = text.substr(0, colon);
  std::string_view rest = text.substr(colon + 1);
  if (const auto slash = head.find('/'); slash != std::string_view::npos) {
    spec.split = std::string(head.substr(slash + 1));
    head = head.substr(0, slash);
    if (spec.split.empty()) throw std::invalid_argument(fmt::format("data set '{}': empty split after '/'", text));
  }
  spec.kind = std::string(head);
  bool known = false;
  for (const auto& [name, description] : dataset_kinds()) known = known || name == spec.kind;
  if (!known) {
    throw std::invalid_argument(
        fmt::format("data set '{}': unknown kind '{}'; expected one of {}", text, spec.kind, kinds_list()));
  }
  if (const auto question = rest.find('?'); question != std::string_view::npos) {
    std::string_view options = rest.substr(question + 1);
    rest = rest.substr(0, question);
    while (!options.empty()) {
      const auto amp = options.find('&');
      const std::string_view pair = options.substr(0, amp);
      const auto eq = pair.find('=');
      if (eq == std::string_view::npos || eq == 0) {
        throw std::invalid_argument(fmt::format("data set '{}': option '{}' is not KEY=VALUE", text, pair));
      }
      spec.options[std::string(pair.substr(0, eq))] = std::string(pair.substr(eq + 1));
      options = amp == std::string_view::npos ? std::string_view{} : options.substr(amp + 1);
    }
  }
  spec.path = std::string(rest);
  if (spec.path.empty() && spec.kind == "fashion-mnist") spec.path = kFashionMnistDir;
  if (spec.path.empty())
    throw std::invalid_argument(fmt::format("data set '{}': no PATH after '{}:'", text, spec.kind));
  return spec;
}

DatasetSpec resolve_dataset_spec(std::string_view text) {
  const auto colon = text.find(':');
  if (colon != std::string_view::npos) {
    // The kind before ':' without its "/SPLIT" ("synthetic", "cifar10/test" -> "cifar10").
    const std::string_view before_colon = text.substr(0, colon);
    const std::string_view head = before_colon.substr(0, before_colon.find('/'));
    for (const auto& [name, description] : dataset_kinds()) {
      if (head == name) return DatasetSpec::parse(text);
    }
  }
  const std::filesystem::path path{std::string(text)};
  auto as = [&](const std::string& kind) { return DatasetSpec::parse(kind + ":" + path.string()); };
  if (!std::filesystem::exists(path)) {
    throw std::invalid_argument(
        fmt::format("'{}' is neither a data set spec (KIND:PATH, KIND one of {}) nor an "
                    "existing path",
                    text, kinds_list()));
  }
  if (std::filesystem::is_regular_file(path) && path.extension() == ".csv") return as("gld23k");
  if (std::filesystem::is_directory(path)) {
    auto has = [&](const char* name) { return std::filesystem::exists(path / name); };
    if (has("train-images-idx3-ubyte") || has("train-images-idx3-ubyte.gz") || has("t10k-images-idx3-ubyte") ||
        has("t10k-images-idx3-ubyte.gz")) {
      const std::string kind = path.string().find("fashion") != std::string::npos ? "fashion-mnist" : "mnist";
      const bool train = has("train-images-idx3-ubyte") || has("train-images-idx3-ubyte.gz");
      return as(train ? kind : kind + "/test");
    }
    if (has("data_batch_1.bin")) return as("cifar10");
    if (has("test_batch.bin")) return as("cifar10/test");
    if (has("data_user_dict") || has("gld23k_user_dict_train.csv") || has("mini_gld_train_split.csv"))
      return as("gld23k");
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      if (entry.is_directory()) return as("imagefolder");
    }
  }
  throw std::invalid_argument(
      fmt::format("{}: cannot tell the data set kind from its contents; give KIND:PATH with "
                  "KIND one of {}",
                  path.string(), kinds_list()));
}

std::string DatasetSpec::default_transform() const {
  if (kind == "mnist" || kind == "fashion-mnist") return "mnist";
  if (kind == "cifar10") return "cifar10";
  if (kind == "imagefolder" || kind == "gld23k") return "gld23k";
  return {};
}

std::shared_ptr<Dataset> open_dataset(const DatasetSpec& spec, const std::optional<std::string>& transform_text) {
  const std::string name = transform_text ? *transform_text : spec.default_transform();
  const Transform transform = name.empty() ? Transform{} : Transform::parse(name);
  if (spec.kind == "mnist" || spec.kind == "fashion-mnist") {
    check_options(spec, {});
    return MnistDataset::open_dir(spec.path, spec.split, spec.kind == "fashion-mnist", transform);
  }
  if (spec.kind == "cifar10") {
    check_options(spec, {});
    return Cifar10Dataset::open_dir(spec.path, spec.split, transform);
  }
  if (spec.kind == "imagefolder") {
    check_options(spec, {});
    return ImageFilesDataset::open_image_folder(spec.path, transform);
  }
  if (spec.kind == "gld23k") {
    check_options(spec, {});
    return ImageFilesDataset::open_gld23k(spec.path, spec.split, transform);
  }
  if (spec.kind == "synthetic") {
    check_options(spec, {"samples", "classes", "delay_us"});
    std::vector<std::int64_t> shape;
    std::string_view rest = spec.path;
    while (true) {
      const auto x = rest.find('x');
      const std::string_view part = rest.substr(0, x);
      std::int64_t dim = 0;
      const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), dim);
      if (error != std::errc() || end != part.data() + part.size()) {
        throw std::invalid_argument(
            fmt::format("data set '{}': shape '{}' is not valid; expected sizes like 3x32x32", spec.text, spec.path));
      }
      shape.push_back(dim);
      if (x == std::string_view::npos) break;
      rest = rest.substr(x + 1);
    }
    if (transform_text && !name.empty() && name != "to-tensor") {
      throw std::invalid_argument(
          fmt::format("data set '{}': synthetic data takes no transform (got '{}')", spec.text, name));
    }
    return std::make_shared<SyntheticDataset>(
        std::move(shape), integer_option(spec, "samples", 10000, 1, std::int64_t{1} << 40),
        integer_option(spec, "classes", 10, 1, 1 << 20),
        std::chrono::microseconds(integer_option(spec, "delay_us", 0, 0, 60'000'000)));
  }
  if (spec.kind == "conll2003") {
    check_options(spec, {"vocab", "max_length"});
    const auto tokenizer = tokenizer_for(spec);
    std::filesystem::path file = spec.path;
    if (std::filesystem::is_directory(file)) file = text::Conll2003Dataset::split_file(file, spec.split);
    return std::make_shared<text::Conll2003Dataset>(
        file, tokenizer, static_cast<std::size_t>(integer_option(spec, "max_length", 128, 2, 4096)));
  }
  if (spec.kind == "textcls") {
    check_options(spec, {"vocab", "max_length"});
    text::TextDatasetOptions options;
    options.split = spec.split;
    if (const auto vocab = spec.options.find("vocab"); vocab != spec.options.end()) options.vocab = vocab->second;
    options.max_length = static_cast<std::size_t>(integer_option(spec, "max_length", 128, 3, 4096));
    return text::open_text_classification(spec.path, options);
  }
  if (spec.kind == "corpus") {
    check_options(spec, {"vocab", "max_length", "mask_prob", "short_seq_prob", "seed", "dev"});
    // The validation split (workload.evaluate) is a held-out corpus the spec names, packed and
    // masked as the training one.
    std::filesystem::path file = spec.path;
    if (spec.split == "validation" || spec.split == "dev") {
      const auto dev = spec.options.find("dev");
      if (dev == spec.options.end()) {
        throw std::invalid_argument(fmt::format(
            "data set '{}': a corpus has no validation split of its own; name a held-out corpus with ?dev=FILE",
            spec.text));
      }
      file = dev->second;
    } else if (spec.split != "train") {
      throw std::invalid_argument(fmt::format(
          "data set '{}': split '{}' is not one of train, validation (dev) for a corpus", spec.text, spec.split));
    }
    text::TextDatasetOptions options;
    if (const auto vocab = spec.options.find("vocab"); vocab != spec.options.end()) options.vocab = vocab->second;
    options.max_length = static_cast<std::size_t>(integer_option(spec, "max_length", 128, 5, 4096));
    return text::open_pretraining_corpus(
        file, options, fraction_option(spec, "mask_prob", 0.15, 0.0, true, 1.0),
        fraction_option(spec, "short_seq_prob", 0.1, 0.0, false, 1.0),
        static_cast<std::uint64_t>(integer_option(spec, "seed", 12345, 0, std::numeric_limits<std::int64_t>::max())));
  }
  if (spec.kind == "squad") {
    check_options(spec, {"vocab", "max_length", "stride", "max_query_length", "dev"});
    const auto tokenizer = tokenizer_for(spec);
    const auto dev = spec.options.find("dev");
    const std::filesystem::path file = text::SquadDataset::split_file(
        spec.path, spec.split,
        dev == spec.options.end() ? std::nullopt : std::optional<std::filesystem::path>(dev->second));
    text::WindowOptions windows;
    windows.max_length = static_cast<std::size_t>(integer_option(spec, "max_length", 384, 8, 4096));
    windows.stride = static_cast<std::size_t>(integer_option(spec, "stride", 128, 0, 4096));
    windows.max_first_length = static_cast<std::size_t>(integer_option(spec, "max_query_length", 64, 1, 4096));
    return std::make_shared<text::SquadDataset>(file, tokenizer, windows);
  }
  throw std::invalid_argument(fmt::format("data set '{}': unknown kind '{}'", spec.text, spec.kind));
}

}  // namespace jetchar::loaders
