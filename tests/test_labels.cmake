# Labels a test carries beside its kind (unit, fixture or integration, from its suite's name as
# tests/CMakeLists.txt gives them; every cli test is an integration test):
#   slow     over 15 s on the 2-core CI machine; `scripts/test.sh --fast` leaves them out, and
#            scripts/test-budget.py names a test over 15 s that is not listed here;
#   browser  draws the report in headless Chromium.
# ctest reads this file after the GoogleTest discovery that defines the tests (TEST_INCLUDE_FILES,
# appended after it in each test folder); a name not defined in a folder is passed over there.
set(_jetchar_slow_tests
  analysis.ModePredictor.IntervalsAreCalibratedFromFiveToTwentyFiveModes
  analysis.ModePredictor.NinetyPercentIntervalsHoldAboutNinetyPercentOfHeldOutModes
  analysis.ModesToProfileNext.FillTheGapsOfARandomPickBetterThanMoreRandomModes
  analysis.ModePredictor.MeetsTheGoalOnTruthsWrittenApartFromTheFamily
  analysis.ModePredictor.JudgesTheCubicPowerFormsOnlyWhereEveryClockHasFourLevels
  analysis.ModePredictor.MeetsTheGoalOnTruthsDrawnAtRandom
  analysis.ReportBrowserIntegration.ReportOfASimulatedSweepsResultsDirectoryDrawsEveryPlot
)
set(_jetchar_browser_tests
  analysis.ReportBrowserIntegration.ChartsAreDrawnInHeadlessChromium
  analysis.ReportBrowserIntegration.ThePredictedParetoFrontIsDrawn
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
  if(_jetchar_at GREATER -1)
    list(APPEND _jetchar_labels slow)
  endif()
  list(FIND _jetchar_browser_tests ${_jetchar_test} _jetchar_at)
  if(_jetchar_at GREATER -1)
    list(APPEND _jetchar_labels browser)
  endif()
  set_tests_properties(${_jetchar_test} PROPERTIES LABELS "${_jetchar_labels}")
endforeach()
