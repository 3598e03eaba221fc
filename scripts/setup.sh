#!/bin/bash
# Installs everything the tests need, on a Debian 12 machine, as root. Idempotent and quick when all is
# there already; prints the reference folder as its last line.
#
# Into $VSVK_REF (default ~/.cache/vsvk-ref):
#   x/                  the unpacked wheels: x/vapoursynth/libvapoursynth.so.4 (the reference core,
#                       VapourSynth R81), x/vapoursynth/include, x/*.libs (libraries bundled by wheels)
#   plugins/            the plugins from the plugin wheels, kept out of the core's autoload folder
#   loader/lib          a Vulkan 1.4 loader built from Debian trixie's vulkan-loader source package
#   src/hdr/usr/include the Vulkan 1.4 headers (trixie's libvulkan-dev)
#   ffmpeg/, dav1d/     FFmpeg 7.1.5 and dav1d, static and minimal, for plugins/vkdecode
#                       (scripts/setup-ffmpeg.sh)
#   win/                the Windows cross build's shaderc, R81's Windows wheel and plugin wheels, and
#                       the Wine prefix (scripts/setup-windows.sh)
#   wheels/, src/, apt/ downloads and apt state of this script
# On the machine: lavapipe (mesa-vulkan-drivers from bookworm-backports), cmake, and the static
# shaderc/glslang/SPIRV-Tools libraries compileGPUShader links (libshaderc-dev, glslang-dev, spirv-tools).
# (zimg, for the resize namespace, is built from third_party/zimg by cargo: README says why.)
#
# Package sources are derived from the machine's own apt configuration; wheels come through pip's
# defaults. VSVK_SETUP_NO_APT=1 skips every apt step (then what they bring must be there already).
set -euo pipefail

REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
say() { echo "setup: $*" >&2; }
die() { echo "setup: error: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

# The reference core and the plugin wheels, pinned: the oracle tests name their functions and arguments.
WHEELS=(
  vapoursynth==81
  vapoursynth-cas==3.0 vapoursynth-bwdif==5.1 vapoursynth-znedi3==3.3 vapoursynth-zsmooth==0.20.0
  vapoursynth-knlmeansvk==2.0 vapoursynth-nnedi3vk==1.0 vapoursynth-bm3dvk==1.0.0 vapoursynth-bm3dvk2==2.0
  vapoursynth-feel==1.3.0 vapoursynth-vszip==23.1.0 vapoursynth-edgemasks==4.1 vapoursynth-fillborders==4.0
  vapoursynth-sangnom==45.0 vapoursynth-descale==12 vapoursynth-eedi3==10.0 vapoursynth-eedi3vk2==1.0
  vapoursynth-dfttest2-cpu==11.1.0 vapoursynth-tivtc==4 vapoursynth-mvtools==29 vapoursynth-adaptivegrain==0.5.0
)

mkdir -p "$REF"/{wheels,x,plugins,src,apt/lists,apt/parts}

# ---- apt helpers ----------------------------------------------------------------------------------

APT_UPDATED=
apt_install() { # apt_install [apt-get install options] PACKAGE...
  [ -n "${VSVK_SETUP_NO_APT:-}" ] && die "needs 'apt-get install $*' but VSVK_SETUP_NO_APT is set"
  if [ -z "$APT_UPDATED" ]; then apt-get update -qq >/dev/null; APT_UPDATED=1; fi
  apt-get install -y -qq "$@" >/dev/null
}

# The machine's main Debian source, as one deb822 stanza with its Suites line replaced by $1.
debian_stanza() {
  local suite=$1 f=/etc/apt/sources.list.d/debian.sources
  if [ -f "$f" ]; then
    awk 'BEGIN { RS = ""; ORS = "\n\n" } !/security/ { print; exit }' "$f" |
      sed -e "s/^Suites:.*/Suites: $suite/" -e "s/^Types:.*/Types: deb/"
  elif [ -f /etc/apt/sources.list ]; then
    local uri
    uri=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' /etc/apt/sources.list)
    [ -n "$uri" ] || die "no Debian source found in /etc/apt/sources.list"
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n' "$uri" "$suite"
  else
    die "no apt sources to derive from (/etc/apt/sources.list.d/debian.sources)"
  fi
}

have_cmd() { command -v "$1" >/dev/null 2>&1; }

# ---- wheels -----------------------------------------------------------------------------------------

dist_info() { # vapoursynth-dfttest2-cpu==11.1.0 -> vapoursynth_dfttest2_cpu-11.1.0.dist-info
  local name=${1%%==*} version=${1##*==}
  echo "${name//-/_}-${version}.dist-info"
}

pip_download() {
  python3 -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform manylinux_2_24_x86_64 \
    --platform manylinux_2_26_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 \
    --platform manylinux_2_31_x86_64 --platform manylinux_2_34_x86_64 --platform linux_x86_64 --platform any \
    -d "$REF/wheels" "$1" >&2
}

wheel_file() { # the downloaded wheel of a pinned requirement, if any
  local name=${1%%==*} version=${1##*==} f
  for f in "$REF/wheels/${name//-/_}-${version}-"*.whl; do
    [ -f "$f" ] && { echo "$f"; return 0; }
  done
  return 0
}

unpack_wheel() { # unpack_wheel FILE: plugins to plugins/, everything else to x/, the dist-info last
  local stage="$REF/.stage"
  rm -rf "$stage"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$stage"
  if [ -d "$stage/vapoursynth/plugins" ]; then
    cp -a "$stage/vapoursynth/plugins/." "$REF/plugins/"
    rm -rf "$stage/vapoursynth/plugins"
  fi
  find "$stage" -name '*.so*' -type f -exec chmod 755 {} +
  local item
  for item in "$stage"/*; do
    case $item in *.dist-info) continue ;; esac
    cp -a "$item" "$REF/x/"
  done
  cp -a "$stage"/*.dist-info "$REF/x/"
  rm -rf "$stage"
}

missing=()
for req in "${WHEELS[@]}"; do
  [ -d "$REF/x/$(dist_info "$req")" ] || missing+=("$req")
done
if [ ${#missing[@]} -gt 0 ]; then
  have_cmd python3 || apt_install python3 python3-pip
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  for req in "${missing[@]}"; do
    whl=$(wheel_file "$req")
    if [ -z "$whl" ]; then
      say "downloading $req"
      pip_download "$req" || die "could not download the wheel $req"
      whl=$(wheel_file "$req")
      [ -n "$whl" ] || die "the download of $req left no wheel in $REF/wheels"
    fi
    say "unpacking $(basename "$whl")"
    unpack_wheel "$whl"
  done
fi
[ -f "$REF/x/vapoursynth/libvapoursynth.so.4" ] || die "no reference core at $REF/x/vapoursynth/libvapoursynth.so.4"

# ---- lavapipe from bookworm-backports ----------------------------------------------------------------

lavapipe_ok() {
  [ -f /usr/share/vulkan/icd.d/lvp_icd.json ] &&
    grep -Eq '"api_version": *"1\.(4|[5-9])' /usr/share/vulkan/icd.d/lvp_icd.json
}
if ! lavapipe_ok; then
  [ -n "${VSVK_SETUP_NO_APT:-}" ] && die "lavapipe with Vulkan 1.4 is missing and VSVK_SETUP_NO_APT is set"
  if ! grep -rqs '^Suites:.*bookworm-backports\|^deb .* bookworm-backports' /etc/apt/sources.list.d/ /etc/apt/sources.list; then
    say "adding bookworm-backports to apt's sources"
    debian_stanza bookworm-backports > /etc/apt/sources.list.d/vsvk-bookworm-backports.sources
    APT_UPDATED=
  fi
  say "installing lavapipe (mesa-vulkan-drivers from bookworm-backports)"
  apt_install -t bookworm-backports mesa-vulkan-drivers
  lavapipe_ok || die "lavapipe was installed but does not offer Vulkan 1.4"
fi

# ---- Vulkan 1.4 loader and headers from trixie's source -----------------------------------------------

if [ ! -f "$REF/loader/lib/libvulkan.so.1" ] || [ ! -f "$REF/src/hdr/usr/include/vulkan/vulkan_core.h" ]; then
  have_cmd cmake || apt_install cmake
  have_cmd make && have_cmd gcc && have_cmd g++ || apt_install build-essential
  have_cmd python3 || apt_install python3
  debian_stanza trixie > "$REF/apt/parts/trixie.sources"
  sed -e 's/^Types: deb$/Types: deb-src/' "$REF/apt/parts/trixie.sources" > "$REF/apt/parts/trixie-src.sources"
  aptx=(-o APT::Sandbox::User=root -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$REF/apt/parts" -o "Dir::State::Lists=$REF/apt/lists")
  if ! ls "$REF"/src/vulkan-loader_*.orig.tar.* >/dev/null 2>&1 || ! ls "$REF"/src/libvulkan-dev_*.deb >/dev/null 2>&1; then
    say "fetching trixie's vulkan-loader source and libvulkan-dev"
    apt-get "${aptx[@]}" update -qq >/dev/null
    (cd "$REF/src" && apt-get "${aptx[@]}" source --download-only vulkan-loader >/dev/null &&
      apt-get "${aptx[@]}" download libvulkan-dev >/dev/null)
  fi
  say "building the Vulkan loader"
  (
    cd "$REF/src"
    debs=(libvulkan-dev_*.deb) origs=(vulkan-loader_*.orig.tar.*)
    rm -rf hdr && dpkg -x "${debs[0]}" hdr
    orig=${origs[0]}
    dir=$(tar tf "$orig" | awk -F/ 'NR == 1 { print $1 }')
    rm -rf "$dir" && tar xf "$orig"
    mkdir -p "$dir/loader/generated" "$dir/build"
    cd "$dir/build"
    cmake .. -DCMAKE_BUILD_TYPE=Release -DLOADER_CODEGEN=ON -DVULKAN_HEADERS_INSTALL_DIR="$REF/src/hdr/usr" \
      -DCMAKE_INSTALL_PREFIX="$REF/loader" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_WSI_WAYLAND_SUPPORT=OFF \
      -DBUILD_WSI_XCB_SUPPORT=OFF -DBUILD_WSI_XLIB_SUPPORT=OFF -DBUILD_TESTS=OFF >/dev/null
    make loader_codegen >/dev/null 2>&1 # regenerates the loader sources that depend on these headers
    cmake .. >/dev/null
    make -j"$(nproc)" >/dev/null
    make install >/dev/null
  )
  [ -f "$REF/loader/lib/libvulkan.so.1" ] || die "the Vulkan loader build left no $REF/loader/lib/libvulkan.so.1"
fi

# ---- FFmpeg for the vkdecode plugin (static, minimal, from trixie's source) ---------------------------

# shellcheck source=scripts/setup-ffmpeg.sh
. "$(dirname "$0")/setup-ffmpeg.sh"

# ---- the Windows cross build and Wine (tests/tests/windows.rs) -------------------------------------------

# shellcheck source=scripts/setup-windows.sh
. "$(dirname "$0")/setup-windows.sh"

# ---- tools the tests use --------------------------------------------------------------------------------

have_cmd gcc || apt_install gcc libc6-dev

# The vsvk command runs scripts in $VSVK_PYTHON (default python3, 3.11 or newer); the Python module's
# tests (tests/python/) need NumPy there, and the vsvk pipe tests ffmpeg to read what it writes.
PY=${VSVK_PYTHON:-python3}
have_cmd "$PY" || apt_install python3
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "$PY is older than Python 3.11 (set VSVK_PYTHON to a newer one)"
if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
  say "installing NumPy for $PY"
  if [ "$(command -v "$PY")" = /usr/bin/python3 ] || ! "$PY" -m pip install -q numpy >&2; then
    apt_install python3-numpy # Debian's own python3 is managed by apt
  fi
  "$PY" -c 'import numpy' >/dev/null 2>&1 || die "NumPy is still missing for $PY"
fi
have_cmd ffmpeg && have_cmd ffprobe || apt_install ffmpeg
# vsvk render's tests (tests/python/test_render.py) run Ray in that Python: the pinned version.
RAY_REQ=$(grep -E '^ray==' "$(dirname "$0")/../tests/ecosystem/requirements-render.txt")
if ! "$PY" -c "import ray, sys; sys.exit(ray.__version__ != '${RAY_REQ#ray==}')" >/dev/null 2>&1; then
  say "installing $RAY_REQ for $PY"
  # (Debian's own python3 refuses pip without --break-system-packages, and has no Ray package)
  "$PY" -m pip install -q --disable-pip-version-check "$RAY_REQ" >&2 ||
    "$PY" -m pip install -q --disable-pip-version-check --break-system-packages "$RAY_REQ" >&2 ||
    die "could not install $RAY_REQ for $PY (vsvk render's tests need it)"
fi

# compileGPUShader links shaderc statically: one archive merged from Debian's libshaderc_combined.a
# (which, unlike upstream's, lacks glslang and SPIRV-Tools) and the glslang and SPIRV-Tools archives,
# at target/shaderc, where .cargo/config.toml points shaderc-sys (SHADERC_LIB_DIR).
SYSLIB=/usr/lib/x86_64-linux-gnu
for lib in libshaderc_combined.a libglslang.a libSPIRV-Tools.a; do
  [ -f "$SYSLIB/$lib" ] || { apt_install libshaderc-dev glslang-dev spirv-tools; break; }
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MERGED="$ROOT/target/shaderc/libshaderc_combined.a"
if [ ! -f "$MERGED" ]; then
  have_cmd ar || apt_install binutils
  mkdir -p "$(dirname "$MERGED")"
  {
    echo "CREATE $MERGED.tmp"
    for l in shaderc_combined glslang MachineIndependent OSDependent GenericCodeGen OGLCompiler SPIRV \
      glslang-default-resource-limits SPIRV-Tools-opt SPIRV-Tools; do
      [ -f "$SYSLIB/lib$l.a" ] && echo "ADDLIB $SYSLIB/lib$l.a"
    done
    echo SAVE
    echo END
  } | ar -M
  mv "$MERGED.tmp" "$MERGED"
fi

echo "$REF"
