// A predicted value with its interval at a stated coverage (the mode predictor's jackknife+
// intervals, analysis/mode_predictor.h, and the stored predictions of analysis/mode_predictions.h).
#pragma once

namespace jetchar::analysis {

struct Interval {
  double value = 0;          ///< the fit on every profiled mode
  double low = 0, high = 0;  ///< the interval at the predictor's level
};

}  // namespace jetchar::analysis
