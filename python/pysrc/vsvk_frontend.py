"""Chooses which module `import vapoursynth` gives in this Python environment.

R81's `vapoursynth` package is always installed beside vsvk (every plugin wheel requires it), so
vsvk never replaces its files. Instead, where vsvk is chosen, a finder placed first on
`sys.meta_path` answers `import vapoursynth` with the vsvk module. vsvk's wheel installs
`vsvk-frontend.pth`, which runs `install_at_startup()` when the interpreter starts:

* `VSVK_FRONTEND=vsvk` or `VSVK_FRONTEND=r81` chooses for one run;
* otherwise the environment's choice: `vsvk frontend vsvk` writes `vsvk-frontend.choice` beside this
  file, `vsvk frontend r81` removes it (R81's module, the default).

Nothing here imports vsvk until a script imports vapoursynth.
"""
import importlib.abc
import importlib.util
import os
import sys

CHOICE_FILE = "vsvk-frontend.choice"


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        import vsvk

        return vsvk

    def exec_module(self, module):
        pass

    def get_code(self, fullname):
        # `python -m vapoursynth ARGS` runs the vsvk command, as R81's runs its own.
        return compile("import sys, vsvk; vsvk._main(sys.argv[1:])", "<vsvk>", "exec")


class VsvkFinder(importlib.abc.MetaPathFinder):
    """Answers `import vapoursynth` with vsvk; every other name is left to the other finders."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "vapoursynth":
            return None
        return importlib.util.spec_from_loader("vapoursynth", _Loader(), origin="vsvk")


def installed():
    return any(isinstance(f, VsvkFinder) for f in sys.meta_path)


def install():
    """Makes `import vapoursynth` give vsvk in this interpreter from now on."""
    if not installed():
        sys.meta_path.insert(0, VsvkFinder())


def uninstall():
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, VsvkFinder)]


def chosen():
    """'vsvk' or 'r81': this run's VSVK_FRONTEND, else the environment's choice."""
    run = os.environ.get("VSVK_FRONTEND", "").strip().lower()
    if run in ("vsvk", "r81"):
        return run
    here = os.path.dirname(os.path.abspath(__file__))
    return "vsvk" if os.path.isfile(os.path.join(here, CHOICE_FILE)) else "r81"


def install_at_startup():
    """What vsvk-frontend.pth runs when the interpreter starts."""
    if chosen() == "vsvk":
        install()
