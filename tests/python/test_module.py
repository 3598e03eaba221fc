"""Tests of the vsvk Python module, run by tests/tests/cli.rs as `vsvk python tests/python/test_module.py`.

Every function named test_* runs; the last line is "N passed, M failed" and the exit status is
non-zero when one failed. Needs NumPy for the zero-copy checks (scripts/setup.sh installs it).
"""
import sys
import threading

import vsvk as vs
import vapoursynth  # the alias module the vsvk command puts on the path

import runner

core = vs.core


def test_alias_is_the_same_module():
    assert vapoursynth is vs
    assert vapoursynth.core is vs.core


def test_constants():
    assert vs.GRAY == 1 and vs.RGB == 2 and vs.YUV == 3
    assert vs.YUV420P8 == (3 << 28) | (0 << 24) | (8 << 16) | (1 << 8) | 1
    assert vs.GRAY16 == (1 << 28) | (16 << 16)
    assert vs.RGB24 == (2 << 28) | (8 << 16)
    assert vs.YUV444PS == (3 << 28) | (1 << 24) | (32 << 16)
    assert vs.PresetVideoFormat.YUV420P10.name == 'YUV420P10'
    assert vs.FIELD_TOP == 2 and vs.FIELD_BOTTOM == 1
    assert vs.MATRIX_BT709 == 1 and vs.RANGE_LIMITED == 0 and vs.RANGE_FULL == 1 and vs.CHROMA_LEFT == 0
    assert vs.FRONT_LEFT == 0 and vs.AudioChannels.FRONT_LEFT_OF_CENTER == 6
    assert vs.__api_version__ == (4, 3)
    assert str(vs.__version__).startswith('R')
    assert issubclass(vs.Error, Exception)


def test_core_settings():
    assert core.num_threads >= 1
    old = core.num_threads
    core.num_threads = 3
    assert core.num_threads == 3
    core.num_threads = old
    assert core.max_cache_size > 0
    core.max_cache_size = 1024
    assert core.max_cache_size == 1024
    assert 'std' in dir(core)
    assert any(p.namespace == 'std' for p in core.plugins())
    assert 'R' in core.version() or 'vsvk' in core.version()
    f = core.get_video_format(vs.YUV420P10)
    assert f.name == 'YUV420P10' and f.bits_per_sample == 10 and f.subsampling_w == 1 and f.num_planes == 3
    assert core.query_video_format(vs.YUV, vs.INTEGER, 16, 1, 0).id == vs.YUV422P16
    assert f.replace(bits_per_sample=8).id == vs.YUV420P8
    assert core.get_video_format(vs.YUV444P10).replace(color_family=vs.GRAY).id == vs.GRAY10


def test_vulkan_calls_answer():
    # the GPU half may be missing: then these fail with vs.Error, never crash
    try:
        devices = core.vulkan_devices
        assert isinstance(devices, list)
        for d in devices:
            assert {'index', 'name', 'type', 'usable', 'uuid'} <= set(d)
    except vs.Error as e:
        assert str(e)
    try:
        info = core.vulkan_device_info
        assert 'name' in info
    except vs.Error as e:
        assert str(e)
        import os
        assert os.environ.get('VSVK_EXPECT_VULKAN') != '1', f'no device where one is expected: {e}'
        return
    # a usable device: GPU resident clips and frames say so, and their planes are not CPU memory
    g = core.std.GPUUpload(core.std.BlankClip(width=32, height=16, format=vs.YUV420P8, length=2))
    assert g.gpu_resident
    f = g.get_frame(0)
    assert f.gpu_resident
    try:
        f[0]
    except vs.Error:
        pass
    else:
        raise AssertionError('a GPU frame handed out a CPU view')
    d = core.std.GPUDownload(g)
    assert not d.gpu_resident and d.get_frame(1)[1].shape == (8, 16)


def test_keyword_and_positional_arguments():
    a = core.std.BlankClip(None, 64, 48, vs.GRAY8, 7)
    assert (a.width, a.height, a.num_frames, a.format.id) == (64, 48, 7, vs.GRAY8)
    b = core.std.BlankClip(width=32, height=16, format=vs.YUV444P16, length=3, fpsnum=30000, fpsden=1001)
    assert (b.width, b.height, b.num_frames, b.fps_num, b.fps_den) == (32, 16, 3, 30000, 1001)
    assert str(b.fps) == '30000/1001'
    assert b.format == core.get_video_format(vs.YUV444P16)


def test_errors_are_vs_error():
    for call in (lambda: core.std.BlankClip(nosuchargument=1),
                 lambda: core.std.BlankClip(width=-5),
                 lambda: core.std.BlankClip(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)):
        try:
            call()
        except vs.Error as e:
            assert 'BlankClip' in str(e), str(e)
        else:
            raise AssertionError('no error')
    try:
        core.nosuchnamespace
    except AttributeError:
        pass
    else:
        raise AssertionError('no AttributeError')


def test_clip_methods_bind_the_clip():
    c = core.std.BlankClip(width=64, height=48, length=4)
    d = c.std.Crop(left=8, right=8)
    assert (d.width, d.height, d.num_frames) == (48, 48, 4)
    assert c.std.BlankClip().num_frames == 4  # the bound clip is BlankClip's first argument


def test_slicing_add_multiply():
    c = core.std.BlankClip(width=16, height=16, length=10, format=vs.GRAY8)
    assert len(c) == 10 and c.num_frames == 10
    assert c[2:5].num_frames == 3
    assert c[::2].num_frames == 5
    assert c[::-1].num_frames == 10
    assert c[-1].num_frames == 1
    assert (c + c).num_frames == 20
    assert (c * 3).num_frames == 30
    try:
        c[10]
    except IndexError:
        pass
    else:
        raise AssertionError('no IndexError')
    # frames land where slicing says: number each frame through its properties
    n = core.std.FrameEval(c, lambda n: core.std.BlankClip(c, color=[n]))
    r = n[7:1:-2]
    got = [r.get_frame(i)[0][0, 0] for i in range(len(r))]
    assert got == [7, 5, 3], got


def test_audio_node():
    a = core.std.BlankAudio(length=10000)
    assert a.num_samples == 10000 and a.sample_rate == 44100 and a.num_channels == 2
    assert a.bits_per_sample == 16 and a.sample_type == vs.INTEGER
    f = a.get_frame(0)
    assert len(f) == 2 and f[0].shape == (3072,)
    assert a[100:200].num_samples == 100
    assert (a + a).num_samples == 20000


def test_frames_props_and_planes():
    import numpy as np
    c = core.std.BlankClip(width=64, height=48, format=vs.YUV420P10, length=3, color=[100, 200, 300])
    c = core.std.SetFrameProps(c, _FieldBased=2, name='abc', blob=b'\x00\x01', values=[1, 2, 3], level=0.5)
    f = c.get_frame(1)
    assert f.readonly and f.width == 64 and f.format.name == 'YUV420P10'
    p = f.props
    assert p['_FieldBased'] == 2 and p.name == 'abc' and p['blob'] == b'\x00\x01'
    assert p['values'] == [1, 2, 3] and p['level'] == 0.5
    assert 'name' in p and 'nothing' not in p and p.get('nothing', 5) == 5
    assert dict(p)['_DurationNum'] == 1
    from collections.abc import MutableMapping
    assert isinstance(p, MutableMapping)
    try:
        p['x'] = 1
    except vs.Error:
        pass
    else:
        raise AssertionError('a read-only frame took a property')
    y = np.asarray(f[0])
    assert y.shape == (48, 64) and y.dtype == np.uint16 and int(y[5, 5]) == 100
    u = np.asarray(f[1])
    assert u.shape == (24, 32) and int(u[0, 0]) == 200
    # no copy: the array is the plane's memory
    assert y.ctypes.data == f.get_read_ptr(0).value
    assert y.strides == (f.get_stride(0), 2)
    w = f.copy()
    assert not w.readonly
    w.props['added'] = 7
    w.props.name = 'changed'
    del w.props['blob']
    assert w.props['added'] == 7 and w.props['name'] == 'changed' and 'blob' not in w.props
    assert f.props['name'] == 'abc'  # the original is untouched
    a = np.asarray(w[0])
    a[0, 0] = 1023
    assert int(np.asarray(w[0])[0, 0]) == 1023 and int(np.asarray(f[0])[0, 0]) == 100


def test_python_callables_as_functions():
    c = core.std.BlankClip(width=16, height=16, format=vs.GRAY8, length=6)
    seen = []

    def pick(n):
        seen.append(n)
        return core.std.BlankClip(c, color=[n * 10])

    e = core.std.FrameEval(c, pick)
    assert [int(e.get_frame(i)[0][0, 0]) for i in range(6)] == [0, 10, 20, 30, 40, 50]

    def mark(n, f):
        out = f.copy()
        out.props['Marked'] = n * 2
        return out

    m = core.std.ModifyFrame(c, c, mark)
    assert [m.get_frame(i).props['Marked'] for i in range(6)] == [0, 2, 4, 6, 8, 10]

    def broken(n, f):
        raise ValueError('broken callback %d' % n)

    b = core.std.ModifyFrame(c, c, broken)
    try:
        b.get_frame(3)
    except vs.Error as e:
        assert 'broken callback 3' in str(e), str(e)
    else:
        raise AssertionError('no error from a failing callback')


def test_frames_iterator_and_async():
    c = core.std.FrameEval(core.std.BlankClip(width=8, height=8, format=vs.GRAY8, length=20),
                           lambda n: core.std.BlankClip(width=8, height=8, format=vs.GRAY8, length=20, color=[n]))
    got = [int(f[0][0, 0]) for f in c.frames(prefetch=4)]
    assert got == list(range(20)), got
    fut = c.get_frame_async(5)
    assert int(fut.result(timeout=30)[0][0, 0]) == 5
    done = threading.Event()
    box = []

    def cb(frame, error):
        box.append((frame, error))
        done.set()

    c.get_frame_async(6, cb)
    assert done.wait(30)
    assert box[0][1] is None and int(box[0][0][0][0, 0]) == 6


def test_outputs():
    c = core.std.BlankClip(length=2)
    a = core.std.BlankAudio(length=100)
    vs.clear_outputs()
    c.set_output()
    a.set_output(3)
    o = vs.get_output()
    assert o.clip == c and o.alpha is None and o.alt_output == 0
    assert vs.get_output(3) == a
    assert set(vs.get_outputs()) == {0, 3}
    vs.clear_output(3)
    assert set(vs.get_outputs()) == {0}
    vs.clear_outputs()
    assert len(vs.get_outputs()) == 0


def test_gpu_resident_and_timings():
    c = core.std.BlankClip(length=2)
    assert c.gpu_resident is False
    assert c.get_frame(0).gpu_resident is False
    core.timings.enabled = True
    c.std.Crop(left=2).get_frame(1)
    core.timings.enabled = False
    assert isinstance(c.timings, int)


def _fresh(code):
    """Runs code in a new interpreter (a new core), returning its stdout; raises on failure."""
    import subprocess
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_set_vulkan_device():
    import os
    # on a machine with a usable device (CI has lavapipe) the tests say so with VSVK_EXPECT_VULKAN=1
    expect = os.environ.get('VSVK_EXPECT_VULKAN') == '1'
    out = _fresh('import vsvk as vs\n'
                 'try:\n    vs.core.set_vulkan_device(0)\nexcept vs.Error as e:\n    print("no device:", e); raise SystemExit\n'
                 'print("name:", vs.core.vulkan_device_info["name"])\n'
                 'try:\n    vs.core.set_vulkan_device(0)\nexcept vs.Error as e:\n    print("late:", e)\n')
    if not expect and out.startswith('no device:'):
        return
    lines = out.splitlines()
    assert lines[0].startswith('name: ') and len(lines[0]) > 6, out
    # the device is in use: choosing again is an error, with a message
    assert lines[1].startswith('late: ') and len(lines[1]) > 10, out
    # an index past the list is refused, naming the index and the count
    n = len(vs.core.vulkan_devices)
    out = _fresh('import vsvk as vs\ntry:\n    vs.core.set_vulkan_device(%d)\nexcept vs.Error as e:\n    print(e)\n' % (n + 3))
    assert str(n + 3) in out and str(n) in out, out


def test_modify_frame_and_frame_eval_keep_gpu_clips_on_the_gpu():
    import os
    host = core.std.BlankClip(width=32, height=16, format=vs.YUV420P8, length=3, color=[10, 20, 30])
    try:
        gpu = host.std.GPUUpload()
        gpu.get_frame(0)
    except vs.Error:
        assert os.environ.get('VSVK_EXPECT_VULKAN') != '1', 'no device where one is expected'
        return
    other = core.std.BlankClip(host, color=[200, 100, 50]).std.GPUUpload()
    # the selector hands back GPU frames of a GPU clip: the result stays GPU resident, frame for frame
    mod = gpu.std.ModifyFrame([gpu, other], lambda n, f: f[n % 2])
    ev = gpu.std.FrameEval(lambda n: other if n == 1 else gpu)
    for clip in (mod, ev):
        assert clip.gpu_resident is True
        got = [clip.std.GPUDownload().get_frame(n) for n in range(3)]
        assert [int(f[0][0, 0]) for f in got] == [10, 200, 10]
    assert mod.get_frame(1).gpu_resident is True
    # a frame from the wrong memory is that frame's error naming it, not the end of the process
    for clip in (gpu.std.ModifyFrame(host, lambda n, f: f), gpu.std.FrameEval(lambda n: host),
                 host.std.ModifyFrame(gpu, lambda n, f: f), host.std.FrameEval(lambda n: gpu)):
        try:
            clip.get_frame(0)
            raise AssertionError('a frame from the other memory was accepted')
        except vs.Error as e:
            assert 'GPU resident' in str(e) and ('GPUUpload' in str(e) or 'GPUDownload' in str(e)), e


def test_gpu_map_checks_its_arguments():
    import os
    def f(n, src, dst, props):
        pass
    cpu = core.std.BlankClip(width=64, height=48, format=vs.YUV420P8)
    def refused(args, kw, words):
        try:
            vs.gpu_map(*args, **kw)
        except vs.Error as e:
            assert all(w in str(e) for w in words), (words, str(e))
            return str(e)
        raise AssertionError(f'gpu_map{args, kw} was accepted')
    refused((cpu, f), {}, ['not GPU resident', 'GPUUpload'])
    if os.environ.get('VSVK_EXPECT_VULKAN') != '1':
        return
    gpu = cpu.std.GPUUpload()
    refused((gpu, 3), {}, ['fn must be callable'])
    refused((gpu, f), {'radius': -1}, ['radius', '-1'])
    refused((gpu, f), {'width': 63}, ['63x48', 'subsampling'])
    refused((gpu, f), {'height': 0}, ['positive', '64x0'])
    # CUDA is looked for last: here (no NVIDIA driver) that is the reason, named; where a CUDA
    # driver exists this check is the device part's (scripts/device/parts/torch.sh)
    try:
        import ctypes
        ctypes.CDLL('libcuda.so.1')
        return
    except OSError:
        pass
    refused((gpu, f), {}, ['gpu_map needs the CUDA driver (libcuda.so.1)'])
    assert set(vs.gpu_map_stats()) >= {'frames', 'host_waits', 'input_copies', 'memory_imports'}


def test_gpu_import_checks_its_arguments():
    import os
    def refused(f, args, words):
        try:
            f(*args)
        except vs.Error as e:
            assert all(w in str(e) for w in words), (words, str(e))
            return
        raise AssertionError(f'{f.__name__}{args} was accepted')
    fd = os.memfd_create('vsvk-test')
    os.ftruncate(fd, 65536)
    try:
        refused(vs.gpu_import, (-1, 65536), ['gpu_import', 'handle -1 is not an open file descriptor'])
        refused(vs.gpu_import, (fd, 0), ['size is 0'])
        closed = os.dup(fd)
        os.close(closed)
        refused(vs.gpu_import, (closed, 65536), [f'handle {closed} is not an open file descriptor'])
        if os.environ.get('VSVK_EXPECT_VULKAN') != '1':
            return
        refused(vs.gpu_import, (fd, 65536, 1000), ['memory type 1000 does not exist'])
        # a file no Vulkan device exported: the driver says no (lavapipe; on other drivers the
        # import of a foreign fd is undefined, so this runs on lavapipe only), and the fd stays ours
        if 'llvmpipe' in core.vulkan_device_info['name']:
            refused(vs.gpu_import, (fd, 65536), ['vkAllocateMemory (import) failed'])
            refused(vs.gpu_import_timeline, (fd,), ['cannot import semaphores'])
        assert os.fstat(fd).st_size == 65536
    finally:
        os.close(fd)


if __name__ == '__main__':
    runner.main(globals())
