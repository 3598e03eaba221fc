#!/usr/bin/env bash
# The std pointwise and neighbourhood filters (and the cheap geometry ones) on our core and on R81,
# 1080p from a cached noise frame, each filter alone in the chain: the sweep behind issue 3's "not
# slower than R81" in docs/BENCHMARKS.md, for any machine (the device's profile set `sweep` is the
# same list on the accelerator's host).
#
# usage: bench/std-sweep.sh            (after cargo build --release and scripts/setup.sh)
#
# Every line runs REPS times on each core, the cores alternating (R81 first on odd repetitions) so
# that drift in the machine's load hits both alike, and prints the median fps of each and ours/R81.
#
# Environment:
#   VSVK_REF   the reference folder (default ~/.cache/vsvk-ref)
#   VSVK_CORE  our core (default target/release/libvsvk.so)
#   AGAINST    the core to compare with instead of R81: another build of ours, for a change's
#              before and after on the whole sweep in one run (the R81 column is then that build)
#   THREADS    thread counts (default "1 $(nproc)")
#   FORMATS    formats (default "YUV420P8 YUV420P16 YUV444PS"; the PreMultiply line runs on Gray
#              formats alone, e.g. FORMATS="Gray8 Gray16 GrayS")
#   ONLY       a regex: only the chains that match it
#   REPS       runs per core and line (default 3)
#   SECONDS_PER_RUN  about how long one run lasts (default 1): the frame count follows from a
#              first short run of R81
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
set -f
REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
R81=${AGAINST:-$REF/x/vapoursynth/libvapoursynth.so.4}
OURS=${VSVK_CORE:-target/release/libvsvk.so}
D=target/vsvk-bench/driver
N=target/vsvk-bench/vsvknoise.so
REPS=${REPS:-3}
[ -f "$R81" ] || { echo "no reference core at $R81: run scripts/setup.sh first" >&2; exit 1; }
[ -f "$OURS" ] || { echo "no core at $OURS: cargo build --release first" >&2; exit 1; }
if [ ! -x $D ] || [ ! -f $N ]; then
  mkdir -p target/vsvk-bench
  cc -O2 -Iinclude -I"$REF/src/hdr/usr/include" -o $D tests/oracle/driver.c -ldl -lpthread
  cc -O2 -shared -fPIC -Iinclude -o $N tests/plugins/vsvknoise.c
fi
# tables too long for one command line argument, read by the driver from files (key=<FILE)
LUT2_8=target/vsvk-bench/lut2-8bit.txt
LUT_16=target/vsvk-bench/lut-16bit.txt
[ -f $LUT2_8 ] || python3 -c "print(' '.join(str((x + y) // 2) for y in range(256) for x in range(256)))" > $LUT2_8
[ -f $LUT_16 ] || python3 -c "print(' '.join(str(65535 - i) for i in range(65536)))" > $LUT_16
export LD_LIBRARY_PATH=$REF/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

CHAINS=(
  "std.Invert" "std.InvertMask" "std.Limiter" "std.Binarize" "std.BinarizeMask" "std.Levels:gamma=1.2"
  "std.Merge:@:clipa=\$1:clipb=\$1:weight=0.3" "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1"
  "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1:premultiplied=1"
  "std.MakeDiff:@:clipa=\$1:clipb=\$1" "std.MergeDiff:@:clipa=\$1:clipb=\$1" "std.MakeFullDiff:@:clipa=\$1:clipb=\$1"
  "std.MakeFullDiff:@:clipa=\$1:clipb=\$1,std.MergeFullDiff:@:clipa=\$1:clipb=\$2"
  "std.Expr:@clips:expr='x 3 * 2 /" "std.Expr:@:clips=\$1:clips=\$1:expr='x y + 2 /"
  "std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0"
  "std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:mode='h"
  "std.Convolution:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:matrix=1.0:mode='v"
  "std.Median" "std.Minimum" "std.Maximum" "std.Deflate" "std.Inflate" "std.Prewitt" "std.Sobel"
  "std.BoxBlur:hradius=2:vradius=2" "std.PlaneStats:@:clipa=\$1"
  "std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0"
  "std.Transpose" "std.FlipVertical" "std.FlipHorizontal" "std.Turn180" "std.Crop:left=2:right=2"
  "std.AddBorders:left=2:right=2"
  # less common shapes: a 5x5 matrix, thresholds, a plane left out, tables (a 256-entry Lut on
  # the command line, the 65536-entry 8-bit Lut2 and 16-bit Lut from files), premultiplying by an alpha clip (gray only: the
  # alpha is the clip itself)
  "std.Convolution$(printf ':matrix=%s.0' 1 2 3 2 1 2 4 6 4 2 3 6 9 6 3 2 4 6 4 2 1 2 3 2 1)"
  "std.Minimum:threshold=8.0" "std.Inflate:threshold=8.0" "std.Median:planes=0"
  "P8|std.Lut$(for i in $(seq 0 255); do printf ':lut=%d' $((255 - i)); done)"
  "P8|std.Lut2:@:clipa=\$1:clipb=\$1:lut=<$LUT2_8" "P16|std.Lut:lut=<$LUT_16"
  "^Gray|std.PreMultiply:@:clip=\$1:alpha=\$1"
  # option paths of their own: one mask plane for all (resampled to subsampled chroma), a
  # premultiplied merge with it, planes left out, thresholds, Convolution's scale and bias
  "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1:first_plane=1"
  "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1:first_plane=1:premultiplied=1"
  "std.MaskedMerge:@:clipa=\$1:clipb=\$1:mask=\$1:planes=0" "std.Merge:@:clipa=\$1:clipb=\$1:weight=0.3:weight=0.0"
  "std.MakeDiff:@:clipa=\$1:clipb=\$1:planes=1:planes=2" "std.Expr:@clips:expr='x 3 * 2 /:expr='"
  "std.Limiter:min=20.0:max=200.0:planes=0" "std.Binarize:threshold=100.0:v0=10.0:v1=200.0" "std.Levels:min_in=16.0:max_in=235.0:min_out=0.0:max_out=255.0:planes=0"
  "std.Convolution$(printf ':matrix=%s.0' 1 2 1 2 4 2 1 2 1):bias=3.0:divisor=10.0:saturate=0"
  "std.Convolution$(printf ':matrix=%s.0' -1 -1 -1 -1 8 -1 -1 -1 -1):saturate=1:planes=0"
  "std.Maximum:planes=0" "std.Deflate:threshold=4.0" "std.Sobel:scale=2.0" "std.Prewitt:planes=0"
  "std.BoxBlur:hradius=1:vradius=3:planes=0" "std.Median:planes=1:planes=2"
)

fps() {  # core threads format frames chain
  local r
  r=$("$D" "$1" --plugin "$N" --no-hash --threads "$2" --warmup 10 --width 1920 --height 1080 --format "$3" --frames 1 \
    "std.Loop:times=$4,$5" 2>&1 | tail -1)
  case $r in *fps=*) echo "${r##*fps=}" ;; *) echo "error: $r" >&2; echo nan ;; esac
}

other=$(if [ -n "${AGAINST:-}" ]; then echo before; else echo R81; fi)
printf '%-7s %-9s %-58s %9s %9s %6s\n' threads format chain ours "$other" ratio
for t in ${THREADS:-1 $(nproc)}; do
  for f in ${FORMATS:-YUV420P8 YUV420P16 YUV444PS}; do
    for ch in "${CHAINS[@]}"; do
      [[ -n "${ONLY:-}" && ! "$ch" =~ $ONLY ]] && continue
      # FORMAT-REGEX|CHAIN: a chain for the formats that match alone
      if [[ $ch == *"|"* ]]; then
        [[ $f =~ ${ch%%|*} ]] || continue
        ch=${ch#*|}
      fi
      probe=$(fps "$R81" "$t" "$f" 30 "$ch")
      n=$(python3 -c "import math; v=float('$probe'); print(max(30, int(v * ${SECONDS_PER_RUN:-1})) if math.isfinite(v) else 30)")
      a="" b=""
      for i in $(seq "$REPS"); do
        if [ $((i % 2)) = 1 ]; then
          b="$b $(fps "$R81" "$t" "$f" "$n" "$ch")"; a="$a $(fps "$OURS" "$t" "$f" "$n" "$ch")"
        else
          a="$a $(fps "$OURS" "$t" "$f" "$n" "$ch")"; b="$b $(fps "$R81" "$t" "$f" "$n" "$ch")"
        fi
      done
      python3 - "$t" "$f" "$ch" "$a" "$b" "$other" <<'PY'
import re, statistics, sys
t, f, ch, a, b, other = sys.argv[1:]
x = statistics.median(float(v) for v in a.split())
y = statistics.median(float(v) for v in b.split())
# a Convolution's matrix as one list, so that the label stays short and tells the cases apart
label = re.sub(r"(:matrix=[-\d.]+)+", lambda m: ":matrix=" + ",".join(re.findall(r"[-\d.]+", m.group(0))), ch)
label = re.sub(r"(:lut=\d+)+", lambda m: f":lut=({m.group(0).count(':lut=')} values)", label)
print(f"{t:<7} {f:<9} {label:<58} {x:9.1f} {y:9.1f} {x / y:6.2f}   ours:{a} {other}:{b}")
PY
    done
  done
done
