#!/usr/bin/env bash
# x264's OpenCL lookahead (`x264 --opencl`: downscaling, intra and motion search kernels on
# images) on vkcl, beside rusticl where installed, against x264's own CPU lookahead: checks
# that x264 runs its kernels on vkcl and that the encode is as good (bitrate and SSIM within
# 3% of the CPU lookahead's), and prints fps side by side. x264 only takes GPUs, so the
# devices are reported as GPUs (VKCL_DEVICE_TYPE, RUSTICL_DEVICE_TYPE). With KERNEL_TIMES=1
# each run prints its kernels' times (bench/kernel_times_layer.cpp, host time per launch).
# Usage: bench/run-x264-check.sh [build-dir] [frames]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build}")
FRAMES=${2:-60}
for tool in x264 ffmpeg; do
  command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install $tool)"; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 720p: test pattern and a Mandelbrot zoom blended, so that motion search has work.
ffmpeg -loglevel error -f lavfi -i testsrc2=size=1280x720:rate=30 -f lavfi -i mandelbrot=size=1280x720:rate=30 \
  -filter_complex "[0][1]blend=all_mode=average,format=yuv420p" -frames:v "$FRAMES" "$work/in.y4m"

layer=()
[ "${KERNEL_TIMES:-}" = 1 ] && layer=(env KERNEL_TIMES=wall OPENCL_LAYERS="$BUILD/bench/libvkcl_kernel_times.so")
export VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/share/vulkan/icd.d/lvp_icd.x86_64.json}

# encode NAME [x264 options]: prints "NAME fps kb/s ssim opencl(0|1)".
encode() {
  local name=$1
  shift
  local log="$work/$name.log"
  (cd "$work" && "${layer[@]}" x264 --threads 2 --ssim --tune ssim -o "$name.264" "$@" in.y4m) >"$log" 2>&1 || {
    cat "$log"
    echo "$name: x264 failed"
    return 1
  }
  tr '\r' '\n' <"$log" | grep -A20 'kernel times' >&2 || true
  local fps kbps ssim cl=0
  fps=$(tr '\r' '\n' <"$log" | sed -n 's/^encoded .* frames, \([0-9.]*\) fps.*/\1/p')
  kbps=$(sed -n 's/.*kb\/s:\([0-9.]*\).*/\1/p' "$log" | tail -1)
  ssim=$(sed -n 's/.*SSIM Mean Y:\([0-9.]*\).*/\1/p' "$log")
  grep -q 'OpenCL acceleration enabled' "$log" && cl=1
  echo "$name $fps $kbps $ssim $cl"
}

rows=()
rows+=("$(encode cpu)")
rows+=("$(VKCL_CACHE_DIR="$work/cache" OCL_ICD_VENDORS="$BUILD/vkcl.icd" VKCL_DEVICE_TYPE=gpu encode vkcl --opencl)")
if [ -f /etc/OpenCL/vendors/rusticl.icd ]; then
  rows+=("$(OCL_ICD_VENDORS=/etc/OpenCL/vendors/rusticl.icd RUSTICL_ENABLE=llvmpipe RUSTICL_DEVICE_TYPE=gpu \
    encode rusticl --opencl || true)")
fi
printf '%-8s %8s %10s %10s %7s\n' lookahead fps "kb/s" "SSIM Y" opencl
for r in "${rows[@]}"; do
  [ -n "$r" ] && printf '%-8s %8s %10s %10s %7s\n' $r
done
read -r _ _ cpu_kbps cpu_ssim _ <<<"${rows[0]}"
read -r _ _ vk_kbps vk_ssim vk_cl <<<"${rows[1]}"
[ "$vk_cl" = 1 ] || { echo "FAIL: x264 did not take vkcl's device"; exit 1; }
awk -v a="$vk_kbps" -v b="$cpu_kbps" -v s="$vk_ssim" -v t="$cpu_ssim" 'BEGIN {
  if (a > 1.03 * b || a < 0.97 * b || s < t - 0.03 * t) { print "FAIL: vkcl encode differs from the CPU lookahead"; exit 1 }
  print "OK: vkcl lookahead encode within 3% of the CPU lookahead"
}'
