"""A PyTorch model as a filter between vk filters, frames kept on the GPU (vsvk.gpu_map), checked
against the same model over host frames (GPUDownload -> torch -> GPUUpload), both timed.

    vsvk python examples/gpu_map_torch.py [--size 1920x1080] [--frames 120] [--check-errors]

The model is built here (no weights are downloaded): a 5x5 Gaussian and a 3x3 sharpen as two
conv2d layers over each plane of YUV420P8, computed in float32 and rounded back to 8 bits. cuDNN is
made deterministic (and TF32 off), so both paths must agree exactly.

    gpu:  src -> vk.Invert -> gpu_map(model) -> vk.Invert
    host: src -> vk.Invert -> GPUDownload -> ModifyFrame(torch: upload, model, read back) -> GPUUpload -> vk.Invert

Prints "same N frames", then "fps gpu_map=... host=..." with gpu_map's counters (host waits, device
copies, CUDA imports), and with --check-errors one line per bad-input case. Ends with "ok" or
"FAIL ...". Without CUDA or PyTorch it says why and exits with status 0.
"""
import argparse
import sys
import time

import numpy as np

import vsvk as vs


def build_model(torch):
    F = torch.nn.functional
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
    gauss = (g[:, None] * g[None, :] / 256.0).cuda()[None, None]
    sharpen = torch.tensor([[0.0, -0.25, 0.0], [-0.25, 2.0, -0.25], [0.0, -0.25, 0.0]]).cuda()[None, None]

    def model(x):
        y = x.to(torch.float32)[None, None]
        y = F.conv2d(F.pad(y, (2, 2, 2, 2), mode="replicate"), gauss)
        y = F.conv2d(F.pad(y, (1, 1, 1, 1), mode="replicate"), sharpen)
        return y[0, 0].round().clamp(0, 255).to(torch.uint8)

    return model


def source(core, width, height, frames):
    """Seeded noise frames made once on the host and handed out in a loop (cheap per frame)."""
    rng = np.random.default_rng(7)
    blank = core.std.BlankClip(format=vs.YUV420P8, width=width, height=height, length=frames)
    pool = []
    for i in range(4):
        planes = [rng.integers(0, 256, size=(height >> (1 if p else 0), width >> (1 if p else 0)), dtype=np.uint8) for p in range(3)]
        pool.append(planes)

    def fill(n, f):
        out = f.copy()
        for p in range(3):
            np.copyto(np.asarray(out[p]), pool[n % len(pool)][p])
        return out

    return blank.std.ModifyFrame(blank, fill)


def planes_of(f):
    return [np.array(f[p], copy=True) for p in range(f.format.num_planes)]


def run(clip, frames):
    t = time.perf_counter()
    for _ in clip.frames(prefetch=16):
        pass
    return frames / (time.perf_counter() - t)


def check_errors(core, torch, model, gpu_src):
    """Each bad case must give vs.Error for that frame, and the next frame must come through."""
    fails = 0
    kept = []

    def case(name, fn, want):
        nonlocal fails
        clip = vs.gpu_map(gpu_src, fn)
        try:
            clip.get_frame(0)
            print(f"FAIL {name}: no error")
            fails += 1
        except vs.Error as e:
            ok = want in str(e)
            lines = str(e).strip().splitlines()
            print(f"{'ok  ' if ok else 'FAIL'} {name}: {lines[0][:160]}" + ("" if ok else f" ... {lines[-1][:200]}"))
            fails += not ok
        try:
            clip.get_frame(1)  # the graph goes on (each case fails only its first frame)
        except vs.Error as e:
            if name != "kept":
                print(f"FAIL {name}: frame 1 also failed: {e}")
                fails += 1

    def only_first(bad):
        def fn(n, src, dst, props):
            if n == 0:
                return bad(src, dst)
            for s, d in zip(src, dst):
                d.copy_(s)
        return fn

    case("raises", only_first(lambda s, d: 1 / 0), "ZeroDivisionError")
    case("dtype", only_first(lambda s, d: [x.float() for x in s]), "dtype")
    case("shape", only_first(lambda s, d: [x[:-2] for x in s]), "shape")
    case("device", only_first(lambda s, d: [torch.zeros(tuple(x.shape), dtype=x.dtype) for x in s]), "CPU")
    case("stride", only_first(lambda s, d: [x.t().contiguous().t() for x in s]), "strides")
    case("planes", only_first(lambda s, d: [s[0]]), "planes")

    def keep(s, d):
        kept.append(s[0])
        for a, b in zip(s, d):
            b.copy_(a)
    case("kept", only_first(keep), "kept src")
    kept.clear()
    return fails


def check_temporal(torch, src, down, count):
    """radius=1: the mean of frames n-1, n, n+1 (clamped at the ends), against the same mean of
    host frames taken from shifted clips with ModifyFrame."""
    def mean3(a, b, c):
        return ((a.to(torch.int32) + b + c + 1) // 3).to(torch.uint8)

    def fn(n, src, dst, props):
        for p, d in enumerate(dst):
            d.copy_(mean3(src[0][p], src[1][p], src[2][p]))

    last = down.num_frames - 1
    prev = down[0] + down[:last]
    nxt = down[1:] + down[last]

    def host(n, f):
        out = f[1].copy()
        for p in range(f[1].format.num_planes):
            t = [torch.from_numpy(np.array(x[p], copy=True)).cuda() for x in f]
            np.copyto(np.asarray(out[p]), mean3(*t).cpu().numpy())
        return out

    gpu = vs.gpu_map(src, fn, radius=1).std.GPUDownload()
    hostp = down.std.ModifyFrame([prev, down, nxt], host)
    fails = 0
    for n in list(range(count)) + [last]:
        fg, fh = gpu.get_frame(n), hostp.get_frame(n)
        if not all(np.array_equal(x, y) for x, y in zip(planes_of(fg), planes_of(fh))):
            print(f"FAIL temporal frame {n} differs")
            fails += 1
    print(f"temporal radius=1: same {count + 1 - fails}/{count + 1} frames (the last clamped)")
    return fails


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--frames", type=int, default=120)
    ap.add_argument("--check", type=int, default=8, help="frames compared between the paths")
    ap.add_argument("--check-errors", action="store_true")
    ap.add_argument("--plugin", action="append", default=[], help="plugins to load (the vk plugin)")
    a = ap.parse_args()
    width, height = map(int, a.size.split("x"))
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
    except ImportError as e:
        print(f"no CUDA PyTorch: {e}")
        return 0
    core = vs.core
    for p in a.plugin:
        core.std.LoadPlugin(p)
    model = build_model(torch)
    src = source(core, width, height, a.frames).std.GPUUpload().vk.Invert()

    def fn(n, s, d, props):
        for x, y in zip(s, d):
            y.copy_(model(x))
        props["Model"] = "gauss5+sharpen3"

    def host(n, f):
        out = f.copy()
        for p in range(f.format.num_planes):
            t = torch.from_numpy(np.asarray(f[p])).cuda()
            np.copyto(np.asarray(out[p]), model(t).cpu().numpy())
        out.props["Model"] = "gauss5+sharpen3"
        return out

    gpu = vs.gpu_map(src, fn).vk.Invert()
    down = src.std.GPUDownload()
    hostp = down.std.ModifyFrame(down, host).std.GPUUpload().vk.Invert()
    fails = 0
    for n in range(a.check):
        fg, fh = gpu.std.GPUDownload().get_frame(n), hostp.std.GPUDownload().get_frame(n)
        same = all(np.array_equal(x, y) for x, y in zip(planes_of(fg), planes_of(fh)))
        same = same and fg.props.get("Model") == fh.props.get("Model")
        if not same:
            diff = max(int(np.abs(x.astype(int) - y.astype(int)).max()) for x, y in zip(planes_of(fg), planes_of(fh)))
            print(f"FAIL frame {n} differs (max abs diff {diff})")
            fails += 1
    print(f"same {a.check - fails}/{a.check} frames at {width}x{height}")
    fails += check_temporal(torch, src, down, a.check)
    before = vs.gpu_map_stats()
    fps_gpu = run(gpu, a.frames)
    after = vs.gpu_map_stats()
    fps_host = run(hostp, a.frames)
    d = {k: after[k] - before[k] for k in after}
    print(f"fps {width}x{height} gpu_map={fps_gpu:.1f} host={fps_host:.1f} frames={d['frames']} "
          f"host_waits={d['host_waits']} input_copies={d['input_copies']} inputs_in_place={d['inputs_in_place']} "
          f"returned_copies={d['returned_copies']} memory_imports={d['memory_imports']} errors={d['errors']}; "
          f"host path per frame: 1 download wait + 1 torch read back wait, 4 copies (download, to CUDA, from CUDA, upload)")
    # vk.Invert's frames are exportable from the start and gpu_map is their only consumer while it
    # runs, so each input must reach CUDA in place, with no device copy
    if d["input_copies"] or d["inputs_in_place"] != d["frames"]:
        print(f"FAIL inputs copied: {d['input_copies']} of {d['frames']} (in place {d['inputs_in_place']})")
        fails += 1
    if a.check_errors:
        fails += check_errors(core, torch, model, src)
    print("ok" if fails == 0 else f"FAIL {fails}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
