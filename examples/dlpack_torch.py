"""GPU frames handed to PyTorch (and CuPy, where installed) through DLPack, with no host copy.

    vsvk python examples/dlpack_torch.py [--plugin sdk-examples/build/gpu_invert_example.so]
                                         [--format YUV420P10] [--frames 8] [--size 640x360]

A noise clip is made on the CPU (numpy, through std.ModifyFrame), uploaded with std.GPUUpload and,
with --plugin, inverted on the GPU by the SDK's gpuinvert.Invert. Every frame of that GPU clip is
handed to PyTorch plane by plane:

    planes = vsvk.gpu_planes(frame)          # one device-side copy into exportable memory
    tensor = torch.from_dlpack(planes[0])    # CUDA imports that memory: a view, no copy

torch.from_dlpack passes its current stream, and the plane's producer (the copy's timeline
semaphore, imported into CUDA) is waited on that stream, so the tensor is ready for every kernel
queued after it without the host waiting. Each tensor is checked against the same frame read
back through std.GPUDownload.

Prints one line per format checked and "ok ..." at the end; without a CUDA driver it prints the
planes' fields and "no CUDA: ..." and exits with status 0 (there is nothing to hand over to).
"""
import argparse
import sys

import numpy as np

import vsvk as vs

FORMATS = {
    "Gray8": vs.GRAY8, "Gray16": vs.GRAY16, "GrayS": vs.GRAYS, "YUV420P8": vs.YUV420P8,
    "YUV420P10": vs.YUV420P10, "YUV444PH": vs.YUV444PH, "YUV444PS": vs.YUV444PS, "RGB24": vs.RGB24,
    "RGBS": vs.RGBS,
}


def noise_clip(core, fmt, width, height, frames):
    """A clip of seeded random samples in range for its format, made on the CPU."""
    blank = core.std.BlankClip(format=fmt, width=width, height=height, length=frames)
    info = blank.format

    def fill(n, f):
        out = f.copy()
        rng = np.random.default_rng(n)
        for p in range(info.num_planes):
            a = np.asarray(out[p])
            if info.sample_type == vs.FLOAT:
                a[...] = rng.uniform(-0.5, 1.0, a.shape).astype(a.dtype)
            else:
                a[...] = rng.integers(0, 1 << info.bits_per_sample, a.shape, dtype=a.dtype)
        return out

    return core.std.ModifyFrame(blank, blank, fill)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plugin")
    ap.add_argument("--format", action="append")
    ap.add_argument("--frames", type=int, default=8)
    ap.add_argument("--size", default="640x360")
    args = ap.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    core = vs.core
    if args.plugin:
        core.std.LoadPlugin(args.plugin)

    checked = 0
    for name in args.format or ["YUV420P10"]:
        src = noise_clip(core, FORMATS[name], width, height, args.frames)
        gpu = core.std.GPUUpload(src)
        if args.plugin:
            gpu = core.gpuinvert.Invert(gpu)
        back = core.std.GPUDownload(gpu)

        frame = gpu.get_frame(0)
        planes = vs.gpu_planes(frame)
        try:
            device = planes[0].__dlpack_device__()
        except vs.Error as e:
            for p in planes:
                print(f"{name} plane {p.plane}: shape={p.shape} strides={p.strides} dtype={p.dtype_name} "
                      f"memory_id={p.memory_id} ready={'pair' if p.ready else 'now'}")
            print(f"no CUDA: {e}")
            return 0

        import torch

        try:
            import cupy
        except ImportError:
            cupy = None
        for n in range(args.frames):
            frame = gpu.get_frame(n)
            expected = back.get_frame(n)
            for p in vs.gpu_planes(frame):
                t = torch.from_dlpack(p)
                assert t.device.type == "cuda" and t.device.index == device[1], t.device
                want = np.asarray(expected[p.plane])
                assert tuple(t.shape) == want.shape, (t.shape, want.shape)
                # compare bit patterns: uint16 has few CUDA kernels in PyTorch
                bits = {1: torch.int8, 2: torch.int16, 4: torch.int32}[want.itemsize]
                nbits = {1: np.int8, 2: np.int16, 4: np.int32}[want.itemsize]
                same = torch.equal(t.view(bits), torch.from_numpy(np.ascontiguousarray(want).view(nbits)).to(t.device))
                assert same, f"{name} frame {n} plane {p.plane}: the tensor differs from the frame"
                if cupy is not None:
                    c = cupy.from_dlpack(p)
                    assert cupy.asnumpy(c).tobytes() == np.ascontiguousarray(want).tobytes(), "cupy"
                checked += 1
        print(f"{name}: {args.frames} frames equal (torch{' and cupy' if cupy is not None else ''})")
    print(f"ok planes={checked} device=cuda:{device[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
