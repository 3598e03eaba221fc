# vsvk._render_cli: the `vsvk render` command's options (render_job.py does the work).
import sys

USAGE = """\
usage: vsvk render [options] SCRIPT OUT

Renders SCRIPT's output clip in chunks of frames, each in a Ray worker process that runs the script
with a core of its own, and writes the frames to OUT (a file, - for standard output, -- for
nowhere) in order as the chunks finish in any order: the same bytes as `vsvk pipe` of the script.
A chunk whose worker dies (killed, GPU lost) is rendered again elsewhere.

Without --address it starts a local Ray instance: one worker per GPU (Ray's count of NVIDIA GPUs;
each worker's core takes the GPU Ray gives it), or, without GPUs, one per 4 CPU cores.

output (as vsvk pipe):
  -c, --container y4m|none  y4m, or raw planes followed by the alpha planes when the output has
                            alpha (default: none)
  -s, --start N             first frame to write (default 0)
  -e, --end N               last frame to write, inclusive (default: the clip's last)
  -o, --outputindex N       which output to write (default 0)
  -a, --arg KEY=VALUE       set the global KEY to the string VALUE in the script (repeatable)
  -p, --progress            show frames done, speed and time left on standard error
      --encode "COMMAND"    run COMMAND for each chunk with its frames as y4m on standard input;
                            {out} in COMMAND is the segment file it writes (in OUT's container,
                            e.g. "ffmpeg -i - -c:v libx264 -crf 18 {out}"); the segments are then
                            joined into OUT by ffmpeg without re-encoding (concat demuxer, -c copy)

chunks:
      --chunk N             frames per chunk (default: the range in 4 chunks per worker)
      --splits N,N,...      the first frame of each chunk instead (keyframes, scene changes)
      --splits-file FILE    the same from FILE: frame numbers, one a line or comma separated

workers:
      --address ADDRESS     join a Ray cluster (what `ray start --head` printed, or auto); its
                            nodes need vsvk, Ray and the script's sources
      --workers N           chunks rendered at once (default: all the resources allow)
      --workers-per-gpu N   workers sharing each GPU (default 1)
      --cpus-per-worker N   CPU cores per worker where there are no GPUs (default 4)
      --gpus N              GPUs the local instance offers (default: Ray's count; 0: CPUs only)
      --retries N           attempts after a chunk's first failure (default 3)
      --tmp DIR             folder for the chunks' results on each host (default: the system's
                            temporary folder; at most 2 per worker wait there to be written)
  -h, --help                show this
"""


def parse(args):
    """The Job of the command line; None for --help. Raises ValueError with the reason."""
    from vsvk._render import Job, read_splits

    opts = dict(y4m=False, args=[], output=0)
    positional = []
    splits_text = None
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        name, eq, inline = a.partition("=")
        if not (eq and name.startswith("--")):
            name, inline = a, None

        def value():
            nonlocal i
            if inline is not None:
                return inline
            if i >= len(args):
                raise ValueError(f"{name} needs a value")
            i += 1
            return args[i - 1]

        def whole(least):
            v = value()
            try:
                n = int(v.strip())
            except ValueError:
                raise ValueError(f"{name}: {v} is not a whole number") from None
            if n < least:
                raise ValueError(f"{name}: {n} is too small (at least {least})")
            return n

        if name in ("-h", "--help"):
            return None
        elif name in ("-c", "--container"):
            v = value()
            if v not in ("y4m", "none", "raw"):
                raise ValueError(f"unknown container {v} (y4m or none; vsvk render renders video)")
            opts["y4m"] = v == "y4m"
        elif name in ("-s", "--start"):
            opts["start"] = whole(0)
        elif name in ("-e", "--end"):
            opts["end"] = whole(0)
        elif name in ("-o", "--outputindex"):
            opts["output"] = whole(0)
        elif name in ("-a", "--arg"):
            kv = value()
            k, sep, v = kv.partition("=")
            if not sep:
                raise ValueError(f"--arg {kv}: expected KEY=VALUE")
            opts["args"].append((k, v))
        elif name in ("-p", "--progress"):
            opts["progress"] = True
        elif name == "--encode":
            opts["encode"] = value()
        elif name == "--chunk":
            opts["chunk"] = whole(1)
        elif name == "--splits":
            splits_text = value()
        elif name == "--splits-file":
            path = value()
            try:
                with open(path) as f:
                    splits_text = f.read()
            except OSError as e:
                raise ValueError(f"--splits-file: cannot read {path}: {e}") from None
        elif name == "--address":
            opts["address"] = value()
        elif name == "--workers":
            opts["workers"] = whole(1)
        elif name == "--workers-per-gpu":
            opts["workers_per_gpu"] = whole(1)
        elif name == "--cpus-per-worker":
            opts["cpus_per_worker"] = whole(1)
        elif name == "--gpus":
            opts["gpus"] = whole(0)
        elif name == "--retries":
            opts["retries"] = whole(0)
        elif name == "--tmp":
            opts["tmp"] = value()
        elif name.startswith("-") and len(name) > 1 and name != "--":
            raise ValueError(f"unknown option {name}")
        else:
            positional.append(a)
    if len(positional) > 2:
        raise ValueError(f"unexpected argument {positional[2]}")
    if not positional:
        raise ValueError("no script given")
    if len(positional) < 2:
        raise ValueError("no output given (a file, - for standard output, or -- for none)")
    if splits_text is not None:
        opts["splits"] = read_splits(splits_text)
    return Job(positional[1], script=positional[0], **opts)


def main(args):
    """`vsvk render ARGS`; returns the exit status."""
    from vsvk._render import RenderFailed, run

    try:
        job = parse(list(args))
    except (ValueError, RenderFailed) as e:
        sys.stderr.write(f"vsvk render: {e}\n\n{USAGE}")
        return 2
    if job is None:
        sys.stdout.write(USAGE)
        return 0
    try:
        run(job)
        return 0
    except RenderFailed as e:
        sys.stderr.write(f"\nvsvk render: {e}\n" if job.progress else f"vsvk render: {e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\nvsvk render: interrupted\n")
        return 130
