#!/bin/bash
# Which of the device's Vulkan queues carry an upload and a download at the same time
# (bench/vkcopy, built into the kit): each direction alone per queue, then pairs, by the copy
# engine and by the shader cores; CUDA's copies on Vulkan's memory (vkcuda); then PyTorch's PCIe
# figures in the same call (bench/pcie.py).
# VKCOPY_RUNS (newline separated vkcopy arguments, default below), VKCOPY_MIB (256), VKCOPY_REPS (4).
set -u
m=${VKCOPY_MIB:-256} r=${VKCOPY_REPS:-4}
runs=${VKCOPY_RUNS:-"
--sm-groups 66 C0s,T1 T0,T1 C0s,C1s
--cuda-host --sm-groups 66 C0s,T1 T0,T1 C0s,C1s
--import --sm-groups 66 C0s,T1 T0,T1"}
while IFS= read -r args; do
  [ -n "$args" ] || continue
  echo "--- vkcopy --mib $m --reps $r $args"
  # shellcheck disable=SC2086
  "$KIT/vkcopy/vkcopy" --mib "$m" --reps "$r" $args 2>&1 | grep -v "^family [34]"
done <<< "$runs"
echo "--- vkcuda --mib $m --reps $r (CUDA's copies on Vulkan's memory)"
"$KIT/vkcopy/vkcuda" --mib "$m" --reps "$r" 2>&1
echo "--- PCIe (bench/pcie.py)"
python3 bench/pcie.py --reps 5 2>&1 | tail -4
