# Names of R81's module that only its own machinery uses, here so that code importing them
# (vstools imports them all) finds them: classes that cannot be instantiated, and no C API table.
# Run in the module's namespace after environment.py (lib.rs).


def _try_enable_introspection(version=None):
    return True


def _internal_class(name):
    def __init__(self, *args, **kwargs):
        raise RuntimeError("Cannot directly instantiate this class.")

    return type(name, (), {"__init__": __init__, "__module__": __name__})


CallbackData = _internal_class("CallbackData")
FuncData = _internal_class("FuncData")
FramePtr = _internal_class("FramePtr")
__pyx_capi__ = {}
