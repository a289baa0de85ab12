# Installation layout and the Debian package (CPack). `cmake --install` puts
#   bin/jetchar                         (cli/CMakeLists.txt)
#   /lib/systemd/system/jetchar-*.{service,timer}  (systemd/CMakeLists.txt; prefix/lib/systemd/system
#                                       when the prefix is not /usr)
#   /etc/jetchar/sweeps/                where the sweep units look for NAME.textproto (empty)
#   share/jetchar/examples/*.textproto  sweep/experiment specs to copy to /etc/jetchar/sweeps, with
#                                       the files they name by relative paths (squad/, *.csv)
#   share/jetchar/boards/*/board.manifest  the board fixtures behind `--board sim:NAME`, and
#   share/jetchar/nvpmodel/*.conf       the nvpmodel confs they copy (../../nvpmodel): NVIDIA's stock
#                                       text, but two stand-ins (tests/fixtures/boards/README.md)
#   share/doc/jetchar/README.md         the units' Documentation= link, and the reference pages
#   share/doc/jetchar/docs/             it links to (docs/*.md and the report screenshot)
# under CMAKE_INSTALL_PREFIX. Packages are built with prefix /usr (scripts/package.sh), so the
# installed units point at /usr/bin/jetchar.
#
# LibTorch: with Debian's libtorch (native, or the Debian arm64 sysroot) it lies in the default
# library directory and the package depends on libtorch1.13. With NVIDIA's Jetson wheel it lies
# under site-packages/torch/lib: CMAKE_INSTALL_RPATH_USE_LINK_PATH keeps that directory (with
# the sysroot prefix removed by CMake) as the installed binary's RUNPATH, and the wheel must be
# installed on the board (pip); it is neither bundled nor a package dependency.
include(GNUInstallDirs)

set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
# `cmake --install` and cpack install what is built instead of first building every target (the
# test binaries are not installed; a 2-core machine would build them just to package jetchar).
# Build jetchar first: cmake --build <dir> --target jetchar.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

# A spec's relative paths resolve from its folder (sweeps/spec_paths.h): the data beside the examples
# (squad/'s dev file and vocabulary, the modes CSV of `analyze predict`) goes with them.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DATADIR}/jetchar/examples
        FILES_MATCHING PATTERN "*.textproto" PATTERN "*.csv" PATTERN "*.json" PATTERN "*.txt")
foreach(fixtures boards nvpmodel)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/tests/fixtures/${fixtures}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/jetchar/${fixtures})
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png")

set(CPACK_PACKAGE_NAME jetchar)
set(CPACK_PACKAGE_VENDOR "jetchar")
set(CPACK_PACKAGE_CONTACT "jetchar maintainers <jetchar@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "Controls Jetson boards through sysfs, runs LibTorch training and inference workloads, measures "
       "time and energy, sweeps power modes (systemd timer and service included) and analyses the results.")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://localhost/jetchar")

# Architecture of the target, not of the host: arm64 for the aarch64 cross build.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()

# Depends: natively dpkg-shlibdeps maps each needed library to its installed package. A cross
# build cannot use it (dpkg-shlibdeps looks the arm64 libraries up in the host's root and dpkg
# database), so scripts/package.sh computes Depends from the sysroot's dpkg database and passes
# it to cpack (-D CPACK_DEBIAN_PACKAGE_DEPENDS=...). Run bare, cpack makes an arm64 package
# without Depends.
if(CMAKE_CROSSCOMPILING)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
# The sweep service is Type=notify and runs under systemd; nvpmodel is the board's own tool.
# Debian's libtorch does its matmuls through libblas.so.3, which is the reference BLAS (about 10x
# slower for a BERT query) unless OpenBLAS provides it.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd, libopenblas0-pthread")
# postinst enables jetchar-restore.service (deb-systemd-helper, as dh_installsystemd does) and
# reloads systemd; postrm masks/purges it. Results in /var/lib/jetchar are kept.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_SOURCE_DIR}/cmake/deb/postinst;${PROJECT_SOURCE_DIR}/cmake/deb/postrm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

include(CPack)
