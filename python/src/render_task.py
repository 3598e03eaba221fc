# vsvk._render_task: what a Ray worker does for `vsvk render` (render_job.py is the driver's side).
#
# A task runs `vsvk pipe` on its frame range in a child process: a core of its own, whose device is
# the GPU Ray gave the task, and a crash of the core (or a lost GPU) ends the child, never the Ray
# worker, so the driver hears why. The child's result lands in a file on the worker's host; the
# driver reads it from there (the same host or a shared folder) or pulls it in blocks (read_block).
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time

# The child is `vsvk pipe` in this worker's Python. It ends itself when the worker that started it
# is gone (PR_SET_PDEATHSIG, then a check for the parent having died before that took effect), so
# a killed worker leaves no renderer writing into a file nobody will read.
_BOOT = (
    "import ctypes, os, signal, sys\n"
    "try:\n"
    "    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)\n"
    "except Exception:\n"
    "    pass\n"
    "if os.getppid() != int(os.environ.get('VSVK_RENDER_PARENT', os.getppid())):\n"
    "    sys.exit(137)\n"
    "import vsvk\n"
    "vsvk._main(sys.argv[1:])\n"
)

# The script a clip factory (vsvk.render's first argument) runs as: it sets the factory's clip as
# output 0, as a script would.
_FACTORY_SCRIPT = (
    "import pickle\n"
    "with open({path!r}, 'rb') as f:\n"
    "    made = pickle.load(f)()\n"
    "if isinstance(made, tuple):\n"
    "    made[0].set_output(0, alpha=made[1] if len(made) > 1 else None)\n"
    "else:\n"
    "    made.set_output(0)\n"
)

# vsvk pipe -p's progress line; what follows it on the same line is a message
_PROGRESS = re.compile(rb"Frame (\d+)/(\d+)(?: \([^)]*\))?\s*")


class RenderError(Exception):
    """A task's failure, with the worker it happened on in its text."""


def where():
    """This worker, as error messages name it."""
    import ray

    node = ray.get_runtime_context().get_node_id() or "?"
    return f"worker {socket.gethostname()} (node {node[:12]}, pid {os.getpid()})"


def _gpu_device():
    """VSVK_DEVICE for the GPU Ray assigned to this task: the card's UUID, which Vulkan reports
    too, from nvidia-smi (Ray's GPU ids are NVML's indices); without nvidia-smi, Ray's id as a
    Vulkan device index (GPUs declared to Ray by hand, in Vulkan's order). None without a GPU."""
    import ray

    ids = [str(i) for i in ray.get_gpu_ids()]
    if not ids:
        return None
    gid = ids[0]
    if gid.startswith("GPU-"):
        return gid
    try:
        query = ["nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader"]
        r = subprocess.run(query, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return gid
    for line in r.stdout.splitlines():
        index, _, uuid = line.partition(",")
        if index.strip() == gid and uuid.strip():
            return uuid.strip()
    return gid


def _child_env():
    env = dict(os.environ)
    env["VSVK_RENDER_PARENT"] = str(os.getpid())
    device = _gpu_device()
    if device is not None:
        env["VSVK_DEVICE"] = device
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _script(spec, tmp, tag):
    """The script's path on this host: the driver's own path where it holds the same text (so that
    its folder, imports and relative paths are as the user left them), else a copy in tmp; for a
    clip factory, a script that calls it."""
    if spec.get("factory") is not None:
        pickled = os.path.join(tmp, f"{tag}.factory")
        with open(pickled, "wb") as f:
            f.write(spec["factory"])
        path = os.path.join(tmp, f"{tag}.vpy")
        with open(path, "w") as f:
            f.write(_FACTORY_SCRIPT.format(path=pickled))
        return path, [pickled, path]
    path, text = spec["script"], spec["script_text"]
    try:
        with open(path, "rb") as f:
            if f.read() == text:
                return path, []
    except OSError:
        pass
    copy = os.path.join(tmp, f"{tag}-{os.path.basename(path)}")
    with open(copy, "wb") as f:
        f.write(text)
    return copy, [copy]


def _pipe_args(spec, script, out, extra):
    args = [sys.executable, "-c", _BOOT, "pipe", script, out, "-o", str(spec["output"])]
    for k, v in spec["args"]:
        args += ["-a", f"{k}={v}"]
    return args + extra


class _Drain(threading.Thread):
    """Reads a child's standard error: progress lines (vsvk pipe -p) go to `on_progress`, the rest
    is kept (its last 16 KiB) for the error message."""

    def __init__(self, stream, on_progress=None):
        super().__init__(daemon=True)
        self.stream, self.on_progress = stream, on_progress
        self.text = bytearray()

    def run(self):
        pending = b""
        while True:
            block = self.stream.read1(65536) if hasattr(self.stream, "read1") else self.stream.read(65536)
            if not block:
                break
            pending += block
            parts = re.split(rb"[\r\n]", pending)
            pending = parts.pop()
            for p in parts:
                self._line(p)
        self._line(pending)

    def _line(self, line):
        line = line.rstrip()
        m = _PROGRESS.match(line) if self.on_progress else None
        if m:
            self.on_progress(int(m.group(1)))
            line = line[m.end():]
        if line:
            self.text += line + b"\n"
            del self.text[: max(0, len(self.text) - 16384)]

    def message(self):
        return self.text.decode(errors="replace").strip()


def _record_pids(spec, index, attempt, child):
    # A test hook (VSVK_RENDER_PID_DIR on the driver): the test kills a worker or its renderer by these.
    d = spec.get("pid_dir")
    if d:
        tmp = os.path.join(d, f".chunk-{index}-{attempt}")
        with open(tmp, "w") as f:
            f.write(f"{os.getpid()} {child.pid}\n")
        os.replace(tmp, os.path.join(d, f"chunk-{index}-{attempt}"))


def _signal_text(rc):
    try:
        return f"was killed by {signal.Signals(-rc).name}"
    except ValueError:
        return f"was killed by signal {-rc}"


def probe(spec):
    """The output clip's properties as `vsvk pipe --info` prints them (a dict), with this worker's name."""
    tmp = spec["tmp"]
    os.makedirs(tmp, exist_ok=True)
    script, scratch = _script(spec, tmp, f"{spec['job']}-probe-{os.getpid()}")
    try:
        r = subprocess.run(_pipe_args(spec, script, "-", ["--info"]), capture_output=True, env=_child_env())
    finally:
        for f in scratch:
            _remove(f)
    if r.returncode != 0:
        text = r.stderr.decode(errors="replace").strip() or f"vsvk pipe exited with status {r.returncode}"
        raise RenderError(f"on {where()}: {text}")
    info = {}
    for line in r.stdout.decode(errors="replace").splitlines():
        k, sep, v = line.partition(": ")
        if sep:
            info[k.strip()] = v.strip()
    info["worker"] = where()
    return info


def chunk(spec, index, attempt, first, last, board):
    """Renders frames first..last into a file on this host; returns where it lies."""
    tmp = spec["tmp"]
    os.makedirs(tmp, exist_ok=True)
    tag = f"{spec['job']}-{index:06d}-{attempt}"
    script, scratch = _script(spec, tmp, tag)
    out = os.path.join(tmp, f"{tag}.{spec['suffix']}")
    count = last - first + 1
    shown = [0, 0.0]

    def progress(done):
        now = time.monotonic()
        if board is not None and (done == count or now - shown[1] >= 0.5):
            shown[:] = [done, now]
            board.set.remote(index, done)

    container = ["-c", "y4m" if spec["y4m"] or spec["encode"] else "none"]
    extra = ["-s", str(first), "-e", str(last), "-p"] + container
    env = _child_env()
    pipe = encoder = None
    try:
        if spec["encode"]:
            argv = _pipe_args(spec, script, "-", extra)
            pipe = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            argv = [a.replace("{out}", out) for a in shlex.split(spec["encode"])]
            try:
                encoder = subprocess.Popen(argv, stdin=pipe.stdout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            except OSError as e:
                pipe.kill()
                raise RenderError(f"on {where()}: cannot run the encoder {argv[0]}: {e}") from None
            pipe.stdout.close()
        else:
            argv = _pipe_args(spec, script, out, extra)
            pipe = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        _record_pids(spec, index, attempt, pipe)
        drain = _Drain(pipe.stderr, progress)
        drain.start()
        enc_drain = _Drain(encoder.stderr) if encoder else None
        if enc_drain:
            enc_drain.start()
        rc = pipe.wait()
        drain.join()
        enc_rc = encoder.wait() if encoder else 0
        if enc_drain:
            enc_drain.join()
        frames = f"frames {first} to {last}"
        if enc_rc != 0:
            # first: a failed encoder is also why vsvk pipe could not write
            raise RenderError(f"{frames} on {where()}: the encoder exited with status {enc_rc}: "
                              f"{enc_drain.message()[-4000:]}")
        if rc != 0:
            text = drain.message() or f"vsvk pipe exited with status {rc}"
            if rc < 0:
                said = f"; it said:\n{text}" if drain.message() else ""
                text = f"the renderer (vsvk pipe, pid {pipe.pid}) {_signal_text(rc)}{said}"
            raise RenderError(f"{frames} on {where()}: {text}")
        if not os.path.isfile(out):
            missing = f"the encoder wrote no file at {out}" if encoder else f"vsvk pipe wrote no {out}"
            raise RenderError(f"{frames} on {where()}: {missing}")
        progress(count)
    except BaseException:
        for p in (pipe, encoder):
            if p is not None and p.poll() is None:
                p.kill()
        _remove(out)
        raise
    finally:
        for f in scratch:
            _remove(f)
    import ray

    node = ray.get_runtime_context().get_node_id()
    return {"path": out, "size": os.path.getsize(out), "node": node, "host": socket.gethostname()}


def read_block(path, offset, length):
    """A block of a result file, for a driver on another host."""
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(length)


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


def remove(path):
    _remove(path)


def sweep(tmp, job):
    """Removes what this job left in tmp on this host (chunks of cancelled tasks)."""
    try:
        names = os.listdir(tmp)
    except OSError:
        return
    for n in names:
        if n.startswith(f"{job}-"):
            _remove(os.path.join(tmp, n))


class Board:
    """Frames done per chunk, from the tasks, for the driver's progress line (a Ray actor)."""

    def __init__(self):
        self.done = {}

    def set(self, index, frames):
        self.done[index] = frames

    def forget(self, index):
        self.done.pop(index, None)

    def total(self):
        return dict(self.done)
