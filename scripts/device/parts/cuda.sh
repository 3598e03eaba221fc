#!/bin/bash
# Copies by CUDA (VSVK_CUDA_COPIES=1, gpu::cuda_copy): which steps took the copies (VSVK_STATS) in
# 2160p round trips and GPU chains, then the GPU part's chains and fingerprints against R81's
# with the route on (gpu.sh; CUDA_CHAINS_ONLY=1 leaves it out).
set -u
DIR=$1
export VSVK_CUDA_COPIES=1
for c in "YUV420P16 std.GPUUpload,std.GPUDownload" "YUV420P8 std.GPUUpload,knlmvk.KNLMeans,std.GPUDownload" \
         "GrayS std.GPUUpload,bm3dvk2.BM3D,std.GPUDownload" "YUV420P8 std.GPUUpload,std.GPUDownload,std.GPUUpload,std.GPUDownload"; do
  set -- $c
  echo "--- VSVK_STATS=1, $1 3840x2160, 100 frames: $2"
  VSVK_STATS=1 "$DRIVER" "$CORE_OURS" --plugin "$OURS/vsvknoise.so" --plugin "$PLUGINS/libknlmvulkan.so" --plugin "$PLUGINS/bm3dvk2.so" \
    --format "$1" --width 3840 --height 2160 --frames 100 "$2" 2>&1 | grep -E "^(ok|error|log|vsvk stats)"
done
[ -n "${CUDA_CHAINS_ONLY:-}" ] || bash scripts/device/parts/gpu.sh "$DIR"
