#!/bin/bash
# `vsvk render` on the device: a GPU script at 2160p (examples/gpu_chain.vpy: a CPU-made source,
# std.GPUUpload, knlmvk.KNLMeans from $PLUGINS, std.GPUDownload) rendered in chunks by Ray workers,
# against `vsvk pipe` of the same script: fps, scaling and the output's md5 (which must be pipe's).
#  1. which Vulkan device a Ray task's core takes (Ray's GPU id -> nvidia-smi UUID -> VSVK_DEVICE);
#  2. a local Ray instance (no --address) with 1, 2 and 4 workers: only 1-GPU machines are lent for
#     now, so several workers share the one GPU (--workers-per-gpu) rather than 1, 2, 4 GPUs;
#  3. the cluster path: a head started here with `ray start --head`, joined with --address.
# Needs Ray in the kit, which the full kit has no room for: `scripts/device/ray-kit.sh --kit` packs
# a kit of its own for this part (see there). Environment: RENDER_FRAMES (default 120),
# RENDER_CHUNK (30), RENDER_SIZE (3840x2160). A few minutes; run it with PART_TIMEOUT_render=600.
set -u
OUTDIR=${1:-/tmp/out/render}
mkdir -p "$OUTDIR"
SITE=$KIT/extra/target/ray-kit/ray-site.tar.xz
[ -f "$SITE" ] || { echo "render: $SITE is missing: pack the kit with scripts/device/ray-kit.sh --kit"; exit 1; }
rm -rf /tmp/ray-site && mkdir -p /tmp/ray-site && tar -C /tmp/ray-site -xJf "$SITE" || exit 1
export PYTHONPATH=/tmp/ray-site${PYTHONPATH:+:$PYTHONPATH}
export VSVK_REF=$KIT VSVK_PYTHON_MODULE=$PYMOD/vsvk.abi3.so RAY_USAGE_STATS_ENABLED=0
ray() { python3 -c 'import sys; from ray.scripts.scripts import main; sys.argv[0] = "ray"; main()' "$@"; }
python3 -c 'import ray, sys; print("Ray", ray.__version__, "on Python", sys.version.split()[0])' || exit 1
FRAMES=${RENDER_FRAMES:-120} CHUNK=${RENDER_CHUNK:-30} SIZE=${RENDER_SIZE:-3840x2160}
ARGS=(-c y4m -a width=${SIZE%x*} -a height=${SIZE#*x} -a frames=$FRAMES)
SCRIPT=examples/gpu_chain.vpy
GPUS=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "GPUs on this host: $GPUS (only 1-GPU machines are lent now: several workers share one GPU below)"
# Ray counts NVIDIA GPUs through NVML itself; nvidia-smi's count is given too, so that a miss there
# shows as a wrong device below rather than as a CPU-only run
GPUARG=(); [ "$GPUS" -gt 0 ] && GPUARG=(--gpus $GPUS)
export GPUS

echo "--- 1. the device a Ray task's core takes"
[ "$GPUS" -gt 0 ] && $KIT/vsvk python - <<'PY' 2>&1 | grep -v '^\s*$' | tail -8
import os, subprocess, sys
import ray, vsvk
ray.init(address="local", num_gpus=int(os.environ["GPUS"]), include_dashboard=False, logging_level="ERROR",
         log_to_driver=False)
task = sys.modules["vsvk._render_task"]

@ray.remote(num_gpus=1)
def which():
    dev = task._gpu_device()
    env = dict(os.environ, VSVK_DEVICE=dev or "")
    r = subprocess.run([sys.executable, "-c", "import sys, vsvk; vsvk._main(sys.argv[1:])", "devices"], env=env, capture_output=True, text=True)
    return ray.get_gpu_ids(), os.environ.get("CUDA_VISIBLE_DEVICES"), dev, r.stdout + r.stderr

ids, cvd, dev, out = ray.get(which.remote())
print(f"Ray GPU ids {ids}, CUDA_VISIBLE_DEVICES={cvd}, VSVK_DEVICE={dev}")
print(out.strip())
ray.shutdown()
PY

# runs and prints: NAME WALL_S FPS_WALL FPS_RENDER MD5; the frames go to md5sum, never to disk
measure() {
  local name=$1; shift
  local t0=$(date +%s%N)
  "$@" - 2>"$OUTDIR/$name.err" | md5sum | cut -c1-16 > "$OUTDIR/$name.md5"
  local rc=${PIPESTATUS[0]} ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local fps=$(grep -o 'Output [0-9]* frames in [0-9.]* seconds ([0-9.]* fps)' "$OUTDIR/$name.err" | grep -o '([0-9.]* fps)' | tr -d '()a-z ')
  awk -v n="$name" -v rc=$rc -v ms=$ms -v f=$FRAMES -v r="${fps:-?}" -v m="$(cat "$OUTDIR/$name.md5")" 'BEGIN {
    printf "%-22s rc=%d  wall %7.2f s  %7.2f fps (wall)  %7s fps (rendering)  md5 %s\n", n, rc, ms / 1000, f * 1000 / ms, r, m }'
  [ $rc = 0 ] || tail -20 "$OUTDIR/$name.err"
  echo "$name $ms ${fps:-0}" >> "$OUTDIR/times.txt"
}
rm -f "$OUTDIR/times.txt"

echo "--- 2. $SCRIPT at $SIZE, $FRAMES frames, chunks of $CHUNK; a local Ray instance"
measure pipe $KIT/vsvk pipe -p "${ARGS[@]}" $SCRIPT
for w in 1 2 4; do
  measure "render-$w-worker" $KIT/vsvk render -p "${GPUARG[@]}" --chunk $CHUNK --workers-per-gpu $w "${ARGS[@]}" $SCRIPT
  grep -h 'chunk(s) of frames' "$OUTDIR/render-$w-worker.err" | head -1
done

echo "--- 3. the cluster path: ray start --head here, then vsvk render --address"
ray start --head --port 6399 --num-gpus $GPUS --include-dashboard=false --disable-usage-stats > "$OUTDIR/head.log" 2>&1 ||
  tail -20 "$OUTDIR/head.log"
ADDR=$(grep -o "ray start --address='[^']*'" "$OUTDIR/head.log" | head -1 | cut -d"'" -f2)
echo "head at ${ADDR:-?}"
measure render-cluster-2 $KIT/vsvk render -p --address "${ADDR:-127.0.0.1:6399}" --chunk $CHUNK --workers-per-gpu 2 "${ARGS[@]}" $SCRIPT
ray stop --force > /dev/null 2>&1

echo "--- summary"
python3 - "$OUTDIR" <<'PY'
import sys
d = sys.argv[1]
rows = [l.split() for l in open(f"{d}/times.txt")]
md5 = {r[0]: open(f"{d}/{r[0]}.md5").read().strip() for r in rows}
base = next((float(r[2]) for r in rows if r[0] == "render-1-worker"), 0)
for name, ms, fps in rows:
    n = int(name.split("-")[1]) if name.startswith("render-") and name.split("-")[1].isdigit() else None
    eff = f"  speedup {float(fps) / base:.2f}x, efficiency {float(fps) / base / n:.0%} of {n} workers on one GPU" if n and base else ""
    same = "same as pipe" if md5[name] == md5.get("pipe") else "DIFFERS FROM PIPE"
    print(f"{name:<18} {int(ms) / 1000:7.2f} s wall  {fps:>7} fps rendering  {same}{eff}")
PY
