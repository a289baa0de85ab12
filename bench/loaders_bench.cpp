// The data pipeline's throughput on the three data set kinds of the seed study, for comparison
// with PyTorch's DataLoader (bench/loaders_peer.py) on the same files, transforms and worker counts:
//
//   loaders_bench --generate DIR          writes DIR/FashionMNIST/raw (from Debian's Fashion-MNIST),
//                                         DIR/cifar10 (10,000 random records) and DIR/jpeg (JPEG folder)
//   loaders_bench --data DIR [--workers 0,1,2] [--batch 16] [--epochs 1] [--only KIND]
//                                         prints one JSON line per (data set, workers): samples/s, stall
//
// bench/loaders_compare.py runs both and prints the ratios.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "loaders/dataset_spec.h"
#include "loaders/idx.h"
#include "loaders/image_decode.h"
#include "loaders/pipeline.h"

namespace {

using namespace jetchar::loaders;
namespace fs = std::filesystem;

void write_file(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void generate(const fs::path& dir, int jpeg_images) {
  // Fashion-MNIST as torchvision expects it: decompressed IDX files in FashionMNIST/raw.
  const fs::path debian = "/usr/share/datasets/fashion-mnist";
  for (const char* name :
       {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
    write_file(dir / "FashionMNIST" / "raw" / name, read_maybe_gzip(debian / (std::string(name) + ".gz")));
  }
  // CIFAR-10 format: one 10,000-record batch of random pixels (content does not change the work).
  Rng rng(7);
  std::vector<std::uint8_t> batch(10000 * 3073);
  for (std::size_t r = 0; r < 10000; ++r) {
    batch[r * 3073] = static_cast<std::uint8_t>(rng.below(10));
    for (std::size_t i = 1; i < 3073; ++i) batch[r * 3073 + i] = static_cast<std::uint8_t>(rng.next_u64());
  }
  write_file(dir / "cifar10" / "data_batch_1.bin", batch);
  std::string meta = "airplane\nautomobile\nbird\ncat\ndeer\ndog\nfrog\nhorse\nship\ntruck\n";
  write_file(dir / "cifar10" / "batches.meta.txt", std::vector<std::uint8_t>(meta.begin(), meta.end()));
  // A JPEG folder like GLD-23k's images: 800x600, ~100 kB at quality 90 (smooth content with noise).
  const int h = 600, w = 800;
  std::vector<std::uint8_t> rgb(static_cast<std::size_t>(h) * w * 3);
  for (int i = 0; i < jpeg_images; ++i) {
    const double fx = 0.01 + 0.02 * rng.uniform(), fy = 0.01 + 0.02 * rng.uniform();
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        for (int c = 0; c < 3; ++c) {
          const double base = 128 + 80 * std::sin(fx * x * (c + 1) + fy * y) + 30 * std::cos(0.05 * (x - y) + c);
          rgb[(static_cast<std::size_t>(y) * w + x) * 3 + c] =
              static_cast<std::uint8_t>(std::clamp(base + static_cast<double>(rng.below(24)), 0.0, 255.0));
        }
      }
    }
    write_file(dir / "jpeg" / fmt::format("class{}", i % 10) / fmt::format("{:05}.jpg", i),
               encode_jpeg_rgb(rgb.data(), h, w, 90));
  }
}

struct Case {
  const char* kind;
  std::string spec;
  const char* transform;
};

}  // namespace

int main(int argc, char** argv) {
  fs::path data, gen;
  std::vector<int> workers{0, 1, 2};
  std::int64_t batch = 16;
  int epochs = 1, jpeg_images = 1000;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--generate") gen = value();
    else if (arg == "--data") data = value();
    else if (arg == "--batch") batch = std::stoll(value());
    else if (arg == "--epochs") epochs = std::stoi(value());
    else if (arg == "--jpeg-images") jpeg_images = std::stoi(value());
    else if (arg == "--only") only = value();
    else if (arg == "--workers") {
      workers.clear();
      std::string list = value();
      for (std::size_t pos = 0; pos <= list.size();) {
        const std::size_t comma = std::min(list.find(',', pos), list.size());
        workers.push_back(std::stoi(list.substr(pos, comma - pos)));
        pos = comma + 1;
      }
    } else {
      std::fprintf(stderr,
                   "usage: loaders_bench --generate DIR | --data DIR [--workers 0,1,2] [--batch 16] "
                   "[--epochs 1] [--only fashion-mnist|cifar10|jpeg]\n");
      return 2;
    }
  }
  if (!gen.empty()) {
    generate(gen, jpeg_images);
    return 0;
  }
  if (data.empty()) {
    std::fprintf(stderr, "loaders_bench: give --generate DIR or --data DIR\n");
    return 2;
  }
  const std::vector<Case> cases{
      {"fashion-mnist", "fashion-mnist:" + (data / "FashionMNIST" / "raw").string(), "mnist"},
      {"cifar10", "cifar10:" + (data / "cifar10").string(), "cifar10"},
      {"jpeg", "imagefolder:" + (data / "jpeg").string(), "gld23k"},
  };
  for (const auto& c : cases) {
    if (!only.empty() && only != c.kind) continue;
    std::shared_ptr<const Dataset> dataset = open_dataset(DatasetSpec::parse(c.spec), std::string(c.transform));
    for (int w : workers) {
      PipelineOptions options;
      options.batch_size = batch;
      options.num_workers = w;
      options.prefetch_factor = 2;
      options.shuffle = true;
      options.seed = 1;
      Pipeline pipeline(dataset, options);
      std::int64_t samples = 0, stall = 0, wall = 0;
      for (int e = 0; e < epochs; ++e) {
        pipeline.start_epoch(e);
        double checksum = 0;
        while (auto b = pipeline.next()) checksum += b->inputs.data_ptr<float>()[0];  // touch the data
        const auto& stats = pipeline.epoch_stats();
        samples += stats.samples;
        stall += stats.stall_ns;
        wall += stats.wall_ns;
        (void)checksum;
      }
      fmt::print(
          "{{\"impl\": \"jetchar\", \"dataset\": \"{}\", \"workers\": {}, \"batch\": {}, \"samples\": {}, "
          "\"seconds\": {:.4f}, \"samples_per_s\": {:.1f}, \"stall_s\": {:.4f}}}\n",
          c.kind, w, batch, samples, wall / 1e9, samples * 1e9 / wall, stall / 1e9);
      std::fflush(stdout);
    }
  }
  return 0;
}
