#!/bin/bash
# Issue 4 on the H200: the GPU chains of tests/tests/gpu.rs on our core and on R81 (fingerprints must be
# equal; the BM3Ds are nondeterministic, so those print both), gpuprobe's scenarios on both, and the
# fps of each chain at its test size and at 1080p.
set -u
P=$PLUGINS
drv() {  # core format plugins chain [extra]
  local core=$1 fmt=$2 plugs=$3 chain=$4; shift 4
  local args=()
  for p in $plugs; do args+=(--plugin "$P/$p"); done
  "$DRIVER" "$core" --plugin "$OURS/vsvknoise.so" "${args[@]}" --format "$fmt" "$@" "$chain" 2>&1 | tail -1
}
same() {  # format plugins chain [extra]
  local a b
  a=$(drv "$CORE_OURS" "$@"); b=$(drv "$CORE_REF" "$@")
  local ha=${a#*hash=}; ha=${ha%% *}; local hb=${b#*hash=}; hb=${hb%% *}
  local fa=${a##*fps=} fb=${b##*fps=}
  if [ "$ha" = "$hb" ] && [ "${a:0:2}" = ok ]; then v=SAME; else v=DIFF; fi
  printf '%-4s %-10s %-70s ours=%s fps=%s  R81=%s fps=%s\n' $v "$1" "$3 ${*:4}" "$ha" "$fa" "$hb" "$fb"
  [ $v = SAME ] || { echo "  ours: $a"; echo "  R81:  $b"; }
}
for f in Gray8 Gray16 GrayS YUV420P8 YUV420P10 YUV422P16 YUV444PH YUV444PS RGB24 RGBS; do
  same $f "" std.GPUUpload,std.GPUDownload
done
same YUV420P8 libknlmvulkan.so std.GPUUpload,knlmvk.KNLMeans:h=8.0,std.GPUDownload
same GrayS libknlmvulkan.so std.GPUUpload,knlmvk.KNLMeans:d=1:a=2:h=3.0,std.GPUDownload
same YUV420P8 nnedi3vk/nnedi3vk.so std.GPUUpload,nnedi3vk.NNEDI3:field=1,std.GPUDownload
same YUV420P8 eedi3vk2.so std.GPUUpload,eedi3vk2.EEDI3:field=1,std.GPUDownload
same GrayS vsfeel/libvsfeel.so std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload
same YUV444PS vsfeel/libvsfeel.so std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload
same GrayS vsfeel/libvsfeel.so std.GPUUpload,vsfeel.Box,std.GPUDownload
same GrayS vsfeel/libvsfeel.so std.GPUUpload,vsfeel.Bilateral,std.GPUDownload
same GrayS vsfeel/libvsfeel.so std.GPUUpload,vsfeel.NLMeans,std.GPUDownload
same RGBS libknlmvulkan.so "std.GPUUpload,knlmvk.KNLMeans:channels='RGB,std.GPUDownload"
same YUV420P8 libknlmvulkan.so knlmvk.KNLMeans:h=4.0,std.GPUDownload
same YUV420P8 cas.so std.GPUUpload,cas.CAS
same GrayS "libknlmvulkan.so vsfeel/libvsfeel.so cas.so" std.GPUUpload,knlmvk.KNLMeans,cas.CAS,vsfeel.GaussBlur,std.GPUDownload
same YUV420P8 "libknlmvulkan.so nnedi3vk/nnedi3vk.so cas.so" knlmvk.KNLMeans,nnedi3vk.NNEDI3:field=1,cas.CAS
# GPU_SAME_ONLY=1: the fingerprint chains above and nothing more (a setting's correctness)
[ -n "${GPU_SAME_ONLY:-}" ] && exit 0
for core in "$CORE_OURS" "$CORE_REF"; do
  for i in 1 2 3; do echo "bm3dvk2 $(basename $core): $(drv $core GrayS bm3dvk2.so std.GPUUpload,bm3dvk2.BM3D,std.GPUDownload --threads 1)"; done
done
echo "--- 1080p, 200 frames (fps: ours / R81)"
for c in "YUV420P16 libknlmvulkan.so std.GPUUpload,knlmvk.KNLMeans,std.GPUDownload" \
         "YUV420P16 '' std.GPUUpload,std.GPUDownload" \
         "GrayS vsfeel/libvsfeel.so std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload" \
         "GrayS bm3dvk2.so std.GPUUpload,bm3dvk2.BM3D,std.GPUDownload"; do
  eval set -- $c
  same "$1" "$2" "$3" --width 1920 --height 1080 --frames 200
done
PROBE=$KIT/extra/target/vsvk-gpu/gpuprobe
if [ -x "$PROBE" ]; then
  echo "--- gpuprobe scenarios (ours | R81)"
  for s in info shader invert stress vram memory timeline blank select export evict; do
    a=$("$PROBE" "$CORE_OURS" $s 2>&1 | tail -1); b=$("$PROBE" "$CORE_REF" $s 2>&1 | tail -1)
    [ "$a" = "$b" ] && v=SAME || v=DIFF
    echo "$v $s: $a | $b"
  done
  "$PROBE" "$CORE_OURS" errors > /tmp/e1 2>&1; "$PROBE" "$CORE_REF" errors > /tmp/e2 2>&1
  cmp -s /tmp/e1 /tmp/e2 && echo "SAME errors" || { echo "DIFF errors"; diff /tmp/e1 /tmp/e2 | head -20; }
  bash scripts/device/parts/lost.sh
fi
