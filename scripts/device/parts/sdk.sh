#!/bin/bash
# Issue 7 on the H200: the SDK examples built there with one make command (nvcc included, Vulkan
# 1.4 headers from the kit), the CUDA example on our core (and R81) against std.Invert, the C
# examples and the driver example on both cores, and the DLPack hand-off to PyTorch (and CuPy)
# checked against the frames read back. Prints SAME/DIFF lines and "sdk: N failures" at the end.
set -u
fails=0
export PATH=$PATH:/usr/local/cuda/bin
B=/tmp/sdkbuild
VKINC=$(find "$KIT/extra" -path '*/usr/include/vulkan/vulkan_core.h' 2>/dev/null | head -1)
VKINC=${VKINC%/vulkan/vulkan_core.h}
[ -n "$VKINC" ] || { VKINC=/usr/include; echo "note: no Vulkan headers in the kit, trying $VKINC"; }
echo "--- make (nvcc: $(command -v nvcc || echo none); Vulkan headers: $VKINC)"
if make -C sdk-examples BUILD=$B VULKAN_INCLUDE="$VKINC" CUDA_ARCH=${CUDA_ARCH:-sm_90} -B -k > /tmp/make.log 2>&1; then
  echo "make ok, warnings: $(grep -c 'warning' /tmp/make.log)"
else
  echo "make FAILED"; tail -30 /tmp/make.log; fails=$((fails+1))
fi
grep -i 'warning' /tmp/make.log | head -10
ls $B

drv() {  # core plugins(space separated) format size chain [extra]
  local core=$1 plugins=$2 fmt=$3 size=$4 chain=$5 p; shift 5
  local args=(--plugin "$OURS/vsvknoise.so")
  for p in $plugins; do args+=(--plugin "$p"); done
  "$DRIVER" "$core" "${args[@]}" --format "$fmt" --width ${size%x*} --height ${size#*x} --frames 10 "$@" "$chain" 2>&1 | tail -1
}
hash_of() { local h=${1#*hash=}; echo "${h%% *}"; }
check() {  # label core plugin ns format size [extra]
  local label=$1 core=$2 plugin=$3 ns=$4 fmt=$5 size=$6; shift 6
  local want got
  want=$(drv "$core" "" "$fmt" "$size" std.Invert "$@")
  got=$(drv "$core" "$plugin" "$fmt" "$size" "std.GPUUpload,$ns.Invert,std.GPUDownload" "$@")
  if [ "${got:0:2}" = ok ] && [ "$(hash_of "$got")" = "$(hash_of "$want")" ]; then v=SAME; else v=DIFF; fails=$((fails+1)); fi
  printf '%-4s %-6s %-14s %-10s %-9s %s fps=%s\n' $v "$label" "$ns" "$fmt" "$size" "$(hash_of "$got")" "${got##*fps=}"
  [ $v = SAME ] || { echo "  std.Invert: $want"; echo "  $ns: $got"; }
}

echo "--- CUDA example (gpucudainvert) vs std.Invert"
CU=$B/gpu_cuda_invert_example.so
if [ -f $CU ]; then
  for core in ours R81; do
    c=$CORE_OURS; [ $core = R81 ] && c=$CORE_REF
    for f in Gray8 Gray16 GrayH GrayS YUV420P8 YUV420P10 YUV422P16 YUV444PH YUV444PS RGB24 RGB48 RGBS; do
      check $core "$c" $CU gpucudainvert $f 66x42
    done
    check $core "$c" $CU gpucudainvert YUV420P16 1920x1080 --threads 8 --requests 32
    # three CUDA inverts in a row (each waits the last one's timeline from its stream), many in flight
    a=$(drv "$c" $CU YUV420P8 640x360 "std.GPUUpload,gpucudainvert.Invert,gpucudainvert.Invert,gpucudainvert.Invert,std.GPUDownload" --threads 8 --requests 32)
    b=$(drv "$c" "" YUV420P8 640x360 std.Invert --threads 8 --requests 32)
    [ "$(hash_of "$a")" = "$(hash_of "$b")" ] && v=SAME || { v=DIFF; fails=$((fails+1)); }
    echo "$v $core three CUDA inverts: $a"
    # CUDA between two Vulkan filters of the exec pool example
    a=$(drv "$c" "$CU $B/gpu_invert_example.so" YUV444PS 640x360 "std.GPUUpload,gpuinvert.Invert,gpucudainvert.Invert,gpuinvert.Invert,std.GPUDownload")
    [ "$(hash_of "$a")" = "$(hash_of "$(drv "$c" "" YUV444PS 640x360 std.Invert)")" ] && v=SAME || { v=DIFF; fails=$((fails+1)); }
    echo "$v $core vulkan/cuda/vulkan: $a"
  done
else
  echo "DIFF no CUDA example was built"; fails=$((fails+1))
fi

echo "--- C examples vs std.Invert"
for core in ours R81; do
  c=$CORE_OURS; [ $core = R81 ] && c=$CORE_REF
  for f in Gray8 YUV420P10 YUV444PH RGBS; do
    check $core "$c" $B/gpu_invert_example.so gpuinvert $f 66x42
    check $core "$c" $B/gpu_invert_raw_example.so gpuinvertraw $f 66x42
  done
  check $core "$c" $B/gpu_invert_raw_example.so gpuinvertraw YUV420P16 1920x1080 --threads 8 --requests 32
done

echo "--- driver example"
for c in "$CORE_OURS" "$CORE_REF"; do
  out=$($B/gpu_invert_driver_example "$c" --plugin $B/gpu_invert_example.so --format YUV420P10 --width 1920 --height 1080 --frames 6 2>&1)
  echo "$out" | grep -v '^device [1-9]'
  echo "$out" | tail -1 | grep -q '^ok ' || fails=$((fails+1))
done

echo "--- DLPack (torch, cupy)"
python3 -c 'import torch, sys; print("torch", torch.__version__, torch.cuda.is_available())' 2>&1 | tail -1
python3 -c 'import cupy; print("cupy", cupy.__version__)' 2>&1 | tail -1
if PYTHONPATH=$PYMOD${PYTHONPATH:+:$PYTHONPATH} timeout 200 python3 examples/dlpack_torch.py --plugin $B/gpu_invert_example.so \
     --format YUV420P10 --format GrayS --format YUV444PH --format RGB24 --frames 6 --size 1920x1080 2>&1 | tail -12 | tee /tmp/dlpack.log; then :; fi
tail -1 /tmp/dlpack.log | grep -q '^ok planes=' || fails=$((fails+1))
echo "sdk: $fails failures"
