#!/bin/bash
# Ray for the device machine (no network there; Python 3.12): the pinned Ray
# (tests/ecosystem/requirements-render.txt) and its dependencies, installed for CPython 3.12 on
# x86-64 into a folder, less what `vsvk render` never imports (Ray's Java jars and its libraries
# rllib, data, serve, train, tune, llm, workflow) and with its three big binaries stripped, packed
# as target/ray-kit/ray-site.tar.xz (28 MB; the wheels are 79 MB, over the device tool's 64 MiB by
# themselves). The render part unpacks it and puts it on PYTHONPATH.
# The full kit (kit.sh) is about 46 MB packed, so it cannot take Ray too: `--kit` packs a kit of
# its own for the render part instead, .devpack/dev.tar.xz (replacing kit.sh's; about 40 MB): the
# vsvk command and Python module, the 1.4 loader, the knlmvk and vsfeel plugins examples/gpu_chain.vpy
# loads, and Ray. Then carry [".gl", ".devpack"] and run scripts/device/run.sh render; run kit.sh
# again before other parts. (.gl is kit.sh's; run kit.sh once first where it is missing.)
# Usage: scripts/device/ray-kit.sh [--kit]   (after cargo build --release; needs the network once)
set -euo pipefail
cd "$(dirname "$0")/../.."
REQ=$(grep -E '^ray==' tests/ecosystem/requirements-render.txt)
W=target/ray-kit
OUTFILE=$W/ray-site.tar.xz
pack_kit() {
  local K=$W/stage/.dev REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
  rm -rf $W/stage && mkdir -p $K/python $K/plugins $K/vk $K/extra/target/ray-kit
  strip -o $K/vsvk target/release/vsvk
  strip -o $K/python/vsvk.abi3.so target/release/libvsvk_python.so
  cp -a $REF/plugins/libknlmvulkan.so $REF/plugins/vsfeel $K/plugins/
  cp -a $REF/loader/lib/libvulkan.so* $K/vk/
  cp $OUTFILE $K/extra/target/ray-kit/
  mkdir -p .devpack && tar -C $W/stage -cf - .dev | xz -T0 -6 > .devpack/dev.tar.xz
  rm -rf $W/stage
  du -sh .devpack/dev.tar.xz
}
if [ -f $OUTFILE ] && [ "$(cat $W/version 2>/dev/null)" = "$REQ" ]; then
  du -sh $OUTFILE
  if [ "${1:-}" = --kit ]; then pack_kit; fi
  exit 0
fi
rm -rf $W/site && mkdir -p $W/wheels
plat=(--python-version 3.12 --only-binary=:all: --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64
  --platform manylinux_2_28_x86_64 --platform any)
python3 -m pip download -q --disable-pip-version-check "${plat[@]}" -d $W/wheels "$REQ"
python3 -m pip install -q --disable-pip-version-check --no-index --find-links $W/wheels --no-compile \
  --target $W/site "${plat[@]}" "$REQ"
(
  cd $W/site
  rm -rf ray/jars ray/rllib ray/data ray/serve ray/train ray/tune ray/llm ray/workflow
  find . -name __pycache__ -prune -exec rm -rf {} +
  strip --strip-unneeded ray/_raylet.so ray/core/src/ray/gcs/gcs_server ray/core/src/ray/raylet/raylet
)
tar -C $W/site -cf - . | xz -T0 -6 > $OUTFILE.tmp
mv $OUTFILE.tmp $OUTFILE
echo "$REQ" > $W/version
du -sh $W/site $OUTFILE
if [ "${1:-}" = --kit ]; then pack_kit; fi
