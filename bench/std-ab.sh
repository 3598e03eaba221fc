#!/usr/bin/env bash
# Two builds of our core against each other (a change's before and after) on std chains, through
# the oracle driver: what bench/std-sweep.sh does against R81, for a change that must not cost
# speed. Video lines run at 1080p from a cached noise frame looped; audio lines from four frames of
# vsvknoise.NoiseAudio looped with std.AudioLoop, so that making the source stays out of the figures.
#
# usage: OLD=old/libvsvk.so bench/std-ab.sh LINE...   (after bench/std-sweep.sh built the driver)
#
# A LINE is a chain in the driver's syntax, its input `$1` (the noise looped), e.g.
# "std.PlaneStats:@:clipa=\$1:clipb=\$1", run in every format of FORMATS; or "FORMAT|CHAIN" for
# one format; or "audio:BITS|CHAIN" (BITS 16, 32 or f) for an audio chain; or the name of a set
# below (edit, audio: the lines the std moves of issue 27 were measured with).
# tests/plugins/vsvkfunc.c's callbacks are loaded, so "vsvkfunc.Eval:@:clip=\$1:clips=\$1" runs
# FrameEval. Every line runs REPS times on each core, the cores alternating (the old one first on
# odd repetitions) so that drift in the machine's load hits both alike, and prints the median fps
# of each and new/old.
#
# Environment:
#   OLD        the build to compare against (required)
#   NEW        the build under test (default target/release/libvsvk.so)
#   THREADS    thread counts (default "1 $(nproc)")
#   FORMATS    formats of lines without one (default "YUV420P8 YUV420P16 YUV444PS")
#   REPS       runs per core and line (default 5)
#   ONLY       a regular expression: only the lines whose chain matches
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

SET_edit=(
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
SET_audio=(
  "audio:16|std.AudioGain:gain=0.5"
  "audio:f|std.AudioGain:gain=0.5"
  "audio:16|std.AudioMix:@clips:matrix=0.5:matrix=0.5:channels_out=2"
  "audio:f|std.AudioMix:@:clips=\$1:clips=\$1:matrix=0.5:matrix=0.5:matrix=0.25:matrix=0.25:matrix=0.25:matrix=0.25:matrix=0.5:matrix=0.5:channels_out=0:channels_out=1"
  "audio:16|std.AudioResample:samplerate=44100"
  "audio:16|std.AudioResample:bits=32"
  "audio:f|std.AudioResample:channels=2"
  "audio:16|std.AudioTrim:first=1000,std.AudioTrim:first=1000,std.AudioTrim:first=1000"
  "audio:16|std.AudioSplice:@:clips=\$1:clips=\$1,std.AudioTrim:first=5,std.AudioReverse"
)

fps() {  # core threads format frames chain
  local r src
  case $3 in
    audio:*)
      local fmt=(--bits 16)
      case ${3#audio:} in 32) fmt=(--bits 32) ;; f) fmt=(--float) ;; esac
      src=(--audio --samples 12288 --samplerate 48000 --channels 3 "${fmt[@]}")
      r=$("$D" "$1" --plugin "$N" --plugin "$F" --no-hash --threads "$2" --warmup 10 "${src[@]}" "std.AudioLoop:times=$4,$5" 2>&1 | tail -1) ;;
    *)
      r=$("$D" "$1" --plugin "$N" --plugin "$F" --no-hash --threads "$2" --warmup 10 --width 1920 --height 1080 --format "$3" --frames 1 \
        "std.Loop:times=$4,$5" 2>&1 | tail -1) ;;
  esac
  case $r in *fps=*) echo "${r##*fps=}" ;; *) echo "error: $r" >&2; echo nan ;; esac
}

# every LINE as FORMAT|CHAIN
lines=()
for a in "$@"; do
  case $a in
    edit) lines+=("${SET_edit[@]}") ;;
    audio) lines+=("${SET_audio[@]}") ;;
    *"|"*) lines+=("$a") ;;
    *) for f in ${FORMATS:-YUV420P8 YUV420P16 YUV444PS}; do lines+=("$f|$a"); done ;;
  esac
done

printf '%-7s %-9s %-50s %9s %9s %6s\n' threads format chain new old ratio
for t in ${THREADS:-1 $(nproc)}; do
  for line in "${lines[@]}"; do
    f=${line%%|*} ch=${line#*|}
    [[ -n "${ONLY:-}" && ! "$ch" =~ $ONLY ]] && continue
    # audio frames are many and cheap: probe longer, run a quarter as many loops of four frames
    case $f in audio:*) probe=$(fps "$OLD" "$t" "$f" 2000 "$ch"); div=4 min=100 ;; *) probe=$(fps "$OLD" "$t" "$f" 30 "$ch"); div=1 min=30 ;; esac
    n=$(python3 -c "import math; v=float('$probe'); print(max($min, int(v * ${SECONDS_PER_RUN:-1} / $div)) if math.isfinite(v) else $min)")
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
