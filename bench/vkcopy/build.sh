#!/bin/bash
# Builds vkcopy (vkcopy.c, with copy.spvasm assembled and embedded) into $1 (default
# bench/vkcopy/out). Needs the Vulkan headers (VULKAN_INCLUDE, else the system's, else those
# scripts/setup.sh unpacks), spirv-as, and a Vulkan loader to link (VULKAN_LIB, else the system's,
# else the set-up's).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
mkdir -p "$out"
inc=${VULKAN_INCLUDE:-}
if [ -z "$inc" ]; then
  for d in /usr/include "$HOME/.cache/vsvk-ref/src/hdr/usr/include"; do [ -f "$d/vulkan/vulkan.h" ] && inc=$d && break; done
fi
[ -n "$inc" ] || { echo "vkcopy: no vulkan/vulkan.h (set VULKAN_INCLUDE)" >&2; exit 1; }
lib=${VULKAN_LIB:-}
if [ -z "$lib" ]; then
  for d in /usr/lib/x86_64-linux-gnu "$HOME/.cache/vsvk-ref/loader/lib"; do [ -e "$d/libvulkan.so.1" ] && lib=$d && break; done
fi
[ -n "$lib" ] || { echo "vkcopy: no libvulkan.so.1 (set VULKAN_LIB)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spirv-as --target-env vulkan1.1 -o "$tmp/copy.spv" "$here/copy.spvasm"
(cd "$tmp" && xxd -i copy.spv > copy_spv.h)
cc -O2 -I"$inc" -I"$tmp" -o "$out/vkcopy" "$here/vkcopy.c" "$lib/libvulkan.so.1" -lpthread -Wl,-rpath,'$ORIGIN/../vk'
