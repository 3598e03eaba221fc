#!/usr/bin/env bash
# Before/after A/B of the audio functions (issue 27, std audio moved to vsvk-std): two builds of
# our core, OLD and NEW, alternating (OLD first on odd repetitions), median fps (audio frames of
# 3072 samples per second) of REPS runs each. The source is four frames of vsvknoise.NoiseAudio
# looped with std.AudioLoop, so that noise generation stays out of the figures.
#
# usage: OLD=path/to/old/libvsvk.so [NEW=target/release/libvsvk.so] bench/std-audio-ab.sh
# Environment: REPS (default 5), THREADS (default "1 2"), ONLY (a regex on the chains),
#   SECONDS_PER_RUN (default 1), VSVK_REF (the reference folder, for the loader library);
#   the driver and noise plugin of bench/std-sweep.sh (run it once first).
set -euo pipefail
set -f
OLD=${OLD:?old core} NEW=${NEW:-target/release/libvsvk.so}
D=target/vsvk-bench/driver N=target/vsvk-bench/vsvknoise.so REPS=${REPS:-5}
export LD_LIBRARY_PATH=${VSVK_REF:-$HOME/.cache/vsvk-ref}/loader/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fps() {  # core threads bits(16|32|f) frames chain
  local r fmt=(--bits 16)
  case $3 in 32) fmt=(--bits 32) ;; f) fmt=(--float) ;; esac
  r=$("$D" "$1" --plugin "$N" --no-hash --threads "$2" --warmup 10 --audio --samples 12288 --samplerate 48000 --channels 3 "${fmt[@]}" \
    "std.AudioLoop:times=$4,$5" 2>&1 | tail -1)
  case $r in *fps=*) echo "${r##*fps=}" ;; *) echo "error: $r" >&2; echo nan ;; esac
}
LINES=(
  "16|std.AudioGain:gain=0.5"
  "f|std.AudioGain:gain=0.5"
  "16|std.AudioMix:@clips:matrix=0.5:matrix=0.5:channels_out=2"
  "f|std.AudioMix:@:clips=\$1:clips=\$1:matrix=0.5:matrix=0.5:matrix=0.25:matrix=0.25:matrix=0.25:matrix=0.25:matrix=0.5:matrix=0.5:channels_out=0:channels_out=1"
  "16|std.AudioResample:samplerate=44100"
  "16|std.AudioResample:bits=32"
  "f|std.AudioResample:channels=2"
  "16|std.AudioTrim:first=1000,std.AudioTrim:first=1000,std.AudioTrim:first=1000"
  "16|std.AudioSplice:@:clips=\$1:clips=\$1,std.AudioTrim:first=5,std.AudioReverse"
)
printf '%-7s %-5s %-90s %9s %9s %6s\n' threads bits chain after before ratio
for t in ${THREADS:-1 2}; do
  for line in "${LINES[@]}"; do
    f=${line%%|*} ch=${line#*|}
    [[ -n "${ONLY:-}" && ! "$ch" =~ $ONLY ]] && continue
    probe=$(fps "$OLD" "$t" "$f" 2000 "$ch")
    n=$(python3 -c "import math; v=float('$probe'); print(max(100, int(v * ${SECONDS_PER_RUN:-1} / 4)) if math.isfinite(v) else 100)")
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
print(f"{t:<7} {f:<5} {ch:<90} {x:9.1f} {y:9.1f} {x / y:6.2f}   after:{a} before:{b}")
PY
  done
done
