#!/bin/bash
# Entry point on the device machine (see kit.sh): sets up glvnd, the NVIDIA ICD and library paths,
# then runs each named part, scripts/device/parts/PART.sh, with its output under $OUT/PART.
# Each part sees: KIT (the .dev folder, absolute), CORE_OURS, CORE_REF, VK_LIB (1.4 loader dir),
# DRIVER (oracle driver), PLUGINS (R81's GPU plugins), OURS (our test/cdylib plugins), PYMOD.
cd "$(dirname "$0")/../.."
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
if [ -f .devpack/dev.tar.xz ]; then tar -C /tmp -xJf .devpack/dev.tar.xz; export KIT=/tmp/.dev; else export KIT=$PWD/.dev; fi
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
# The core sits in a folder of its own: beside $KIT/plugins it would autoload R81's GPU plugins
# (a core loads the plugins folder next to its library, as R81 does), and the parts load them
# explicitly.
mkdir -p $KIT/core && cp $KIT/libvsvk.so $KIT/core/
export CORE_OURS=$KIT/core/libvsvk.so CORE_REF=$KIT/ref/libvapoursynth.so.4 VK_LIB=$KIT/vk
export DRIVER=$KIT/driver PLUGINS=$KIT/plugins OURS=$KIT/ours PYMOD=$KIT/python
export LD_LIBRARY_PATH=$KIT/vk:$KIT/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
for part in "$@"; do
  mkdir -p "$OUT/$part"
  echo "=== $part $(date +%T)"
  t=PART_TIMEOUT_$part  # a part's own limit, else PART_TIMEOUT, else 300 s
  timeout ${!t:-${PART_TIMEOUT:-300}} bash "scripts/device/parts/$part.sh" "$OUT/$part" 2>&1 | tee "$OUT/$part/log.txt" | tail -60
  echo "=== $part rc=${PIPESTATUS[0]} $(date +%T)"
done
