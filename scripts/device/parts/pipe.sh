#!/bin/bash
# `vsvk pipe` against R81's `vspipe` on the same scripts (examples/gpu_chain.vpy at 1080p and a CPU std
# chain), alternating, 3 runs each; prints wall seconds, fps and the output's md5 for each.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/r81 $KIT/whl/vapoursynth-81-*.whl || exit 1
chmod +x /tmp/r81/vapoursynth/vspipe
# R81's VSScript needs to be told which Python to embed (it says so otherwise)
PYTHONPATH=/tmp/r81 python3 -m vapoursynth config 2>&1 | tail -2
export VSVK_REF=$KIT VSVK_PYTHON_MODULE=$PYMOD/vsvk.abi3.so
cat > /tmp/std_chain.vpy <<'PY'
import vapoursynth as vs
core = vs.core
n = int(globals().get('frames', 240))
c = core.std.BlankClip(width=1920, height=1080, format=vs.YUV420P8, length=n, color=[90, 100, 160])
c = core.text.FrameNum(c, alignment=5, scale=8)
c = core.std.BoxBlur(c, hradius=2, vradius=2)
c = core.std.Expr(c, ['x 1.2 * 10 -', ''])
c = core.std.Convolution(c, [1, 2, 1, 2, 4, 2, 1, 2, 1])
c = core.resize.Bicubic(c, 1280, 720)
c.set_output()
PY
run() {  # name cmd...
  local t0=$(date +%s%N)
  rm -f /tmp/pipe.out
  "${@:2}" /tmp/pipe.out 2>/tmp/pipe.err; local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  printf '%-6s rc=%d %6d ms  md5=%s\n' "$1" $rc $ms "$(md5sum < /tmp/pipe.out | cut -c1-12)"
  [ $rc = 0 ] || tail -5 /tmp/pipe.err
}
for case in "std_chain /tmp/std_chain.vpy -a frames=240" "gpu_chain examples/gpu_chain.vpy -a width=1920 -a height=1080 -a frames=120"; do
  set -- $case; name=$1; script=$2; shift 2
  echo "--- $name ($script $*)"
  for rep in 1 2 3; do
    PYTHONPATH=/tmp/r81 run R81 /tmp/r81/vapoursynth/vspipe "$@" "$script"
    run vsvk $KIT/vsvk pipe "$@" "$script"
  done
done
