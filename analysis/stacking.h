// Stacking (Breiman, "Stacked regressions", Machine Learning 24, 1996): combining several
// models' predictions with the non-negative weights, summing to one, that best match measured
// values from the models' left-out (cross-validated) predictions. With a few noisy modes,
// averaging models that cross-validate about as well varies less than choosing one.
#pragma once

#include <vector>

namespace jetchar::analysis {

/// The weights of the models whose left-out predictions are `cv[m]` (one per measured value, on
/// the scale the combination is made in, e.g. logs) for `measured`. A model with no predictions
/// (empty) gets weight 0; when no weight is positive, the models with predictions share equally.
std::vector<double> stacking_weights(const std::vector<std::vector<double>>& cv, const std::vector<double>& measured);

}  // namespace jetchar::analysis
