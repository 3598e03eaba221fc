# Python signatures of plugin functions, built from their argument strings
# ("name:type[]:opt;..."), as inspect and type checkers see them; and the names of R81's module
# that only its own machinery uses (placeholders that cannot be instantiated). Run in the
# module's namespace after environment.py (lib.rs).
import inspect as _inspect
import typing as _typing

_BASE_TYPES = {
    "int": int,
    "float": float,
    "data": _typing.Union[str, bytes, bytearray],
    "func": _typing.Union[Func, _typing.Callable],
    "vnode": VideoNode,
    "anode": AudioNode,
    "vframe": VideoFrame,
    "aframe": AudioFrame,
}


def _construct_type(signature):
    """The Python type of one argument type ("int", "vnode[]", ...)."""
    array = signature.endswith("[]")
    base = signature[:-2] if array else signature
    try:
        t = _BASE_TYPES[base]
    except KeyError:
        raise ValueError(f"unknown argument type {signature!r}") from None
    if array:
        return _typing.Union[t, _typing.Sequence[t]]
    return t


def _construct_parameter(signature):
    """The inspect.Parameter of one argument ("name:type[:opt|:empty]")."""
    name, type_, *flags = signature.split(":")
    t = _construct_type(type_)
    if "opt" in flags or "empty" in flags:
        return _inspect.Parameter(name, _inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None, annotation=_typing.Optional[t])
    return _inspect.Parameter(name, _inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=t)


def _return_annotation(return_signature):
    if return_signature == "any":
        return _typing.Any
    parts = [p for p in return_signature.split(";") if p]
    if not parts:
        return None
    if len(parts) == 1:
        return _construct_type(parts[0].split(":")[1])
    fields = {}
    for p in parts:
        name, type_, *_ = p.split(":")
        fields[name] = _construct_type(type_)
    return _typing.TypedDict("_ReturnDict", fields)


def construct_signature(signature, return_signature, injected=None, name=None):
    """An inspect.Signature from an argument string and a return string; `injected` drops the
    first argument (the clip a function is called on)."""
    params = [_construct_parameter(p) for p in signature.split(";") if p]
    if injected:
        params = params[1:]
    return _inspect.Signature(params, return_annotation=_return_annotation(return_signature))


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
