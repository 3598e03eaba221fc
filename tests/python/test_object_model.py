"""Tests of the vsvk Python module's object model against what R81's module does (learned by running
R81): FrameProps as a MutableMapping, `_ColorRange` as a view of `_Range`, weak references, the
NONE format of a clip of varying format, argument matching, ChannelLayout and the path functions.
Run by tests/tests/cli.rs as `vsvk python tests/python/test_object_model.py`; the last line is
"N passed, M failed" and the exit status is non-zero when one failed.
"""
import collections.abc
import sys
import warnings
import weakref

import vsvk as vs

import runner

core = vs.core


def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc as e:
        return e
    except BaseException as e:
        raise AssertionError(f'{fn} raised {type(e).__name__} ({e}), not {exc.__name__}') from e
    raise AssertionError(f'{fn} raised nothing, not {exc.__name__}')


def writable_props(**props):
    frame = core.std.BlankClip(format=vs.YUV420P8, width=16, height=16).get_frame(0).copy()
    frame.props.update(props)
    return frame, frame.props


def test_props_views_are_collections_abc_views():
    props = core.std.BlankClip().get_frame(0).props
    assert isinstance(props.keys(), collections.abc.KeysView)
    assert isinstance(props.values(), collections.abc.ValuesView)
    assert isinstance(props.items(), collections.abc.ItemsView)
    assert props.keys() == {'_DurationDen', '_DurationNum'}
    assert props.items() == {('_DurationDen', 24), ('_DurationNum', 1)}
    assert props.keys() & {'_DurationNum', 'x'} == {'_DurationNum'}
    assert list(props.values()) == [24, 1]
    # a view follows the mapping
    frame, rw = writable_props()
    keys = rw.keys()
    rw['Added'] = 5
    assert 'Added' in keys and len(keys) == 3


def test_props_popitem_takes_the_first_key():
    frame, props = writable_props(A=1, B=[2, 3])
    assert list(props) == ['A', 'B', '_DurationDen', '_DurationNum']
    assert props.popitem() == ('A', 1)
    assert props.popitem() == ('B', [2, 3])
    assert list(props) == ['_DurationDen', '_DurationNum']
    props.clear()
    raises(KeyError, props.popitem)
    read_only = core.std.BlankClip().get_frame(0).props
    raises(vs.Error, read_only.popitem)


def test_props_equality_and_hash_are_identity():
    frame = core.std.BlankClip().get_frame(0)
    a, b = frame.props, frame.props
    assert a == a and hash(a) == hash(a)
    assert a != b
    assert a != {'_DurationDen': 24, '_DurationNum': 1}
    assert dict(a) == dict(b) == {'_DurationDen': 24, '_DurationNum': 1}


def test_props_delete_missing_is_no_error():
    frame, props = writable_props(A=1)
    del props['Missing']
    del props.Missing
    assert len(props) == 3
    read_only = core.std.BlankClip().get_frame(0).props
    raises(vs.Error, read_only.__delitem__, 'Missing')


def test_props_values_that_cannot_be_stored_are_errors():
    frame, props = writable_props()
    clip = core.std.BlankClip()
    assert 'Nodes' in str(raises(vs.Error, props.__setitem__, 'N', clip))
    assert 'Nodes' in str(raises(vs.Error, props.__setitem__, 'N', [clip]))
    assert 'Functions' in str(raises(vs.Error, props.__setitem__, 'F', lambda: 1))
    assert 'Functions' in str(raises(vs.Error, props.__setitem__, 'F', core.std.BlankClip))
    raises(vs.Error, props.__setitem__, 'X', None)
    raises(vs.Error, props.__setitem__, 'X', object())
    raises(vs.Error, props.__setitem__, 'X', [1, 'a'])
    raises(vs.Error, props.__setitem__, 'X', [1, 2.5])
    raises(vs.Error, props.update, X=None)
    raises(vs.Error, props.setdefault, 'X', None)
    assert 'X' not in props and 'N' not in props and 'F' not in props
    # any other iterable of one type is stored as an array; a dict stores its keys
    props['S'] = (1, 2)
    props['D'] = {'a': 1}
    props['E'] = []
    assert props['S'] == [1, 2] and props['D'] == 'a' and 'E' not in props
    assert props.setdefault('Z') == 0 and props['Z'] == 0


def test_color_range_is_a_view_of_range():
    assert vs.RANGE_FULL == 1 and vs.RANGE_LIMITED == 0 and vs.ColorRange is vs.Range
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for old, new in [(0, 1), (1, 0), (2, 2), (-1, -1)]:
            frame, props = writable_props()
            props['_ColorRange'] = old
            assert dict(props) == {'_DurationDen': 24, '_DurationNum': 1, '_Range': new}, dict(props)
            assert props['_ColorRange'] == new and props._ColorRange == new
        frame, props = writable_props()
        props['_ColorRange'] = [0, 1]
        assert props['_Range'] == [1, 0]
        frame, props = writable_props(_Range=0)
        assert props['_Range'] is vs.RANGE_LIMITED and props['_ColorRange'] is vs.RANGE_LIMITED
        assert '_ColorRange' in props and list(props) == ['_DurationDen', '_DurationNum', '_Range']
        del props['_ColorRange']
        assert '_Range' not in props and '_ColorRange' not in props
        raises(KeyError, props.__getitem__, '_ColorRange')
        # values that are no integers are kept under the literal name, which reads as _Range
        frame, props = writable_props()
        props['_ColorRange'] = 'text'
        assert list(props) == ['_ColorRange', '_DurationDen', '_DurationNum']
        assert '_ColorRange' not in props and props.get('_ColorRange') is None
        # filters: SetFrameProps stores by the same rule
        clip = core.std.BlankClip(format=vs.YUV420P8).std.SetFrameProps(_ColorRange=0)
        assert clip.get_frame(0).props['_Range'] is vs.RANGE_FULL
        # both names in one call are one key there: R81 appends, in the order given
        clip = core.std.BlankClip(format=vs.YUV420P8).std.SetFrameProps(_ColorRange=0, _Range=0)
        assert clip.get_frame(0).props['_Range'] == [1, 0]


def test_color_range_warns():
    frame, props = writable_props(_Range=1)
    for action in [lambda: props['_ColorRange'], lambda: props.get('_ColorRange'),
                   lambda: props.__setitem__('_ColorRange', 1),
                   lambda: core.std.BlankClip().std.SetFrameProps(_ColorRange=1)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            action()
        assert [w.category for w in caught] == [DeprecationWarning], caught
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        assert '_ColorRange' in props and props['_Range'] == 0
    assert caught == []


def test_weak_references():
    clip = core.std.BlankClip()
    audio = core.std.BlankAudio()
    for obj in [core.core, clip, audio, clip.get_frame(0), audio.get_frame(0)]:
        ref = weakref.ref(obj)
        assert ref() is obj
    frame = clip.get_frame(0)
    ref = weakref.ref(frame)
    del frame
    assert ref() is None
    for obj in [clip.format, clip.get_frame(0).props, core.std, core.std.BlankClip]:
        raises(TypeError, weakref.ref, obj)


def test_varying_format_is_the_none_format():
    clip = core.std.BlankClip(format=vs.YUV444P8, varformat=True, width=120, height=121)
    f = clip.format
    assert isinstance(f, vs.VideoFormat)
    assert f.id == vs.PresetVideoFormat.NONE == 0 and int(f) == 0 and f.name == 'None'
    assert f.color_family == vs.UNDEFINED
    assert (f.bits_per_sample, f.bytes_per_sample, f.num_planes, f.subsampling_w, f.subsampling_h) == (0, 0, 0, 0, 0)
    assert f == core.get_video_format(0) == core.get_video_format(vs.NONE)
    assert 'format=None' in repr(clip)
    assert clip.get_frame(0).format.id == vs.YUV444P8


def test_unknown_keyword_arguments_raise_even_when_none():
    clip = core.std.BlankClip(format=vs.YUV420P8)
    for call in [lambda: core.text.ClipInfo(clip, alignment2=None), lambda: core.std.BlankClip(width2=None),
                 lambda: clip.std.FlipVertical(foo=None), lambda: core.std.BlankClip(**{'1a': None})]:
        e = raises(vs.Error, call)
        assert 'alignment2' in str(e) or 'width2' in str(e) or 'foo' in str(e) or '1a' in str(e), e
    e = raises(vs.Error, core.std.BlankClip, foo=1, bar=None)
    assert 'foo' in str(e) and 'bar' in str(e)
    # known ones given as None are left out
    assert core.text.ClipInfo(clip, alignment=None).width == clip.width
    assert core.std.BlankClip(width_=None).width == 640


def test_keywords_first_then_positionals_in_the_free_slots():
    clip = core.std.BlankClip()
    c = core.std.BlankClip(320, 100, clip=clip)
    assert (c.width, c.height) == (320, 100)
    c = clip.std.Crop(2, 2, left=4)  # clip, then right and top
    assert (c.width, c.height) == (634, 478)
    # a later keyword of the same name wins
    assert core.std.BlankClip(width=5, width_=6).width == 6
    raises(vs.Error, core.std.BlankClip, *([10] * 14))
    # float arguments convert as float() does, with its exceptions
    raises(ValueError, core.std.BlankClip, color=['a'])
    raises(TypeError, core.std.BlankClip, color=[None])
    assert core.std.BlankClip(format=vs.GRAY8, color='7').get_frame(0)[0][0, 0] == 7


def test_channel_layout():
    audio = core.std.BlankAudio(channels=[vs.FRONT_LEFT, vs.FRONT_RIGHT, vs.LOW_FREQUENCY, vs.BACK_LEFT])
    for layout in [audio.channels, audio.get_frame(0).channels]:
        assert isinstance(layout, vs.ChannelLayout) and isinstance(layout, int)
        assert layout == audio.channel_layout == 0b11011 and hash(layout) == hash(0b11011)
        assert len(layout) == 4 == audio.num_channels
        assert list(layout) == [vs.FRONT_LEFT, vs.FRONT_RIGHT, vs.LOW_FREQUENCY, vs.BACK_LEFT]
        assert all(isinstance(c, vs.AudioChannels) for c in layout)
        assert vs.LOW_FREQUENCY in layout and 3 in layout and vs.FRONT_CENTER not in layout
        assert 'FRONT_LEFT, FRONT_RIGHT, LOW_FREQUENCY, BACK_LEFT' in repr(layout)
        assert str(layout) == 'ChannelLayout\n\tNum channels: 4\n\tLayout: FRONT_LEFT, FRONT_RIGHT, LOW_FREQUENCY, BACK_LEFT\n'
    assert list(vs.ChannelLayout(3)) == [vs.FRONT_LEFT, vs.FRONT_RIGHT]


def test_function_signatures():
    import inspect
    import typing
    sig = inspect.signature(core.std.Crop)
    assert list(sig.parameters) == ['clip', 'left', 'right', 'top', 'bottom']
    clip_param = sig.parameters['clip']
    assert clip_param.annotation is vs.VideoNode and clip_param.default is inspect.Parameter.empty
    assert sig.parameters['left'].annotation == typing.Optional[int] and sig.parameters['left'].default is None
    assert sig.return_annotation is vs.VideoNode
    # bound to a clip: the clip is not a parameter
    assert list(inspect.signature(core.std.BlankClip().std.Crop).parameters) == ['left', 'right', 'top', 'bottom']
    params = inspect.signature(core.std.SetFrameProps).parameters
    assert params['kwargs'].kind is inspect.Parameter.VAR_KEYWORD
    assert vs._construct_type('int[]') == typing.Union[int, typing.Sequence[int]]
    assert vs._construct_type('data') == typing.Union[str, bytes, bytearray]
    assert vs._construct_parameter('x:float[]:opt').annotation == typing.Optional[typing.Union[float, typing.Sequence[float]]]
    assert vs.construct_signature('', '').return_annotation is None
    assert vs.construct_signature('', 'any').return_annotation is typing.Any
    assert vs.construct_signature('a:int;', 'val:anode;').return_annotation is vs.AudioNode
    assert vs.construct_signature('a:int;', 'a:int;b:data[];').return_annotation.__annotations__.keys() == {'a', 'b'}


def test_node_dir_lists_the_namespaces_it_binds_to():
    video = dir(core.std.BlankClip())
    audio = dir(core.std.BlankAudio())
    assert {'std', 'resize', 'text', 'format', 'get_frame'} <= set(video), video
    assert {'std', 'channels', 'get_frame'} <= set(audio) and 'resize' not in audio and 'text' not in audio, audio


def test_audio_output_writes_what_r81_writes():
    import hashlib
    import io
    # lengths and MD5 digests of R81's AudioNode.output for the same clips
    expected = [
        (dict(length=5000), {}, 20000, 'b2fe457348de243a579a1591d3815170'),
        (dict(length=5000), {'wav': True}, 20068, '2aa3d09986e00ff57697bbe68c96a508'),
        (dict(length=5000), {'w64': True}, 20128, '023980574abc92f6cc18bbd7841b5acd'),
        (dict(length=7000, sampletype=vs.FLOAT, bits=32, channels=[0, 1, 2, 3, 4, 5]), {'wav': True}, 168068,
         'c31c3e07ebc6b56c52ffbc4700c180d0'),
        (dict(length=4000, bits=24, channels=[0]), {'w64': True}, 12128, 'be15e992c93882cfcde819f4203ca8cb'),
        (dict(length=100, samplerate=8000), {'wav': True}, 468, 'f738dd7d5e82c1f7f2e2c3e5626605b5'),
    ]
    for clip_args, opts, size, digest in expected:
        audio = core.std.BlankAudio(**clip_args)
        out = io.BytesIO()
        progress = []
        audio.output(out, progress_update=lambda n, total: progress.append((n, total)), **opts)
        data = out.getvalue()
        assert (len(data), hashlib.md5(data).hexdigest()) == (size, digest), (clip_args, opts, len(data))
        assert progress[0] == (0, audio.num_frames) and progress[-1] == (audio.num_frames, audio.num_frames)
    raises(ValueError, core.std.BlankAudio().output, io.BytesIO(), wav=True, w64=True)


def test_node_operators_and_lengths():
    clip = core.std.BlankClip(length=10)
    audio = core.std.BlankAudio(length=10000)
    assert len(clip) == 10 and len(audio) == 10000 and audio.num_frames == 4
    assert (clip * 3).num_frames == 30
    raises(TypeError, lambda: 3 * clip)
    raises(NotImplementedError, lambda: clip + audio)
    raises(ValueError, lambda: clip * 0)


def test_closed_frames_raise_runtime_error():
    frame = core.std.BlankClip().get_frame(0)
    props = frame.props
    frame.close()
    for action in [lambda: frame.props, lambda: frame[0], lambda: frame.copy()]:
        raises(RuntimeError, action)
    # a mapping taken before closes with its frame
    for action in [lambda: props['_DurationNum'], lambda: len(props), lambda: list(props), lambda: 'x' in props]:
        raises(RuntimeError, action)
    assert 'closed' in repr(props)
    with core.std.BlankClip().get_frame(0).copy() as frame:
        props = frame.props
        props['A'] = 1
    raises(RuntimeError, props.__setitem__, 'A', 2)


def test_integer_audio_planes_read_as_unsigned():
    # R81 describes integer audio samples with unsigned buffer formats
    for bits, fmt in [(16, 'H'), (24, 'I'), (32, 'I')]:
        assert core.std.BlankAudio(bits=bits).get_frame(0)[0].format == fmt
    assert core.std.BlankAudio(bits=32, sampletype=vs.FLOAT).get_frame(0)[0].format == 'f'


def test_video_formats_as_r81():
    raises(vs.Error, core.query_video_format, vs.YUV, vs.INTEGER, 7)
    raises(vs.Error, core.query_video_format, vs.GRAY, vs.FLOAT, 8)
    yuv420 = core.get_video_format(vs.YUV420P8)
    # replace keeps the subsampling: YUV420 to GRAY or RGB is no format
    raises(vs.Error, yuv420.replace, color_family=vs.GRAY)
    raises(vs.Error, yuv420.replace, bits_per_sample=7)
    assert core.get_video_format(vs.GRAY8).replace(color_family=vs.YUV).name == 'YUV444P8'
    assert core.get_video_format(vs.YUV444P10).replace(color_family=vs.RGB).name == 'RGB30'
    assert core.get_video_format(0).replace(bits_per_sample=16).id == 0
    # an id of no format is the NONE format here, an error where a frame is made
    assert core.get_video_format(12345).id == 0
    raises(vs.Error, core.create_video_frame, 0, 4, 4)
    raises(vs.Error, core.create_video_frame, 12345, 4, 4)
    assert str(yuv420) == ('VideoFormat\n\tID: 805830913\n\tName: YUV420P8\n\tColor Family: YUV\n\tSample Type: INTEGER\n'
                           '\tBits Per Sample: 8\n\tBytes Per Sample: 1\n\tNum Planes: 3\n\tSubsampling W: 2x\n\tSubsampling H: 2x\n')
    assert str(core.get_video_format(vs.YUV410P8)).endswith('\tSubsampling W: 4x\n\tSubsampling H: 4x\n')
    assert str(core.get_video_format(vs.GRAYS)).endswith('\tNum Planes: 1\n\tSubsampling W: None\n\tSubsampling H: None\n')


def test_core_and_plugin_shims():
    assert isinstance(core.std.functions(), collections.abc.Iterator)
    assert any(f.name == 'BlankClip' for f in core.std.functions())
    text = str(core.core)
    for call, message in [(core.version, 'use str(core)'), (core.version_number, 'core_version.release_major')]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            value = call()
        assert [w.category for w in caught] == [DeprecationWarning] and message in str(caught[0].message)
        assert value == text or value == core.core_version.release_major


def test_output_alpha_must_fit_the_clip():
    clip = core.std.BlankClip(format=vs.YUV420P8, length=10)
    clip.set_output(40, alpha=core.std.BlankClip(format=vs.GRAY8, length=10))
    assert vs.get_output(40).alpha is not None
    for alpha in [core.std.BlankClip(format=vs.GRAY16, length=10), core.std.BlankClip(format=vs.YUV420P8, length=10),
                  core.std.BlankClip(format=vs.GRAY8, width=10, length=10), core.std.BlankClip(format=vs.GRAY8, length=9)]:
        raises(vs.Error, clip.set_output, 41, alpha=alpha)
    raises(TypeError, clip.set_output, 41, alpha=core.std.BlankAudio())
    vs.clear_output(40)


def test_keyword_names_as_r81():
    frame, props = writable_props(A=1)
    assert props.pop('Missing', default=None) is None and props.pop('Missing', None) is None
    assert props.pop('A', default=7) == 1 and props.pop('A', default=7) == 7
    assert props.get('Missing', default=3) == 3 and props.setdefault('S', 5) == 5
    for call in [lambda: props.pop(key='S'), lambda: props.pop('S', 1, 2), lambda: props.pop('S', foo=1),
                 lambda: props.get(key='S'), lambda: props.setdefault(key='T'), lambda: props.setdefault('T', default=1)]:
        raises(TypeError, call)
    handle = core.add_log_handler(handler_func=lambda message_type, message: None)
    assert core.remove_log_handler(handle=handle)


def test_undeclared_arguments_take_values_of_one_type():
    clip = core.std.BlankClip(length=1)
    for value in [[1, 'a'], [1, 2.5], object(), [None]]:
        e = raises(vs.Error, clip.std.SetFrameProps, x=value)
        assert str(e).startswith('SetFrameProps: '), e
    # any iterable is an array (a dict gives its keys); an empty one stores nothing
    assert clip.std.SetFrameProps(x={'a': 1}).get_frame(0).props['x'] == 'a'
    assert clip.std.SetFrameProps(x=(1.5, 2.5)).get_frame(0).props['x'] == [1.5, 2.5]
    assert 'x' not in clip.std.SetFrameProps(x={}).get_frame(0).props
    raises(vs.Error, core.std.FrameEval, clip, eval=5)


def test_path_functions():
    import os
    plugin_dir = vs.get_plugin_dir()
    assert isinstance(plugin_dir, str) and plugin_dir.endswith(os.path.join('vsvk', 'plugins'))
    include = vs.get_include()
    assert os.path.isfile(os.path.join(include, 'VapourSynth4.h')), include
    raises(vs.Error, vs.get_pkgconfig_dir)
    raises(vs.Error, vs.get_vsscript)
    # R81's VSScript capsules: importable (vstools imports the name), and empty here
    assert vs.__pyx_capi__ == {}
    for name in ['ChannelLayout', 'get_plugin_dir', 'get_include', 'get_pkgconfig_dir', 'get_vsscript']:
        assert name in vs.__all__ or name in dir(vs), name


def test_r81_installer_helpers():
    # R81's helpers for Windows installs raise vs.Error elsewhere; those for its VSScript library
    # have nothing to act on in vsvk and say so with vs.Error too
    for name in ('register_vfw', 'register_legacy_install', 'register_install'):
        try:
            getattr(vs, name)()
        except vs.Error as e:
            assert name in str(e), e
        else:
            raise AssertionError(f'{name} did not raise')
    try:
        vs.update_shell('/nowhere')
    except vs.Error:
        pass
    else:
        raise AssertionError('update_shell did not raise')
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        vs.vapoursynth_check_env()
    assert 'vsvk path' in out.getvalue() and 'plugin folders' in out.getvalue(), out.getvalue()


if __name__ == '__main__':
    runner.main(globals())
