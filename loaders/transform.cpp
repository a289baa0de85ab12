#include "loaders/transform.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace jetchar::loaders {
namespace {

using Kind = TransformStep::Kind;

TransformStep normalize(std::vector<float> mean, std::vector<float> stddev) {
  TransformStep step;
  step.kind = Kind::kNormalize;
  step.mean = std::move(mean);
  step.stddev = std::move(stddev);
  return step;
}
TransformStep sized(Kind kind, int height, int width) {
  TransformStep step;
  step.kind = kind;
  step.height = height;
  step.width = width;
  return step;
}
TransformStep random_crop(int size, int padding) {
  TransformStep step = sized(Kind::kRandomCrop, size, size);
  step.padding = padding;
  return step;
}
TransformStep flip() {
  TransformStep step;
  step.kind = Kind::kHorizontalFlip;
  return step;
}
TransformStep cutout(int length) {
  TransformStep step;
  step.kind = Kind::kCutout;
  step.length = length;
  return step;
}
TransformStep resize_smaller_edge(int size) {
  TransformStep step = sized(Kind::kResize, size, size);
  step.smaller_edge = true;
  return step;
}

const std::vector<float> kCifarMean{0.4914F, 0.4822F, 0.4465F};
const std::vector<float> kCifarStd{0.2023F, 0.1994F, 0.2010F};

struct Named {
  const char* name;
  const char* description;
  std::vector<TransformStep> (*steps)();
};

const std::vector<Named>& named_pipelines() {
  static const std::vector<Named> pipelines{
      {"to-tensor", "bytes / 255 only", [] { return std::vector<TransformStep>{}; }},
      {"mnist", "ToTensor, Normalize(0.1307, 0.3081) (seed study, LeNet/MNIST)",
       [] { return std::vector{normalize({0.1307F}, {0.3081F})}; }},
      {"cifar10", "ToTensor, Normalize(CIFAR-10 mean/std) (seed study, ResNet-18/CIFAR-10)",
       [] { return std::vector{normalize(kCifarMean, kCifarStd)}; }},
      {"cifar10-augment", "RandomCrop(32, padding 4), RandomHorizontalFlip, ToTensor, Normalize(CIFAR-10)",
       [] {
         return std::vector{random_crop(32, 4), flip(), normalize(kCifarMean, kCifarStd)};
       }},
      {"gld23k",
       "RandomResizedCrop(224), RandomHorizontalFlip, ToTensor, Normalize(0.5, 0.5), Cutout(16) "
       "(seed study, MobileNetV3/GLD-23k)",
       [] {
         return std::vector{sized(Kind::kRandomResizedCrop, 224, 224), flip(), normalize({0.5F}, {0.5F}), cutout(16)};
       }},
      {"imagenet-eval", "Resize(256), CenterCrop(224), ToTensor, Normalize(ImageNet mean/std)",
       [] {
         return std::vector{resize_smaller_edge(256), sized(Kind::kCenterCrop, 224, 224),
                            normalize({0.485F, 0.456F, 0.406F}, {0.229F, 0.224F, 0.225F})};
       }},
  };
  return pipelines;
}

std::invalid_argument bad_step(std::string_view text, std::string_view part, std::string_view expected) {
  return std::invalid_argument(fmt::format("transform '{}': cannot use '{}': expected {}", text, part, expected));
}

template <typename T>
bool parse_number(std::string_view text, T& value) {
  if (text.empty()) return false;
  if constexpr (std::is_floating_point_v<T>) {
    // from_chars for floating point is in GCC 12; keep it locale-free.
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && std::isfinite(value);
  } else {
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size();
  }
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

// "H" or "HxW", positive.
bool parse_size(std::string_view text, int& height, int& width) {
  const auto parts = split(text, 'x');
  if (parts.size() == 1) {
    if (!parse_number(parts[0], height) || height <= 0 || height > 1 << 15) return false;
    width = height;
    return true;
  }
  return parts.size() == 2 && parse_number(parts[0], height) && parse_number(parts[1], width) && height > 0 &&
         width > 0 && height <= 1 << 15 && width <= 1 << 15;
}

bool parse_floats(std::string_view text, std::vector<float>& values) {
  values.clear();
  for (auto part : split(text, ':')) {
    float value = 0;
    if (!parse_number(part, value)) return false;
    values.push_back(value);
  }
  return !values.empty() && values.size() <= 4;
}

TransformStep parse_step(std::string_view text, std::string_view part) {
  const auto eq = part.find('=');
  const std::string_view key = part.substr(0, eq);
  const std::string_view arg = eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1);
  TransformStep step;
  if (key == "resize") {
    step.kind = Kind::kResize;
    if (!parse_size(arg, step.height, step.width)) throw bad_step(text, part, "resize=S (smaller edge) or resize=HxW");
    step.smaller_edge = arg.find('x') == std::string_view::npos;
  } else if (key == "center-crop") {
    step.kind = Kind::kCenterCrop;
    if (!parse_size(arg, step.height, step.width)) throw bad_step(text, part, "center-crop=S or center-crop=HxW");
  } else if (key == "random-crop") {
    step.kind = Kind::kRandomCrop;
    const auto parts = split(arg, ':');
    if (parts.size() > 2 || !parse_size(parts[0], step.height, step.width) ||
        (parts.size() == 2 && (!parse_number(parts[1], step.padding) || step.padding < 0 || step.padding > 4096))) {
      throw bad_step(text, part, "random-crop=S[:PADDING] or random-crop=HxW[:PADDING]");
    }
  } else if (key == "random-resized-crop") {
    step.kind = Kind::kRandomResizedCrop;
    if (!parse_size(arg, step.height, step.width)) throw bad_step(text, part, "random-resized-crop=S or =HxW");
  } else if (key == "hflip") {
    step.kind = Kind::kHorizontalFlip;
    if (!arg.empty() && (!parse_number(arg, step.probability) || step.probability < 0 || step.probability > 1)) {
      throw bad_step(text, part, "hflip or hflip=P with 0 <= P <= 1");
    }
  } else if (key == "normalize") {
    step.kind = Kind::kNormalize;
    const auto parts = split(arg, '/');
    if (parts.size() != 2 || !parse_floats(parts[0], step.mean) || !parse_floats(parts[1], step.stddev) ||
        std::any_of(step.stddev.begin(), step.stddev.end(), [](float s) { return !(s > 0); })) {
      throw bad_step(text, part, "normalize=MEAN[:MEAN..]/STD[:STD..] with 1 to 4 values and STD > 0");
    }
  } else if (key == "cutout") {
    step.kind = Kind::kCutout;
    if (!parse_number(arg, step.length) || step.length <= 0) throw bad_step(text, part, "cutout=LENGTH (> 0)");
  } else {
    std::string names;
    for (const auto& named : named_pipelines()) names += fmt::format("{}{}", names.empty() ? "" : ", ", named.name);
    throw bad_step(text, part,
                   fmt::format("a pipeline name ({}) or steps resize, center-crop, random-crop, "
                               "random-resized-crop, hflip, normalize, cutout (comma-separated)",
                               names));
  }
  return step;
}

// Per-axis sampling taps: for each output pixel, `count` (index, weight) pairs from `offset`.
struct Taps {
  std::vector<int> offset;
  std::vector<int> count;
  std::vector<int> index;
  std::vector<float> weight;
  bool unit = true;  // every output has at most one tap of weight 1 (pure gather)
  int min_index = 0, max_index = -1;
};

void compute_taps(int n_out, double a, double b, int n_src, Taps& taps) {
  taps.offset.assign(n_out, 0);
  taps.count.assign(n_out, 0);
  taps.index.clear();
  taps.weight.clear();
  taps.unit = true;
  taps.min_index = n_src;
  taps.max_index = -1;
  const double support = std::max(1.0, std::abs(b));  // widen the triangle when shrinking (anti-aliasing)
  for (int i = 0; i < n_out; ++i) {
    const double s = a + b * (i + 0.5);
    taps.offset[i] = static_cast<int>(taps.index.size());
    // Outside the source (zero padding) when the sample point lies outside [0, n_src].
    if (!(s >= 0.0 && s <= n_src)) continue;
    const int first = std::max(0, static_cast<int>(std::floor(s - support - 0.5)));
    const int last = std::min(n_src - 1, static_cast<int>(std::ceil(s + support - 0.5)));
    double sum = 0;
    const int start = static_cast<int>(taps.index.size());
    for (int j = first; j <= last; ++j) {
      const double w = 1.0 - std::abs(j + 0.5 - s) / support;
      if (w <= 1e-9) continue;
      taps.index.push_back(j);
      taps.weight.push_back(static_cast<float>(w));
      sum += w;
    }
    const int count = static_cast<int>(taps.index.size()) - start;
    taps.count[i] = count;
    for (int k = start; k < start + count; ++k) taps.weight[k] = static_cast<float>(taps.weight[k] / sum);
    if (count > 1) taps.unit = false;
    if (count > 0) {
      taps.min_index = std::min(taps.min_index, taps.index[start]);
      taps.max_index = std::max(taps.max_index, taps.index[start + count - 1]);
    }
  }
}

// Geometry state while folding the steps: the current image is cur_w x cur_h and maps to the
// source as s = a + b * u per axis.
struct Geometry {
  double cur_w, cur_h, ax = 0, bx = 1, ay = 0, by = 1;
  void crop(double x, double y, double w, double h) {
    ax += bx * x;
    ay += by * y;
    cur_w = w;
    cur_h = h;
  }
  void resize(double w, double h) {
    bx *= cur_w / w;
    by *= cur_h / h;
    cur_w = w;
    cur_h = h;
  }
  void flip() {
    ax += bx * cur_w;
    bx = -bx;
  }
};

std::pair<int, int> resized(const TransformStep& step, int h, int w) {
  if (!step.smaller_edge) return {step.height, step.width};
  if (h <= w) return {step.height, std::max(1, static_cast<int>(static_cast<double>(step.height) * w / h))};
  return {std::max(1, static_cast<int>(static_cast<double>(step.height) * h / w)), step.height};
}

// Pure gather (identity, integer crops, flips, padding): one table lookup per output value.
// `luts` holds 256 normalized values per channel.
void gather(const float* luts, const TransformPlan& plan, const ImageView& src, const Taps& xt, const Taps& yt,
            std::span<float> out) {
  const int oh = plan.out_height, ow = plan.out_width;
  const std::size_t plane = static_cast<std::size_t>(oh) * ow;
  for (int c = 0; c < src.channels; ++c) {
    const float* lut = &luts[c * 256];
    float* dst = out.data() + c * plane;
    for (int y = 0; y < oh; ++y, dst += ow) {
      if (yt.count[y] == 0) {
        std::fill(dst, dst + ow, lut[0]);
        continue;
      }
      const std::uint8_t* row = src.data + c * src.channel_stride + yt.index[yt.offset[y]] * src.row_stride;
      if (src.pixel_stride == 1 && plan.bx == 1.0 && xt.count[0] == 1 && xt.count[ow - 1] == 1) {
        const std::uint8_t* p = row + xt.index[xt.offset[0]];
        for (int x = 0; x < ow; ++x) dst[x] = lut[p[x]];
        continue;
      }
      for (int x = 0; x < ow; ++x) {
        dst[x] = xt.count[x] ? lut[row[xt.index[xt.offset[x]] * src.pixel_stride]] : lut[0];
      }
    }
  }
}

// The horizontal pass over one source row of interleaved RGB (JPEG/PNG pixels): the three
// channels of a tap are adjacent, so one pass over the taps serves all three (a third of the
// index and weight loads of the per-channel loop). `dst` holds the three channels' rows in turn.
void resample_row_rgb(const float* luts, const std::uint8_t* row, const Taps& xt, int ow, float* dst) {
  const float* lut_r = &luts[0];
  const float* lut_g = &luts[256];
  const float* lut_b = &luts[512];
  float* dst_r = dst;
  float* dst_g = dst_r + ow;
  float* dst_b = dst_g + ow;
  for (int x = 0; x < ow; ++x) {
    const int begin = xt.offset[x], end = begin + xt.count[x];
    float sum_r = 0, sum_g = 0, sum_b = 0;
    if (begin == end) {
      sum_r = lut_r[0];
      sum_g = lut_g[0];
      sum_b = lut_b[0];
    }
    for (int k = begin; k < end; ++k) {
      const std::uint8_t* p = row + xt.index[k] * 3;
      const float w = xt.weight[k];
      sum_r += w * lut_r[p[0]];
      sum_g += w * lut_g[p[1]];
      sum_b += w * lut_b[p[2]];
    }
    dst_r[x] = sum_r;
    dst_g[x] = sum_g;
    dst_b[x] = sum_b;
  }
}

// The horizontal pass: each source row the vertical taps need (yt.min_index ..), resampled to
// `ow` normalized values per channel, into rows[row][channel][x].
void resample_rows(const float* luts, const ImageView& src, const Taps& xt, const Taps& yt, int ow,
                   std::vector<float>& rows) {
  const int channels = src.channels;
  const int r0 = yt.min_index, r1 = yt.max_index;
  const int nrows = r1 >= r0 ? r1 - r0 + 1 : 0;
  rows.resize(static_cast<std::size_t>(nrows) * channels * ow);
  const bool rgb_interleaved = channels == 3 && src.pixel_stride == 3 && src.channel_stride == 1;
  for (int r = 0; r < nrows; ++r) {
    if (rgb_interleaved) {
      resample_row_rgb(luts, src.data + (r0 + r) * src.row_stride, xt, ow,
                       rows.data() + static_cast<std::size_t>(r) * 3 * ow);
      continue;
    }
    for (int c = 0; c < channels; ++c) {
      const float* lut = &luts[c * 256];
      const std::uint8_t* row = src.data + c * src.channel_stride + (r0 + r) * src.row_stride;
      float* dst = rows.data() + (static_cast<std::size_t>(r) * channels + c) * ow;
      for (int x = 0; x < ow; ++x) {
        const int begin = xt.offset[x], end = begin + xt.count[x];
        if (begin == end) {
          dst[x] = lut[0];
          continue;
        }
        float sum = 0;
        for (int k = begin; k < end; ++k) sum += xt.weight[k] * lut[row[xt.index[k] * src.pixel_stride]];
        dst[x] = sum;
      }
    }
  }
}

// The vertical pass: each output row the weighted sum of its taps' rows from resample_rows; an
// output row without taps (padding) is the channel's value of 0.
void resample_columns(const float* luts, const Taps& yt, int channels, int oh, int ow, const std::vector<float>& rows,
                      std::span<float> out) {
  const int r0 = yt.min_index;
  const std::size_t plane = static_cast<std::size_t>(oh) * ow;
  for (int c = 0; c < channels; ++c) {
    float* dst = out.data() + c * plane;
    const float pad = luts[c * 256];
    for (int y = 0; y < oh; ++y, dst += ow) {
      const int begin = yt.offset[y], end = begin + yt.count[y];
      if (begin == end) {
        std::fill(dst, dst + ow, pad);
        continue;
      }
      const float w0 = yt.weight[begin];
      const float* src_row = rows.data() + (static_cast<std::size_t>(yt.index[begin] - r0) * channels + c) * ow;
      for (int x = 0; x < ow; ++x) dst[x] = w0 * src_row[x];
      for (int k = begin + 1; k < end; ++k) {
        const float w = yt.weight[k];
        const float* r = rows.data() + (static_cast<std::size_t>(yt.index[k] - r0) * channels + c) * ow;
        for (int x = 0; x < ow; ++x) dst[x] += w * r[x];
      }
    }
  }
}

// Cutout: the plan's rectangle filled with 0 after normalization (`luts` null), or with each
// channel's value of 0 (a black patch before normalization).
void cut_out(const TransformPlan& plan, int channels, const float* luts, std::span<float> out) {
  const std::size_t plane = static_cast<std::size_t>(plan.out_height) * plan.out_width;
  for (int c = 0; c < channels; ++c) {
    const float fill = luts == nullptr ? 0.0F : luts[c * 256];
    for (int y = plan.cut_y0; y < plan.cut_y1; ++y) {
      float* dst = out.data() + c * plane + static_cast<std::size_t>(y) * plan.out_width;
      std::fill(dst + plan.cut_x0, dst + plan.cut_x1, fill);
    }
  }
}

}  // namespace

double TransformPlan::max_source_shrink() const { return std::min(std::abs(bx), std::abs(by)); }

void TransformPlan::scale_source(double fy, double fx) {
  ax *= fx;
  bx *= fx;
  ay *= fy;
  by *= fy;
}

void TransformPlan::shift_source(double y, double x) {
  ax -= x;
  ay -= y;
}

ImageRegion TransformPlan::source_region(int height, int width) const {
  // Sample points lie between a and a + b * n; taps reach max(1, |b|) + 0.5 further. The margin of
  // 8 source pixels also covers a decoder working at up to 1/8 scale rounding the region outwards
  // by one of its pixels.
  auto axis = [](double a, double b, int n, int size, int& lo, int& hi) {
    const double first = std::min(a, a + b * n), last = std::max(a, a + b * n);
    const double margin = std::max(1.0, std::abs(b)) + 8.0;
    lo = static_cast<int>(std::clamp(std::floor(first - margin), 0.0, static_cast<double>(size - 1)));
    hi = static_cast<int>(std::clamp(std::ceil(last + margin), static_cast<double>(lo + 1), static_cast<double>(size)));
  };
  ImageRegion region;
  axis(ay, by, out_height, height, region.y0, region.y1);
  axis(ax, bx, out_width, width, region.x0, region.x1);
  return region;
}

Transform::Transform(std::string name, std::vector<TransformStep> steps)
    : name_(std::move(name)), steps_(std::move(steps)) {
  prepare();
}

void Transform::prepare() {
  std::vector<float> mean{0.0F}, stddev{1.0F};
  bool seen_normalize = false;
  cutout_after_normalize_ = true;
  for (const auto& step : steps_) {
    if (step.kind == Kind::kNormalize) {
      mean = step.mean;
      stddev = step.stddev;
      seen_normalize = true;
    }
    if (step.kind == Kind::kCutout) cutout_after_normalize_ = seen_normalize;
  }
  for (int c = 0; c < 4; ++c) {
    const float m = mean[std::min<std::size_t>(c, mean.size() - 1)];
    const float s = stddev[std::min<std::size_t>(c, stddev.size() - 1)];
    for (int v = 0; v < 256; ++v) lut_[c * 256 + v] = (static_cast<float>(v) / 255.0F - m) / s;
  }
}

Transform Transform::parse(std::string_view text) {
  for (const auto& named : named_pipelines()) {
    if (text == named.name) return Transform(named.name, named.steps());
  }
  if (text.empty()) throw bad_step(text, text, "a pipeline name or a step list");
  std::vector<TransformStep> steps;
  for (auto part : split(text, ',')) {
    if (part == "to-tensor") continue;
    steps.push_back(parse_step(text, part));
  }
  return Transform(std::string(text), std::move(steps));
}

std::vector<std::pair<std::string, std::string>> Transform::known_names() {
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& named : named_pipelines()) names.emplace_back(named.name, named.description);
  return names;
}

std::pair<int, int> Transform::output_size(int src_height, int src_width) const {
  int h = src_height, w = src_width;
  for (const auto& step : steps_) {
    switch (step.kind) {
      case Kind::kResize: std::tie(h, w) = resized(step, h, w); break;
      case Kind::kCenterCrop:
      case Kind::kRandomCrop:
      case Kind::kRandomResizedCrop:
        h = step.height;
        w = step.width;
        break;
      default: break;
    }
  }
  return {h, w};
}

bool Transform::has_fixed_output_size() const {
  for (auto it = steps_.rbegin(); it != steps_.rend(); ++it) {
    switch (it->kind) {
      case Kind::kResize: return !it->smaller_edge;
      case Kind::kCenterCrop:
      case Kind::kRandomCrop:
      case Kind::kRandomResizedCrop: return true;
      default: break;
    }
  }
  return false;
}

TransformPlan Transform::plan(int src_height, int src_width, Rng& rng) const {
  Geometry g{static_cast<double>(src_width), static_cast<double>(src_height)};
  for (const auto& step : steps_) {
    const int h = static_cast<int>(std::lround(g.cur_h)), w = static_cast<int>(std::lround(g.cur_w));
    switch (step.kind) {
      case Kind::kResize: {
        const auto [nh, nw] = resized(step, h, w);
        g.resize(nw, nh);
        break;
      }
      case Kind::kCenterCrop:
        g.crop(std::round((w - step.width) / 2.0), std::round((h - step.height) / 2.0), step.width, step.height);
        break;
      case Kind::kRandomCrop: {
        // torchvision: pad, then top = randint(0, H + 2p - th + 1), left likewise (a padded image
        // smaller than the crop is clamped to offset 0 instead of raising).
        const int top = static_cast<int>(rng.between(0, std::max(0, h + 2 * step.padding - step.height)));
        const int left = static_cast<int>(rng.between(0, std::max(0, w + 2 * step.padding - step.width)));
        g.crop(left - step.padding, top - step.padding, step.width, step.height);
        break;
      }
      case Kind::kRandomResizedCrop: {
        // torchvision's get_params: 10 tries at a random area and log-uniform aspect ratio, then a
        // centre crop at the clamped ratio.
        const double area = static_cast<double>(h) * w;
        int ch = 0, cw = 0, top = 0, left = 0;
        bool found = false;
        for (int attempt = 0; attempt < 10 && !found; ++attempt) {
          const double target = area * rng.uniform(step.scale_lo, step.scale_hi);
          const double ratio = std::exp(rng.uniform(std::log(step.ratio_lo), std::log(step.ratio_hi)));
          cw = static_cast<int>(std::lround(std::sqrt(target * ratio)));
          ch = static_cast<int>(std::lround(std::sqrt(target / ratio)));
          if (cw > 0 && ch > 0 && cw <= w && ch <= h) {
            top = static_cast<int>(rng.between(0, h - ch));
            left = static_cast<int>(rng.between(0, w - cw));
            found = true;
          }
        }
        if (!found) {
          const double in_ratio = static_cast<double>(w) / h;
          if (in_ratio < step.ratio_lo) {
            cw = w;
            ch = static_cast<int>(std::lround(w / step.ratio_lo));
          } else if (in_ratio > step.ratio_hi) {
            ch = h;
            cw = static_cast<int>(std::lround(h * step.ratio_hi));
          } else {
            cw = w;
            ch = h;
          }
          top = (h - ch) / 2;
          left = (w - cw) / 2;
        }
        g.crop(left, top, std::max(1, cw), std::max(1, ch));
        g.resize(step.width, step.height);
        break;
      }
      case Kind::kHorizontalFlip:
        if (rng.uniform() < step.probability) g.flip();
        break;
      case Kind::kNormalize:
      case Kind::kCutout: break;  // normalised on the tensor; cutout drawn below, on the output size
    }
  }
  TransformPlan plan;
  plan.out_height = static_cast<int>(std::lround(g.cur_h));
  plan.out_width = static_cast<int>(std::lround(g.cur_w));
  plan.ax = g.ax;
  plan.bx = g.bx;
  plan.ay = g.ay;
  plan.by = g.by;
  for (const auto& step : steps_) {
    if (step.kind != Kind::kCutout) continue;
    // DeVries & Taylor's Cutout: a centre anywhere in the image, the square clipped at the borders.
    const int cy = static_cast<int>(rng.below(plan.out_height));
    const int cx = static_cast<int>(rng.below(plan.out_width));
    plan.cut_y0 = std::clamp(cy - step.length / 2, 0, plan.out_height);
    plan.cut_y1 = std::clamp(cy + step.length / 2, 0, plan.out_height);
    plan.cut_x0 = std::clamp(cx - step.length / 2, 0, plan.out_width);
    plan.cut_x1 = std::clamp(cx + step.length / 2, 0, plan.out_width);
  }
  return plan;
}

bool Transform::apply(const TransformPlan& plan, const ImageView& src, std::span<float> out) const {
  const int channels = src.channels;
  const int oh = plan.out_height, ow = plan.out_width;
  if (channels < 1 || channels > 4 || oh <= 0 || ow <= 0 ||
      out.size() != static_cast<std::size_t>(channels) * oh * ow || src.height <= 0 || src.width <= 0) {
    return false;
  }
  thread_local Taps xt, yt;
  thread_local std::vector<float> rows;
  compute_taps(ow, plan.ax, plan.bx, src.width, xt);
  compute_taps(oh, plan.ay, plan.by, src.height, yt);
  if (xt.unit && yt.unit) {
    gather(lut_.data(), plan, src, xt, yt, out);
  } else {
    // Separable resampling of normalized values (the maps are affine and the weights sum to 1, so
    // normalizing first is the same as normalizing the resampled value). Horizontal pass over the
    // source rows the vertical taps need, then the vertical pass.
    resample_rows(lut_.data(), src, xt, yt, ow, rows);
    resample_columns(lut_.data(), yt, channels, oh, ow, rows, out);
  }
  if (plan.cut_y1 > plan.cut_y0 && plan.cut_x1 > plan.cut_x0) {
    cut_out(plan, channels, cutout_after_normalize_ ? nullptr : lut_.data(), out);
  }
  return true;
}

}  // namespace jetchar::loaders
