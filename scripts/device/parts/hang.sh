#!/bin/bash
# A vk chain run again and again on our core until one run stops delivering frames (one of the
# bench's vk.BoxBlur 2160p repetitions on the H100 timed out after 120 s on 2026-12-06). On a
# stall: each thread's kernel wait channel, the core's own stall report (VSVK_GPU_STALL_SECONDS,
# 8 s here: every unfinished submission by queue with what it waits for), the GPU's utilisation,
# and a backtrace of every thread where gdb is present.
# HANG_RUNS (default 40), HANG_CHAIN, HANG_SIZE (default 3840x2160), HANG_FORMAT (default YUV420P8),
# HANG_PLUGINS (R81's GPU plugins the chain needs, paths under $PLUGINS); HANG_ENVS: settings run
# in turn (space separated, X=1 for none; commas join several settings of one run), each stopping at
# its first stall.
set -u
out=$1
size=${HANG_SIZE:-3840x2160}
chain=${HANG_CHAIN:-std.Loop:times=1200,std.GPUUpload,vk.BoxBlur:hradius=2:vradius=2,std.GPUDownload}
extra=(); for p in ${HANG_PLUGINS:-}; do extra+=(--plugin "$PLUGINS/$p"); done
for env in ${HANG_ENVS:-X=1}; do
echo "--- $env"
stalled=0
for i in $(seq 1 "${HANG_RUNS:-40}"); do
  env VSVK_GPU_STALL_SECONDS=${HANG_REPORT_AFTER:-8} ${env//,/ } "$DRIVER" "$CORE_OURS" --plugin "$OURS/vsvknoise.so" --plugin "$OURS/libvsvk_vk.so" "${extra[@]}" --width ${size%x*} --height ${size#*x} \
    --format ${HANG_FORMAT:-YUV420P8} --frames 1 --no-hash --warmup 40 "$chain" > "$out/run.txt" 2>&1 &
  pid=$!
  for t in $(seq 1 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if kill -0 $pid 2>/dev/null; then
    echo "run $i: STALLED after 30 s"
    for d in /proc/$pid/task/*; do echo "  $(cat $d/comm) $(cat $d/wchan)"; done | sort | uniq -c
    if dmesg > "$out/dmesg.txt" 2>&1; then grep -i -E "xid|nvrm" "$out/dmesg.txt" | tail -5 | sed 's/^/  dmesg: /'; else echo "  dmesg: unreadable"; fi
    nvidia-smi --query-gpu=clocks_throttle_reasons.active,pstate,power.draw --format=csv,noheader 2>/dev/null | sed 's/^/  gpu state: /'
    nvidia-smi --query-gpu=utilization.gpu,memory.used,clocks.sm --format=csv,noheader 2>/dev/null | sed 's/^/  gpu: /'
    tag=$(echo "$env" | tr -c 'A-Za-z0-9_\n' _)
    cp "$out/run.txt" "$out/stall-$tag.txt"
    grep -v "^log\[1\]" "$out/run.txt" | head -60
    if command -v gdb >/dev/null; then gdb -p $pid -batch -ex "thread apply all bt 12" > "$out/stall-bt.txt" 2>&1; grep -c "^Thread" "$out/stall-bt.txt"; fi
    kill -9 $pid; wait $pid 2>/dev/null
    stalled=1
    break
  fi
  wait $pid
  echo "run $i: $(tail -1 "$out/run.txt" | grep -o 'fps=.*')"
done
[ $stalled = 1 ] || echo "no stall in ${HANG_RUNS:-40} runs"
done
