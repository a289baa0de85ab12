#include "tests/support/returns.h"

#include <exception>
#include <future>
#include <memory>
#include <thread>

namespace jetchar::testing {

bool returns(std::function<void()> call, std::chrono::seconds limit) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  std::thread([call = std::move(call), done] {
    try {
      call();
      done->set_value();
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  }).detach();
  if (finished.wait_for(limit) != std::future_status::ready) return false;
  finished.get();  // the call's exception, if it threw, reaches the test
  return true;
}

}  // namespace jetchar::testing
