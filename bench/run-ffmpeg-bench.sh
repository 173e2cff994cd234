#!/usr/bin/env bash
# ffmpeg's OpenCL filters on vkcl, rusticl and PoCL, side by side: frames per second on a 720p
# clip and the PSNR of each output against ffmpeg's CPU filter with the same parameters.
# Usage: bench/run-ffmpeg-bench.sh [build-dir] [filter-name-substring]
# Needs Debian's ffmpeg, mesa-opencl-icd and pocl-opencl-icd; builds nothing.
set -euo pipefail

build_dir=${1:-build}
only=${2:-}
vkcl_icd=${VKCL_ICD:-$build_dir/vkcl.icd}
command -v ffmpeg > /dev/null || { echo "run-ffmpeg-bench.sh: apt-get install ffmpeg" >&2; exit 1; }
[ -f "$vkcl_icd" ] || { echo "run-ffmpeg-bench.sh: $vkcl_icd is missing" >&2; exit 1; }
export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe} XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}

work=$(mktemp -d "${TMPDIR:-/tmp}/vkcl-ffmpeg.XXXXXX")
trap 'rm -rf "$work"' EXIT
clip="$work/in.y4m"
ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc2=size=1280x720:rate=25 -frames:v 45 \
  -pix_fmt yuv420p "$clip"

matrix="0 1 0 1 -4 1 0 1 0"
# OpenCL filter | the CPU filter it is compared with
filters=(
  "avgblur_opencl=sizeX=3|avgblur=sizeX=3"
  "boxblur_opencl|boxblur"
  "convolution_opencl=0m=$matrix:1m=$matrix:2m=$matrix|convolution=0m=$matrix:1m=$matrix:2m=$matrix"
  "sobel_opencl|sobel"
  "unsharp_opencl|unsharp"
  "transpose_opencl=dir=1|transpose=dir=1"
  "nlmeans_opencl|nlmeans"
)
implementations=("vkcl:$(realpath "$vkcl_icd")" "rusticl:/etc/OpenCL/vendors/rusticl.icd"
                 "PoCL:/etc/OpenCL/vendors/pocl.icd")

# Seconds to filter the first |frames| frames with |filter| on the implementation whose ICD is
# |icd|, writing |out|.
run() {
  local icd=$1 filter=$2 frames=$3 out=$4 start
  start=$(date +%s.%N)
  OCL_ICD_VENDORS=$icd ffmpeg -hide_banner -loglevel error -init_hw_device opencl=ocl:0.0 \
    -filter_hw_device ocl -i "$clip" -frames:v "$frames" \
    -vf "format=yuv420p,hwupload,$filter,hwdownload,format=yuv420p" -y "$out" 2> "$work/err" || return 1
  echo "$(date +%s.%N) - $start" | bc
}

printf '%-22s %-8s %10s %12s\n' filter platform "fps" "PSNR vs CPU"
for entry in "${filters[@]}"; do
  filter=${entry%%|*} cpu=${entry#*|} name=${entry%%[=|]*}
  [ -n "$only" ] && [[ $name != *$only* ]] && continue
  # nlmeans takes tens of seconds a frame on a CPU device: fewer frames.
  few=5 many=45
  [ "$name" = nlmeans_opencl ] && few=2 many=6
  ffmpeg -hide_banner -loglevel error -i "$clip" -frames:v $many -vf "$cpu" -y "$work/cpu.y4m"
  for impl in "${implementations[@]}"; do
    label=${impl%%:*} icd=${impl#*:}
    # Frames per second without the start-up: (many - few) frames over the time they added.
    if t_few=$(run "$icd" "$filter" $few "$work/few.y4m") && t_many=$(run "$icd" "$filter" $many "$work/out.y4m"); then
      fps=$(echo "scale=2; ($many - $few) / ($t_many - $t_few)" | bc)
      psnr=$(ffmpeg -hide_banner -i "$work/out.y4m" -i "$work/cpu.y4m" -lavfi psnr -f null - 2>&1 |
             grep -o 'average:[^ ]*' | cut -d: -f2)
    else
      fps="failed" psnr=$(head -c 60 "$work/err" | tr '\n' ' ')
    fi
    printf '%-22s %-8s %10s %12s\n' "$name" "$label" "$fps" "$psnr"
  done
done
