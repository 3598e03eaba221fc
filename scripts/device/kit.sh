#!/bin/bash
# Assembles .dev/ (ignored by git) for one H200 call through the device tool: our core, R81, the GPU
# plugins, the 1.4 loader and the oracle driver, all x86-64 builds made here. The device machine
# has no network, so everything a benchmark or test there needs travels in .dev (and .gl, glvnd).
# Usage: scripts/device/kit.sh   (after cargo build --release and the oracle driver build)
# Carry [".gl", ".devpack"] and start the command with: scripts/device/run.sh PART...
# (.dev is over the device tool's 64 MiB by itself; it travels as .devpack/dev.tar.xz.)
set -euo pipefail
cd "$(dirname "$0")/../.."
REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
K=.dev
# VSVK_KIT_LEAN=1 leaves out R81, its plugins, the wheel and perf: a kit for parts that run only our
# core and our plugins (decode), small enough to travel beside large test streams.
LEAN=${VSVK_KIT_LEAN:-}
EXCLUDE=$(git rev-parse --git-path info/exclude) # .git is a file in a worktree
for p in /.dev/ /.devpack/ /.gl/; do grep -qx "$p" "$EXCLUDE" 2>/dev/null || echo "$p" >> "$EXCLUDE"; done
rm -rf $K; mkdir -p $K/ref $K/plugins $K/vk $K/lib $K/ours $K/python
strip -o $K/libvsvk.so target/release/libvsvk.so
cp -a $REF/loader/lib/libvulkan.so* $K/vk/
if [ -z "$LEAN" ]; then
  cp -a $REF/x/vapoursynth/libvapoursynth.so.4 $REF/x/vapoursynth/libvapoursynthfilters*.so $K/ref/
  for p in libknlmvulkan.so bm3dvk2.so eedi3vk2.so nnedi3vk vsfeel cas.so; do cp -a $REF/plugins/$p $K/plugins/; done
fi
cp target/vsvk-oracle/driver $K/ 2>/dev/null || true
# vsvk pipe against R81's vspipe: our launcher, and R81's wheel (its vspipe and Python module).
cp target/release/vsvk $K/ 2>/dev/null && strip $K/vsvk
[ -n "$LEAN" ] || { mkdir -p $K/whl && cp $REF/wheels/vapoursynth-81-*.whl $K/whl/; }
cp target/vsvk-oracle/*.so $K/ours/ 2>/dev/null || true
# Our own cdylib plugins and the Python module, where built.
for f in target/release/libvsvk_vk.so target/release/libvsvk_vkdecode.so; do [ -f $f ] && strip -o $K/ours/$(basename $f) $f; done
if [ -d target/release/vsvk-python ]; then
  for f in target/release/vsvk-python/*; do
    case $f in *.so) strip -o $K/python/$(basename $f) $f ;; *) cp -a $f $K/python/ ;; esac
  done
fi
# Extra files a part asks for: one path per line in scripts/device/kit-extra.txt, relative to the repo,
# or starting with $REF/ for the set-up's folder (copied to extra/ref/...), so no machine path is named.
if [ -f scripts/device/kit-extra.txt ]; then
  while read -r f; do
    [ -n "$f" ] || continue
    case $f in '$REF/'*) src=$REF/${f#\$REF/} dst=ref/${f#\$REF/} ;; *) src=$f dst=$f ;; esac
    [ -e "$src" ] && { mkdir -p "$K/extra/$(dirname "$dst")"; cp -a "$src" "$K/extra/$dst"; }
  done < scripts/device/kit-extra.txt
fi
# The tracing layer (bench/vktrace), for the vktrace part.
bench/vktrace/build.sh $K/vktrace >/dev/null
# The queue-pair bandwidth probe (bench/vkcopy), for the vkcopy part.
bench/vkcopy/build.sh $K/vkcopy >/dev/null || echo "kit: vkcopy left out (it needs spirv-as, from spirv-tools)" >&2
# perf and the libraries it needs beyond glibc, for the profile part (the device image has none).
mkdir -p $K/perf
[ -z "$LEAN" ] && cp -L /usr/bin/perf $K/perf/ 2>/dev/null && for l in $(ldd /usr/bin/perf | awk '$3 ~ /^\// {print $3}'); do
  case $(basename $l) in libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libz.so*|liblzma.so*|libzstd.so*|libcrypt.so*) ;; *) cp -L $l $K/perf/ ;; esac
done
# glvnd and a Vulkan 1.3 loader as .debs (the device README's recipe), for the 1.3-loader check.
if [ ! -d .gl ] || [ -z "$(ls .gl/*.deb 2>/dev/null)" ]; then
  mkdir -p .gl /tmp/amd64/partial
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  apt-get $o update >/dev/null && (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
fi
mkdir -p .devpack && tar -cf - $K | xz -T0 -6 > .devpack/dev.tar.xz
du -sh $K .gl .devpack
