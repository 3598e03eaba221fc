# vsvk._render: chunked rendering on Ray, the driver's side (`vsvk render`, vsvk.render()).
#
# The output clip's frame range is cut into chunks; each is rendered by a Ray task
# (render_task.chunk) that runs `vsvk pipe` on it with a core of its own, into a file on the
# worker's host. Chunks finish in any order; the driver appends them to the output strictly in
# order, each whole or not at all, so a chunk that is retried (its worker died, its GPU was lost)
# is never written twice nor left out. Chunk files are bounded: tasks are handed out at most
# `window` chunks ahead of the one being written.
import logging
import math
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid

# (vsvk is still being imported when this runs: its sibling comes from sys.modules)
task = sys.modules["vsvk._render_task"]

BLOCK = 16 << 20  # bytes per pull of a result from another host, and per copy


class RenderFailed(Exception):
    """The job cannot go on; the text says why (and which frames, and where)."""


class Job:
    """What to render and how: the CLI's options and vsvk.render's arguments alike."""

    def __init__(self, out, *, script=None, factory=None, output=0, args=(), y4m=False, start=None, end=None,
                 chunk=None, splits=None, encode=None, address=None, workers=None, cpus_per_worker=4,
                 workers_per_gpu=1, gpus=None, retries=3, tmp=None, progress=False):
        self.out, self.script, self.factory, self.output, self.args = out, script, factory, output, list(args)
        self.y4m, self.start, self.end, self.chunk, self.splits, self.encode = y4m, start, end, chunk, splits, encode
        self.address, self.workers, self.cpus_per_worker = address, workers, cpus_per_worker
        self.workers_per_gpu, self.gpus, self.retries = workers_per_gpu, gpus, retries
        self.tmp, self.progress = tmp, progress
        self.check()

    def check(self):
        def whole(name, v, least):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < least):
                raise ValueError(f"{name} must be a whole number, {least} or more (got {v!r})")

        whole("chunk", self.chunk, 1)
        whole("workers", self.workers, 1)
        whole("cpus_per_worker", self.cpus_per_worker, 1)
        whole("workers_per_gpu", self.workers_per_gpu, 1)
        whole("gpus", self.gpus, 0)
        whole("retries", self.retries, 0)
        whole("start", self.start, 0)
        whole("end", self.end, 0)
        if self.chunk is not None and self.splits is not None:
            raise ValueError("give chunk or splits, not both")
        if self.splits is not None:
            for s in self.splits:
                whole("a split", s, 0)
        if self.encode is not None:
            try:
                argv = shlex.split(self.encode)
            except ValueError as e:
                raise ValueError(f"encode: {e}") from None
            if not argv or not any("{out}" in a for a in argv):
                raise ValueError("encode needs a command with {out} where the segment file goes, "
                                 "e.g. \"ffmpeg -i - -c:v ffv1 {out}\"")
            if self.out in ("-", "--") or not os.path.splitext(self.out)[1]:
                raise ValueError("with encode, OUT is a file whose extension names the container the segments "
                                 "are joined in (e.g. out.mkv)")
        if self.start is not None and self.end is not None and self.end < self.start:
            raise ValueError(f"the frame range {self.start} to {self.end} is empty")
        if self.tmp is not None and not os.path.isdir(self.tmp):
            raise ValueError(f"tmp: {self.tmp} is not a folder")
        if self.factory is None and self.script is None:
            raise ValueError("nothing to render: no script and no clip factory")


def plan(first, last, chunk=None, splits=None, workers=1):
    """The chunks of frames first..last, as (first, last) pairs: `chunk` frames each, or starting at
    each of `splits` (frame numbers inside the range; the range's start is implied)."""
    if last < first:
        raise RenderFailed(f"the frame range {first} to {last} is empty")
    count = last - first + 1
    if splits is not None:
        starts = [first]
        for s in splits:
            if s < first or s > last:
                raise RenderFailed(f"split {s} lies outside the frames rendered ({first} to {last})")
            if s == first and starts == [first]:
                continue
            if s <= starts[-1]:
                raise RenderFailed(f"splits must increase: {s} comes after {starts[-1]}")
            starts.append(s)
        return [(a, b - 1) for a, b in zip(starts, starts[1:] + [last + 1])]
    size = chunk or max(1, math.ceil(count / (4 * workers)))
    return [(a, min(a + size, last + 1) - 1) for a in range(first, last + 1, size)]


def read_splits(text):
    """Frame numbers from the text of --splits (commas) or a splits file (one a line, or commas;
    '#' starts a comment)."""
    out = []
    for line in text.splitlines():
        for item in line.split("#")[0].replace(",", " ").split():
            try:
                out.append(int(item))
            except ValueError:
                raise RenderFailed(f"split {item!r} is not a frame number") from None
    if not out:
        raise RenderFailed("no splits given")
    return out


def _module_root():
    """The folder `import vsvk` finds vsvk in: the wheel's site-packages, or the build tree's
    module folder (the vsvk command's), for the workers' Python path."""
    import vsvk

    d = os.path.dirname(os.path.abspath(vsvk.__file__))
    return os.path.dirname(d) if os.path.isfile(os.path.join(d, "__init__.py")) else d


def _connect(job):
    """Ray, started or joined; returns (ray, whether this call started it)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if job.address:
        # A cluster started with `ray start` where a token exists (or given one) uses token
        # authentication; Ray's client presents the token only in token mode, which `ray start`
        # takes by itself where a token exists and the client does not. Ray reads the mode when
        # it is imported.
        token = os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.isfile(
            os.path.expanduser("~/.ray/auth_token"))
        if token and "RAY_AUTH_MODE" not in os.environ:
            os.environ["RAY_AUTH_MODE"] = "token"
    try:
        import ray
    except ImportError:
        raise RenderFailed(f"vsvk render needs Ray in the Python it runs in ({sys.executable}): "
                           "pip install ray") from None
    if ray.is_initialized():
        return ray, False
    root = _module_root()
    # Ray's own notices (its token authentication, its object store's folder) are not the job's
    kw = dict(logging_level=logging.ERROR, log_to_driver=False)
    if job.address:
        # Nodes with vsvk where the driver has it find it there; others need their own install.
        kw["runtime_env"] = {"env_vars": {"PYTHONPATH": f"{root}:${{PYTHONPATH}}"}}
        try:
            ray.init(address=job.address, **kw)
        except Exception as e:
            raise RenderFailed(f"cannot join the Ray cluster at {job.address}: {type(e).__name__}: {e}") from None
    else:
        # The local instance's processes inherit this environment: workers import vsvk from here.
        path = os.environ.get("PYTHONPATH", "")
        if root not in path.split(":"):
            os.environ["PYTHONPATH"] = f"{root}:{path}" if path else root
        try:
            ray.init(address="local", num_cpus=os.cpu_count(), num_gpus=job.gpus, include_dashboard=False,
                     object_store_memory=256 << 20, **kw)
        except Exception as e:
            raise RenderFailed(f"cannot start a local Ray instance: {type(e).__name__}: {e}") from None
    return ray, True


def _resources(ray, job):
    """The options of every task, the number of chunks rendered at once, and a line saying so."""
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    gpus = sum(n["Resources"].get("GPU", 0) for n in nodes)
    if gpus > 0:
        per = job.workers_per_gpu
        capacity = sum(int(n["Resources"].get("GPU", 0) * per + 1e-9) for n in nodes)
        opts = dict(num_cpus=0, num_gpus=1.0 / per)
        what = f"{gpus:g} GPU(s) on {len(nodes)} node(s), {per} worker(s) per GPU"
    else:
        most = max((int(n["Resources"].get("CPU", 0)) for n in nodes), default=0)
        if most < 1:
            raise RenderFailed("the Ray cluster has no CPUs and no GPUs to render on")
        need = min(job.cpus_per_worker, most)
        capacity = sum(int(n["Resources"].get("CPU", 0)) // need for n in nodes)
        opts = dict(num_cpus=need)
        what = f"no GPUs: {need} CPU core(s) per worker on {len(nodes)} node(s)"
    workers = job.workers or capacity
    return opts, workers, f"{workers} worker(s) at once ({what})"


def _describe(ray, e):
    """A task failure's text: our own error's message, or what Ray says of the worker's end."""
    cause = getattr(e, "cause", None)
    if isinstance(cause, task.RenderError):
        return str(cause)
    if isinstance(e, ray.exceptions.RayTaskError):
        return str(cause or e).strip()
    return f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else 'the worker was lost'}"


def _probe(ray, job, spec, opts):
    remote = ray.remote(task.probe).options(max_retries=0, **opts)
    for attempt in range(job.retries + 1):
        try:
            return ray.get(remote.remote(spec))
        except ray.exceptions.RayTaskError as e:
            raise RenderFailed(f"the script failed {_describe(ray, e)}") from None
        except ray.exceptions.RayError as e:
            if attempt == job.retries:
                raise RenderFailed("reading the output clip's properties failed on every attempt: "
                                   f"{_describe(ray, e)}") from None


def _check_clip(info, job):
    if "Frames" not in info:
        raise RenderFailed("the output is audio; vsvk render renders video (vsvk pipe writes audio)")
    if info.get("GPU Resident") == "Yes":
        raise RenderFailed("the output clip is GPU resident; end the script's chain with std.GPUDownload")
    if job.y4m or job.encode:
        why = None
        if info.get("Format Name") == "variable" or info.get("Width") == "variable" or info.get("Height") == "variable":
            why = "y4m needs a clip of constant format and dimensions"
        elif info.get("Color Family") == "RGB" or info.get("Sample Type") == "Float" or int(info.get("Bits", "8")) > 16:
            why = f"y4m cannot carry {info.get('Format Name')}"
        elif info.get("Alpha") == "Yes":
            why = "y4m cannot carry the output's alpha"
        if why:
            raise RenderFailed(why + ("; use --container none" if not job.encode else " (the encoder gets y4m)"))
    return int(info["Frames"])


class _Writer(threading.Thread):
    """Appends finished chunks to the output (or, with --encode, collects the segments), one at a
    time as the driver hands them over in order; tells the driver through `events`."""

    def __init__(self, ray, job, sink, total, local_dir, fetch):
        super().__init__(daemon=True)
        self.ray, self.job, self.sink, self.total, self.local_dir, self.fetch = ray, job, sink, total, local_dir, fetch
        self.inbox, self.events = queue.Queue(), queue.Queue()
        self.header = None
        self.segments = []
        self.read_block = ray.remote(task.read_block)
        self.remove = ray.remote(task.remove)

    def run(self):
        while True:
            item = self.inbox.get()
            if item is None:
                return
            index, res = item
            try:
                path = self._local(index, res)
            except Exception as e:
                why = f"its result could not be fetched from {res['host']}: {_describe(self.ray, e)}"
                self.events.put(("lost", index, why))
                continue
            try:
                self._append(index, path)
            except Exception as e:
                self.events.put(("error", index, str(e)))
                return
            self.events.put(("written", index, None))

    def _pinned(self, res):
        """Task options that run it on the host of a chunk's result."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        strategy = NodeAffinitySchedulingStrategy(res["node"], soft=False)
        return dict(num_cpus=0, max_retries=0, scheduling_strategy=strategy)

    def _local(self, index, res):
        """The chunk's file on this host: where it lies (the same host, or a folder shared with its
        worker), else pulled here whole first, so that a host lost mid-pull costs a re-render, not
        a half-written chunk."""
        path, size = res["path"], res["size"]
        if not self.fetch and os.path.isfile(path) and os.path.getsize(path) == size:
            return path
        local = os.path.join(self.local_dir, f"pulled-{index:06d}{os.path.splitext(path)[1]}")
        pinned = self._pinned(res)
        offsets = list(range(0, size, BLOCK))
        with open(local, "wb") as f:
            inflight = []
            for off in offsets:
                inflight.append(self.read_block.options(**pinned).remote(path, off, BLOCK))
                if len(inflight) >= 4:
                    f.write(self.ray.get(inflight.pop(0)))
            for ref in inflight:
                f.write(self.ray.get(ref))
        if os.path.getsize(local) != size:
            raise RenderFailed(f"pulled {os.path.getsize(local)} bytes of {size}")
        self.remove.options(**pinned).remote(path)
        return local

    def _append(self, index, path):
        if self.job.encode:
            seg = os.path.join(self.local_dir, f"segment-{index:06d}{os.path.splitext(self.job.out)[1]}")
            shutil.move(path, seg)
            self.segments.append(seg)
            return
        with open(path, "rb") as f:
            if self.job.y4m:
                head = f.readline()
                if not head.startswith(b"YUV4MPEG2 ") or not head.endswith(b"\n"):
                    raise RenderFailed(f"chunk {index}'s result is not y4m")
                own = re.sub(rb" XLENGTH=\d+", b"", head)
                if self.header is None:
                    self.header = own
                    self.sink.write(re.sub(rb"XLENGTH=\d+", b"XLENGTH=%d" % self.total, head))
                elif own != self.header:
                    raise RenderFailed(f"chunk {index}'s y4m header differs from the first chunk's: "
                                       f"{head.decode().strip()}")
            while True:
                block = f.read(BLOCK)
                if not block:
                    break
                self.sink.write(block)
        self.sink.flush()
        task._remove(path)


class _Progress:
    """`vsvk pipe -p`'s line over the whole job: frames of finished chunks and of running ones (as
    their tasks report them to the Board actor)."""

    def __init__(self, ray, board, count, on, plan):
        self.ray, self.board, self.count, self.on = ray, board, count, on
        self.t0 = self.last = time.monotonic()
        self.finished = 0  # frames of chunks whose result is in
        self.closed = set()  # those chunks, whose reports on the board no longer count
        self.live = {}
        if on:
            sys.stderr.write(f"vsvk render: {plan}\nFrame 0/{count}")
            sys.stderr.flush()

    def done(self):
        return min(self.count, self.finished + sum(v for k, v in self.live.items() if k not in self.closed))

    def tick(self, force=False):
        if not self.on or (not force and time.monotonic() - self.last < 0.25):
            return
        self.last = time.monotonic()
        try:
            self.live = self.ray.get(self.board.total.remote(), timeout=5)
        except Exception:
            pass
        done = self.done()
        fps = done / max(time.monotonic() - self.t0, 1e-9)
        eta = int((self.count - done) / fps) if fps > 0 else None
        eta = f"{eta // 3600}:{eta // 60 % 60:02}:{eta % 60:02}" if eta is not None else "-:--:--"
        sys.stderr.write(f"\rFrame {done}/{self.count} ({fps:.2f} fps, ETA {eta})   ")
        sys.stderr.flush()

    def say(self, text):
        """A line of its own, above the progress line."""
        sys.stderr.write(("\n" if self.on else "") + f"vsvk render: {text}\n")
        sys.stderr.flush()


def _spec(job, jobid, fetch):
    spec = dict(job=jobid, output=job.output, args=job.args, y4m=job.y4m, encode=job.encode, tmp=job.tmp,
                pid_dir=os.environ.get("VSVK_RENDER_PID_DIR") or None, factory=None)
    spec["suffix"] = os.path.splitext(job.out)[1].lstrip(".") if job.encode else ("y4m" if job.y4m else "raw")
    if job.factory is not None:
        import ray.cloudpickle as cloudpickle

        spec["factory"] = cloudpickle.dumps(job.factory)
    else:
        spec["script"] = os.path.abspath(job.script)
        try:
            with open(job.script, "rb") as f:
                spec["script_text"] = f.read()
        except OSError as e:
            raise RenderFailed(f"cannot read {job.script}: {e}") from None
    return spec


def _open_out(job):
    if job.encode or job.out == "--":
        return open(os.devnull, "wb")
    if job.out == "-":
        # frames go to the standard output; anything else printed there (Ray's, a library's)
        # goes to standard error instead
        sys.stdout.flush()
        out = os.fdopen(os.dup(1), "wb", buffering=1 << 20)
        os.dup2(2, 1)
        return out
    try:
        return open(job.out, "wb", buffering=1 << 20)
    except OSError as e:
        raise RenderFailed(f"cannot open {job.out}: {e}") from None


def run(job):
    """Renders the job; returns the number of frames written. Raises RenderFailed."""
    jobid = "vsvk-render-" + uuid.uuid4().hex[:12]
    fetch = os.environ.get("VSVK_RENDER_FETCH") == "1"  # test hook: pull results as from another host
    spec = _spec(job, jobid, fetch)
    ray, started = _connect(job)
    local_dir = tempfile.mkdtemp(prefix=jobid + "-", dir=job.tmp)
    spec["tmp"] = job.tmp or tempfile.gettempdir()
    running = {}
    try:
        opts, workers, what = _resources(ray, job)
        info = _probe(ray, job, spec, opts)
        total = _check_clip(info, job)
        first = 0 if job.start is None else job.start
        last = total - 1 if job.end is None else job.end
        if first >= total or last >= total:
            raise RenderFailed(f"invalid frame range {first} to {last}: the clip has frames 0 to {total - 1}")
        chunks = plan(first, last, job.chunk, job.splits, workers)
        saved = os.dup(1) if job.out == "-" else None
        sink = _open_out(job)
        try:
            count = _drive(ray, job, spec, opts, workers, what, chunks, last - first + 1, sink, local_dir, fetch,
                           running)
        finally:
            try:
                sink.close()
            finally:
                if saved is not None:
                    # vsvk.render's caller gets its standard output back
                    os.dup2(saved, 1)
                    os.close(saved)
        return count
    finally:
        cancelled = list(running)
        for ref in cancelled:
            try:
                ray.cancel(ref, force=True)
            except Exception:
                pass
        # A cancelled task's renderer may have been starting: its result file could appear after a
        # sweep made at once (a failed job left a chunk's empty result behind that way).
        if cancelled:
            try:
                ray.wait(cancelled, num_returns=len(cancelled), timeout=10)
            except Exception:
                pass
        _sweep(ray, spec)
        shutil.rmtree(local_dir, ignore_errors=True)
        if started:
            ray.shutdown()


def _drive(ray, job, spec, opts, workers, what, chunks, count, sink, local_dir, fetch, running):
    board = ray.remote(task.Board).options(num_cpus=0).remote()
    remote = ray.remote(task.chunk).options(max_retries=0, **opts)
    plan_text = f"{len(chunks)} chunk(s) of frames {chunks[0][0]} to {chunks[-1][1]}, {what}"
    progress = _Progress(ray, board, count, job.progress, plan_text)
    writer = _Writer(ray, job, sink, count, local_dir, fetch)
    writer.start()
    window = max(2 * workers, workers + 1)  # chunks handed out past the one being written
    pending = list(range(len(chunks)))  # not yet handed out, or back for another attempt
    attempts = [0] * len(chunks)
    failures = [[] for _ in chunks]
    results = {}
    written = 0
    writing = False
    t0 = time.monotonic()

    def failed(index, text):
        a, b = chunks[index]
        failures[index].append(text)
        if attempts[index] > job.retries:
            tries = "\n".join(f"  attempt {i + 1}: {t}" for i, t in enumerate(failures[index]))
            raise RenderFailed(f"chunk {index} (frames {a} to {b}) failed on every attempt ({attempts[index]}):"
                               f"\n{tries}")
        lines = text.strip().splitlines() or ["no reason given"]
        brief = lines[0] if len(lines) == 1 else f"{lines[0]} ... {lines[-1]}"
        progress.say(f"chunk {index} (frames {a} to {b}) failed ({brief}); "
                     f"trying again (attempt {attempts[index] + 1} of {job.retries + 1})")
        board.forget.remote(index)
        pending.insert(0, index)
        pending.sort()

    try:
        while written < len(chunks):
            while pending and len(running) < workers and pending[0] < written + window:
                index = pending.pop(0)
                a, b = chunks[index]
                running[remote.remote(spec, index, attempts[index], a, b, board)] = index
                attempts[index] += 1
            if running:
                ready, _ = ray.wait(list(running), num_returns=len(running), timeout=0.1)
            else:
                ready = []
                time.sleep(0.05)
            for ref in ready:
                index = running.pop(ref)
                try:
                    res = ray.get(ref)
                except ray.exceptions.RayError as e:
                    failed(index, _describe(ray, e))
                    continue
                results[index] = res
                a, b = chunks[index]
                progress.finished += b - a + 1
                progress.closed.add(index)
                board.forget.remote(index)
            while True:
                try:
                    kind, index, text = writer.events.get_nowait()
                except queue.Empty:
                    break
                writing = False
                if kind == "written":
                    written += 1
                elif kind == "lost":
                    a, b = chunks[index]
                    progress.finished -= b - a + 1
                    progress.closed.discard(index)
                    failed(index, text)
                else:
                    raise RenderFailed(f"writing chunk {index} to {job.out} failed: {text}")
            if not writing and written in results:
                writer.inbox.put((written, results.pop(written)))
                writing = True
            progress.tick()
    except BaseException:
        writer.inbox.put(None)
        raise
    writer.inbox.put(None)
    writer.join()
    if job.encode:
        _join(job, writer.segments, local_dir)
    progress.tick(force=True)
    secs = time.monotonic() - t0
    if job.progress:
        sys.stderr.write(f"\nOutput {count} frames in {secs:.2f} seconds ({count / max(secs, 1e-9):.2f} fps)\n")
    return count


def _join(job, segments, local_dir):
    """The segments, joined without re-encoding (ffmpeg's concat demuxer, -c copy)."""
    listing = os.path.join(local_dir, "segments.txt")
    with open(listing, "w") as f:
        for s in segments:
            f.write("file '" + s.replace("'", "'\\''") + "'\n")
    argv = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "concat", "-safe", "0", "-i", listing,
            "-map", "0", "-c", "copy", job.out]
    try:
        r = subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        raise RenderFailed(f"joining the segments needs ffmpeg: {e}") from None
    if r.returncode != 0:
        raise RenderFailed(f"joining the segments into {job.out} failed: {r.stderr.strip()[-4000:]}")


def _sweep(ray, spec):
    """Removes what the job's tasks left (chunks of cancelled or killed tasks) on every host."""
    task.sweep(spec["tmp"], spec["job"])
    refs = []
    try:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = ray.get_runtime_context().get_node_id()
        nodes = {n["NodeID"] for n in ray.nodes() if n.get("Alive")}
        sweep = ray.remote(task.sweep)
        for n in nodes - {here}:
            pinned = NodeAffinitySchedulingStrategy(n, soft=True)
            opts = dict(num_cpus=0, max_retries=0, scheduling_strategy=pinned)
            refs.append(sweep.options(**opts).remote(spec["tmp"], spec["job"]))
        ray.wait(refs, num_returns=len(refs), timeout=10)
    except Exception:
        pass


def render(clip_factory, out, *, chunk=None, splits=None, start=None, end=None, container="y4m", encode=None,
           address=None, workers=None, cpus_per_worker=4, workers_per_gpu=1, gpus=None, retries=3, tmp=None,
           progress=False):
    """Renders the clip `clip_factory()` returns (a VideoNode, or a (clip, alpha) tuple) in chunks on
    Ray, as `vsvk render` renders a script's output, into the file `out` ("-" for standard output).
    clip_factory is called in each worker process, so it must be picklable (Ray's cloudpickle:
    functions and lambdas of the calling script are) and build everything it needs itself.
    Returns the number of frames written; raises vsvk.Error when the job fails."""
    import vsvk

    if container not in ("y4m", "none", "raw"):
        raise ValueError(f"container must be 'y4m' or 'none', not {container!r}")
    if not callable(clip_factory):
        raise TypeError("clip_factory must be a callable that returns the clip to render")
    job = Job(out, factory=clip_factory, y4m=container == "y4m", start=start, end=end, chunk=chunk,
              splits=list(splits) if splits is not None else None, encode=encode, address=address, workers=workers,
              cpus_per_worker=cpus_per_worker, workers_per_gpu=workers_per_gpu, gpus=gpus, retries=retries, tmp=tmp,
              progress=progress)
    try:
        return run(job)
    except RenderFailed as e:
        raise vsvk.Error(str(e)) from None
