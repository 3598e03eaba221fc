#!/usr/bin/env bash
# Two builds of our core against each other (a change's before and after) on std chains, 1080p
# from a cached noise frame, through the oracle driver: what bench/std-sweep.sh does against R81,
# for a change that must not cost speed.
#
# usage: OLD=old/libvsvk.so bench/std-ab.sh CHAIN...   (after bench/std-sweep.sh built the driver)
#
# A chain is the driver's syntax, its input `$1` (the noise frame looped), e.g.
# "std.PlaneStats:@:clipa=\$1:clipb=\$1"; tests/plugins/vsvkfunc.c's callbacks are loaded, so
# "vsvkfunc.Eval:@:clip=\$1:clips=\$1" runs FrameEval. Every line runs REPS times on each core,
# the cores alternating (the old one first on odd repetitions) so that drift in the machine's
# load hits both alike, and prints the median fps of each and new/old.
#
# Environment:
#   OLD        the build to compare against (required)
#   NEW        the build under test (default target/release/libvsvk.so)
#   THREADS    thread counts (default "1 $(nproc)")
#   FORMATS    formats (default "YUV420P8 YUV420P16 YUV444PS")
#   REPS       runs per core and line (default 5)
#   SECONDS_PER_RUN  about how long one run lasts (default 1): the frame count follows from a
#              first short run of the old build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
set -f
REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
OLD=${OLD:?OLD=path of the build to compare against}
NEW=${NEW:-target/release/libvsvk.so}
D=target/vsvk-bench/driver
N=target/vsvk-bench/vsvknoise.so
F=target/vsvk-bench/vsvkfunc.so
REPS=${REPS:-5}
[ -x $D ] && [ -f $N ] || { echo "no driver: run bench/std-sweep.sh once first" >&2; exit 1; }
[ -f $F ] || cc -O2 -shared -fPIC -Iinclude -o $F tests/plugins/vsvkfunc.c
export LD_LIBRARY_PATH=$REF/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

fps() {  # core threads format frames chain
  local r
  r=$("$D" "$1" --plugin "$N" --plugin "$F" --no-hash --threads "$2" --warmup 10 --width 1920 --height 1080 --format "$3" --frames 1 \
    "std.Loop:times=$4,$5" 2>&1 | tail -1)
  case $r in *fps=*) echo "${r##*fps=}" ;; *) echo "error: $r" >&2; echo nan ;; esac
}

printf '%-7s %-9s %-50s %9s %9s %6s\n' threads format chain new old ratio
for t in ${THREADS:-1 $(nproc)}; do
  for f in ${FORMATS:-YUV420P8 YUV420P16 YUV444PS}; do
    for ch in "$@"; do
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
print(f"{t:<7} {f:<9} {ch:<50} {x:9.1f} {y:9.1f} {x / y:6.2f}   new:{a} old:{b}")
PY
    done
  done
done
