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
    "$D" "$core" --plugin "$N" --plugin "$plugin" --no-hash --warmup 5 --width 1920 --height 1080 --format $fmt --frames 1 \
    "std.Loop:times=$frames,std.GPUUpload,$chain,std.GPUDownload" 2>&1 | grep -v "^\[" | tail -2
  LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" report -i $out --no-children --stdio --sort dso,sym 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -${TOP:-14}
  LD_LIBRARY_PATH=$P:$LD_LIBRARY_PATH "$PERF_BIN" report -i $out --no-children --stdio --sort comm 2>/dev/null | grep -E '^ +[0-9]+\.[0-9]+%' | head -6
}
[ -x "$PERF_BIN" ] || { echo "no perf in the kit"; exit 1; }
for core in ours R81; do
  c=$CORE_OURS; [ $core = R81 ] && c=$CORE_REF
  echo "=== $core vsfeel.GaussBlur GrayS 1080p"
  prof gauss-$core "$c" "$PLUGINS/vsfeel/libvsfeel.so" GrayS 600 vsfeel.GaussBlur
  echo "=== $core knlmvk.KNLMeans YUV420P8 1080p"
  prof knlm-$core "$c" "$PLUGINS/libknlmvulkan.so" YUV420P8 600 knlmvk.KNLMeans:h=1.2
done
