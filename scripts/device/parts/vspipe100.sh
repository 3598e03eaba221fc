#!/bin/bash
# Issue 22's device check: R81's own vspipe and Python module running on our core (R81's package with
# libvsvk.so in place of its libvapoursynth.so.4), a GPU script (KNLMeans + NNEDI3, 1080p) run RUNS
# times (default 100): every run must write every frame, and the output must be R81's bytes each time.
# Before the getFrameAsync completion callbacks were serialised, 3 runs of 9 lost frames here.
set -u
RUNS=${RUNS:-100}
FRAMES=${FRAMES:-120}
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/r81 $KIT/whl/vapoursynth-81-*.whl || exit 1
chmod +x /tmp/r81/vapoursynth/vspipe
PYTHONPATH=/tmp/r81 python3 -m vapoursynth config 2>&1 | tail -1
# R81's package over our core: a copy of the package with our library in its place.
rm -rf /tmp/r81vsvk && cp -a /tmp/r81 /tmp/r81vsvk && cp "$CORE_OURS" /tmp/r81vsvk/vapoursynth/libvapoursynth.so.4
# VSScript's configuration is kept per copy of the package (by its libvsscript.so's path)
PYTHONPATH=/tmp/r81vsvk python3 -m vapoursynth config 2>&1 | tail -1
mkdir -p /tmp/r81vsvk/vapoursynth/plugins /tmp/r81/vapoursynth/plugins
for d in /tmp/r81 /tmp/r81vsvk; do cp -a $PLUGINS/libknlmvulkan.so $PLUGINS/nnedi3vk $d/vapoursynth/plugins/; done
cat > /tmp/knlm_nnedi3.vpy <<PY
import vapoursynth as vs
core = vs.core
c = core.std.BlankClip(width=1920, height=1080, format=vs.YUV420P8, length=$FRAMES, color=[90, 100, 160])
c = core.text.FrameNum(c, alignment=5, scale=8)
c = core.std.BoxBlur(c, hradius=3, vradius=3, planes=[0])
g = core.std.GPUUpload(c)
g = core.knlmvk.KNLMeans(g, d=1, a=2, h=1.2, channels='Y')
g = core.nnedi3vk.NNEDI3(g, field=1)
core.std.GPUDownload(g).set_output()
PY
PYTHONPATH=/tmp/r81 /tmp/r81/vapoursynth/vspipe /tmp/knlm_nnedi3.vpy - 2>/tmp/r81.err | md5sum > /tmp/ref.md5 || true
PYTHONPATH=/tmp/r81 /tmp/r81/vapoursynth/vspipe --info /tmp/knlm_nnedi3.vpy 2>&1 | head -8
echo "R81's own core: md5 $(cut -c1-12 /tmp/ref.md5); stderr: $(tail -2 /tmp/r81.err)"
runs() {  # runs LABEL N: N runs of R81's vspipe over the core in /tmp/r81vsvk; counts bad runs
  local label=$1 n=$2 bad=0 short=0 t0=$(date +%s) i rc frames
  for i in $(seq 1 $n); do
    PYTHONPATH=/tmp/r81vsvk /tmp/r81vsvk/vapoursynth/vspipe -p /tmp/knlm_nnedi3.vpy - 2>/tmp/run.err | md5sum > /tmp/run.md5
    rc=${PIPESTATUS[0]}
    frames=$(tr '\r' '\n' < /tmp/run.err | grep -o 'Output [0-9]* frames' | grep -o '[0-9]*' | tail -1)
    if [ "$rc" != 0 ] || [ "${frames:-0}" != "$FRAMES" ]; then short=$((short+1)); echo "$label run $i: rc=$rc frames=${frames:-?}: $(tail -c 300 /tmp/run.err)"; fi
    cmp -s /tmp/run.md5 /tmp/ref.md5 || { bad=$((bad+1)); echo "$label run $i: md5 $(cut -c1-12 /tmp/run.md5) differs from R81's"; }
  done
  echo "$label: R81's vspipe and module over it, $n runs of $FRAMES frames in $(( $(date +%s) - t0 )) s: $short runs with missing frames or errors, $bad runs whose output differs from R81's"
  [ $short = 0 ] && [ $bad = 0 ]
}
# The core before the fix, where the kit carries it (extra/old/libvsvk.so), for comparison.
if [ -f "$KIT/extra/old/libvsvk.so" ]; then
  cp "$KIT/extra/old/libvsvk.so" /tmp/r81vsvk/vapoursynth/libvapoursynth.so.4
  # it predates the autoloading of the package's plugins folder: named for it instead
  VSVK_PLUGIN_PATH=/tmp/r81vsvk/vapoursynth/plugins:/tmp/r81vsvk/vapoursynth/plugins/nnedi3vk runs "core before the fix" "${RUNS_OLD:-20}"
  cp "$CORE_OURS" /tmp/r81vsvk/vapoursynth/libvapoursynth.so.4
fi
runs "libvsvk.so" "$RUNS"
