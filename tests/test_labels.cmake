# Labels a test carries beside its kind (unit, fixture or integration, from its suite's name as
# tests/CMakeLists.txt gives them; every cli test is an integration test):
#   slow     about 10 s or more on the 2-core CI machine; `scripts/test.sh --fast` leaves them out,
#            and scripts/test-budget.py names a test over 15 s that is not listed here (the unit
#            shards of a BATCHED module get it in tests/CMakeLists.txt: SLOW_BATCHES);
#   browser  draws the report in headless Chromium.
# A slow test also gets a COST, so that ctest starts it early where it has no timings of an earlier
# run (a fresh clone, as CI's): a long test started last leaves the other core idle.
# ctest reads this file after the GoogleTest discovery that defines the tests (TEST_INCLUDE_FILES,
# appended after it in each test folder); a name not defined in a folder is passed over there.
set(_jetchar_slow_tests
  analysis.FromTenToTwentyFiveModes/NinetyPercentIntervals.HoldEightyToNinetyEightPercentOfHeldOutModes/25_modes
  analysis.ModePredictor.NinetyPercentIntervalsHoldAboutNinetyPercentOfHeldOutModes
  analysis.ModesToProfileNext.FillTheGapsOfARandomPickBetterThanMoreRandomModes
  analysis.ReportBrowserIntegration.ReportOfASimulatedSweepsResultsDirectoryDrawsEveryPlot
  analysis.ReportBrowserIntegration.ReportOfTheInferenceExamplesResultsDirectoryDrawsEveryChart
  cli.AdaptiveProfileSweepTest.FifteenModesPredictTheOtherSixtySixWithinTheGoal
  cli.CliContractIntegration.ARejectedSweepLeavesNothingBehind
  cli.CliContractIntegration.ModelsDataTrainInfer
  cli.DocumentedExamples.EveryRecordIsShownSomewhere
  cli.FaultInjection.ASweepKilledAnywhereResumesWithEveryRunOnce
  cli.FaultInjection.DeviceRestoreKilledAnywhereFinishesWhenRunAgain
  cli.FaultInjection.DeviceSetKilledAnywhereIsRestoredToTheBoardBeforeIt
  cli.FrontierCommandIntegration.FindsTheLargestBatchUnderTheBudgetAndTimesItsSplits
  cli.OfEachCommand/HelpExamples.RunAsWritten/analyze
  cli.OfEachCommand/HelpExamples.RunAsWritten/frontier
  cli.OfEachCommand/HelpExamples.RunAsWritten/infer
  cli.OfEachCommand/HelpExamples.RunAsWritten/sweep
  cli.OfEachCommand/HelpExamples.RunAsWritten/train
  cli.OfEachDocument/MarkdownExamples.RunAsWritten/README_md
  cli.OfEachFile/ExampleFileExamples.RunAsWritten/examples_quickstart_host_textproto
  cli.OfEachFile/ExampleFileExamples.RunAsWritten/examples_sim_agx_orin_adaptive_profile_textproto
  cli.OfEachFile/ExampleFileExamples.RunAsWritten/examples_sim_agx_orin_adaptive_textproto
  cli.OfEachFile/ExampleFileExamples.RunAsWritten/examples_sim_agx_orin_inference_modes_textproto
  cli.OfEachFile/ExampleFileExamples.RunAsWritten/examples_sim_agx_orin_power_modes_textproto
  cli.OfEachFile/ExampleFileExamples.RunAsWritten/examples_sim_agx_orin_squad_inference_textproto
  cli.OfEachFile/ExampleFileExamples.RunAsWritten/examples_sim_agx_orin_transfer_reference_textproto
  cli.PretrainedDistilBertTest.TrainFineTunesSequenceClassificationFromTheCheckpoint
  experiments.ExamplesIntegration.TheSimulatedBoardExampleRunsEndToEnd
  experiments.FashionMnistTrainingIntegration.LeNet5ReachesEightyFivePercentInTwoEpochs
  experiments.SweepResumeIntegration.KilledAtManyPointsAndResumedKeepsEveryRunOnceAndRestoresTheBoard
  experiments.SweepSimIntegration.AHostSlowerThanTheBoardReportsTheModelledTimes
  experiments.SweepSimIntegration.AMeterThatDisappearsMidRunIsRecordedAndTheSweepGoesOn
)
set(_jetchar_browser_tests
  analysis.ReportBrowserIntegration.ChartsAreDrawnInHeadlessChromium
  analysis.ReportBrowserIntegration.ThePredictedParetoFrontIsDrawn
  analysis.ReportBrowserIntegration.TwoBoardKindsSideBySide
  analysis.ReportBrowserIntegration.DataParallelScalingIsDrawn
  analysis.ReportBrowserIntegration.TheInferenceAndBatchSizePagesAreDrawn
  analysis.ReportBrowserIntegration.ReportOfTheInferenceExamplesResultsDirectoryDrawsEveryChart
  analysis.ReportBrowserIntegration.ReportOfASimulatedSweepsResultsDirectoryDrawsEveryPlot
)

foreach(_jetchar_test IN LISTS _jetchar_slow_tests _jetchar_browser_tests)
  set(_jetchar_labels unit)
  if(_jetchar_test MATCHES "^cli[.]" OR _jetchar_test MATCHES "Integration[./]")
    set(_jetchar_labels integration)
  elseif(_jetchar_test MATCHES "Fixture[./]")
    set(_jetchar_labels fixture)
  endif()
  # list(FIND), not if(IN_LIST): ctest reads this file without the policy IN_LIST needs.
  list(FIND _jetchar_slow_tests ${_jetchar_test} _jetchar_at)
  set(_jetchar_cost 0)
  if(_jetchar_at GREATER -1)
    list(APPEND _jetchar_labels slow)
    set(_jetchar_cost 20)
  endif()
  list(FIND _jetchar_browser_tests ${_jetchar_test} _jetchar_at)
  if(_jetchar_at GREATER -1)
    list(APPEND _jetchar_labels browser)
  endif()
  set_tests_properties(${_jetchar_test} PROPERTIES LABELS "${_jetchar_labels}" COST ${_jetchar_cost})
endforeach()
