# The vsvk module's small Python-side objects that R81's module also has: ChannelLayout and the
# functions that tell where things are (get_plugin_dir, get_include, ...). Run once in the module's
# namespace when it is imported, after constants.py; `_autoload_folders` is put there by the Rust
# side beforehand.
import os as _os


class ChannelLayout(int):
    """An audio clip's or frame's channel layout: an int (bit n set for AudioChannels n) that also
    answers `in`, len() and iteration with its channels."""

    __slots__ = ()

    def _channels(self):
        return [AudioChannels(bit) if bit in AudioChannels._value2member_map_ else bit
                for bit in range(int(self).bit_length()) if int(self) >> bit & 1]

    def __contains__(self, channel):
        try:
            bit = int(channel)
        except (TypeError, ValueError):
            return False
        return 0 <= bit < 64 and bool(int(self) >> bit & 1)

    def __iter__(self):
        return iter(self._channels())

    def __len__(self):
        return bin(int(self)).count('1')

    def _layout_text(self):
        return ', '.join(c.name if isinstance(c, AudioChannels) else str(c) for c in self._channels())

    def __repr__(self):
        return f'<vsvk.ChannelLayout num_channels={len(self)}, layout="{self._layout_text()}">'

    def __str__(self):
        return f'ChannelLayout\n\tNum channels: {len(self)}\n\tLayout: {self._layout_text()}\n'


ChannelLayout.__module__ = __name__


def _module_file():
    import sys
    return _os.path.realpath(getattr(sys.modules[__name__], '__file__', '') or '')


def get_plugin_dir():
    """The folder where vsvk looks for the user's plugins (the last folder it autoloads)."""
    return str(_autoload_folders()[-1])


def get_include():
    """The folder that holds the API's headers (VapourSynth4.h and the others)."""
    lib = _os.path.dirname(_module_file())
    # beside the module (an installed package), or the source tree's include/ when the module is
    # a build in target/<profile>/
    for folder in (_os.path.join(lib, 'include'), _os.path.join(lib, '..', '..', 'include')):
        if _os.path.isfile(_os.path.join(folder, 'VapourSynth4.h')):
            return _os.path.normpath(folder)
    raise Error(f'the API headers are not beside the vsvk module ({lib}) nor in its source tree')


def get_pkgconfig_dir():
    """R81's folder of vapoursynth.pc: vsvk installs no pkg-config file, so this raises."""
    raise Error('vsvk ships no pkg-config file; build against the headers from get_include()')


def get_vsscript():
    """R81's VSScript library: vsvk has none (scripts run in its Python module), so this raises."""
    raise Error('vsvk has no VSScript library: run scripts with `vsvk pipe` or import vsvk in Python')


def _construct_type(signature):
    """The annotation for one argument's type string ('int', 'vnode[]', 'data:opt' ...)."""
    import typing
    parts = signature.split(':')
    base = {
        'int': int,
        'float': float,
        'data': typing.Union[str, bytes, bytearray],
        'func': typing.Union[Func, typing.Callable],
        'vnode': VideoNode,
        'anode': AudioNode,
        'vframe': VideoFrame,
        'aframe': AudioFrame,
    }
    array = parts[0].endswith('[]')
    name = parts[0][:-2] if array else parts[0]
    if name not in base:
        raise Error(f'{signature!r} names no argument type')
    t = base[name]
    if array:
        t = typing.Union[t, typing.Sequence[t]]
    if 'opt' in parts[1:] or 'empty' in parts[1:]:
        t = typing.Optional[t]
    return t


def _construct_parameter(signature):
    """The inspect.Parameter for one argument string ('clip:vnode', 'planes:int[]:opt' ...)."""
    import inspect
    name, _, rest = signature.partition(':')
    optional = any(flag in rest.split(':')[1:] for flag in ('opt', 'empty'))
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=_construct_type(rest),
                             default=None if optional else inspect.Parameter.empty)


def _construct_return(signature):
    import typing
    entries = [e for e in signature.split(';') if e]
    if not entries:
        return None
    if entries == ['any']:
        return typing.Any
    if len(entries) == 1:
        return _construct_type(entries[0].partition(':')[2])
    return typing.TypedDict('_ReturnDict', {e.partition(':')[0]: _construct_type(e.partition(':')[2]) for e in entries})


def construct_signature(signature, return_signature, injected=None, name=None):
    """An inspect.Signature from a function's argument and return strings; `injected` names an
    argument left out (the clip a method call binds)."""
    import inspect
    import typing
    params = []
    for entry in (e for e in signature.split(';') if e):
        if entry == 'any':
            params.append(inspect.Parameter('kwargs', inspect.Parameter.VAR_KEYWORD, annotation=typing.Any))
        elif entry.partition(':')[0] != injected:
            params.append(_construct_parameter(entry))
    return inspect.Signature(params, return_annotation=_construct_return(return_signature))


# R81's Cython C-API table (capsules of its VSScript entry points, which vstools imports by name).
# vsvk has no VSScript library, so it has no entries.
__pyx_capi__ = {}


def vspipe():
    """R81's `vspipe` command, where `import vapoursynth` gives vsvk (`vsvk frontend vsvk`): the
    same arguments run `vsvk pipe`, whose options are vspipe's."""
    import sys
    _main(['pipe', *sys.argv[1:]])


def _windows_only(name):
    def command():
        raise Error(f'{name}: only available on Windows')
    command.__name__ = command.__qualname__ = name
    return command


# R81's installer helpers for Windows' registry and Video for Windows.
register_vfw = _windows_only('register_vfw')
register_legacy_install = _windows_only('register_legacy_install')


def register_install():
    """R81 records its VSScript library for other programs; vsvk has no VSScript library."""
    raise Error('register_install: vsvk has no VSScript library to register (run scripts with `vsvk pipe`)')


def update_shell(path):
    """R81 exports VSSCRIPT_PATH=path from the shell's start-up files; vsvk has no VSScript library."""
    raise Error('update_shell: vsvk has no VSScript library to export')


def vapoursynth_config():
    """R81 records which Python its VSScript library embeds; vsvk embeds none, so there is nothing to record."""
    print('vsvk: nothing to configure (vsvk runs scripts in the Python that runs `vsvk pipe`)')


def vapoursynth_check_env():
    """Where this module and its core are, as R81's prints where its package is."""
    import sys
    print(f'vsvk path: "{_os.path.dirname(_module_file())}"')
    print(f'core: {str(sys.modules[__name__].core).splitlines()[0]}')
    print('plugin folders: ' + ', '.join(f'"{f}"' for f in _autoload_folders()))
