#!/bin/bash
# Plugins' exec pools spread over several compute family queues (VSVK_KERNEL_QUEUES): the GPU
# bound rows under each setting, both cores in each run. KQ_SETTINGS: settings after the default,
# one per line (default VSVK_KERNEL_QUEUES=3). KQ_HASH=1 first prints each setting's clip hash of
# a three-plugin chain beside R81's, R81 and our default twice each (on lavapipe all agree; on the
# H100 each of the six runs gave another hash on 2026-12-07: the output varies on either core).
set -u
out=$1
settings=${KQ_SETTINGS:-VSVK_KERNEL_QUEUES=3}
chain="std.GPUUpload,knlmvk.KNLMeans:d=1:h=1.2,nnedi3vk.NNEDI3:field=1,bm3dvk2.BM3D,std.GPUDownload"
plugins=(--plugin "$OURS/vsvknoise.so" --plugin "$PLUGINS/libknlmvulkan.so" --plugin "$PLUGINS/nnedi3vk/nnedi3vk.so" --plugin "$PLUGINS/bm3dvk2.so")
[ "${KQ_HASH:-0}" = 1 ] && {
echo "--- clip hashes, 640x360 GrayS, 30 frames"
for i in 1 2; do echo "R81 run $i: $("$DRIVER" "$CORE_REF" "${plugins[@]}" --width 640 --height 360 --format GrayS --frames 30 "$chain" 2>&1 | grep -o 'hash=[0-9a-f]*')"; done
while read -r s; do
  echo "vsvk ${s:-default}: $(env $s "$DRIVER" "$CORE_OURS" "${plugins[@]}" --width 640 --height 360 --format GrayS --frames 30 "$chain" 2>&1 | grep -o 'hash=[0-9a-f]*')"
done < <(printf '\n\n%s\n' "$settings")
}
DL_CASES=${KQ_CASES:-chain/knlm-nnedi3-bm3d-1080p,chain/knlm-nnedi3-bm3d-2160p,vram/knlm4-1080p-default,chain/mixed-1080p,gpu/knlmeans-1080p,gpu/bm3d-2160p} \
  DL_SETTINGS=$(printf '\n%s' "$settings") DL_REPS=${KQ_REPS:-2} DL_BUDGET=${KQ_BUDGET:-120} bash scripts/device/parts/downloads.sh "$out"
