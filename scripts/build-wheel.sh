#!/bin/bash
# Builds the pip wheel (target/wheels/vsvk-*.whl): maturin packs the Python module (python/) with the
# core library (libvsvk.so), vsvk's own plugins (vk, vkdec) and the C headers, staged here from
# the workspace's release build, and the `vsvk` command as a console script. The wheel is abi3
# (CPython 3.11+) and manylinux: it needs only glibc and libstdc++ of the system, and the system's
# Vulkan loader where a GPU is used, as R81's does.
# Usage: scripts/build-wheel.sh [maturin build options]; prints the wheel's path as its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "build-wheel: $*" >&2; }

if ! python3 -m maturin --version >/dev/null 2>&1 && ! command -v maturin >/dev/null; then
  say "installing maturin"
  python3 -m pip install -q --disable-pip-version-check "maturin>=1.8,<2" >&2
fi
maturin() { if command -v maturin >/dev/null; then command maturin "$@"; else python3 -m maturin "$@"; fi; }

cargo build --release -p vsvk-core -p vsvk-vk >&2
pkg=python/pysrc/vsvk
rm -rf "$pkg/plugins" "$pkg/include" "$pkg/libvsvk.so"
mkdir -p "$pkg/plugins" "$pkg/include"
# The release profile keeps debug information for profiling; the wheel does without it.
strip --strip-debug -o "$pkg/libvsvk.so" target/release/libvsvk.so
strip --strip-debug -o "$pkg/plugins/libvsvk_vk.so" target/release/libvsvk_vk.so
strip --strip-debug -o "$pkg/plugins/libvsvk_vkdecode.so" target/release/libvsvk_vkdecode.so
cp include/*.h "$pkg/include/"

out=target/wheels
rm -f "$out"/vsvk-*.whl
# manylinux_2_34: the newest glibc symbols the libraries use are GLIBC_2.34 (GLIBCXX_3.4.29).
maturin build --release --strip --compatibility manylinux_2_34 -m python/Cargo.toml -o "$out" "$@" >&2
ls "$out"/vsvk-*.whl | tail -1
