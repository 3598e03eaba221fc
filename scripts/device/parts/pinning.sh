#!/bin/bash
# CUDA's pinned host blocks (gpu::pinned): one slab of a length pinned at a time, with the next
# pinned ahead (the default, slabs in huge pages registered with CUDA), against cuMemHostAlloc's
# slabs (VSVK_CUDA_PIN_HUGE=0), new frames waiting for their blocks (VSVK_CUDA_PIN_WAIT=1) or every
# thread pinning its own (VSVK_CUDA_PIN_ALONE=1). Each of
# $PIN_ENVS (X=1: the default): our core's host steps (VSVK_STATS) over 400 new 2160p 16-bit
# frames uploaded (the bench row's length), then both cores alternating on the rows whose frames
# go by CUDA (PIN_CASES, PIN_REPS, PIN_SECONDS; samples in the part's folder).
set -u
set -f
out=${1:-/tmp}
D=$KIT/extra/target/vsvk-bench/driver
N=$KIT/extra/target/vsvk-bench/vsvknoise.so
P16=$(python3 -c "import sys; sys.path.insert(0, 'bench'); import run; print(run.format_id('YUV420P16'))")
for env in ${PIN_ENVS:-X=1 VSVK_CUDA_PIN_HUGE=0}; do
  echo "--- VSVK_STATS=1 $env: new frame each, YUV420P16 2160p, upload only, 400 frames"
  env VSVK_STATS=1 $env "$D" "$CORE_OURS" --plugin "$N" --no-hash --warmup 40 --width 16 --height 16 --format Gray8 --frames 1 \
    "std.BlankClip:@:width=3840:height=2160:format=$P16:length=400:keep=0,std.GPUUpload" 2>&1 | grep -E "^(ok|error)|cuda|host"
done
i=0
for env in ${PIN_ENVS:-X=1 VSVK_CUDA_PIN_HUGE=0}; do
  i=$((i + 1))
  env $env python3 bench/run.py --device --cases "${PIN_CASES:-bw/up-2160p-16-fresh,bw/down-2160p-16,bw/updown-2160p-16*,gpu/bm3d-2160p}" \
    --reps "${PIN_REPS:-3}" --seconds "${PIN_SECONDS:-0.4}" --timeout 60 --out "$out/pin-$i.json" 2>&1 | grep "^| [a-z]*/" | sed "s|^|$env |"
done
