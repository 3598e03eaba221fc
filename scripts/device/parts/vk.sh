#!/bin/bash
# Issue 6 on the H200: the vk plugin (plugins/vk, $OURS/libvsvk_vk.so from kit.sh).
# 1. Spot check at 1080p: vk.X on our core and on R81 against std.X on R81 (fingerprints equal:
#    integer formats, and the float filters that are exact by construction).
# 2. fps side by side at 1080p: the same chain as vk on our core, as vk on R81, as R81's CPU std;
#    and the published GPU plugins' vsfeel.GaussBlur / vsfeel.Box next to them.
set -u
VK=$OURS/libvsvk_vk.so
N=$OURS/vsvknoise.so
[ -f "$VK" ] || { echo "no $VK: build with cargo build --release -p vsvk-vk before kit.sh"; exit 1; }
drv() {  # core format chain [extra...]
  local core=$1 fmt=$2 chain=$3; shift 3
  "$DRIVER" "$core" --plugin "$N" --plugin "$VK" --plugin "$PLUGINS/vsfeel/libvsfeel.so" --format "$fmt" "$@" "$chain" 2>&1 | tail -1
}
hash() { local h=${1#*hash=}; echo "${h%% *}"; }
fps() { echo "${1##*fps=}"; }
# check LABEL FORMAT ORACLE_CHAIN VK_CHAIN: the oracle on R81, the vk chain (then a download) on
# both cores; SAME when all three fingerprints agree
check() {
  local label=$1 f=$2 a b r v
  a=$(drv "$CORE_REF" $f "$3" $S); b=$(drv "$CORE_OURS" $f "$4,std.GPUDownload" $S); r=$(drv "$CORE_REF" $f "$4,std.GPUDownload" $S)
  [ "$(hash "$a")" = "$(hash "$b")" ] && [ "$(hash "$a")" = "$(hash "$r")" ] && [ "${a:0:2}" = ok ] && v=SAME || v=DIFF
  printf '%-4s %-10s %s\n' $v $f "$label"
  [ $v = SAME ] || { echo "  oracle R81: $a"; echo "  vk ours: $b"; echo "  vk R81:  $r"; }
}
S="--width 1920 --height 1080 --frames 24"
if [ "${VK_FPS_ONLY:-0}" != 1 ]; then
echo "--- correctness at 1920x1080 (std on R81 | vk on ours | vk on R81)"
for c in "YUV420P8 NS.Invert" "YUV420P10 NS.Limiter:min=64.0:max=900.0" "YUV420P8 NS.Levels:min_in=16.0:max_in=235.0:gamma=1.3" \
         "YUV444P16 NS.Binarize" "YUV420P8 NS.FlipVertical,NS.Merge:@:clipa=\$0:clipb=\$1:weight=0.3" \
         "YUV420P8 NS.FlipVertical,NS.MakeDiff:@:clipa=\$0:clipb=\$1" "YUV420P8 NS.Crop:left=8:right=8:top=4:bottom=4" \
         "YUV420P8 NS.AddBorders:left=8:top=2" "YUV420P8 NS.Transpose" "GrayS NS.Turn180" \
         "YUV420P8 NS.Minimum" "YUV420P10 NS.Median" "GrayS NS.Inflate" "YUV444PS NS.Deflate" "YUV420P8 NS.PlaneStats:@clipa" \
         "YUV420P8 NS.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0" \
         "GrayS NS.Convolution:matrix=1.0:matrix=2.0:matrix=3.0:matrix=2.0:matrix=1.0:mode='h" \
         "YUV420P10 NS.BoxBlur:hradius=3:vradius=2:hpasses=2" "GrayS NS.BoxBlur:hradius=2:vradius=2" \
         "YUV420P8 NS.Sobel" "GrayS NS.Prewitt:scale=0.5"; do
  set -- $c
  check "$2" $1 "${2//NS./std.}" "${2//NS./vk.}"
done
for c in "YUV420P8|x 3 * 2 /" "YUV420P10|x y + 2 /" "GrayS|x x * 0.5 +" "GrayS|x y max z min"; do
  f=${c%%|*}; e=${c#*|}
  ex="NS.Invert,NS.Expr:@:clips=\$0:clips=\$1:clips=\$0:expr='$e"
  check "Expr $e" $f "${ex//NS./std.}" "${ex//NS./vk.}"
done
# the resizers against R81's resize (zimg): integer formats identical
for c in "YUV420P8 RS.Bicubic:width=1280:height=720" "YUV420P10 RS.Spline36:width=3840:height=2160" \
         "Gray16 RS.Lanczos:width=1000:height=600:src_left=0.5" "RGB24 RS.Bilinear:width=2560:height=1440" \
         "YUV422P8 RS.Point:width=960:height=540" "YUV420P16 RS.Spline64:width=1440:height=1080:chromaloc_in=2" \
         "YUV444P12 RS.Spline16:width=1918:height=1078:src_top=1.5"; do
  set -- $c
  check "$2" $1 "${2//RS./resize.}" "${2//RS./vk.}"
done
fi
if [ "${VK_EXTRA:-1}" = 1 ]; then
echo "--- more filters at 1920x1080 (std on R81 | vk on ours | vk on R81)"
seq 255 -1 0 > /tmp/lut8.txt
awk 'BEGIN { for (i = 0; i < 65536; i++) print int((i % 256 + int(i / 256) * 3) / 4) }' > /tmp/lut2.txt
for c in "YUV420P8 NS.Lut:lut=</tmp/lut8.txt" "YUV420P8 NS.FlipVertical,NS.Lut2:@:clipa=\$0:clipb=\$1:lut=</tmp/lut2.txt" "YUV420P8 NS.FlipVertical,NS.MaskedMerge:@:clipa=\$0:clipb=\$1:mask=\$0" \
         "YUV420P10 NS.FlipVertical,NS.MergeDiff:@:clipa=\$0:clipb=\$1" "YUV420P16 NS.Maximum" "RGB24 NS.FlipHorizontal" \
         "YUV420P8 NS.FlipVertical,NS.StackHorizontal:@:clips=\$0:clips=\$1" "YUV420P8 NS.FlipVertical,NS.StackVertical:@:clips=\$0:clips=\$1" \
         "YUV444P8 NS.ShufflePlanes:@clips:planes=2:planes=0:planes=1:colorfamily=3" "GrayS NS.Binarize:threshold=0.5" \
         "YUV420P8 NS.Turn180" "YUV444PS NS.Expr:@:clips=\$0:expr='x_0.5_*_0.25_+"; do
  set -- $c; e=${2//_/ }
  check "$e" $1 "${e//NS./std.}" "${e//NS./vk.}"
done
fi
[ "${VK_CHECK_ONLY:-0}" = 1 ] && exit 0  # the fingerprints alone
# fps: one noise frame looped (the source's cost left out), 40 frames of warm-up (past the
# requests in flight), then 600 timed
echo "--- fps at 1920x1080, 600 frames: vk on ours | vk on R81 | std (CPU) on R81"
S="--width 1920 --height 1080 --frames 1 --no-hash --warmup 40"
L="std.Loop:times=640"
for c in "YUV420P8 NS.Invert" \
         "YUV420P16 NS.Minimum,NS.Maximum,NS.Median" \
         "YUV420P8 NS.Levels:min_in=16.0:max_in=235.0,NS.Inflate,NS.Deflate,NS.Limiter:min=16.0:max=235.0" \
         "GrayS NS.Median,NS.Inflate,NS.FlipHorizontal" \
         "YUV420P8 NS.FlipVertical,NS.Merge:@:clipa=\$1:clipb=\$1,NS.Transpose,NS.Transpose,NS.Crop:left=8:right=8,NS.AddBorders:left=8:right=8"; do
  set -- $c
  b=$(drv "$CORE_OURS" $1 "$L,std.GPUUpload,${2//NS./vk.},std.GPUDownload" $S); r=$(drv "$CORE_REF" $1 "$L,std.GPUUpload,${2//NS./vk.},std.GPUDownload" $S); a=$(drv "$CORE_REF" $1 "$L,${2//NS./std.}" $S)
  printf '%-10s %-90s vk-ours=%8s vk-R81=%8s std-R81=%8s\n' $1 "$2" "$(fps "$b")" "$(fps "$r")" "$(fps "$a")"
done
for c in "YUV420P8 RS.Bicubic:width=1280:height=720" "YUV420P8 RS.Spline36:width=3840:height=2160" "YUV420P16 RS.Lanczos:width=2560:height=1440" "GrayS RS.Spline36:width=1280:height=720"; do
  set -- $c
  b=$(drv "$CORE_OURS" $1 "$L,std.GPUUpload,${2//RS./vk.},std.GPUDownload" $S); r=$(drv "$CORE_REF" $1 "$L,std.GPUUpload,${2//RS./vk.},std.GPUDownload" $S); a=$(drv "$CORE_REF" $1 "$L,${2//RS./resize.}" $S)
  printf '%-10s %-90s vk-ours=%8s vk-R81=%8s resize-R81=%8s\n' $1 "$2" "$(fps "$b")" "$(fps "$r")" "$(fps "$a")"
done
echo "--- published GPU plugins at 1920x1080 beside vk (ours | R81)"
for c in "GrayS vsfeel.GaussBlur" "GrayS vk.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0" \
         "GrayS vsfeel.Box" "GrayS vk.BoxBlur:hradius=1:vradius=1" "YUV420P16 vsfeel.Box" "YUV420P16 vk.BoxBlur:hradius=1:vradius=1" \
         "GrayS vk.Median" "GrayS vk.Inflate"; do
  set -- $c
  b=$(drv "$CORE_OURS" $1 "$L,std.GPUUpload,$2,std.GPUDownload" $S); r=$(drv "$CORE_REF" $1 "$L,std.GPUUpload,$2,std.GPUDownload" $S)
  printf '%-10s %-30s ours=%8s R81=%8s\n' $1 "$2" "$(fps "$b")" "$(fps "$r")"
done
