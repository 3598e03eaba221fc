#!/bin/bash
# Copies by CUDA (VSVK_CUDA_COPIES=1): where the time of the rows that trail goes. Our core's host
# steps (VSVK_STATS) on the new-frame upload (a host frame in CUDA's pinned memory each time) and
# on KNLMeans and BM3D at 2160p after uploads by CUDA, with submissions waiting for those uploads
# on the host (the default) and on the GPU (VSVK_CUDA_GPU_WAITS=1); then both cores alternating on
# those rows and vk.Expr at 1080p by bench/run.py under each setting (CW_REPS, CW_SECONDS).
set -u
set -f
D=$KIT/extra/target/vsvk-bench/driver
N=$KIT/extra/target/vsvk-bench/vsvknoise.so
export VSVK_CUDA_COPIES=1
stats() {  # label env... -- driver arguments
  local label=$1; shift; local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  echo "--- VSVK_STATS=1 ${envs[*]}: $label"
  env VSVK_STATS=1 "${envs[@]}" "$D" "$CORE_OURS" --plugin "$N" --plugin "$PLUGINS/libknlmvulkan.so" --plugin "$PLUGINS/bm3dvk2.so" \
    --no-hash --warmup 40 "$@" 2>&1 | grep -E "^(ok|error|vsvk stats)"
}
P16=$(python3 -c "import sys; sys.path.insert(0, 'bench'); import run; print(run.format_id('YUV420P16'))")
stats "new frame each, YUV420P16 2160p, upload only" X=1 -- --width 16 --height 16 --format Gray8 --frames 1 \
  "std.BlankClip:@:width=3840:height=2160:format=$P16:length=2000:keep=0,std.GPUUpload"
stats "same, Vulkan's copies" VSVK_CUDA_COPIES=0 -- --width 16 --height 16 --format Gray8 --frames 1 \
  "std.BlankClip:@:width=3840:height=2160:format=$P16:length=2000:keep=0,std.GPUUpload"
for w in X=1 VSVK_CUDA_GPU_WAITS=1; do
  stats "KNLMeans YUV420P8 2160p, 300 frames" $w -- --width 3840 --height 2160 --format YUV420P8 --frames 1 \
    "std.Loop:times=300,std.GPUUpload,knlmvk.KNLMeans:h=1.2,std.GPUDownload"
  stats "BM3D GrayS 2160p, 300 frames" $w -- --width 3840 --height 2160 --format GrayS --frames 1 \
    "std.Loop:times=300,std.GPUUpload,bm3dvk2.BM3D,std.GPUDownload"
done
for env in X=1 VSVK_CUDA_GPU_WAITS=1; do
  for cases in "gpu/knlmeans-2160p" "gpu/bm3d-2160p" "gpu/vk-expr-1080p" "bw/up-2160p-16-fresh"; do
    env $env python3 bench/run.py --device --cases "$cases" --reps "${CW_REPS:-2}" --seconds "${CW_SECONDS:-0.4}" \
      --timeout 60 --out /tmp/cw.json 2>&1 | grep "^| [a-z]*/" | sed "s|^|$env |"
  done
done
