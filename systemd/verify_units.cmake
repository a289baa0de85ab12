# Test: `systemd-analyze verify` accepts the units and prints nothing (it exits 0 on many
# problems and only warns, so any output is a failure). Usage:
#   cmake -DUNIT_DIR=<dir with configured units> -P verify_units.cmake
find_program(SYSTEMD_ANALYZE systemd-analyze REQUIRED)
file(CREATE_LINK jetchar-sweep@.service ${UNIT_DIR}/jetchar-sweep@example.service SYMBOLIC)
file(CREATE_LINK jetchar-sweep@.timer ${UNIT_DIR}/jetchar-sweep@example.timer SYMBOLIC)
execute_process(
  COMMAND ${SYSTEMD_ANALYZE} verify --man=no
          ${UNIT_DIR}/jetchar-sweep@example.service ${UNIT_DIR}/jetchar-sweep@example.timer
          ${UNIT_DIR}/jetchar-restore.service
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT "${out}${err}" STREQUAL "")
  message(FATAL_ERROR "systemd-analyze verify (exit ${rc}):\n${out}${err}")
endif()
message(STATUS "units verified")
