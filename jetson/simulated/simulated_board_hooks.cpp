#include "jetson/simulated/simulated_board_hooks.h"

#include <fmt/format.h>

#include "jetson/simulated/modelled_time_pacer.h"

namespace jetchar::jetson {

SimulatedBoardHooks::SimulatedBoardHooks(std::unique_ptr<SimulatedBoard> board) : board_(std::move(board)) {}

void SimulatedBoardHooks::start_refreshing(std::chrono::milliseconds period) {
  // The first refresh at once: a measurement that starts now must see the board's present state.
  board_->update();
  board_->start_refresh(period);
}

std::string SimulatedBoardHooks::state_text() const {
  const auto power = board_->power();
  return fmt::format(
      "  simulated power: {:.0f} mW module (CPU {:.0f}, GPU {:.0f}, EMC {:.0f}, SoC {:.0f}) at host "
      "utilization {:.0f} %\n",
      power.total_mw, power.cpu_mw, power.gpu_mw, power.emc_mw, power.soc_mw, 100 * power.host_utilization);
}

std::unique_ptr<MinibatchPacer> SimulatedBoardHooks::pace_training(const BoardInfo& info, const ModelWork& work,
                                                                   const FetchWork& fetch, std::int64_t batch,
                                                                   std::string& why_not) {
  return ModelledTimePacer::for_training(*board_, info, work, fetch, batch, why_not);
}

std::unique_ptr<MinibatchPacer> SimulatedBoardHooks::pace_inference(const BoardInfo& info, const ModelWork& work,
                                                                    std::int64_t batch, std::int64_t warmup,
                                                                    std::string& why_not) {
  return ModelledTimePacer::for_inference(*board_, info, work, batch, warmup, why_not);
}

void SimulatedBoardHooks::hold_idle(bool idle) {
  board_->pin_host_utilization(idle ? std::optional<double>(0.0) : std::nullopt);
  board_->pin_gpu_load(idle ? std::optional<double>(0.0) : std::nullopt);
  board_->update_sensors();
}

}  // namespace jetchar::jetson
