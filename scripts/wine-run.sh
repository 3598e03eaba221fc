#!/bin/bash
# Cargo's runner for x86_64-pc-windows-gnu (.cargo/config.toml): runs a Windows program under Wine, in
# the prefix scripts/setup.sh creates, quietly. VSVK_REF is the set-up folder (default as setup.sh's).
set -euo pipefail
REF=${VSVK_REF:-$HOME/.cache/vsvk-ref}
export WINEPREFIX=${WINEPREFIX:-$REF/win/prefix}
export WINEDEBUG=${WINEDEBUG:--all}
exec wine "$@"
