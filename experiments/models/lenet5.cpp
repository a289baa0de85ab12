#include "experiments/models/lenet5.h"

#include "experiments/models/mac_counter.h"

namespace jetchar::experiments {

LeNet5Impl::LeNet5Impl(const LeNet5Options& options) {
  using namespace torch::nn;
  conv1_ = register_module("conv1", Conv2d(Conv2dOptions(options.in_channels, 6, 5).padding(options.first_padding)));
  conv2_ = register_module("conv2", Conv2d(Conv2dOptions(6, 16, 5)));
  fc1_ = register_module("fc1", Linear(16 * 5 * 5, 120));
  fc2_ = register_module("fc2", Linear(120, 84));
  fc3_ = register_module("fc3", Linear(84, options.num_classes));
}

torch::Tensor LeNet5Impl::forward(torch::Tensor images) {
  auto x = torch::max_pool2d(torch::relu(counted(conv1_, images)), 2);
  x = torch::max_pool2d(torch::relu(counted(conv2_, x)), 2);
  x = x.flatten(1);
  x = torch::relu(counted(fc1_, x));
  x = torch::relu(counted(fc2_, x));
  return counted(fc3_, x);
}

}  // namespace jetchar::experiments
