// The simulated board behind the board's hooks (jetson/discovery/board_hooks.h): its behaviour
// model runs after every control write, its sensors are refreshed while a run measures, its
// training minibatches and inference queries are paced to its time model (modelled_time_pacer.h),
// its power figures are modelled and its GPIO marker records edges without a chip.
#pragma once

#include <memory>

#include "jetson/discovery/board_hooks.h"
#include "jetson/simulated/simulated_board.h"

namespace jetchar::jetson {

class SimulatedBoardHooks : public BoardHooks {
 public:
  explicit SimulatedBoardHooks(std::unique_ptr<SimulatedBoard> board);

  void after_write() override { board_->update(); }
  void refresh_sensors() override { board_->update_sensors(); }
  void start_refreshing(std::chrono::milliseconds period) override;
  void stop_refreshing() override { board_->stop_refresh(); }

  bool power_modelled() const override { return true; }
  bool marks_without_gpio() const override { return true; }
  /// The fixture's nvpmodel is not NVIDIA's program: jetchar writes the preset's controls itself.
  bool runs_nvpmodel_program() const override { return false; }
  bool is_this_machine(const sysfs::Root&) const override { return false; }
  std::string state_text() const override;

  std::unique_ptr<MinibatchPacer> pace_training(const BoardInfo& info, const ModelWork& work, const FetchWork& fetch,
                                                std::int64_t batch, std::string& why_not) override;
  std::unique_ptr<MinibatchPacer> pace_inference(const BoardInfo& info, const ModelWork& work, std::int64_t batch,
                                                 std::int64_t warmup, std::string& why_not) override;
  /// Pins the power model's CPU and GPU load to 0 (and refreshes the rails) while idle.
  void hold_idle(bool idle) override;

  SimulatedBoard& board() { return *board_; }

 private:
  std::unique_ptr<SimulatedBoard> board_;
};

}  // namespace jetchar::jetson
