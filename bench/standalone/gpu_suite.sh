#!/usr/bin/env bash
# The GPU figures of bench/README.md in one go, on a machine with an NVIDIA GPU and a CUDA PyTorch:
# builds bench/workloads_bench against that PyTorch's LibTorch (bench/standalone/build.sh), then
# runs bench/workloads_bench.py on cuda:
#   - training steps/s and inference p50 of LeNet-5, ResNet-18 (CIFAR) and BERT-base, fp32 and amp-fp16;
#   - bert-base-qa inference, batch 1 and 8 x sequence length 128 and 384, fp32 and amp-fp16.
# Reads the card's identity with nvidia-smi and changes none of its settings.
#
# Usage: bench/standalone/gpu_suite.sh OUT_DIR [PYTHON]   (each table also goes to OUT_DIR/*.txt)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: bench/standalone/gpu_suite.sh OUT_DIR [PYTHON]}
python=${2:-python3}
mkdir -p "$out"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,power.limit,clocks.max.sm --format=csv
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn",
                torch.backends.cudnn.version(), torch.cuda.get_device_name(0), torch.cuda.get_device_capability(0))'
  nproc; g++ --version | head -1
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

binary=$out/workloads_bench
bench/standalone/build.sh "$binary" "$python" > "$out/build.txt" 2>&1 || { tail -40 "$out/build.txt"; exit 1; }
tail -1 "$out/build.txt"

status=0
run() {  # name, then workloads_bench.py arguments
  local name=$1; shift
  timeout 300 "$python" bench/workloads_bench.py --cpp "$binary" --device cuda --json "$@" > "$out/$name.txt" 2>&1 ||
    status=1
  grep -v '^{' "$out/$name.txt"
}
for precision in fp32 amp-fp16; do
  run "train-$precision" --precision "$precision" --threads 4 --only lenet5 resnet18-cifar bert-base
done
for precision in fp32 amp-fp16; do
  for batch in 1 8; do
    for seq in 128 384; do
      run "infer-bert-base-qa-$precision-b$batch-s$seq" --precision "$precision" --threads 4 --infer-only \
        --queries 200 --warmup 20 --batch "$batch" --seq "$seq" --only bert-base-qa
    done
  done
done
exit $status
