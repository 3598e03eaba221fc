#!/bin/bash
# Issue 25 on the device: vsvk.gpu_map (a PyTorch model as a filter, frames kept on the GPU) between
# vk filters at 1080p and 2160p, checked equal to the same model over host frames, both timed, with
# gpu_map's counters (host waits, device copies, CUDA imports); the bad-input cases once. Prints
# "torch: N failures" at the end.
set -u
fails=0
export PYTHONPATH=$PYMOD${PYTHONPATH:+:$PYTHONPATH}
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0))' 2>&1 | tail -1
VK=$OURS/libvsvk_vk.so
for spec in "1920x1080 240 --check-errors" "3840x2160 120"; do
  set -- $spec
  echo "--- gpu_map $1"
  timeout 150 python3 examples/gpu_map_torch.py --plugin "$VK" --size $1 --frames $2 ${3:-} 2>&1 | tee /tmp/torch.log | tail -20
  tail -1 /tmp/torch.log | grep -qx ok || fails=$((fails+1))
done
if [ -f tests/gpu/gpu_import_vmm.py ]; then
  echo "--- CUDA VMM memory imported as a GPU frame"
  timeout 60 python3 tests/gpu/gpu_import_vmm.py --plugin "$VK" 2>&1 | tail -8 | tee /tmp/vmm.log
  tail -1 /tmp/vmm.log | grep -q '^ok' || fails=$((fails+1))
fi
echo "torch: $fails failures"
