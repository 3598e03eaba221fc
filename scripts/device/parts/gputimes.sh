#!/bin/bash
# GPU chains where vsvk trails R81, with GPU timestamps on our core (VSVK_GPU_TIMES): per chain,
# R81 then ours alternating (fps), then ours once more with the timestamps and each setting of
# GT_SETTINGS (newline separated; " " for the default), printing fps and the time line report.
# GT_AB: settings (newline separated) run in each repetition beside R81 and the default, without
# timestamps, for alternating A/B fps.
# GT_CASES: which of bm3d1080 bm3d2160 knlm1080 knlm2160 boxblur2160 chain1080 chain2160 (default
# bm3d1080 bm3d2160 knlm1080 chain1080); GT_FRAMES scales runs.
set -u
out=$1
N=$OURS/vsvknoise.so
run() {  # core env... -- plugin fmt WxH frames chain
  local core=$1; shift; local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local plugins=$1 fmt=$2 size=$3 frames=$4 chain=$5
  local pl=(--plugin "$OURS/libvsvk_vk.so"); for p in $plugins; do pl+=(--plugin "$PLUGINS/$p"); done
  timeout ${GT_RUN_TIMEOUT:-90} env "${envs[@]}" "$DRIVER" "$core" --plugin "$N" "${pl[@]}" --no-hash --warmup 20 --width ${size%x*} --height ${size#*x} \
    --format $fmt --frames 1 "std.Loop:times=$frames,std.GPUUpload,$chain,std.GPUDownload" > /tmp/gt.txt 2>&1
  grep -q 'fps=' /tmp/gt.txt || { n=$(ls "$out"/failed-*.txt 2>/dev/null | wc -l); cp /tmp/gt.txt "$out/failed-$n.txt"; echo "FAILED (log failed-$n.txt)"; }
  grep -o 'fps=[0-9.]*' /tmp/gt.txt | tail -1
  grep "^vsvk gpu times" /tmp/gt.txt
}
k=${GT_FRAMES:-1}
declare -A C=(
  [bm3d1080]="bm3dvk2.so|GrayS|1920x1080|$((1500*k))|bm3dvk2.BM3D"
  [bm3d2160]="bm3dvk2.so|GrayS|3840x2160|$((400*k))|bm3dvk2.BM3D"
  [knlm1080]="libknlmvulkan.so|YUV420P8|1920x1080|$((600*k))|knlmvk.KNLMeans:h=1.2"
  [knlm2160]="libknlmvulkan.so|YUV420P8|3840x2160|$((200*k))|knlmvk.KNLMeans:h=1.2"
  [chain2160]="libknlmvulkan.so nnedi3vk/nnedi3vk.so bm3dvk2.so|GrayS|3840x2160|$((120*k))|knlmvk.KNLMeans:d=1:h=1.2,nnedi3vk.NNEDI3:field=1,bm3dvk2.BM3D"
  [boxblur2160]="|YUV420P8|3840x2160|$((3000*k))|vk.BoxBlur:hradius=2:vradius=2"
  [chain1080]="libknlmvulkan.so nnedi3vk/nnedi3vk.so bm3dvk2.so|GrayS|1920x1080|$((400*k))|knlmvk.KNLMeans:d=1:h=1.2,nnedi3vk.NNEDI3:field=1,bm3dvk2.BM3D"
)
for name in ${GT_CASES:-bm3d1080 bm3d2160 knlm1080 chain1080}; do
  IFS='|' read -r plugins fmt size frames chain <<< "${C[$name]}"
  echo "=== $name ($fmt $size, $frames frames)"
  for rep in $(seq ${GT_REPS:-2}); do
    echo "R81 $(run "$CORE_REF" X=1 -- "$plugins" $fmt $size $frames "$chain" | head -1)"
    echo "ours $(run "$CORE_OURS" X=1 -- "$plugins" $fmt $size $frames "$chain" | head -1)"
    while IFS= read -r setting; do
      [ -n "$setting" ] || continue
      echo "ours,$setting $(run "$CORE_OURS" $setting -- "$plugins" $fmt $size $frames "$chain" | head -1)"
    done <<< "${GT_AB:-}"
  done
  while IFS= read -r setting; do
    [ -n "$setting" ] || continue
    echo "--- ours, timestamps,${setting:- default}"
    run "$CORE_OURS" VSVK_GPU_TIMES=1 $setting -- "$plugins" $fmt $size $frames "$chain"
  done <<< "${GT_SETTINGS:- }"
done
