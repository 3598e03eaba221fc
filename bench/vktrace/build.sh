#!/bin/bash
# Builds the tracing layer (vktrace.c) and its manifest into $1 (default bench/vktrace/out).
# Needs the Vulkan headers: VULKAN_INCLUDE, else the system's, else those scripts/setup.sh unpacks.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/out}
mkdir -p "$out"
. "$here/../lib/vulkan-paths.sh"
vulkan_paths vktrace vk_layer.h
cc -O2 -shared -fPIC -fvisibility=hidden -I"$inc" -o "$out/libvktrace.so" "$here/vktrace.c" -lpthread
cat > "$out/VkLayer_vsvk_trace.json" <<J
{
  "file_format_version": "1.2.0",
  "layer": {
    "name": "VK_LAYER_VSVK_trace",
    "type": "GLOBAL",
    "library_path": "./libvktrace.so",
    "api_version": "1.4.309",
    "implementation_version": "1",
    "description": "vsvk: records what a process asks of the device (bench/vktrace)"
  }
}
J
