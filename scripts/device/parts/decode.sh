#!/bin/bash
# Issue 24 on the device: vkdec.Source (plugins/vkdecode) with Vulkan Video against its CPU path.
# The streams travel in the kit (kit-extra.txt; made by scripts/device/decode-streams.sh with
# Debian's ffmpeg, since the device has no encoder):
#   target/vsvk-vkdecode-bench/h264-1080p.mp4    1920x1080 H.264 8-bit 4:2:0, 120 frames
#   target/vsvk-vkdecode-bench/hevc10-2160p.mkv  3840x2160 HEVC Main 10 4:2:0, 120 frames
# 1. `vsvk devices`: the decode abilities the driver reports.
# 2. Every frame of each stream decoded by the GPU's video engine (downloaded) against the CPU
#    decode of the same file (host frames): byte for byte, with the first differing frame named.
# 3. fps and CPU time of decode -> vk.Invert -> std.GPUDownload, both on our core: Vulkan Video
#    against CPU decode (16 threads) + upload; then decode alone; the PCIe traffic sampled by
#    nvidia-smi over each run beside the bytes each path must move per frame.
set -u
DIR=$1
VKD=$OURS/libvsvk_vkdecode.so VK=$OURS/libvsvk_vk.so N=$OURS/vsvknoise.so
S=$KIT/extra/target/vsvk-vkdecode-bench
[ -f "$VKD" ] || { echo "no $VKD: build with cargo build --release -p vsvk-vkdecode before kit.sh"; exit 1; }
export VSVK_PYTHON_MODULE=$PYMOD/vsvk.abi3.so

echo "--- vsvk devices"
timeout 60 "$KIT/vsvk" devices 2>&1

drv() {  # drv LABEL CHAIN [driver options...]: one driver run, its result line and CPU time
  local label=$1 chain=$2; shift 2
  /usr/bin/time -f "cpu_user=%U cpu_sys=%S wall=%e" -o /tmp/time.txt \
    timeout 240 "$DRIVER" "$CORE_OURS" --plugin "$N" --plugin "$VKD" --plugin "$VK" "$@" "$chain" > /tmp/drv.txt 2>&1
  local line; line=$(grep -E '^(ok|error)' /tmp/drv.txt | tail -1)
  [ -n "$line" ] || line="no result: $(tail -3 /tmp/drv.txt | tr '\n' ' ')"
  echo "$label: ${line%% threads=*} fps=${line##*fps=} $(cat /tmp/time.txt | tail -1)"
}

echo "--- which path each stream takes (the source's log line)"
for f in h264-1080p.mp4 hevc10-2160p.mkv; do
  timeout 60 "$KIT/vsvk" python -c "import vapoursynth as vs; c = vs.core; c.add_log_handler(lambda t, m: print(m)); c.std.LoadPlugin('$VKD'); c.vkdec.Source('$S/$f')" 2>&1 | grep -v '^Vulkan device' | tail -3
done

echo "--- Vulkan Video against the CPU decoder, every frame"
for f in h264-1080p.mp4 hevc10-2160p.mkv; do
  drv "$f cpu" "vkdec.Source:@:source='$S/$f:hwdec=0:gpu=0" --dump /tmp/cpu.raw
  drv "$f gpu" "vkdec.Source:@:source='$S/$f,std.GPUDownload" --dump /tmp/gpu.raw
  if cmp -s /tmp/cpu.raw /tmp/gpu.raw && [ -s /tmp/cpu.raw ]; then
    echo "IDENTICAL $f ($(stat -c %s /tmp/cpu.raw) bytes)"
  else
    echo "DIFFERENT $f: $(cmp /tmp/cpu.raw /tmp/gpu.raw 2>&1 | head -1) (sizes $(stat -c %s /tmp/cpu.raw /tmp/gpu.raw | tr '\n' ' '))"
    python3 - /tmp/cpu.raw /tmp/gpu.raw "$f" <<'PY'
import sys
a, b, name = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read(), sys.argv[3]
w, h, s = (1920, 1080, 1) if '1080' in name else (3840, 2160, 2)
fb = w * h * 3 // 2 * s
bad = [i for i in range(min(len(a), len(b)) // fb) if a[i*fb:(i+1)*fb] != b[i*fb:(i+1)*fb]]
print(f"  frames differing: {len(bad)} of {min(len(a), len(b)) // fb}: {bad[:10]}")
if bad:
    i = bad[0]; fa, fb_ = a[i*fb:(i+1)*fb], b[i*fb:(i+1)*fb]
    d = [k for k in range(len(fa)) if fa[k] != fb_[k]]
    print(f"  frame {i}: {len(d)} bytes differ, first at {d[0]} (luma ends at {w*h*s}); cpu {fa[d[0]:d[0]+8].hex()} gpu {fb_[d[0]:d[0]+8].hex()}")
PY
  fi
  rm -f /tmp/cpu.raw /tmp/gpu.raw
done

echo "--- random access on the Vulkan Video path: the same orders on both paths, cache=2 so every step back seeks"
# SelectEvery with a shuffled permutation of offsets makes the driver ask the source for frames in
# that order; Reverse walks back GOP by GOP; Trim+Loop jumps back at every loop.
perm=$(python3 -c "import random; r = random.Random(7); v = list(range(120)); r.shuffle(v); print(''.join(f':offsets={o}' for o in v))")
for f in h264-1080p.mp4 hevc10-2160p.mkv; do
  for chain in ",std.SelectEvery:cycle=120$perm" ",std.Reverse" ",std.Trim:first=37:last=70,std.Loop:times=2"; do
    drv "$f cpu ${chain:0:40}" "vkdec.Source:@:source='$S/$f:hwdec=0:gpu=0:cache=2$chain" --dump /tmp/cpu.raw
    drv "$f gpu ${chain:0:40}" "vkdec.Source:@:source='$S/$f:cache=2$chain,std.GPUDownload" --dump /tmp/gpu.raw
    if cmp -s /tmp/cpu.raw /tmp/gpu.raw && [ -s /tmp/cpu.raw ]; then echo "IDENTICAL $f ${chain:0:40} ($(stat -c %s /tmp/cpu.raw) bytes)"; else echo "DIFFERENT $f ${chain:0:40}: $(cmp /tmp/cpu.raw /tmp/gpu.raw 2>&1 | head -1)"; fi
    rm -f /tmp/cpu.raw /tmp/gpu.raw
  done
done

pcie() {  # pcie LABEL CHAIN...: a drv run with nvidia-smi's PCIe counters sampled every second
  nvidia-smi dmon -s t -d 1 > /tmp/dmon.txt 2>/dev/null &
  local mon=$!
  drv "$@"
  kill $mon 2>/dev/null; wait $mon 2>/dev/null
  awk '!/^#/ && NF >= 3 { rx += $2; tx += $3; n++ } END { if (n) printf "  pcie (nvidia-smi, MB/s averaged over %d s): rx %.0f tx %.0f\n", n, rx / n, tx / n }' /tmp/dmon.txt
}

echo "--- throughput: decode -> vk.Invert -> std.GPUDownload (our core; --warmup 8)"
for f in h264-1080p.mp4 hevc10-2160p.mkv; do
  for rep in 1 2; do
    pcie "$f vulkan-video+vk+download #$rep" "vkdec.Source:@:source='$S/$f,vk.Invert,std.GPUDownload" --no-hash --warmup 8
    pcie "$f cpu16+upload+vk+download #$rep" "vkdec.Source:@:source='$S/$f:hwdec=0:threads=16,vk.Invert,std.GPUDownload" --no-hash --warmup 8
  done
  drv "$f vulkan-video decode+download" "vkdec.Source:@:source='$S/$f,std.GPUDownload" --no-hash --warmup 8
  drv "$f cpu16 decode (host frames)" "vkdec.Source:@:source='$S/$f:hwdec=0:gpu=0:threads=16" --no-hash --warmup 8
  drv "$f vulkan-video decode (frames stay on the GPU)" "vkdec.Source:@:source='$S/$f" --no-hash --warmup 8
done
python3 - <<'PY'
for name, w, h, b in (("h264-1080p", 1920, 1080, 1), ("hevc10-2160p", 3840, 2160, 2)):
    frame = w * h * 3 // 2 * b
    print(f"bytes over PCIe per frame, {name}: Vulkan Video + download {frame} (the download; the bitstream aside), "
          f"CPU decode + upload + download {2 * frame} ({frame} up, {frame} down)")
PY
