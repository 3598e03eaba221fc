#!/bin/bash
# Issue 4 on the H200: gpuprobe's 'lost' scenario on our core with the NVIDIA driver: a device loss
# injected (VSVK_INJECT_DEVICE_LOST=after:N) while frames are in flight through staged copies; every
# wait must report gdDeviceLost (2), every frame be answered, retained objects released, VRAM returned.
set -u
PROBE=$KIT/extra/target/vsvk-gpu/gpuprobe
echo "--- injected device loss (ours; fields as tests/tests/gpu.rs checks them)"
for n in 3 12 40; do
  printf 'after:%-3s ' $n
  VSVK_INJECT_DEVICE_LOST=after:$n VS_VULKAN_FORCE_STAGING=1 timeout 120 "$PROBE" "$CORE_OURS" lost 2>&1 | tail -1
done
