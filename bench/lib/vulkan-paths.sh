# Sourced by bench/vktrace/build.sh and bench/vkcopy/build.sh: where the Vulkan headers and loader
# are. Sets inc (VULKAN_INCLUDE, else the system's, else those scripts/setup.sh unpacks) and, with
# the loader asked for, lib (VULKAN_LIB, else the system's, else the set-up's); exits with a message
# naming what is missing.
vulkan_paths() {  # NAME (for messages) HEADER (under vulkan/) [lib]
  inc=${VULKAN_INCLUDE:-}
  if [ -z "$inc" ]; then
    for d in /usr/include "$HOME/.cache/vsvk-ref/src/hdr/usr/include"; do [ -f "$d/vulkan/$2" ] && inc=$d && break; done
  fi
  [ -n "$inc" ] || { echo "$1: no vulkan/$2 (set VULKAN_INCLUDE)" >&2; exit 1; }
  [ "${3:-}" = lib ] || return 0
  lib=${VULKAN_LIB:-}
  if [ -z "$lib" ]; then
    for d in /usr/lib/x86_64-linux-gnu "$HOME/.cache/vsvk-ref/loader/lib"; do [ -e "$d/libvulkan.so.1" ] && lib=$d && break; done
  fi
  [ -n "$lib" ] || { echo "$1: no libvulkan.so.1 (set VULKAN_LIB)" >&2; exit 1; }
}
