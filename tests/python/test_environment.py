"""Tests of the module's environments, policies and futures, run by tests/tests/cli.rs
as `vsvk python tests/python/test_environment.py`.

A policy of the tests' own is registered before anything uses a core (only one policy may ever
be registered, and the first use of `vsvk.core` registers the standalone one). Every function
named test_* runs; the last line is "N passed, M failed".
"""
import gc
import os
import sys

import vsvk as vs
from vsvk import _env_alive

import runner


class TestPolicy(vs.EnvironmentPolicy):
    def __init__(self):
        self.current = None
        self.api = None
        self.cleared = False

    def on_policy_registered(self, special_api):
        self.api = special_api

    def on_policy_cleared(self):
        self.cleared = True

    def get_current_environment(self):
        return self.current

    def set_environment(self, environment):
        previous, self.current = self.current, environment
        return previous


policy = TestPolicy()
vs.register_policy(policy)


def new_env():
    data = policy.api.create_environment()
    return data, policy.api.wrap_environment(data)


def _raises(exc, fn):
    try:
        fn()
    except exc:
        return
    except Exception as e:
        raise AssertionError(f'{fn} raised {type(e).__name__}, not {exc.__name__}: {e}')
    raise AssertionError(f'{fn} did not raise {exc.__name__}')


def test_registration():
    assert vs.has_policy()
    assert policy.api is not None and 'EnvironmentPolicyAPI' in repr(policy.api)
    _raises(RuntimeError, lambda: vs.register_policy(TestPolicy()))
    _raises(RuntimeError, vs.EnvironmentData)
    _raises(RuntimeError, vs.EnvironmentPolicyAPI)
    _raises(vs.Error, vs.Environment)


def test_nothing_current():
    assert policy.current is None
    _raises(vs.Error, lambda: vs.core.num_threads)
    _raises(RuntimeError, vs.get_current_environment)
    _raises(vs.Error, vs.get_outputs)
    _raises(RuntimeError, lambda: vs.register_on_destroy(lambda: None))


def test_environments_isolate_cores_and_outputs():
    d1, e1 = new_env()
    d2, e2 = new_env()
    assert e1 != e2 and e1.env_id != e2.env_id and not e1.single
    with e1.use():
        assert e1.active and not e2.active
        assert vs.get_current_environment() == e1
        c1 = vs.core.core
        assert c1 is vs.core.core
        vs.core.num_threads = 1
        vs.core.std.BlankClip(color=[10, 20, 30]).set_output(3)
        assert list(vs.get_outputs()) == [3]
    assert policy.current is None
    with e2.use():
        c2 = vs.core.core
        assert c2 is not c1
        assert vs.core.num_threads != 1 or os.cpu_count() == 1
        assert dict(vs.get_outputs()) == {}
        _raises(KeyError, lambda: vs.get_output(3))
    with e1.use():
        assert vs.get_output(3).clip.get_frame(0)[0][0, 0] == 10
        vs.clear_outputs()
    assert c1.num_threads == 1
    policy.api.destroy_environment(d1)
    policy.api.destroy_environment(d2)


def test_use_nests_and_restores():
    d1, e1 = new_env()
    d2, e2 = new_env()
    with e1.use():
        with e2.use():
            assert vs.get_current_environment() == e2
        assert vs.get_current_environment() == e1
    assert policy.current is None
    policy.api.destroy_environment(d1)
    policy.api.destroy_environment(d2)


def test_use_entered_and_never_left_stays():
    d, e = new_env()
    ident = e.env_id
    manager = e.use()
    manager.__enter__()
    del manager
    gc.collect()
    assert policy.current is d
    policy.set_environment(None)
    policy.api.destroy_environment(d)
    del d
    gc.collect()
    # a dead environment keeps its id; using one whose data is gone raises
    assert not e.alive and e.env_id == ident and str(ident) in repr(e)
    _raises(RuntimeError, e.use)


def test_environment_data_holds_its_core():
    d, e = new_env()
    # tools tell an environment that has a core by the data's referents
    assert any(isinstance(r, vs.Core) for r in gc.get_referents(d))
    policy.api.destroy_environment(d)


def test_destroy_runs_callbacks_and_invalidates_the_core():
    d, e = new_env()
    calls = []
    first = lambda: calls.append('first')  # noqa: E731
    with e.use():
        vs.register_on_destroy(first)
        vs.register_on_destroy(first)
        vs.register_on_destroy(lambda: calls.append('second'))
        vs.register_on_destroy(lambda: calls.append('third'))
        core = vs.core.core
        clip = vs.core.std.BlankClip()
        clip.set_output(0)
    with e.use():
        vs.unregister_on_destroy(first)
        _raises(ValueError, lambda: vs.unregister_on_destroy(print))
    assert calls == []
    assert policy.is_alive(d) and e.alive
    policy.api.destroy_environment(d)
    assert calls == ['first', 'second', 'third']
    assert not policy.is_alive(d) and not e.alive
    _raises(vs.Error, lambda: core.num_threads)
    # its clips take no more work
    _raises(vs.Error, lambda: clip.get_frame(0))
    _raises(vs.Error, lambda: clip.get_frame_async(0))
    _raises(vs.Error, clip.frames)
    policy.api.destroy_environment(d)  # a second time: nothing
    assert calls == ['first', 'second', 'third']


def _threads():
    return len(os.listdir('/proc/self/task'))


def _settled_threads(at_most=None):
    """The thread count once it stops falling (threads of freed cores may take a moment to end),
    or as soon as it is at most `at_most`."""
    import time
    n = _threads()
    for _ in range(100):
        if at_most is not None and n <= at_most:
            break
        time.sleep(0.1)
        m = _threads()
        if at_most is None and m == n:
            break
        n = m
    return n


def test_destroy_frees_the_core():
    gc.collect()
    before = _settled_threads()
    d, e = new_env()
    with e.use():
        vs.core.num_threads = 3
        clip = vs.core.std.BlankClip(length=20)
        for f in clip.frames():
            pass
    assert _threads() > before
    del clip, f
    policy.api.destroy_environment(d)
    gc.collect()
    assert _settled_threads(at_most=before) <= before


def _plane_bytes(frame):
    return [bytes(frame[p]) for p in range(frame.format.num_planes)]


def test_futures_resolve_to_the_frames_get_frame_gives():
    d, e = new_env()
    with e.use():
        parts = [vs.core.std.BlankClip(format=vs.YUV420P8, length=1, color=[n * 20, n, 2 * n]) for n in range(10)]
        clip = vs.core.std.Splice(parts)
        futures = [clip.get_frame_async(n) for n in range(10)]
        assert all(isinstance(f, vs.Future) for f in futures)
        done, pending = vs.wait_futures(futures, timeout=60)
        assert len(done) == 10 and not pending
        for n, f in enumerate(futures):
            assert _plane_bytes(f.result()) == _plane_bytes(clip.get_frame(n))
        got = []
        assert clip.get_frame_async(4, lambda frame, error: got.append((frame, error))) is None
        clip.get_frame_async(5).result()  # the callback of 4 ran by now or soon
        for _ in range(100):
            if got:
                break
            import time
            time.sleep(0.05)
        assert got and got[0][1] is None and _plane_bytes(got[0][0]) == _plane_bytes(clip.get_frame(4))
        bad = vs.core.std.FrameEval(clip, lambda n: 1 / 0)
        f = bad.get_frame_async(0)
        _raises(vs.Error, f.result)
        assert issubclass(vs.FutureCancelledError, Exception)
        del clip, parts, bad, futures, done, got, f
    policy.api.destroy_environment(d)


def test_callbacks_run_in_their_environment():
    d1, e1 = new_env()
    d2, e2 = new_env()
    seen = []

    def record(n):
        seen.append(vs.get_current_environment())
        return vs.core.std.BlankClip(color=[n, 0, 0], length=10)

    with e1.use():
        base = vs.core.std.BlankClip(length=10)
        clip = vs.core.std.FrameEval(base, record)
    with e2.use():
        # made in e1: runs in e1, though e2 is current where the frame is asked for
        assert clip.get_frame(3)[0][0, 0] == 3
    assert seen == [e1]
    with e2.use():
        with e2.use():
            pass
    got = []
    import threading
    done = threading.Event()

    def cb(frame, error):
        got.append(vs.get_current_environment())
        done.set()

    with e2.use():
        clip.get_frame_async(4, cb)
    assert done.wait(60)
    assert got == [e2] and seen == [e1, e1]
    del clip, base
    policy.api.destroy_environment(d1)
    policy.api.destroy_environment(d2)


def test_collected_undestroyed_warns():
    import warnings
    d, e = new_env()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        del d
        gc.collect()
    assert any(issubclass(w.category, RuntimeWarning) and 'collected' in str(w.message) for w in caught), caught
    assert not e.alive


def test_destroy_waits_for_pending_frames():
    import threading
    d, e = new_env()
    gate = threading.Lock()
    gate.acquire()
    entered = threading.Event()

    def held(n, f):
        entered.set()
        with gate:
            return f

    with e.use():
        base = vs.core.std.BlankClip(length=2)
        clip = vs.core.std.ModifyFrame(base, base, held)
        future = clip.get_frame_async(0)
    assert entered.wait(60)
    destroyer = threading.Thread(target=policy.api.destroy_environment, args=(d,))
    destroyer.start()
    destroyer.join(0.3)
    # the frame is still being made: destroy waits for it
    assert destroyer.is_alive() and policy.is_alive(d)
    gate.release()
    destroyer.join(60)
    assert not destroyer.is_alive() and not policy.is_alive(d)
    assert isinstance(future.result(), vs.VideoFrame)


class Tunnelled(BaseException):
    pass


def test_base_exceptions_reach_the_caller_as_themselves():
    import weakref
    d, e = new_env()
    with e.use():
        clip = vs.core.std.BlankClip(length=2)
        exc = Tunnelled('through')
        ref = weakref.ref(exc)

        def raise_it(n, f):
            raise exc

        def raise_error(n, f):
            raise ValueError('plain')

        try:
            vs.core.std.ModifyFrame(clip, clip, raise_it).get_frame(0)
        except Tunnelled as caught:
            assert caught is exc
        else:
            raise AssertionError('no exception')
        second = Tunnelled('through a future')

        def raise_second(n, f):
            raise second

        future = vs.core.std.ModifyFrame(clip, clip, raise_second).get_frame_async(1)
        try:
            future.result()
        except Tunnelled as caught:
            assert caught is second
        else:
            raise AssertionError('no exception from the future')
        # an Exception is an error of the filter
        _raises(vs.Error, lambda: vs.core.std.ModifyFrame(clip, clip, raise_error).get_frame(0))
        del exc, raise_it, future, second, raise_second
        gc.collect()
        assert ref() is None  # nothing keeps it
        del clip
    policy.api.destroy_environment(d)


def test_use_does_not_need_set_environment_to_return():
    class Quiet(TestPolicy):
        def set_environment(self, environment):
            self.current = environment

    # the registered policy's methods are what use() calls: lend them for a moment
    d1, e1 = new_env()
    d2, e2 = new_env()
    original = TestPolicy.set_environment
    TestPolicy.set_environment = Quiet.set_environment
    try:
        with e1.use():
            with e2.use():
                assert vs.get_current_environment() == e2
            assert vs.get_current_environment() == e1
        assert policy.current is None
    finally:
        TestPolicy.set_environment = original
    policy.api.destroy_environment(d1)
    policy.api.destroy_environment(d2)


def test_local_values_belong_to_an_environment():
    d1, e1 = new_env()
    d2, e2 = new_env()
    local = vs.Local()
    with e1.use():
        local.x = 1
        assert local.x == 1
    with e2.use():
        _raises(AttributeError, lambda: local.x)
        local.x = 2
    with e1.use():
        assert local.x == 1
        del local.x
        _raises(AttributeError, lambda: local.x)
    policy.api.destroy_environment(d1)
    policy.api.destroy_environment(d2)


def test_logging_bridge_sends_records_to_the_core_log():
    import logging
    d, e = new_env()
    got = []
    with e.use():
        vs.core.add_log_handler(lambda mt, msg: got.append((int(mt), msg)))
        bridge = vs.PythonVSScriptLoggingBridge(None)
        log = logging.getLogger('vsvk-test-bridge')
        log.propagate = False
        log.setLevel(logging.DEBUG)
        log.addHandler(bridge)
        log.debug('d')
        log.info('i %d', 1)
        log.warning('w')
        log.error('e')
        log.critical('c')
        log.removeHandler(bridge)
    assert got == [(0, 'd'), (1, 'i 1'), (2, 'w'), (3, 'e'), (3, 'Fatal: c')], got
    policy.api.destroy_environment(d)


def test_exit_with_frames_in_flight_is_quiet():
    # the core's threads that still run Python callbacks when the interpreter ends get an error,
    # not a panic; in both kinds of environment
    import subprocess
    standalone = (
        'import vsvk as vs\n'
        'clip = vs.core.std.FrameEval(vs.core.std.BlankClip(length=2000), lambda n: vs.core.std.BlankClip(length=2000))\n'
        'futures = [clip.get_frame_async(i) for i in range(400)]\n'
        'print("leaving")\n'
    )
    own_policy = (
        'import vsvk as vs\n'
        'class P(vs.EnvironmentPolicy):\n'
        '    current = None\n'
        '    def on_policy_registered(self, api): self.api = api\n'
        '    def get_current_environment(self): return self.current\n'
        '    def set_environment(self, e):\n'
        '        old, self.current = self.current, e\n'
        '        return old\n'
        'p = P()\n'
        'vs.register_policy(p)\n'
        'd = p.api.create_environment()\n'
        'e = p.api.wrap_environment(d)\n'
        'with e.use():\n'
        '    clip = vs.core.std.FrameEval(vs.core.std.BlankClip(length=2000), lambda n: vs.core.std.BlankClip(length=2000))\n'
        '    futures = [clip.get_frame_async(i) for i in range(400)]\n'
        'print("leaving")\n'
    )
    for code in [standalone, own_policy] * 3:
        r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stdout == 'leaving\n', (r.returncode, r.stdout, r.stderr)
        assert 'panicked' not in r.stderr, r.stderr


def test_unregister_last():
    # named to run last: after it no environment can be made
    d, e = new_env()
    calls = []
    with e.use():
        vs.register_on_destroy(lambda: calls.append('destroyed'))
    policy.api.unregister_policy()
    assert policy.cleared and not vs.has_policy()
    # the policy's environments end with it
    assert calls == ['destroyed'] and not _env_alive(d)
    assert not e.alive
    _raises(ValueError, policy.api.create_environment)


if __name__ == '__main__':
    runner.main(globals(), last=('test_unregister_last',))
