#!/usr/bin/env bash
# Builds bench/workloads_bench against the LibTorch of the PyTorch that python3 imports (a CUDA one
# on a GPU machine), with none of jetchar's other dependencies: the models, the precision handling
# and the latency statistics compile from experiments/ as they are, fmt header-only. The fmt, CLI11
# and nlohmann-json headers come from the system or from JETCHAR_BENCH_HEADERS (a folder holding
# fmt/, CLI/ and nlohmann/, e.g. copied from a Debian machine's /usr/include).
#
# Usage: bench/standalone/build.sh OUTPUT_BINARY [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: bench/standalone/build.sh OUTPUT_BINARY [PYTHON]}
python=${2:-python3}
objects=$(mktemp -d)
trap 'rm -rf "$objects"' EXIT

# Include paths, library folder, C++ ABI and whether this PyTorch has CUDA, as torch itself says.
eval "$("$python" - <<'PY'
import os, torch
from torch.utils import cpp_extension
cuda = torch.version.cuda is not None
try:  # PyTorch 2.6 names the device type; earlier ones take a flag
    paths = cpp_extension.include_paths(device_type="cuda" if cuda else "cpu")
except TypeError:
    paths = cpp_extension.include_paths(cuda=cuda)
print("includes='%s'" % " ".join("-isystem " + p for p in paths))
print("libdir='%s'" % os.path.join(os.path.dirname(torch.__file__), "lib"))
print("abi=%d" % int(torch._C._GLIBCXX_USE_CXX11_ABI))
print("cuda=%d" % int(cuda))
PY
)"
defines="-DFMT_HEADER_ONLY -D_GLIBCXX_USE_CXX11_ABI=$abi"
libraries="-ltorch -ltorch_cpu -lc10"
if [[ $cuda == 1 ]]; then
  defines+=" -DJETCHAR_WITH_CUDA=1"
  # Linked even though no symbol of theirs is named: loading them registers the CUDA backend.
  libraries="-Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed $libraries"
fi
headers=${JETCHAR_BENCH_HEADERS:+-isystem $JETCHAR_BENCH_HEADERS}

sources=(bench/workloads_bench.cpp experiments/inference/latency_stats.cpp experiments/torch_device.cpp
         experiments/training/grad_scaler.cpp experiments/training/precision.cpp)
for source in experiments/models/*.cpp; do
  # The work and data-set-fit helpers serve the simulated board and the data sets, not the models.
  [[ $source == *model_work.cpp || $source == *model_dataset_fit.cpp ]] || sources+=("$source")
done
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
  "g++ -std=c++20 -O2 -fPIC -I. $headers $includes $defines -c {} -o $objects/\$(echo {} | tr / _).o"
g++ -o "$out" "$objects"/*.o -L"$libdir" -Wl,-rpath,"$libdir" $libraries -lpthread
echo "built $out (torch $("$python" -c 'import torch; print(torch.__version__)'), cuda=$cuda)"
