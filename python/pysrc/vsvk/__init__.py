"""vsvk: a VapourSynth-compatible frame server core, with the GPU at its centre.

The module proper is the native extension beside this file; this package only carries it with the
core library (libvsvk.so, for C hosts and for `vsvk with-core`) and vsvk's own plugins (plugins/).
Importing the package gives the extension module itself, so `import vsvk` is the same object in a
wheel as in a development build (target/release/vsvk-python), and so is `import vapoursynth` where
vsvk is the frontend (see vsvk_frontend).
"""
import os
import sys

from . import vsvk as _native


def _console():
    """The `vsvk` command of a pip installation (console script)."""
    args = sys.argv[1:]
    if args[:1] == ["python"]:
        # A Python with vsvk as the frontend, as the development build's `vsvk python` gives.
        os.environ["VSVK_FRONTEND"] = "vsvk"
        os.execv(sys.executable, [sys.executable, *args[1:]])
    _native._main(args)


_native._console = _console
# Imported as vsvk.vsvk, the extension names itself so; as the package's stand-in it is vsvk.
_native.__name__ = __name__
sys.modules[__name__] = _native
