"""CUDA VMM memory into the graph through vsvk.gpu_import, on a machine with an NVIDIA GPU.

The only CUDA memory that can be exported is a VMM allocation with a shareable handle (cudaMalloc's
cannot), so this makes one with the driver API through ctypes: cuMemCreate with a POSIX fd handle
type, mapped into the address space, seen by torch as a tensor through __cuda_array_interface__.
torch writes known samples into it with padded strides, the stream is synchronised (CUDA has no
exportable semaphore), cuMemExportToShareableHandle gives the fd, and vsvk.gpu_import makes a
YUV420P8 frame over it that std.ModifyFrame puts into a graph: std.GPUDownload must read the samples
exactly, vk.Invert must invert them, the release callback must run once when the graph lets go,
and a plane past the allocation's end must be refused. Prints "ok ..." last on success.

usage: gpu_import_vmm.py --plugin path/to/libvsvk_vk.so
"""
import argparse
import ctypes
import gc
import sys

import numpy as np
import torch
import vsvk as vs

CU_MEM_ALLOCATION_TYPE_PINNED = 1
CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
CU_MEM_LOCATION_TYPE_DEVICE = 1
CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0


class Location(ctypes.Structure):
    _fields_ = [('type', ctypes.c_int), ('id', ctypes.c_int)]


class AllocFlags(ctypes.Structure):
    _fields_ = [('compressionType', ctypes.c_ubyte), ('gpuDirectRDMACapable', ctypes.c_ubyte),
                ('usage', ctypes.c_ushort), ('reserved', ctypes.c_ubyte * 4)]


class AllocationProp(ctypes.Structure):
    _fields_ = [('type', ctypes.c_int), ('requestedHandleTypes', ctypes.c_int), ('location', Location),
                ('win32HandleMetaData', ctypes.c_void_p), ('allocFlags', AllocFlags)]


class AccessDesc(ctypes.Structure):
    _fields_ = [('location', Location), ('flags', ctypes.c_int)]


assert ctypes.sizeof(AllocationProp) == 32 and ctypes.sizeof(AccessDesc) == 12

cu = ctypes.CDLL('libcuda.so.1')


def check(r, call):
    if r != 0:
        s = ctypes.c_char_p()
        cu.cuGetErrorString(r, ctypes.byref(s))
        raise RuntimeError(f'{call} failed: {r} {s.value.decode() if s.value else ""}')


class VmmBuffer:
    """A VMM allocation of at least `size` bytes on `device`, mapped and readable/writable."""

    def __init__(self, size, device):
        self.prop = AllocationProp(CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                   Location(CU_MEM_LOCATION_TYPE_DEVICE, device))
        gran = ctypes.c_size_t()
        check(cu.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(self.prop), CU_MEM_ALLOC_GRANULARITY_MINIMUM),
              'cuMemGetAllocationGranularity')
        self.size = (size + gran.value - 1) // gran.value * gran.value
        self.handle = ctypes.c_ulonglong()
        check(cu.cuMemCreate(ctypes.byref(self.handle), ctypes.c_size_t(self.size), ctypes.byref(self.prop), ctypes.c_ulonglong(0)),
              'cuMemCreate')
        self.ptr = ctypes.c_ulonglong()
        check(cu.cuMemAddressReserve(ctypes.byref(self.ptr), ctypes.c_size_t(self.size), ctypes.c_size_t(0), ctypes.c_ulonglong(0),
                                     ctypes.c_ulonglong(0)), 'cuMemAddressReserve')
        check(cu.cuMemMap(self.ptr, ctypes.c_size_t(self.size), ctypes.c_size_t(0), self.handle, ctypes.c_ulonglong(0)), 'cuMemMap')
        access = AccessDesc(Location(CU_MEM_LOCATION_TYPE_DEVICE, device), CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
        check(cu.cuMemSetAccess(self.ptr, ctypes.c_size_t(self.size), ctypes.byref(access), ctypes.c_size_t(1)), 'cuMemSetAccess')
        self.__cuda_array_interface__ = {'shape': (self.size,), 'typestr': '|u1', 'data': (self.ptr.value, False), 'version': 3}

    def export_fd(self):
        fd = ctypes.c_int(-1)
        check(cu.cuMemExportToShareableHandle(ctypes.byref(fd), self.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                                              ctypes.c_ulonglong(0)), 'cuMemExportToShareableHandle')
        return fd.value

    def free(self):
        check(cu.cuMemUnmap(self.ptr, ctypes.c_size_t(self.size)), 'cuMemUnmap')
        check(cu.cuMemAddressFree(self.ptr, ctypes.c_size_t(self.size)), 'cuMemAddressFree')
        check(cu.cuMemRelease(self.handle), 'cuMemRelease')


W, H = 1920, 1080
STRIDES = [2048, 1024, 1024]  # padded rows
DIMS = [(W, H), (W // 2, H // 2), (W // 2, H // 2)]


def layout():
    offsets, at = [], 0
    for (w, h), s in zip(DIMS, STRIDES):
        offsets.append(at)
        at += (s * h + 65535) // 65536 * 65536
    return offsets, at


def pattern(p, w, h):
    y = np.arange(h, dtype=np.int64)[:, None]
    x = np.arange(w, dtype=np.int64)[None, :]
    return ((x * 3 + y * 7 + p * 50) % 256).astype(np.uint8)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--plugin', required=True)
    a = ap.parse_args()
    core = vs.core
    core.std.LoadPlugin(a.plugin)
    torch.cuda.init()
    device = torch.cuda.current_device()
    offsets, total = layout()
    buf = VmmBuffer(total, device)
    mem = torch.as_tensor(buf, device='cuda')
    mem.fill_(0xee)
    for p, ((w, h), s, o) in enumerate(zip(DIMS, STRIDES, offsets)):
        mem[o:o + s * h].view(h, s)[:, :w] = torch.from_numpy(pattern(p, w, h)).cuda()
    torch.cuda.synchronize()  # the frame is published with no timeline: ready now

    fd = buf.export_fd()
    try:
        imp = vs.gpu_import(fd, buf.size)
    except vs.Error:
        import os
        os.close(fd)  # a refused import leaves the fd ours
        raise
    released = []
    frame = imp.frame(vs.YUV420P8, W, H, list(zip(offsets, STRIDES)), on_release=lambda: released.append(1))
    failures = []
    try:
        imp.frame(vs.YUV420P8, W, H, [(buf.size - 256, STRIDES[0]), (offsets[1], STRIDES[1]), (offsets[2], STRIDES[2])])
        failures.append('a plane past the end was accepted')
    except vs.Error as e:
        if 'pass the end' not in str(e):
            failures.append(f'a plane past the end: {e}')
    imp.close()  # the frame keeps the import

    template = core.std.BlankClip(format=vs.YUV420P8, width=W, height=H, length=1).std.GPUUpload()
    clip = core.std.ModifyFrame(template, template, lambda n, f: frame)
    for name, out, want in [('GPUDownload', clip.std.GPUDownload(), lambda p, w, h: pattern(p, w, h)),
                            ('vk.Invert', clip.vk.Invert().std.GPUDownload(), lambda p, w, h: 255 - pattern(p, w, h))]:
        f = out.get_frame(0)
        for p, (w, h) in enumerate(DIMS):
            got = np.asarray(f[p])
            if not np.array_equal(got, want(p, w, h)):
                failures.append(f'{name} plane {p}: {int((got != want(p, w, h)).sum())} samples differ')
        del f, out
    held = len(released)
    del clip, template, frame
    gc.collect()
    if held != 0 or len(released) != 1:
        failures.append(f'release callback: {held} calls while held, {len(released)} after (want 0 and 1)')
    del mem
    if len(released) == 1:
        buf.free()
    for f in failures:
        print('FAIL', f)
    print('failed' if failures else f'ok vmm {W}x{H} allocation={buf.size} released={len(released)}')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
