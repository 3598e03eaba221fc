#!/bin/bash
# Where the time goes on the H200 for the GPU chains where vsvk is slower than R81 (bench part):
# perf (carried by kit.sh, software cpu-clock) over the oracle driver on both cores, whole system
# per process, then self time per symbol, and the threads' wall/CPU use from `time`.
set -u
P=$KIT/perf
export PERF_BIN="$P/perf"
D=$KIT/extra/target/vsvk-bench/driver
N=$KIT/extra/target/vsvk-bench/vsvknoise.so
prof() {  # label core plugin format frames chain
  local label=$1 core=$2 plugin=$3 fmt=$4 frames=$5 chain=$6
  local out=/tmp/prof-$label.data
  TIMEFORMAT="$label: wall %R s, user %U s, sys %S s"
  time env LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" record -q -e cpu-clock -F 2000 -g -o $out -- \
    "$D" "$core" --plugin "$N" --plugin "$plugin" --no-hash --warmup 5 --width ${PW:-1920} --height ${PH:-1080} --format $fmt --frames 1 \
    "std.Loop:times=$frames,std.GPUUpload,$chain,std.GPUDownload" 2>&1 | grep -v "^\[" | tail -2
  LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" report -i $out --no-children --stdio --sort dso,sym 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -${TOP:-14}
  LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" report -i $out --no-children --stdio --sort comm 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -6
}
# std filters on all threads, no GPU: label core format frames chain
profstd() {
  local label=$1 core=$2 fmt=$3 frames=$4 chain=$5 out=/tmp/prof-$1.data
  TIMEFORMAT="$label: wall %R s, user %U s, sys %S s"
  time env LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" record -q -e cpu-clock -F 1000 -g -o $out -- \
    "$D" "$core" --plugin "$N" --no-hash --warmup 5 --width ${PW:-1920} --height ${PH:-1080} --format $fmt --frames 1 \
    "std.Loop:times=$frames,$chain" 2>&1 | grep -v "^\[" | tail -2
  LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" report -i $out --no-children --stdio --sort dso,sym 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -${TOP:-10}
}
[ -x "$PERF_BIN" ] || { echo "no perf in the kit"; exit 1; }
if [ "${PROFILE_SET:-gpu}" = std ]; then
  for core in ours R81; do
    c=$CORE_OURS; [ $core = R81 ] && c=$CORE_REF
    for case in "averageframes YUV420P8 300 std.AverageFrames:@:clips=\$1:clips=\$1:clips=\$1:weights=1.0:weights=1.0:weights=1.0" \
                "spline36-2160p YUV420P8 150 resize.Spline36:width=3840:height=2160" \
                "conv3x3 YUV420P8 600 std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0" \
                "transpose YUV420P8 600 std.Transpose"; do
      set -- $case
      echo "=== $core std $1"
      profstd "$1-$core" "$c" $2 $3 "$4"
    done
  done
  exit 0
fi
# one LABEL ENV... -- CORE PLUGIN FORMAT WxH FRAMES CHAIN [driver options]: a long run with node
# times (--timing) and, for our core with VSVK_STATS=1, the host steps; CHAIN '-' for none
one() {  # label env... -- core plugin format WxH frames chain [driver options]
  local label=$1; shift; local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local core=$1 plugin=$2 fmt=$3 size=$4 frames=$5 chain=$6; shift 6
  echo "=== $label"
  TIMEFORMAT="cpu: wall %R s, user %U s, sys %S s"
  local steps="std.Loop:times=$frames,std.GPUUpload,$chain,std.GPUDownload"
  [ "$chain" = - ] && steps="std.Loop:times=$frames,std.GPUUpload,std.GPUDownload"
  time env "${envs[@]}" "$D" "$core" --plugin "$N" --plugin "$plugin" --no-hash --timing --warmup 40 --width ${size%x*} --height ${size#*x} \
    --format $fmt --frames 1 "$@" "$steps" 2>&1 | grep -v "^\[" | tail -16
}
if [ "${PROFILE_SET:-gpu}" = stats ]; then
  # Per node time (driver --timing: getNodeProcessingTime on both cores) and our core's host-side
  # steps (VSVK_STATS: copies, GPU waits, VRAM and host buffer allocations) for the GPU chains
  # where vsvk trails R81, long runs with 40 frames of warm-up; then pool and request variations.
  G=$PLUGINS/vsfeel/libvsfeel.so K=$PLUGINS/libknlmvulkan.so V=$OURS/libvsvk_vk.so
  for c in "gauss2160 $G GrayS 3840x2160 400 vsfeel.GaussBlur" "gauss1080 $G GrayS 1920x1080 1500 vsfeel.GaussBlur" \
           "expr2160 $V YUV420P8 3840x2160 1000 vk.Expr:@clips:expr='x_3_*_2_/" "knlm2160 $K YUV420P8 3840x2160 200 knlmvk.KNLMeans:h=1.2"; do
    set -- $c; ch=${6//_/ }
    one "$1 ours" VSVK_STATS=1 -- "$CORE_OURS" $2 $3 $4 $5 "$ch"
    one "$1 R81" X=1 -- "$CORE_REF" $2 $3 $4 $5 "$ch"
  done
  # uploads staged through cached system RAM and the copy engine, against direct writes into
  # the BAR mapping (the default where planes are host visible)
  one "gauss2160 ours staged uploads" VSVK_STATS=1 VS_VULKAN_FORCE_STAGING=1 -- "$CORE_OURS" $G GrayS 3840x2160 400 vsfeel.GaussBlur
  one "gauss1080 ours staged uploads" VSVK_STATS=1 VS_VULKAN_FORCE_STAGING=1 -- "$CORE_OURS" $G GrayS 1920x1080 1500 vsfeel.GaussBlur
  for e in X=1 VS_VULKAN_FORCE_STAGING=1; do
    one "updown2160p16 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $G YUV420P16 3840x2160 1000 -
  done
  one "updown2160p16 R81" X=1 -- "$CORE_REF" $G YUV420P16 3840x2160 1000 -
  one "gauss2160 ours pool 16 GB" VSVK_STATS=1 VSVK_FRAME_POOL_MB=16384 -- "$CORE_OURS" $G GrayS 3840x2160 400 vsfeel.GaussBlur
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = fresh ]; then
  # The upload of a new 2160p 16-bit frame each time (bench bw/up-2160p-16-fresh; R81 led it on an
  # H100 where the bus was slow): each core's CPU time by symbol (perf) and by thread, and our
  # host steps (VSVK_STATS) on each upload route: the kernel (default), the copy engine, CUDA.
  F=$(python3 -c "import sys; sys.path.insert(0, 'bench'); from run import format_id; print(format_id('YUV420P16'))")
  S="std.BlankClip:@:width=3840:height=2160:format=$F:length=${FRESH_FRAMES:-1500}:keep=0,std.GPUUpload"
  fresh() {  # label core env...
    local label=$1 core=$2; shift 2
    local out=/tmp/prof-$label.data
    echo "=== fresh $label"
    TIMEFORMAT="$label: wall %R s, user %U s, sys %S s"
    time env "$@" LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" record -q -e cpu-clock -F 1000 -g -o $out -- \
      "$D" "$core" --plugin "$N" --no-hash --timing --warmup 40 --width 16 --height 16 --format Gray8 --frames 1 "$S" 2>&1 | grep -v "^\[" | tail -14
    LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" report -i $out --no-children --stdio --sort dso,sym 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -${TOP:-12}
    LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" report -i $out --no-children --stdio --sort comm 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -4
  }
  fresh R81 "$CORE_REF" X=1
  fresh ours "$CORE_OURS" VSVK_STATS=1
  fresh ours-copy-engine "$CORE_OURS" VSVK_STATS=1 VSVK_UPLOAD_SM=0
  fresh ours-cuda "$CORE_OURS" VSVK_STATS=1 VSVK_CUDA_COPIES=1
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = bm3d ]; then
  # bm3dvk2.BM3D GrayS 1080p, where vsvk trails R81 most: node times on both cores, our host steps
  # (VSVK_STATS), with more requests in flight, and with downloads on the copy queue alone
  B=$PLUGINS/bm3dvk2.so
  for rq in 32 64; do
    one "bm3d1080 ours requests $rq" VSVK_STATS=1 -- "$CORE_OURS" $B GrayS 1920x1080 3000 bm3dvk2.BM3D --requests $rq
    one "bm3d1080 R81 requests $rq" X=1 -- "$CORE_REF" $B GrayS 1920x1080 3000 bm3dvk2.BM3D --requests $rq
  done
  one "bm3d1080 ours no compute-family download queues" VSVK_STATS=1 VSVK_DOWNLOAD_COMPUTE_QUEUES=0 -- "$CORE_OURS" $B GrayS 1920x1080 3000 bm3dvk2.BM3D
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = queues ]; then
  # GPUDownload's copies on the core's private copy queues (VSVK_DOWNLOAD_QUEUES=N, N of the
  # transfer family's other queues in turn; 0: the shared transfer queue, as before), with and
  # without waiting for the source on the host first (VSVK_DOWNLOAD_HOST_WAIT=1), and with
  # pinned frames (uploads then go by the copy engine on the transfer queue too)
  G=$PLUGINS/vsfeel/libvsfeel.so V=$OURS/libvsvk_vk.so B=$PLUGINS/bm3dvk2.so
  E="vk.Expr:@clips:expr='x 3 * 2 /"
  for e in VSVK_DOWNLOAD_QUEUES=0 VSVK_DOWNLOAD_QUEUES=1 VSVK_DOWNLOAD_QUEUES=2 "VSVK_DOWNLOAD_QUEUES=1 VSVK_DOWNLOAD_HOST_WAIT=1" \
           "VSVK_DOWNLOAD_QUEUES=0 VSVK_PINNED_FRAMES=1" "VSVK_DOWNLOAD_QUEUES=1 VSVK_PINNED_FRAMES=1" "VSVK_DOWNLOAD_QUEUES=2 VSVK_PINNED_FRAMES=1"; do
    one "vkexpr1080 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $V YUV420P8 1920x1080 4000 "$E"
    one "updown2160p16 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $G YUV420P16 3840x2160 1000 -
  done
  one "vkexpr1080 R81" X=1 -- "$CORE_REF" $V YUV420P8 1920x1080 4000 "$E"
  one "updown2160p16 R81" X=1 -- "$CORE_REF" $G YUV420P16 3840x2160 1000 -
  for e in VSVK_DOWNLOAD_QUEUES=0 VSVK_DOWNLOAD_QUEUES=1 "VSVK_DOWNLOAD_QUEUES=1 VSVK_DOWNLOAD_HOST_WAIT=1"; do
    one "bm3d1080 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $B GrayS 1920x1080 1500 bm3dvk2.BM3D
    one "gauss1080 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $G GrayS 1920x1080 3000 vsfeel.GaussBlur
  done
  one "bm3d1080 R81" X=1 -- "$CORE_REF" $B GrayS 1920x1080 1500 bm3dvk2.BM3D
  one "gauss1080 R81" X=1 -- "$CORE_REF" $G GrayS 1920x1080 3000 vsfeel.GaussBlur
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = window ]; then
  # the driver's in-order window (--requests; a frame that finishes late holds back every request
  # behind it) on both cores, and the download pools' ring (VSVK_DOWNLOAD_RING: contexts, each
  # held by a download until its copy completes)
  V=$OURS/libvsvk_vk.so B=$PLUGINS/bm3dvk2.so
  E="vk.Expr:@clips:expr='x 3 * 2 /"
  for rq in 32 64; do
    for e in X=1 VSVK_DOWNLOAD_RING=16 VSVK_DOWNLOAD_RING=32; do
      one "vkexpr1080 ours requests $rq $e" VSVK_STATS=1 $e -- "$CORE_OURS" $V YUV420P8 1920x1080 4000 "$E" --requests $rq
    done
    one "vkexpr1080 R81 requests $rq" X=1 -- "$CORE_REF" $V YUV420P8 1920x1080 4000 "$E" --requests $rq
  done
  for e in X=1 VSVK_DOWNLOAD_RING=32; do
    one "bm3d1080 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $B GrayS 1920x1080 1500 bm3dvk2.BM3D
  done
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = sweep ]; then
  # Every std pointwise, neighbourhood and geometry filter on both cores, 8-bit, 16-bit and float
  # 1080p, at one thread (the loops themselves) and at 16 (the whole machine); SWEEP_THREADS and
  # SWEEP_FORMATS narrow it.
  for f in ${SWEEP_FORMATS:-YUV420P8 YUV420P16 YUV444PS}; do
    for ch in "std.Invert" "std.InvertMask" "std.Limiter" "std.Binarize" "std.BinarizeMask" "std.Levels:gamma=1.2" \
              "std.Merge:@:clipa=\$1:clipb=\$1:weight=0.3" "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1" \
              "std.MakeDiff:@:clipa=\$1:clipb=\$1" "std.MergeDiff:@:clipa=\$1:clipb=\$1" "std.MakeFullDiff:@:clipa=\$1:clipb=\$1" \
              "std.Expr:@clips:expr='x 3 * 2 /" \
              "std.Expr:@:clips=\$1:clips=\$1:expr='x y + 2 /" \
              "std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0" \
              "std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:mode='h" "std.Median" "std.Minimum" "std.Maximum" \
              "std.Deflate" "std.Inflate" "std.Prewitt" "std.Sobel" "std.BoxBlur:hradius=2:vradius=2" "std.Transpose" \
              "std.FlipVertical" "std.FlipHorizontal" "std.Turn180" "std.PlaneStats:@:clipa=\$1" \
              "std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0" "std.Crop:left=2:right=2" "std.AddBorders:left=2:right=2"; do
      for t in ${SWEEP_THREADS:-1 16}; do
        n=300; [ $t -gt 1 ] && n=1500
        a=$("$D" "$CORE_OURS" --plugin "$N" --no-hash --threads $t --warmup 10 --width 1920 --height 1080 --format $f --frames 1 "std.Loop:times=$n,$ch" 2>&1 | tail -1)
        b=$("$D" "$CORE_REF" --plugin "$N" --no-hash --threads $t --warmup 10 --width 1920 --height 1080 --format $f --frames 1 "std.Loop:times=$n,$ch" 2>&1 | tail -1)
        a=${a##*fps=} b=${b##*fps=}
        r=$(python3 -c "print(f'{float(\"$a\")/float(\"$b\"):.2f}')" 2>/dev/null || echo "?")
        printf 'sweep threads=%-2s %-9s %-62s ours %9s R81 %9s ratio %s\n' $t $f "${ch:0:62}" "$a" "$b" "$r"
      done
    done
  done
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = left ]; then
  # What was still below R81 in the sweep of 2026-12-04, after the changes of 2026-12-05 (compiled
  # Expr, the horizontal float Convolution, stacked Transpose blocks), and where float filters at
  # 16 threads spend their time on both cores. Each line: ours and R81 alternating, REPS runs each
  # (the best of each core's runs, then every run); variables after the chain are ours alone.
  fps() { local r; r=$(env "${@:5}" "$D" "$2" --plugin "$N" --no-hash --threads $3 --warmup 10 --width 1920 --height 1080 --format $1 --frames 1 "std.Loop:times=$4,$CH" 2>&1 | tail -1); echo "${r##*fps=}"; }
  pair() {  # format threads chain [env for ours...]; LEFT_ONLY=REGEX keeps the matching lines alone
    local f=$1 t=$2; CH=$3; shift 3
    [[ -n "${LEFT_ONLY:-}" && ! "$f $CH" =~ $LEFT_ONLY ]] && return
    local n=300; [ $f = YUV444PS ] && n=150; [ $t -gt 1 ] && n=1500
    local a="" b=""
    for i in $(seq ${REPS:-2}); do a="$a $(fps $f "$CORE_OURS" $t $n X=1 "$@")"; b="$b $(fps $f "$CORE_REF" $t $n X=1)"; done
    python3 - "$f" "$t" "$CH $*" "$a" "$b" <<'PY'
import sys
f, t, ch, a, b = sys.argv[1:]
def best(s):
    v = [float(x) for x in s.split() if x.replace('.', '', 1).isdigit()]
    return max(v) if v else float('nan')
x, y = best(a), best(b)
print(f"left threads={t:<2} {f:<9} {ch[:70]:<70} ours {x:9.1f} R81 {y:9.1f} ratio {x / y:.2f}   ours:{a} R81:{b}")
PY
  }
  E2="std.Expr:@:clips=\$1:clips=\$1:expr='x y + 2 /" E1="std.Expr:@clips:expr='x 3 * 2 /"
  for t in 1 16; do
    for f in YUV420P8 YUV420P16 YUV444PS; do pair $f $t "$E2"; done
    for f in YUV420P16 YUV444PS; do pair $f $t "$E1"; done
    pair YUV444PS $t "std.Expr:@:clips=\$1:clips=\$1:expr='x y - abs 2 * x y max 0.5 * +"
    pair YUV420P8 $t "std.Expr:@:clips=\$1:clips=\$1:expr='x 128 - y 128 - * 255 / 128 +"
    pair YUV444PS $t "std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:mode='h"
    pair YUV444PS $t "std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0"
    pair YUV420P8 $t "std.Expr:@:clips=\$1:clips=\$1:expr='x y > x 16 - y 16 + ? 0.9 *"
    pair YUV420P10 $t "std.Expr:@:clips=\$1:clips=\$1:expr='x y - abs 4 * sqrt y +"
    pair YUV420P8 $t "std.Expr:@:clips=\$1:clips=\$1:expr='x 128 - y 128 - * 255 / 128 +" VSVK_NO_AVX512=1
    pair YUV420P8 $t "std.Expr:@:clips=\$1:clips=\$1:expr='x 128 - y 128 - * 255 / 128 +" VSVK_EXPR_JIT=0
    pair YUV420P16 $t std.Transpose; pair YUV444PS $t std.Transpose; pair YUV444PS $t std.Turn90; pair YUV444PS $t std.Turn270
    pair YUV420P8 $t std.Deflate; pair YUV420P8 $t std.Prewitt; pair YUV420P16 $t std.Sobel; pair YUV420P16 $t std.Prewitt
    pair YUV420P16 $t "std.PlaneStats:@:clipa=\$1"
    pair YUV420P16 $t "std.MakeFullDiff:@:clipa=\$1:clipb=\$1"; pair YUV444PS $t "std.MakeFullDiff:@:clipa=\$1:clipb=\$1"
    pair YUV444PS $t "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1"; pair YUV444PS $t "std.Levels:gamma=1.2"
    pair YUV444PS $t std.Invert; pair YUV444PS $t std.BinarizeMask; pair YUV444PS $t std.Median
  done
  [ -n "${LEFT_ONLY:-}" ] && exit 0
  TOP=14
  for core in ours R81; do
    c=$CORE_OURS; [ $core = R81 ] && c=$CORE_REF
    echo "=== $core Sobel YUV420P16 16 threads"
    profstd "sobel16-$core" "$c" YUV420P16 3000 std.Sobel
    echo "=== $core Levels YUV444PS 16 threads"
    profstd "levelsf-$core" "$c" YUV444PS 300 std.Levels:gamma=1.2
  done
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = mem ]; then
  # Float std filters at 16 threads, memory-bound on both cores: the host's memory set-up, then
  # R81 against ours as it is (output rows streamed past the caches where the frames in flight
  # overflow them, std/src/stream.rs), never streamed (VSVK_STREAM_STORES=0), always
  # streamed (=1), and with no buffer pool (fresh mappings each frame, VSVK_FRAME_POOL_MB=0);
  # best of REPS, alternating. (On 2026-12-05 the first version of this set also tried huge pages
  # for frame buffers: 0.93-1.04x, dropped.)
  cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>&1
  lscpu 2>/dev/null | grep -E "Model name|L2|L3|NUMA|Socket|Thread" ; grep -E "MemTotal|Huge" /proc/meminfo
  hp() {  # core env: AnonHugePages a second into a 16-thread float Invert run
    env "${@:2}" "$D" "$1" --plugin "$N" --no-hash --threads 16 --warmup 10 --width 1920 --height 1080 --format YUV444PS --frames 1 "std.Loop:times=6000,std.Invert" >/dev/null 2>&1 &
    sleep 1.5; echo "$1 ${*:2}: $(grep AnonHuge /proc/$!/smaps_rollup)"; wait
  }
  [ -z "${MEM_CASES:-}" ] && { hp "$CORE_REF" X=1; hp "$CORE_OURS" X=1; }
  run1() { local r; r=$(env "${@:5}" "$D" "$2" --plugin "$N" --no-hash --threads $3 --warmup 10 --width 1920 --height 1080 --format $1 --frames 1 "std.Loop:times=$4,$CH" 2>&1 | tail -1); echo "${r##*fps=}"; }
  VARS=("X=1" "VSVK_STREAM_STORES=0" "VSVK_STREAM_STORES=1" "VSVK_FRAME_POOL_MB=0")
  NAMES="ours plain streamed pool0"
  # MEM_CASES='FORMAT|THREADS|CHAIN;...' runs those alone, with MEM_VARS='ENV,ENV' named MEM_NAMES
  # (default: ours, plain, streamed)
  if [ -n "${MEM_CASES:-}" ]; then IFS=, read -ra VARS <<< "${MEM_VARS:-X=1,VSVK_STREAM_STORES=0,VSVK_STREAM_STORES=1}"; NAMES="${MEM_NAMES:-ours plain streamed}"; fi
  multi() {  # format threads chain
    local f=$1 t=$2; CH=$3
    [[ -n "${MEM_ONLY:-}" && ! "$f $t $CH" =~ $MEM_ONLY ]] && return
    local n=1500; [ $t = 1 ] && n=${MEM_N1:-150}
    local res=()
    for i in $(seq ${REPS:-3}); do
      res[0]="${res[0]:-} $(run1 $f "$CORE_REF" $t $n X=1)"
      for k in "${!VARS[@]}"; do res[$((k+1))]="${res[$((k+1))]:-} $(run1 $f "$CORE_OURS" $t $n ${VARS[$k]})"; done
    done
    NAMES="$NAMES" python3 - "$f" "$t" "$CH" "${res[@]}" <<'PY'
import os, sys
f, t, ch, *runs = sys.argv[1:]
best = lambda s: max([float(x) for x in s.split() if x.replace('.', '', 1).isdigit()] or [float('nan')])
r = best(runs[0])
names = os.environ["NAMES"].split()
print(f"mem threads={t:<2} {f:<9} {ch[:44]:<44} R81 {r:8.1f} " + " ".join(f"{n} {best(x):.1f} ({best(x) / r:.2f})" for n, x in zip(names, runs[1:])))
PY
  }
  if [ -n "${MEM_CASES:-}" ]; then
    IFS=';' read -ra cases <<< "$MEM_CASES"
    for c in "${cases[@]}"; do IFS='|' read -r f t ch <<< "$c"; multi $f $t "$ch"; done
    exit 0
  fi
  for c in std.Invert std.BinarizeMask std.Median "std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:mode='h" \
           "std.Levels:gamma=1.2" "std.Expr:@:clips=\$1:clips=\$1:expr='x y + 2 /" "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1" \
           std.Transpose std.Turn90 std.Turn270; do
    multi YUV444PS 16 "$c"
  done
  multi YUV444PS 8 std.Invert; multi YUV444PS 4 std.Invert
  multi YUV444PS 1 "std.Levels:gamma=1.2"; multi YUV444PS 1 std.Invert
  multi YUV420P16 16 std.Invert; multi YUV420P8 16 std.Invert
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = avgf ]; then
  # Temporal filters at all threads (AverageFrames on float was 0.73x R81 in the fourth session):
  # our core before the scheduler change (OLD: where the kit has it; every waiter of a finished
  # frame ran on the thread that finished it) and after it, against R81, at 1 to 16 threads, with
  # Invert and the three-clip AverageFrames (one request per frame) beside them; then where the time
  # goes on both cores; then the resize namespace after the switch to the vendored zimg snapshot.
  OLD=$KIT/extra/target/vsvk-bench/libvsvk-old.so
  cores="ours R81"; [ -f "$OLD" ] && cores="old ours R81"
  pick() { case $1 in old) echo "$OLD" ;; R81) echo "$CORE_REF" ;; *) echo "$CORE_OURS" ;; esac; }
  for c in "GrayS std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0" \
           "GrayS std.AverageFrames:@:clips=\$1:clips=\$1:clips=\$1:weights=1.0:weights=1.0:weights=1.0" \
           "YUV420P8 std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0" "GrayS std.Invert" \
           "YUV420P8 std.AverageFrames:@clips:weights=1:weights=2:weights=3:weights=2:weights=1" \
           "YUV420P8 std.Expr:@clips:expr='x~3~*~2~/" "YUV420P8 std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1"; do
    set -- $c
    set -- "$1" "${2//\~/ }"
    for t in 4 8 16; do
      for core in $cores; do
        cc=$(pick $core)
        for i in 1 2; do
          r=$("$D" "$cc" --plugin "$N" --no-hash --threads $t --warmup 20 --width 1920 --height 1080 --format $1 --frames 1 "std.Loop:times=3000,$2" 2>&1 | tail -1)
          printf 'threads=%-2s %-4s %-9s %-90s %s\n' $t $core $1 "$2" "${r##*fps=}"
        done
      done
    done
  done
  TOP=16
  for core in $cores; do
    echo "=== $core AverageFrames GrayS profile"
    profstd "avgf-$core" "$(pick $core)" GrayS 3000 "std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0"
  done
  for c in "YUV420P8 resize.Spline36:width=3840:height=2160" "YUV420P8 resize.Bicubic:format=555745280:matrix_in_s='709" \
           "YUV420P10 resize.Lanczos:width=1280:height=720" "RGBS resize.Bicubic:transfer_in_s='709:transfer_s='linear:primaries_in_s='709:primaries_s='2020"; do
    set -- $c
    for core in ours R81; do
      cc=$(pick $core)
      r=$("$D" "$cc" --plugin "$N" --no-hash --warmup 10 --width 1920 --height 1080 --format $1 --frames 1 "std.Loop:times=600,$2" 2>&1 | tail -1)
      printf 'resize %-4s %-9s %-80s %s\n' $core $1 "$2" "${r##*fps=}"
    done
  done
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = float ]; then
  # std on float (and 8-bit for reference) 1080p frames, one thread and all threads, both cores
  # (a looped noise frame: the filter's cost only)
  for t in 1 0; do
    for c in "GrayS std.Expr:@clips:expr='x~0.5~*" "YUV444PS std.Expr:@clips:expr='x~0.5~*~0.25~+" "GrayS std.Merge:@:clipa=\$1:clipb=\$1:weight=0.3" \
             "GrayS std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0" "YUV420P8 std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0" \
             "GrayS std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1" "GrayS std.Invert" "GrayS std.Levels:min_in=0.1:max_in=0.9:gamma=1.3" \
             "GrayS std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0" \
             "GrayS std.Median" "GrayS std.Sobel" "GrayS std.BoxBlur:hradius=2:vradius=2" "GrayS std.Transpose" "GrayH std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0"; do
      set -- $c; ch=${2//\~/ }; n=600; [ $t = 0 ] && n=3000
      # FLOAT_ONLY=regex: only the chains it matches (re-measuring what changed)
      [ -n "${FLOAT_ONLY:-}" ] && ! [[ "$1 $ch" =~ $FLOAT_ONLY ]] && continue
      for core in ours R81; do
        cc=$CORE_OURS; [ $core = R81 ] && cc=$CORE_REF
        r=$("$D" "$cc" --plugin "$N" --no-hash --threads $t --warmup 20 --width 1920 --height 1080 --format $1 --frames 1 "std.Loop:times=$n,$ch" 2>&1 | tail -1)
        printf 'threads=%s %-4s %-9s %-70s %s\n' $t $core $1 "$ch" "${r##*fps=}"
      done
    done
  done
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = pinned ]; then
  # VSVK_PINNED_FRAMES=1 (planes in host transfer memory, uploads by the copy engine) against the
  # default (the CPU writes the BAR mapping), round trips and a GPU chain
  G=$PLUGINS/vsfeel/libvsfeel.so
  for e in X=1 VSVK_PINNED_FRAMES=1; do
    one "updown2160p16 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $G YUV420P16 3840x2160 1500 -
    one "updown1080p8 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $G YUV420P8 1920x1080 4000 -
    one "gauss2160 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $G GrayS 3840x2160 600 vsfeel.GaussBlur
    one "vkexpr1080 ours $e" VSVK_STATS=1 $e -- "$CORE_OURS" $OURS/libvsvk_vk.so YUV420P8 1920x1080 4000 "vk.Expr:@clips:expr='x 3 * 2 /"
  done
  one "vkexpr1080 R81" X=1 -- "$CORE_REF" $OURS/libvsvk_vk.so YUV420P8 1920x1080 4000 "vk.Expr:@clips:expr='x 3 * 2 /"
  one "bm3d1080 ours" VSVK_STATS=1 -- "$CORE_OURS" $PLUGINS/bm3dvk2.so GrayS 1920x1080 1500 bm3dvk2.BM3D
  one "bm3d1080 R81" X=1 -- "$CORE_REF" $PLUGINS/bm3dvk2.so GrayS 1920x1080 1500 bm3dvk2.BM3D
  exit 0
fi
if [ "${PROFILE_SET:-gpu}" = pool ]; then
  # the frame-buffer pool's cap against vsvk's 2160p float chain (bimodal / 0.4x R81 in the bench)
  for mb in 1024 4096 16384; do
    echo "=== ours vsfeel.GaussBlur GrayS 2160p, VSVK_FRAME_POOL_MB=$mb"
    for i in 1 2 3; do
      VSVK_FRAME_POOL_MB=$mb "$D" "$CORE_OURS" --plugin "$N" --plugin "$PLUGINS/vsfeel/libvsfeel.so" --no-hash --warmup 10 --width 3840 --height 2160 --format GrayS --frames 1 \
        "std.Loop:times=300,std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload" 2>&1 | tail -1
    done
  done
  for i in 1 2 3; do
    echo "=== R81 vsfeel.GaussBlur GrayS 2160p"
    "$D" "$CORE_REF" --plugin "$N" --plugin "$PLUGINS/vsfeel/libvsfeel.so" --no-hash --warmup 10 --width 3840 --height 2160 --format GrayS --frames 1 \
      "std.Loop:times=300,std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload" 2>&1 | tail -1
  done
  for mb in 1024 16384; do
    echo "=== ours GaussBlur 1080p x5, VSVK_FRAME_POOL_MB=$mb"
    for i in 1 2 3 4 5; do
      VSVK_FRAME_POOL_MB=$mb "$D" "$CORE_OURS" --plugin "$N" --plugin "$PLUGINS/vsfeel/libvsfeel.so" --no-hash --warmup 10 --width 1920 --height 1080 --format GrayS --frames 1 \
        "std.Loop:times=1500,std.GPUUpload,vsfeel.GaussBlur,std.GPUDownload" 2>&1 | tail -1
    done
  done
  echo "=== ours GaussBlur 2160p profile, pool 1024"
  PW=3840 PH=2160 prof gauss2160-ours "$CORE_OURS" "$PLUGINS/vsfeel/libvsfeel.so" GrayS 300 vsfeel.GaussBlur
  exit 0
fi
for core in ours R81; do
  c=$CORE_OURS; [ $core = R81 ] && c=$CORE_REF
  echo "=== $core vsfeel.GaussBlur GrayS 1080p"
  prof gauss-$core "$c" "$PLUGINS/vsfeel/libvsfeel.so" GrayS 600 vsfeel.GaussBlur
  echo "=== $core knlmvk.KNLMeans YUV420P8 1080p"
  prof knlm-$core "$c" "$PLUGINS/libknlmvulkan.so" YUV420P8 600 knlmvk.KNLMeans:h=1.2
done
