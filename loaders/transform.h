// Image transforms as torchvision composes them (Resize, CenterCrop, RandomCrop with padding,
// RandomResizedCrop, RandomHorizontalFlip, ToTensor, Normalize, Cutout), fused: the geometric steps
// are folded into one source-to-output mapping that is sampled once (separable triangle filter, as
// PIL's bilinear resize), then normalized and cut out. Pure C++ on byte buffers, no tensors.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "loaders/image_view.h"
#include "loaders/rng.h"

namespace jetchar::loaders {

struct TransformStep {
  enum class Kind { kResize, kCenterCrop, kRandomCrop, kRandomResizedCrop, kHorizontalFlip, kNormalize, kCutout };
  Kind kind = Kind::kNormalize;
  int height = 0;  ///< target size; for kResize with `smaller_edge`, the smaller edge's length
  int width = 0;
  bool smaller_edge = false;                          ///< Resize(int): match the smaller edge, keep the aspect ratio
  int padding = 0;                                    ///< kRandomCrop: zero padding on every side before cropping
  double probability = 0.5;                           ///< kHorizontalFlip
  double scale_lo = 0.08, scale_hi = 1.0;             ///< kRandomResizedCrop area range
  double ratio_lo = 3.0 / 4.0, ratio_hi = 4.0 / 3.0;  ///< kRandomResizedCrop aspect range
  std::vector<float> mean, stddev;                    ///< kNormalize: one value or one per channel
  int length = 0;                                     ///< kCutout: side of the zeroed square
};

/// Everything random about one sample's transform, drawn up front so a decoder can choose a
/// reduced decode size (JPEG scaled decoding) before the pixels exist.
struct TransformPlan {
  int out_height = 0;
  int out_width = 0;
  /// Continuous source coordinate of output coordinate u: a + b * u (pixel centres at i + 0.5).
  double ax = 0, bx = 1, ay = 0, by = 1;
  /// Cutout rectangle in output pixels, [y0, y1) x [x0, x1); empty when y0 == y1.
  int cut_y0 = 0, cut_y1 = 0, cut_x0 = 0, cut_x1 = 0;
  /// The smallest source-pixels-per-output-pixel ratio of the two axes: a source shrunk by up to
  /// this factor still has at least one pixel per output pixel.
  double max_source_shrink() const;
  /// Re-expresses the plan for a source decoded at `fy` x `fx` of its original size.
  void scale_source(double fy, double fx);
  /// Re-expresses the plan for a source whose pixel (0, 0) was at (y, x).
  void shift_source(double y, double x);
  /// The part of a `height` x `width` source the output samples (with the filter's support and a
  /// margin of a few pixels for a decoder's rounding), clamped to the source, at least 1 x 1.
  ImageRegion source_region(int height, int width) const;
};

class Transform {
 public:
  /// ToTensor only: bytes / 255, geometry unchanged.
  Transform() { prepare(); }
  Transform(std::string name, std::vector<TransformStep> steps);

  /// A named pipeline (see known_names()) or a comma-separated step list, e.g.
  /// "random-crop=32:4,hflip,normalize=0.4914:0.4822:0.4465/0.2023:0.1994:0.2010".
  /// Throws std::invalid_argument naming the text, the bad part and what is valid.
  static Transform parse(std::string_view text);
  /// Named pipelines of the seed study and common variants, with one line describing each.
  static std::vector<std::pair<std::string, std::string>> known_names();

  const std::string& name() const { return name_; }
  const std::vector<TransformStep>& steps() const { return steps_; }
  /// Output (height, width) for a source of that size.
  std::pair<int, int> output_size(int src_height, int src_width) const;
  /// True when the output size does not depend on the source size (needed for folders of images).
  bool has_fixed_output_size() const;
  /// Draws this sample's randomness.
  TransformPlan plan(int src_height, int src_width, Rng& rng) const;
  /// Samples, normalizes and cuts out `src` into `out` (CHW float, src.channels x out_height x out_width).
  /// Returns false (and writes nothing) if `out` has the wrong size or the source has > 4 channels.
  bool apply(const TransformPlan& plan, const ImageView& src, std::span<float> out) const;

 private:
  void prepare();

  std::string name_ = "to-tensor";
  std::vector<TransformStep> steps_;
  // Per-channel affine map of a byte value to the output value, as 256-entry tables (up to 4 channels).
  std::vector<float> lut_ = std::vector<float>(4 * 256);
  bool cutout_after_normalize_ = true;
};

}  // namespace jetchar::loaders
