"""Tests of `vsvk render` and vsvk.render (chunked rendering on Ray), run by tests/tests/cli.rs as
`vsvk python tests/python/test_render.py`: on a Ray instance this process starts with two CPUs, so
two workers render at once, every output is compared byte for byte with `vsvk pipe`'s of the same
script. One test starts its own local instance (no --address). Needs Ray in this Python
(scripts/setup.sh installs it) and ffmpeg. The last line is "N passed, M failed".

Two test hooks of vsvk render (environment of the driver): VSVK_RENDER_PID_DIR=DIR makes each
task write `chunk-INDEX-ATTEMPT` there with its Ray worker's pid and its renderer's, which the
fault test kills; VSVK_RENDER_FETCH=1 pulls every chunk through Ray as from another host.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import vsvk as vs

import runner

try:
    import ray
except ImportError:
    sys.exit(f"test_render: Ray is missing in {sys.executable} (scripts/setup.sh installs it)")

VSVK = os.path.join(os.path.dirname(os.path.realpath(vs.__file__)), "vsvk")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRATCH = tempfile.mkdtemp(prefix="vsvk-render-test-")
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
# every frame differs (FrameEval on the frame number), with a spatial and a temporal filter whose
# results at a chunk's edges depend on frames of the neighbouring chunks
SCRIPT = """
import time
import vapoursynth as vs
core = vs.core
n = int(globals().get('frames', '60'))
base = core.std.BlankClip(width=64, height=48, format=vs.YUV420P10, length=n, fpsnum=24, fpsden=1)
def paint(n, clip=base):
    return core.std.BlankClip(clip, color=[(n * 37) % 1024, (n * 11) % 1024, 1023 - (n * 5) % 1024])
c = core.std.FrameEval(base, paint)
c = core.std.Merge(c, core.std.Expr([c], ['x 3 * 100 + 1023 min', '', '']), 0.5)
c = core.std.AverageFrames([c, c[1:] + c[-1], c[2:] + c[-2:]], [1, 2, 1])
c = core.std.BoxBlur(c, hradius=2, vradius=1)
slow = float(globals().get('slow', '0'))
if slow:
    def nap(n, f):
        time.sleep(slow)
        return f
    c = core.std.ModifyFrame(c, c, nap)
bad = int(globals().get('bad', '-1'))
if bad >= 0:
    def fail(n, clip=c):
        if n == bad:
            raise ValueError(f'frame {n} is bad on purpose')
        return clip
    c = core.std.FrameEval(c, fail)
if globals().get('alpha'):
    a = core.std.BlankClip(c, format=vs.GRAY10, color=[700])
    a = core.std.FrameEval(a, lambda n, a=a: core.std.BlankClip(a, color=[(n * 9) % 1024]))
    c.set_output(alpha=a)
else:
    c.set_output()
if globals().get('broken'):
    raise RuntimeError('this script is broken on purpose')
"""


def script(name="s.vpy", text=SCRIPT):
    path = os.path.join(SCRATCH, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def vsvk(*args, env=None, timeout=300):
    env = dict(os.environ, **(env or {}))
    r = subprocess.run([VSVK, *map(str, args)], capture_output=True, env=env, timeout=timeout)
    return r.returncode, r.stdout, r.stderr.decode(errors="replace")


def pipe_bytes(path, *args):
    out = os.path.join(SCRATCH, "pipe.out")
    rc, _, err = vsvk("pipe", *args, path, out)
    assert rc == 0, err
    with open(out, "rb") as f:
        return f.read()


def read(path):
    with open(path, "rb") as f:
        return f.read()


ADDRESS = None


def address():
    """The Ray instance of this test process (two CPUs: two workers of one core each)."""
    global ADDRESS
    if ADDRESS is None:
        ray.init(num_cpus=2, include_dashboard=False, object_store_memory=128 << 20, log_to_driver=False,
                 logging_level="ERROR")
        ADDRESS = ray.get_runtime_context().gcs_address
    return ADDRESS


def render(*args, env=None):
    return vsvk("render", "--address", address(), "--cpus-per-worker", "1", *args, env=env)


def test_y4m_on_a_local_instance_equals_pipe():
    # no --address: the command starts (and stops) a Ray instance of its own
    s = script()
    out = os.path.join(SCRATCH, "local.y4m")
    t = time.monotonic()
    rc, _, err = vsvk("render", "-c", "y4m", "--chunk", "7", "--cpus-per-worker", "1", "--workers", "2", "-p", s, out)
    assert rc == 0, err
    assert "9 chunk(s) of frames 0 to 59, 2 worker(s) at once" in err, err
    assert "Output 60 frames in" in err, err
    want = pipe_bytes(s, "-c", "y4m")
    got = read(out)
    assert got.count(b"FRAME\n") == 60 and got.startswith(b"YUV4MPEG2 ") and b"XLENGTH=60" in got.split(b"\n")[0]
    assert got == want, f"{len(got)} bytes against vsvk pipe's {len(want)}"
    print(f"     local instance: {time.monotonic() - t:.1f} s")


def test_raw_with_alpha_splits_and_a_range_equal_pipe():
    s = script()
    out = os.path.join(SCRATCH, "raw.bin")
    rc, _, err = render("--splits", "3,4,20,21,45", "-s", "3", "-e", "50", "-a", "alpha=1", s, out)
    assert rc == 0, err
    want = pipe_bytes(s, "-s", "3", "-e", "50", "-a", "alpha=1")
    # 48 frames of 64x48 4:2:0 at 16 bits, then 64x48 of alpha
    assert len(want) == 48 * (64 * 48 * 3 // 2 + 64 * 48) * 2
    assert read(out) == want
    # a splits file, and chunks pulled as from another host (the test hook of the remote path)
    splits = os.path.join(SCRATCH, "splits.txt")
    with open(splits, "w") as f:
        f.write("# scene changes\n0\n13\n\n37, 38\n")
    rc, stdout, err = render("--splits-file", splits, "-c", "y4m", s, "-", env={"VSVK_RENDER_FETCH": "1"})
    assert rc == 0, err
    assert stdout == pipe_bytes(s, "-c", "y4m")


def leftovers():
    """What render jobs left in the temporary folder (this file's scratch folder aside)."""
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("vsvk-render-") and not n.startswith("vsvk-render-test")}


def test_a_killed_worker_and_a_killed_renderer_are_retried():
    s = script()
    before = leftovers()  # (another run's, on a shared machine)
    out = os.path.join(SCRATCH, "killed.y4m")
    pids = os.path.join(SCRATCH, "pids")
    os.makedirs(pids, exist_ok=True)
    where = address()  # first: starting Ray sets what its clients need in this environment
    env = dict(os.environ, VSVK_RENDER_PID_DIR=pids)
    cmd = [VSVK, "render", "--address", where, "--cpus-per-worker", "1", "-c", "y4m", "--chunk", "10",
           "-a", "slow=0.05", "-a", "frames=80", s, out]
    p = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE)

    def started(index):
        f = os.path.join(pids, f"chunk-{index}-0")
        deadline = time.monotonic() + 120
        while not os.path.exists(f):
            assert p.poll() is None, p.stderr.read().decode()
            assert time.monotonic() < deadline, f"chunk {index} never started"
            time.sleep(0.02)
        time.sleep(0.15)  # mid-chunk: a few frames in
        worker, child = map(int, read(f).split())
        return worker, child

    worker, _ = started(1)
    os.kill(worker, signal.SIGKILL)  # the Ray worker process
    _, child = started(4)
    os.kill(child, signal.SIGKILL)  # the renderer a worker runs (a crash of its core)
    _, err = p.communicate(timeout=300)
    err = err.decode(errors="replace")
    assert p.returncode == 0, err
    assert "chunk 1 (frames 10 to 19) failed" in err and "trying again (attempt 2 of 4)" in err, err
    assert "chunk 4 (frames 40 to 49) failed (frames 40 to 49 on worker" in err and "SIGKILL" in err, err
    assert read(out) == pipe_bytes(s, "-c", "y4m", "-a", "frames=80")
    assert os.path.exists(os.path.join(pids, "chunk-1-1")) and os.path.exists(os.path.join(pids, "chunk-4-1"))
    left = leftovers() - before
    assert not left, left


def test_bad_arguments_are_refused_before_anything_runs():
    s = script()
    for args, text in [
        (["--chunk", "0"], "--chunk: 0 is too small (at least 1)"),
        (["--chunk", "-3"], "--chunk: -3 is too small"),
        (["--chunk", "ten"], "--chunk: ten is not a whole number"),
        (["--chunk", "5", "--splits", "9"], "give chunk or splits, not both"),
        (["--splits", "4,x"], "split 'x' is not a frame number"),
        (["-s", "10", "-e", "5"], "the frame range 10 to 5 is empty"),
        (["--workers", "0"], "--workers: 0 is too small"),
        (["--encode", "ffmpeg -i - out.mkv"], "{out}"),
        (["--encode", "ffmpeg -i - {out}"], "extension names the container"),
        (["-c", "wav"], "unknown container wav"),
    ]:
        out = os.path.join(SCRATCH, "never" if "container" in text else "never.y4m")
        rc, _, err = vsvk("render", *args, s, out, timeout=30)
        assert rc == 2 and text in err, (args, rc, err)
    rc, _, err = vsvk("render", s, timeout=30)
    assert rc == 2 and "no output given" in err, err


def test_bad_ranges_and_splits_against_the_clip_are_clear_errors():
    s = script()
    for args, text in [
        (["-e", "60"], "invalid frame range 0 to 60: the clip has frames 0 to 59"),
        (["-s", "60"], "invalid frame range 60 to 59"),
        (["--splits", "0,30,30"], "splits must increase: 30 comes after 30"),
        (["--splits", "10,5"], "splits must increase: 5 comes after 10"),
        (["-s", "10", "--splits", "5"], "split 5 lies outside the frames rendered (10 to 59)"),
        (["--splits", "70"], "split 70 lies outside"),
    ]:
        rc, _, err = render(*args, s, os.path.join(SCRATCH, "never.y4m"))
        assert rc == 1 and text in err, (args, rc, err)
    assert not os.path.exists(os.path.join(SCRATCH, "never.y4m"))


def test_script_and_frame_errors_name_the_worker_and_the_frames():
    s = script()
    host = socket.gethostname()
    before = leftovers()
    rc, _, err = render("-a", "broken=1", s, "--")
    assert rc == 1, err
    assert f"the script failed on worker {host} (node " in err and "this script is broken on purpose" in err, err
    rc, _, err = render("--chunk", "10", "--retries", "1", "-a", "bad=13", s, "--")
    assert rc == 1, err
    assert "chunk 1 (frames 10 to 19) failed on every attempt (2):" in err, err
    assert err.count("frame 13 is bad on purpose") >= 2 and f"on worker {host}" in err, err
    # the failed job's other chunks were cancelled, and what they had begun to write is gone
    left = leftovers() - before
    assert not left, left
    missing = script("missing.vpy", "import vapoursynth as vs\nvs.core.std.LoadPlugin('/nonexistent/source.so')\n")
    rc, _, err = render(missing, "--")
    assert rc == 1 and f"on worker {host}" in err and "/nonexistent/source.so" in err, err
    rc, _, err = render(os.path.join(SCRATCH, "absent.vpy"), "--")
    assert rc == 1 and "cannot read" in err and "absent.vpy" in err, err


def test_encoded_segments_join_to_the_same_frames():
    if not shutil.which("ffmpeg"):
        raise AssertionError("ffmpeg is missing (scripts/setup.sh installs it)")
    s = script()
    out = os.path.join(SCRATCH, "joined.mkv")
    encode = "ffmpeg -hide_banner -loglevel error -f yuv4mpegpipe -i - -c:v ffv1 -y {out}"
    rc, _, err = render("--chunk", "11", "--encode", encode, s, out, env={"VSVK_RENDER_FETCH": "1"})
    assert rc == 0, err
    whole = os.path.join(SCRATCH, "whole.mkv")
    rc, _, err = vsvk("pipe", "-c", "y4m", s, os.path.join(SCRATCH, "whole.y4m"))
    assert rc == 0, err
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", os.path.join(SCRATCH, "whole.y4m"), "-c:v", "ffv1", whole],
                   check=True)

    def decoded(path):
        argv = ["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-"]
        return subprocess.run(argv, capture_output=True, check=True).stdout

    got = decoded(out)
    assert len(got) == 60 * 64 * 48 * 3 // 2 * 2
    assert got == decoded(whole) == pipe_bytes(s)
    probe = ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
             "stream=nb_read_frames", "-of", "csv=p=0", out]
    count = subprocess.run(probe, capture_output=True, text=True, check=True).stdout
    assert count.strip() == "60", count


def test_python_api_renders_a_clip_factory():
    address()
    frames = 30

    def make():
        import vsvk as v
        core = v.core
        c = core.std.BlankClip(width=32, height=32, format=v.GRAY8, length=frames)
        c = core.std.FrameEval(c, lambda n, c=c: core.std.BlankClip(c, color=[n * 7 % 256]))
        return c, core.std.Invert(c)

    out = os.path.join(SCRATCH, "api.raw")
    assert vs.render(make, out, chunk=4, container="none") == frames
    got = read(out)
    assert len(got) == frames * 32 * 32 * 2
    for n in (0, 5, 29):
        frame = got[n * 2048:(n + 1) * 2048]
        assert frame[:1024] == bytes([n * 7 % 256]) * 1024 and frame[1024:] == bytes([255 - n * 7 % 256]) * 1024, n
    try:
        vs.render(make, out, chunk=0)
    except ValueError as e:
        assert "chunk must be a whole number, 1 or more" in str(e)
    else:
        raise AssertionError("chunk=0 was accepted")
    try:
        vs.render(lambda: 1 / 0, out)
    except vs.Error as e:
        assert "ZeroDivisionError" in str(e), e
    else:
        raise AssertionError("a failing factory did not fail the job")


def test_gpu_script_and_vsvk_device():
    if os.environ.get("VSVK_EXPECT_VULKAN") != "1":
        print("     no Vulkan device: skipped")
        return
    rc, out, err = vsvk("devices", env={"VSVK_DEVICE": "0"})
    assert rc == 0 and b"the core uses:" in out, (out, err)
    rc, out, err = vsvk("devices", env={"VSVK_DEVICE": "GPU-" + "ab" * 16})
    assert b"the core has no device: VSVK_DEVICE=GPU-abab" in out, out
    assert b"names no Vulkan device (present: 0: " in out, out
    gpu = os.path.join(ROOT, "examples", "gpu_chain.vpy")
    args = ["-a", "width=192", "-a", "height=108", "-a", "frames=16", "-c", "y4m"]
    out = os.path.join(SCRATCH, "gpu.y4m")
    rc, _, err = render("--chunk", "5", *args, gpu, out)
    assert rc == 0, err
    assert read(out) == pipe_bytes(gpu, *args)


def shutdown():
    if ray.is_initialized():
        ray.shutdown()
    shutil.rmtree(SCRATCH, ignore_errors=True)


if __name__ == "__main__":
    import atexit

    atexit.register(shutdown)
    runner.main(globals())
