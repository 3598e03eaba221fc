#!/bin/bash
# The main job: examples/gpu_chain.vpy, a VapourSynth script through published GPU plugins
# (knlmvk.KNLMeans, vsfeel.GaussBlur) between std.GPUUpload and std.GPUDownload, run by `vsvk pipe`
# into target/vsvk-example/gpu_chain.y4m. On a machine without a GPU it runs on lavapipe (CPU Vulkan).
# Then the same GPU filter chain goes through our core and through VapourSynth R81 with the oracle
# driver, one fingerprint line each (they match).
# Usage: scripts/run-example.sh [--arg width=1920 --arg height=1080 ...]   (extra args go to vsvk pipe)
set -euo pipefail
cd "$(dirname "$0")/.."
REF=$(scripts/setup.sh | tail -1)
export VSVK_REF=$REF
cargo build --release
export LD_LIBRARY_PATH=$REF/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -z "${VK_ICD_FILENAMES:-}${VK_DRIVER_FILES:-}" ] && ! command -v nvidia-smi >/dev/null; then
  export VK_ICD_FILENAMES=/usr/share/vulkan/icd.d/lvp_icd.json
fi
out=target/vsvk-example; mkdir -p "$out"
target/release/vsvk pipe -c y4m --progress "$@" examples/gpu_chain.vpy "$out/gpu_chain.y4m"
echo
if command -v ffmpeg >/dev/null; then
  printf 'ffmpeg reads %s frames from %s\n' \
    "$(ffmpeg -v error -i "$out/gpu_chain.y4m" -map 0:v -c copy -f null - -progress - | sed -n 's/^frame=//p' | tail -1)" \
    "$out/gpu_chain.y4m"
fi

inc=include
gcc -O2 -Wall -I"$inc" tests/oracle/driver.c -o "$out/driver" -ldl -lpthread
gcc -O2 -Wall -shared -fPIC -I"$inc" tests/plugins/vsvknoise.c -o "$out/vsvknoise.so"
chain=std.GPUUpload,knlmvk.KNLMeans:d=1:a=2:h=1.2,vsfeel.GaussBlur:sigma=1.5,std.GPUDownload
echo "the chain $chain on both cores:"
for core in "$PWD/target/release/libvsvk.so" "$REF/x/vapoursynth/libvapoursynth.so.4"; do
  printf '%-28s ' "$(basename "$core"):"
  "$out/driver" "$core" --plugin "$out/vsvknoise.so" --plugin "$REF/plugins/libknlmvulkan.so" \
    --plugin "$REF/plugins/vsfeel/libvsfeel.so" --format GrayS --width 320 --height 240 --frames 12 "$chain"
done
