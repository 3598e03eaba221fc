#!/bin/bash
# Issue 8 (and the GPU figures of issue 4) on the H200: the machine's own limits measured first
# (PCIe Gen5 x16 host<->device with pinned memory, and HBM device<->device, through PyTorch's CUDA
# copies), then bench/run.py --device over the groups in $BENCH_CASES (default bw,gpu,vram), its
# table and its JSON (a line starting BENCH-JSON) on stdout.
set -u
out=${1:-/tmp}  # the part's folder under $OUT: the samples come back with the log
echo "--- limits (torch, pinned host memory, 1 GiB copies, best of 5)"
python3 - <<'PY' 2>&1 | tail -8
import torch, time
n = 1 << 30
h = torch.empty(n, dtype=torch.uint8).pin_memory()
d = torch.empty(n, dtype=torch.uint8, device="cuda")
d2 = torch.empty(n, dtype=torch.uint8, device="cuda")
def best(f, bytes_moved):
    t = []
    for _ in range(5):
        torch.cuda.synchronize(); s = time.perf_counter(); f(); torch.cuda.synchronize(); t.append(time.perf_counter() - s)
    return bytes_moved / min(t) / 1e9
up = best(lambda: d.copy_(h, non_blocking=True), n)
down = best(lambda: h.copy_(d, non_blocking=True), n)
both = best(lambda: (d.copy_(h, non_blocking=True), h.copy_(d, non_blocking=True)), 2 * n)
hbm = best(lambda: d2.copy_(d), 2 * n)  # read n + write n
print(f"LIMIT pcie_up_GBps={up:.1f} pcie_down_GBps={down:.1f} pcie_same_stream_both_GBps={both:.1f} hbm_copy_GBps={hbm:.0f} ({torch.cuda.get_device_name()})")
PY
# BENCH_RUNS=2: the same cases twice, then whether the two runs agree (bench/run.py --compare).
for run in $(seq 1 "${BENCH_RUNS:-1}"); do
  echo "--- bench/run.py --device --cases ${BENCH_CASES:-bw,gpu,vram} (run $run)"
  python3 bench/run.py --device --cases "${BENCH_CASES:-bw,gpu,vram}" --reps "${BENCH_REPS:-3}" --seconds "${BENCH_SECONDS:-1}" \
    --budget "${BENCH_BUDGET:-300}" --timeout "${BENCH_TIMEOUT:-60}" --out "$out/bench-run$run.json" 2>&1 | grep -v '^calibrated\|^repetition'
done
if [ "${BENCH_RUNS:-1}" -ge 2 ]; then python3 bench/run.py --compare "$out/bench-run1.json" "$out/bench-run2.json"; fi
