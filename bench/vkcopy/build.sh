#!/bin/bash
# Builds vkcopy (vkcopy.c, with copy.spvasm assembled and embedded) and vkcuda into $1 (default
# bench/vkcopy/out). Needs the Vulkan headers (VULKAN_INCLUDE, else the system's, else those
# scripts/setup.sh unpacks), spirv-as, and a Vulkan loader to link (VULKAN_LIB, else the system's,
# else the set-up's).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
mkdir -p "$out"
. "$here/../lib/vulkan-paths.sh"
vulkan_paths vkcopy vulkan.h lib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spirv-as --target-env vulkan1.1 -o "$tmp/copy.spv" "$here/copy.spvasm"
(cd "$tmp" && xxd -i copy.spv > copy_spv.h)
cc -O2 -I"$inc" -I"$tmp" -I"$here" -o "$out/vkcopy" "$here/vkcopy.c" "$lib/libvulkan.so.1" -lpthread -ldl -Wl,-rpath,'$ORIGIN/../vk'
# vkcuda: CUDA's copies on Vulkan's memory (the CUDA driver is loaded at run time)
cc -O2 -Wall -I"$inc" -I"$here" -o "$out/vkcuda" "$here/vkcuda.c" "$lib/libvulkan.so.1" -ldl -Wl,-rpath,'$ORIGIN/../vk'
