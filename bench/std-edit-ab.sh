#!/usr/bin/env bash
# Before/after A/B of the edit functions (issue 27, std edit moved to vsvk-std): two builds of our
# core, OLD and NEW, alternating (OLD first on odd repetitions),
# median fps of REPS runs each, 1080p from a cached noise frame looped, as bench/std-sweep.sh does
# (run it once first: it builds the driver and the noise source).
#
# usage: OLD=path/to/old/libvsvk.so [NEW=target/release/libvsvk.so] bench/std-edit-ab.sh
# Environment: REPS (default 5), THREADS (default "1 2"), ONLY (a regex on the chains),
#   SECONDS_PER_RUN (default 1), VSVK_REF (the reference folder, for the loader library)
set -euo pipefail
set -f
OLD=${OLD:?old core} NEW=${NEW:-target/release/libvsvk.so}
D=target/vsvk-bench/driver N=target/vsvk-bench/vsvknoise.so REPS=${REPS:-5}
export LD_LIBRARY_PATH=${VSVK_REF:-$HOME/.cache/vsvk-ref}/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fps() {  # core threads format frames chain
  local r
  r=$("$D" "$1" --plugin "$N" --no-hash --threads "$2" --warmup 10 --width 1920 --height 1080 --format "$3" --frames 1 \
    "std.Loop:times=$4,$5" 2>&1 | tail -1)
  case $r in *fps=*) echo "${r##*fps=}" ;; *) echo "error: $r" >&2; echo nan ;; esac
}
LINES=(
  "YUV420P8|std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0"
  "YUV420P16|std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0"
  "YUV444PS|std.AverageFrames:@clips:weights=1.0:weights=1.0:weights=1.0"
  "YUV420P8|std.AverageFrames:@:clips=\$1:clips=\$1:weights=1.0:weights=2.0:planes=0"
  "YUV420P8|std.AverageFrames:@clips:weights=1.0:weights=2.0:weights=3.0:weights=2.0:weights=1.0:scenechange=1"
  "YUV420P8|std.Trim:first=1,std.Trim:first=1,std.Trim:first=1,std.Trim:first=1"
  "YUV420P8|std.Splice:@:clips=\$1:clips=\$1,std.Trim:first=1,std.Reverse"
  "YUV420P8|std.Interleave:@:clips=\$1:clips=\$1,std.Interleave:@:clips=\$2:clips=\$2"
  "YUV420P8|std.SelectEvery:cycle=2:offsets=0"
  "YUV420P8|std.SelectEvery:cycle=3:offsets=0:offsets=2:modify_duration=0"
  "YUV420P8|std.DoubleWeave:tff=1"
)
printf '%-7s %-9s %-70s %9s %9s %6s\n' threads format chain after before ratio
for t in ${THREADS:-1 2}; do
  for line in "${LINES[@]}"; do
    f=${line%%|*} ch=${line#*|}
    [[ -n "${ONLY:-}" && ! "$ch" =~ $ONLY ]] && continue
    probe=$(fps "$OLD" "$t" "$f" 30 "$ch")
    n=$(python3 -c "import math; v=float('$probe'); print(max(30, int(v * ${SECONDS_PER_RUN:-1})) if math.isfinite(v) else 30)")
    a="" b=""
    for i in $(seq "$REPS"); do
      if [ $((i % 2)) = 1 ]; then
        b="$b $(fps "$OLD" "$t" "$f" "$n" "$ch")"; a="$a $(fps "$NEW" "$t" "$f" "$n" "$ch")"
      else
        a="$a $(fps "$NEW" "$t" "$f" "$n" "$ch")"; b="$b $(fps "$OLD" "$t" "$f" "$n" "$ch")"
      fi
    done
    python3 - "$t" "$f" "$ch" "$a" "$b" <<'PY'
import statistics, sys
t, f, ch, a, b = sys.argv[1:]
x = statistics.median(float(v) for v in a.split())
y = statistics.median(float(v) for v in b.split())
print(f"{t:<7} {f:<9} {ch:<70} {x:9.1f} {y:9.1f} {x / y:6.2f}   after:{a} before:{b}")
PY
  done
done
