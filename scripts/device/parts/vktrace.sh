#!/bin/bash
# What each core asks of the device for the same chain, through the tracing layer (bench/vktrace,
# built into the kit): device extensions and queues, memory types and blocks, buffers and where
# they are bound, every pipeline with its SPIR-V hash, and per queue the submissions, dispatches,
# barriers and copies. Both cores run each case once, with fps, then the two traces are diffed.
# TRACE_CASES: which of bm3d1080 rt2160 knlm1080 (default all); TRACE_SPIRV=1 keeps each core's
# SPIR-V; VKTRACE_PUSH=1 (the layer's) logs every push constant block.
set -u
out=$1
N=$OURS/vsvknoise.so
k=${TRACE_FRAMES:-1}
declare -A C=(
  [bm3d1080]="bm3dvk2.so|GrayS|1920x1080|$((600*k+4))|std.GPUUpload,bm3dvk2.BM3D,std.GPUDownload"
  [bm3d2160]="bm3dvk2.so|GrayS|3840x2160|$((200*k+4))|std.GPUUpload,bm3dvk2.BM3D,std.GPUDownload"
  [rt2160]="|YUV420P16|3840x2160|$((600*k+4))|std.GPUUpload,std.GPUDownload"
  [knlm1080]="libknlmvulkan.so|YUV420P8|1920x1080|$((300*k+4))|std.GPUUpload,knlmvk.KNLMeans:h=1.2,std.GPUDownload"
)
for name in ${TRACE_CASES:-bm3d1080 rt2160 knlm1080}; do
  IFS='|' read -r plugins fmt size frames chain <<< "${C[$name]}"
  echo "=== $name ($fmt $size, $frames frames)"
  pl=(); for p in $plugins; do pl+=(--plugin "$PLUGINS/$p"); done
  for who in ref ours; do
    core=$CORE_REF; [ $who = ours ] && core=$CORE_OURS
    spirv=; [ -n "${TRACE_SPIRV:-}" ] && { spirv=$out/spirv-$name-$who; mkdir -p "$spirv"; }
    timeout ${TRACE_RUN_TIMEOUT:-120} env VK_ADD_LAYER_PATH=$KIT/vktrace VK_INSTANCE_LAYERS=VK_LAYER_VSVK_trace \
      VKTRACE_OUT="$out/$name-$who.txt" VKTRACE_SPIRV="$spirv" \
      "$DRIVER" "$core" --plugin "$N" "${pl[@]}" --no-hash --warmup 20 --width ${size%x*} --height ${size#*x} \
      --format $fmt --frames 1 "std.Loop:times=$frames,$chain" > "$out/$name-$who-run.txt" 2>&1
    echo "$who rc=$? $(grep -o 'fps=[0-9.]*' "$out/$name-$who-run.txt" | tail -1)"
  done
  diff "$out/$name-ref.txt" "$out/$name-ours.txt" | grep -v "^< bind\|^> bind\|^< buffer\|^> buffer" | head -80
  for who in ref ours; do
    echo "--- $who: bound buffers by memory type and size"
    grep -o "^bind buffer to memory type [0-9]* (block [0-9]* bytes)" "$out/$name-$who.txt" | sort | uniq -c | sort -rn | head
    grep "^buffer" "$out/$name-$who.txt" | sort | uniq -c | sort -rn | head -8
  done
done
