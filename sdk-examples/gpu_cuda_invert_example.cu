/*
 * gpu_cuda_invert_example.cu -- a GPU filter whose work is done by CUDA on the core's own frames,
 * with no copies: gpucudainvert.Invert(clip:vnode:gpu), equal to std.Invert on every format it
 * takes (8-16 bit integer, half and single float).
 *
 * What it shows:
 *  - create: getVulkanCoreInfo, the CUDA device whose UUID is the core's deviceUUID (LUID on
 *    Windows), reserveGPUMemory for the CUDA context before CUDA allocates it, a CUDA stream, and a
 *    timeline of the filter's own (createGPUTimeline) exported with exportGPUSemaphore and imported
 *    into CUDA, so that the stream can signal it;
 *  - getFrame: the input taken with getExportableFrameFilter (an exportable copy, which belongs to
 *    this filter for good and never goes back to the core) and a new output frame
 *    (newGPUVideoFrame, exportable); every plane of both exported with exportGPUPlane and imported
 *    once per memoryId (cudaImportExternalMemory + cudaExternalMemoryGetMappedBuffer), the imports
 *    cached by memoryId, never by handle; the producer pairs of the input waited on the stream
 *    through imported timeline semaphores (cudaWaitExternalSemaphoresAsync), or with waitGPUFrame
 *    on the host where a producer's semaphore cannot be exported; a CUDA kernel that reads the input
 *    planes and writes the inverted samples straight into the output planes; the filter's timeline
 *    signalled from the stream (cudaSignalExternalSemaphoresAsync) and only then published on the
 *    output planes with setGPUPlaneProducer, so Vulkan consumers wait for CUDA on the device;
 *  - the input frame kept until the stream has passed the value (the core would otherwise recycle
 *    its memory under a running kernel), reaped by reading the timeline's counter;
 *  - free: the stream drained, then every import and the timeline released.
 *
 * Handles: a POSIX fd is consumed by a successful import and closed here when the import fails or
 * is not needed (memory already imported); on Windows an NT handle is never consumed and is always
 * closed, a KMT handle is never closed. The Windows branches (opaque win32 handles, D3D12 fence
 * semaphores, LUID matching) are written but have not been compiled: see README.md.
 *
 * Build: nvcc -shared -Xcompiler -fPIC (see Makefile). Every CUDA and VapourSynth call is checked.
 * SPDX-License-Identifier: MIT
 */
#define VS_USE_API_43
#include "VapourSynth4.h"
#include "VSVulkan4.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <unistd.h>
#endif

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

enum : uint32_t { MODE_INT8, MODE_INT16, MODE_F32, MODE_F32_NEG, MODE_F16, MODE_F16_NEG };

/* Single-precision arithmetic with explicit rounding (__fsub_rn is never contracted or flushed
   differently from the CPU's): 1 - x is exact for the halves that matter and rounding it to a half
   (__float2half_rn, to nearest even) then equals rounding the exact result, as the CPU filter does. */
__device__ uint32_t one_minus_half(uint32_t h) {
    float x = __half2float(__ushort_as_half(static_cast<unsigned short>(h)));
    return __half_as_ushort(__float2half_rn(__fsub_rn(1.0f, x)));
}

__device__ uint32_t invert_word(uint32_t w, uint32_t mode, uint32_t maxval) {
    uint32_t r = 0;
    switch (mode) {
    case MODE_INT8:
        for (int i = 0; i < 32; i += 8) r |= ((maxval - ((w >> i) & 0xffu)) & 0xffu) << i;
        return r;
    case MODE_INT16:
        for (int i = 0; i < 32; i += 16) r |= ((maxval - ((w >> i) & 0xffffu)) & 0xffffu) << i;
        return r;
    case MODE_F32: return __float_as_uint(__fsub_rn(1.0f, __uint_as_float(w)));
    case MODE_F32_NEG: return w ^ 0x80000000u; /* -x, for zeros and denormals too */
    case MODE_F16: return one_minus_half(w & 0xffffu) | (one_minus_half(w >> 16) << 16);
    default: return w ^ 0x80008000u;
    }
}

/* The plane as 32-bit words, padding included: strides are multiples of 32 bytes. */
__global__ void invert_kernel(const uint32_t *src, uint32_t *dst, size_t words, uint32_t mode, uint32_t maxval) {
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < words; i += static_cast<size_t>(gridDim.x) * blockDim.x)
        dst[i] = invert_word(src[i], mode, maxval);
}

/* What CUDA is told the context costs before it is created: it cannot be measured beforehand, and
   reserving after the fact would not give the core the chance to make room. */
constexpr int64_t CONTEXT_BYTES = 256ll << 20;
/* Imports kept at most; past this the least recently used go (after draining the stream). */
constexpr size_t MAX_IMPORTS = 96;

struct MemoryImport {
    cudaExternalMemory_t memory = nullptr;
    uint8_t *base = nullptr; /* the whole allocation, mapped */
    int64_t size = 0;
    uint64_t lastUse = 0;
};

struct SemaphoreImport {
    cudaExternalSemaphore_t semaphore = nullptr;
    /* The newest frame naming this semaphore, so that it cannot be destroyed and its handle value
       reused for another semaphore while this entry is keyed by it. */
    const VSFrame *keeper = nullptr;
};

struct Pending {
    uint64_t value;     /* on the filter's timeline */
    const VSFrame *src; /* read by the work signalling value */
};

struct CudaInvert {
    VSNode *node = nullptr;
    VSVideoInfo vi{};
    const VSAPI *vsapi = nullptr;
    const VSVULKANAPI *vk = nullptr;
    const VSVulkanFunctions *fn = nullptr;
    VkDevice device = VK_NULL_HANDLE;
    VSVulkanCoreInfo info{};
    int cudaDevice = -1;
    cudaStream_t stream = nullptr;
    VSGPUMemoryReservation *reservation = nullptr;

    VSGPUTimeline *timeline = nullptr; /* NULL when it cannot be exported: outputs are then host synced */
    VkSemaphore semaphore = VK_NULL_HANDLE;
    cudaExternalSemaphore_t signal = nullptr;
    uint64_t lastValue = 0;

    std::mutex lock; /* everything below, and the order of work on the stream */
    std::map<uint64_t, MemoryImport> imports; /* by memoryId */
    std::map<VkSemaphore, SemaphoreImport> semaphores;
    std::deque<Pending> pending;
    uint64_t uses = 0;
};

bool cuda_ok(cudaError_t e, const char *what, std::string &err) {
    if (e == cudaSuccess) return true;
    err = std::string("Invert: ") + what + " failed: " + cudaGetErrorString(e);
    return false;
}

/* Closes an exported handle that no import consumed. */
void close_handle(int handleType, intptr_t handle) {
#ifdef _WIN32
    if (handleType == VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT) return; /* not a reference */
    CloseHandle(reinterpret_cast<HANDLE>(handle));
#else
    (void)handleType;
    close(static_cast<int>(handle));
#endif
}

uint32_t plane_mode(const VSVideoFormat &f, int plane) {
    bool chroma = f.colorFamily == cfYUV && plane > 0;
    if (f.sampleType == stInteger) return f.bytesPerSample == 1 ? MODE_INT8 : MODE_INT16;
    if (f.bytesPerSample == 4) return chroma ? MODE_F32_NEG : MODE_F32;
    return chroma ? MODE_F16_NEG : MODE_F16;
}

bool format_supported(const VSVideoFormat &f) {
    if (f.colorFamily == cfUndefined) return false;
    if (f.sampleType == stInteger) return f.bitsPerSample >= 8 && f.bitsPerSample <= 16;
    return f.sampleType == stFloat && (f.bitsPerSample == 16 || f.bitsPerSample == 32);
}

/* Republishes the reservation: the context, plus the imports where importing charges them again. */
void update_reservation(CudaInvert *d) {
    int64_t bytes = CONTEXT_BYTES;
    if (VS_GPU_IMPORT_CHARGED_AGAIN)
        for (const auto &i : d->imports) bytes += i.second.size;
    d->vk->updateGPUMemoryReservation(d->reservation, bytes);
}

void destroy_import(MemoryImport &m) {
    if (m.base) cudaFree(m.base);
    if (m.memory) cudaDestroyExternalMemory(m.memory);
    m = MemoryImport{};
}

/* Releases what the stream has finished with. Called with the lock held. */
void reap(CudaInvert *d) {
    if (d->pending.empty()) return;
    uint64_t reached = 0;
    if (d->fn->vkGetSemaphoreCounterValue(d->device, d->semaphore, &reached) != VK_SUCCESS) return;
    while (!d->pending.empty() && d->pending.front().value <= reached) {
        d->vsapi->freeFrame(d->pending.front().src);
        d->pending.pop_front();
    }
}

/* Drains the stream and releases everything it was using. Called with the lock held. */
bool drain(CudaInvert *d, std::string &err) {
    bool ok = cuda_ok(cudaStreamSynchronize(d->stream), "cudaStreamSynchronize", err);
    if (!ok) return false; /* the work may still run: keep its inputs */
    for (const Pending &p : d->pending) d->vsapi->freeFrame(p.src);
    d->pending.clear();
    return true;
}

/* The device address of a plane: its allocation imported once per memoryId. Lock held. */
bool plane_pointer(CudaInvert *d, const VSFrame *frame, int plane, uint8_t **ptr, size_t *bytes, std::string &err) {
    char msg[1024] = {};
    VSVulkanExportedMemory m;
    if (d->vk->exportGPUPlane(frame, plane, &m, msg, sizeof msg)) {
        err = std::string("Invert: exportGPUPlane: ") + msg;
        return false;
    }
    auto found = d->imports.find(m.memoryId);
    if (found != d->imports.end()) {
        close_handle(m.handleType, m.handle); /* a new handle for an allocation imported already */
    } else {
        if (d->imports.size() >= MAX_IMPORTS) {
            /* the oldest may be in use by queued work: drain first */
            if (!drain(d, err)) {
                close_handle(m.handleType, m.handle);
                return false;
            }
            while (d->imports.size() >= MAX_IMPORTS / 2) {
                auto oldest = d->imports.begin();
                for (auto i = d->imports.begin(); i != d->imports.end(); ++i)
                    if (i->second.lastUse < oldest->second.lastUse) oldest = i;
                destroy_import(oldest->second);
                d->imports.erase(oldest);
            }
        }
        cudaExternalMemoryHandleDesc desc;
        std::memset(&desc, 0, sizeof desc);
        desc.size = m.memorySize;
        switch (m.handleType) {
#ifdef _WIN32
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT:
            desc.type = cudaExternalMemoryHandleTypeOpaqueWin32;
            desc.handle.win32.handle = reinterpret_cast<void *>(m.handle);
            break;
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT:
            desc.type = cudaExternalMemoryHandleTypeOpaqueWin32Kmt;
            desc.handle.win32.handle = reinterpret_cast<void *>(m.handle);
            break;
#else
        case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT:
            desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
            desc.handle.fd = static_cast<int>(m.handle);
            break;
#endif
        default:
            close_handle(m.handleType, m.handle);
            err = "Invert: exportGPUPlane gave a handle type CUDA cannot import here (" + std::to_string(m.handleType) + ")";
            return false;
        }
        /* vsvk exports planes as dedicated allocations; try that first, then a plain one */
        MemoryImport imp;
        imp.size = static_cast<int64_t>(m.memorySize);
        desc.flags = cudaExternalMemoryDedicated;
        cudaError_t e = cudaImportExternalMemory(&imp.memory, &desc);
        if (e != cudaSuccess) {
            cudaGetLastError();
            desc.flags = 0;
            e = cudaImportExternalMemory(&imp.memory, &desc);
        }
#ifdef _WIN32
        close_handle(m.handleType, m.handle); /* NT handles are never consumed */
#else
        if (e != cudaSuccess) close_handle(m.handleType, m.handle); /* an fd is consumed on success only */
#endif
        if (!cuda_ok(e, "cudaImportExternalMemory", err)) return false;
        cudaExternalMemoryBufferDesc buf;
        std::memset(&buf, 0, sizeof buf);
        buf.offset = 0;
        buf.size = m.memorySize;
        void *base = nullptr;
        if (!cuda_ok(cudaExternalMemoryGetMappedBuffer(&base, imp.memory, &buf), "cudaExternalMemoryGetMappedBuffer", err)) {
            destroy_import(imp);
            return false;
        }
        imp.base = static_cast<uint8_t *>(base);
        found = d->imports.emplace(m.memoryId, imp).first;
        if (VS_GPU_IMPORT_CHARGED_AGAIN) update_reservation(d);
    }
    if (m.offset % 4 || m.size % 4 || m.offset + m.size > m.memorySize) {
        err = "Invert: an exported plane is not 4-byte aligned or lies outside its allocation";
        return false;
    }
    found->second.lastUse = ++d->uses;
    *ptr = found->second.base + m.offset;
    *bytes = static_cast<size_t>(m.size);
    return true;
}

/* The CUDA semaphore for a producer's VkSemaphore, imported once; NULL where it cannot be exported
   or imported (the caller then waits on the host). Lock held. */
cudaExternalSemaphore_t producer_semaphore(CudaInvert *d, VkSemaphore s, const VSFrame *frame, VSCore *core) {
    auto found = d->semaphores.find(s);
    if (found == d->semaphores.end()) {
        if (!d->info.semaphoreExportHandleType) return nullptr;
        char msg[1024] = {};
        VSVulkanExportedSemaphore e;
        if (d->vk->exportGPUSemaphore(core, s, &e, msg, sizeof msg)) return nullptr; /* e.g. another plugin's timeline */
        cudaExternalSemaphoreHandleDesc desc;
        std::memset(&desc, 0, sizeof desc);
        switch (e.handleType) {
#ifdef _WIN32
        case VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_BIT:
            desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32;
            desc.handle.win32.handle = reinterpret_cast<void *>(e.handle);
            break;
        case VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE_BIT:
            desc.type = cudaExternalSemaphoreHandleTypeD3D12Fence; /* a fence is a timeline too */
            desc.handle.win32.handle = reinterpret_cast<void *>(e.handle);
            break;
#else
        case VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT:
            desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
            desc.handle.fd = static_cast<int>(e.handle);
            break;
#endif
        default: close_handle(e.handleType, e.handle); return nullptr;
        }
        SemaphoreImport imp;
        cudaError_t r = cudaImportExternalSemaphore(&imp.semaphore, &desc);
#ifdef _WIN32
        close_handle(e.handleType, e.handle);
#else
        if (r != cudaSuccess) close_handle(e.handleType, e.handle);
#endif
        if (r != cudaSuccess) {
            cudaGetLastError();
            return nullptr;
        }
        found = d->semaphores.emplace(s, imp).first;
    }
    /* keep the newest frame naming it, so the handle value cannot be reused while it is a key */
    const VSFrame *old = found->second.keeper;
    found->second.keeper = d->vsapi->addFrameRef(frame);
    if (old) d->vsapi->freeFrame(old);
    return found->second.semaphore;
}

const VSFrame *VS_CC invert_get_frame(int n, int activationReason, void *instanceData, void **, VSFrameContext *frameCtx, VSCore *core, const VSAPI *vsapi) {
    CudaInvert *d = static_cast<CudaInvert *>(instanceData);
    if (activationReason == arInitial) {
        vsapi->requestFrameFilter(n, d->node, frameCtx);
        return nullptr;
    }
    if (activationReason != arAllFramesReady) return nullptr;

    std::string err;
    char msg[1024] = {};
    /* the runtime API's current device is per thread, and core threads come and go */
    if (!cuda_ok(cudaSetDevice(d->cudaDevice), "cudaSetDevice", err)) {
        vsapi->setFilterError(err.c_str(), frameCtx);
        return nullptr;
    }
    const VSFrame *src = d->vk->getExportableFrameFilter(n, d->node, frameCtx, msg, sizeof msg);
    if (!src) {
        vsapi->setFilterError(msg, frameCtx);
        return nullptr;
    }
    VSFrame *dst = d->vk->newGPUVideoFrame(&d->vi.format, vsapi->getFrameWidth(src, 0), vsapi->getFrameHeight(src, 0), src, core);
    if (!dst) {
        vsapi->setFilterError("Invert: newGPUVideoFrame failed", frameCtx);
        vsapi->freeFrame(src);
        return nullptr;
    }
    const int planes = d->vi.format.numPlanes;

    std::unique_lock<std::mutex> guard(d->lock);
    if (d->timeline) reap(d);
    uint8_t *in[3] = {}, *out[3] = {};
    size_t bytes[3] = {};
    bool ok = true;
    for (int p = 0; ok && p < planes; p++) {
        size_t outBytes = 0;
        ok = plane_pointer(d, src, p, &in[p], &bytes[p], err) && plane_pointer(d, dst, p, &out[p], &outBytes, err);
        if (ok && outBytes != bytes[p]) {
            err = "Invert: input and output planes differ in size";
            ok = false;
        }
    }

    /* the producer pairs of every plane read and written: one wait per semaphore, highest value */
    std::vector<cudaExternalSemaphore_t> waits;
    std::vector<cudaExternalSemaphoreWaitParams> values;
    std::map<VkSemaphore, uint64_t> pairs;
    for (int p = 0; ok && p < planes; p++) {
        for (const VSFrame *f : {src, static_cast<const VSFrame *>(dst)}) {
            VSVulkanPlaneInfo pi;
            if (d->vk->getGPUPlane(f, p, &pi)) {
                err = "Invert: a plane is not GPU resident";
                ok = false;
                break;
            }
            if (pi.readySemaphore == VK_NULL_HANDLE) continue;
            uint64_t &v = pairs[pi.readySemaphore];
            if (v < pi.readyValue) v = pi.readyValue;
        }
    }
    bool hostWait = false;
    for (const auto &pair : pairs) {
        if (!ok) break;
        cudaExternalSemaphore_t s = producer_semaphore(d, pair.first, src, core);
        if (!s) {
            hostWait = true; /* a producer we cannot wait on the device */
            break;
        }
        cudaExternalSemaphoreWaitParams w;
        std::memset(&w, 0, sizeof w);
        w.params.fence.value = pair.second;
        waits.push_back(s);
        values.push_back(w);
    }
    if (ok && hostWait) {
        waits.clear();
        values.clear();
        /* the fallback: the host waits, and the writes are made available outside the device */
        if (d->vk->waitGPUFrame(src, msg, sizeof msg)) {
            err = std::string("Invert: waitGPUFrame: ") + msg;
            ok = false;
        }
    }
    if (ok && !waits.empty())
        ok = cuda_ok(cudaWaitExternalSemaphoresAsync(waits.data(), values.data(), static_cast<unsigned>(waits.size()), d->stream),
                     "cudaWaitExternalSemaphoresAsync", err);
    bool enqueued = false;
    for (int p = 0; ok && p < planes; p++) {
        size_t words = bytes[p] / 4;
        unsigned blocks = static_cast<unsigned>(words / 256 + 1 < 65535 ? words / 256 + 1 : 65535);
        invert_kernel<<<blocks, 256, 0, d->stream>>>(reinterpret_cast<const uint32_t *>(in[p]), reinterpret_cast<uint32_t *>(out[p]), words,
                                                      plane_mode(d->vi.format, p), (1u << d->vi.format.bitsPerSample) - 1u);
        ok = cuda_ok(cudaGetLastError(), "the kernel launch", err);
        enqueued = true;
    }
    uint64_t value = 0;
    if (ok && d->timeline) {
        /* signal from the stream first; only a value whose signal is on its way may be published */
        cudaExternalSemaphoreSignalParams s;
        std::memset(&s, 0, sizeof s);
        s.params.fence.value = d->lastValue + 1;
        ok = cuda_ok(cudaSignalExternalSemaphoresAsync(&d->signal, &s, 1, d->stream), "cudaSignalExternalSemaphoresAsync", err);
        if (ok) value = ++d->lastValue;
    } else if (ok) {
        /* no exportable timeline: finish the writes before the frame leaves */
        ok = cuda_ok(cudaStreamSynchronize(d->stream), "cudaStreamSynchronize", err);
    }
    if (!ok) {
        /* queued work may still read src: let the stream finish before it goes */
        if (enqueued || !waits.empty()) cudaStreamSynchronize(d->stream);
        guard.unlock();
        vsapi->setFilterError(err.c_str(), frameCtx);
        vsapi->freeFrame(dst);
        vsapi->freeFrame(src);
        return nullptr;
    }
    if (value) {
        d->pending.push_back({value, src});
        guard.unlock();
        for (int p = 0; p < planes; p++) d->vk->setGPUPlaneProducer(dst, p, d->timeline, value);
    } else {
        guard.unlock();
        vsapi->freeFrame(src);
    }
    return dst;
}

void VS_CC invert_free(void *instanceData, VSCore *, const VSAPI *vsapi) {
    CudaInvert *d = static_cast<CudaInvert *>(instanceData);
    if (d->stream) {
        std::string err;
        if (!cuda_ok(cudaSetDevice(d->cudaDevice), "cudaSetDevice", err) || !drain(d, err)) {
            /* the work may still run: leave what it uses alone rather than free it under it */
            vsapi->logMessage(mtWarning, (err + "; leaving its imports in place").c_str(), nullptr);
        } else {
            for (auto &i : d->imports) destroy_import(i.second);
            for (auto &s : d->semaphores) {
                cudaDestroyExternalSemaphore(s.second.semaphore);
                vsapi->freeFrame(s.second.keeper);
            }
            if (d->signal) cudaDestroyExternalSemaphore(d->signal);
            cudaStreamDestroy(d->stream);
        }
    }
    /* planes published with it hold their own references */
    if (d->timeline) d->vk->freeGPUTimeline(d->timeline);
    d->vk->releaseGPUMemoryReservation(d->reservation);
    vsapi->freeNode(d->node);
    delete d;
}

/* The CUDA device that is the core's Vulkan device, or -1. */
int matching_cuda_device(const VSVulkanCoreInfo &info, std::string &err) {
    int count = 0;
    if (!cuda_ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount", err)) return -1;
    for (int i = 0; i < count; i++) {
        cudaDeviceProp prop;
        if (!cuda_ok(cudaGetDeviceProperties(&prop, i), "cudaGetDeviceProperties", err)) return -1;
#ifdef _WIN32
        /* the LUID identifies the adapter where the driver reports one; the UUID otherwise */
        if (info.deviceLUIDValid) {
            if (std::memcmp(prop.luid, info.deviceLUID, VK_LUID_SIZE) == 0 && prop.luidDeviceNodeMask == info.deviceNodeMask) return i;
            continue;
        }
#endif
        if (std::memcmp(prop.uuid.bytes, info.deviceUUID, VK_UUID_SIZE) == 0) return i;
    }
    err = "Invert: no CUDA device is the core's Vulkan device (" + std::string(info.deviceName) + ")";
    return -1;
}

/* Sets the filter up; false with err set on failure (invert_free then cleans up). */
bool setup(CudaInvert *d, VSCore *core, std::string &err) {
    char msg[1024] = {};
    if (d->vk->getVulkanCoreInfo(core, &d->info, msg, sizeof msg)) {
        err = std::string("Invert: getVulkanCoreInfo: ") + msg;
        return false;
    }
    if (!d->info.exportHandleType) {
        err = "Invert: the core cannot export GPU planes on this device (exportHandleType is 0)";
        return false;
    }
    d->fn = d->vk->getVulkanFunctions(core, msg, sizeof msg);
    VSVulkanCoreHandles h;
    if (!d->fn || d->vk->getVulkanHandles(core, &h, msg, sizeof msg)) {
        err = std::string("Invert: ") + msg;
        return false;
    }
    d->device = h.device;
    if ((d->cudaDevice = matching_cuda_device(d->info, err)) < 0) return false;
    /* declared before CUDA allocates, so the core can make room in the same VRAM */
    d->reservation = d->vk->reserveGPUMemory(core, CONTEXT_BYTES, msg, sizeof msg);
    if (!d->reservation) {
        err = std::string("Invert: reserveGPUMemory: ") + msg;
        return false;
    }
    if (!cuda_ok(cudaSetDevice(d->cudaDevice), "cudaSetDevice", err)) return false;
    if (!cuda_ok(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags", err)) return false;

    /* the timeline the stream signals; without semaphore export, outputs are synchronised on the host */
    if (!d->info.semaphoreExportHandleType) return true;
    d->timeline = d->vk->createGPUTimeline(core, msg, sizeof msg);
    if (!d->timeline) {
        err = std::string("Invert: createGPUTimeline: ") + msg;
        return false;
    }
    d->semaphore = d->vk->getGPUTimelineSemaphore(d->timeline);
    VSVulkanExportedSemaphore e;
    if (d->vk->exportGPUSemaphore(core, d->semaphore, &e, msg, sizeof msg)) {
        err = std::string("Invert: exportGPUSemaphore: ") + msg;
        return false;
    }
    cudaExternalSemaphoreHandleDesc desc;
    std::memset(&desc, 0, sizeof desc);
#ifdef _WIN32
    desc.type = e.handleType == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE_BIT ? cudaExternalSemaphoreHandleTypeD3D12Fence
                                                                                 : cudaExternalSemaphoreHandleTypeTimelineSemaphoreWin32;
    desc.handle.win32.handle = reinterpret_cast<void *>(e.handle);
#else
    if (e.handleType != VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT) {
        close_handle(e.handleType, e.handle);
        err = "Invert: exportGPUSemaphore gave a handle type CUDA cannot import here (" + std::to_string(e.handleType) + ")";
        return false;
    }
    desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
    desc.handle.fd = static_cast<int>(e.handle);
#endif
    cudaError_t r = cudaImportExternalSemaphore(&d->signal, &desc);
#ifdef _WIN32
    close_handle(e.handleType, e.handle);
#else
    if (r != cudaSuccess) close_handle(e.handleType, e.handle);
#endif
    return cuda_ok(r, "cudaImportExternalSemaphore", err);
}

void VS_CC invert_create(const VSMap *in, VSMap *out, void *, VSCore *core, const VSAPI *vsapi) {
    CudaInvert *d = new CudaInvert;
    d->vsapi = vsapi;
    d->vk = vsapi->getVulkanAPI();
    d->node = vsapi->mapGetNode(in, "clip", 0, nullptr);
    d->vi = *vsapi->getVideoInfo(d->node);
    std::string err;
    if (!format_supported(d->vi.format)) {
        char name[32] = "variable";
        if (d->vi.format.colorFamily != cfUndefined && !vsapi->getVideoFormatName(&d->vi.format, name)) std::strcpy(name, "unknown");
        err = std::string("Invert: the clip must have a constant format of 8-16 bit integer or 16/32 bit float samples, not ") + name;
    } else {
        setup(d, core, err);
    }
    if (!err.empty()) {
        vsapi->mapSetError(out, err.c_str());
        invert_free(d, core, vsapi);
        return;
    }
    VSFilterDependency dep = {d->node, rpStrictSpatial};
    vsapi->createVideoFilterEx(out, "Invert", &d->vi, invert_get_frame, invert_free, fmParallel, ffGPUOutput, &dep, 1, d, core);
}

} // namespace

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("com.example.gpucudainvert", "gpucudainvert", "GPU invert in CUDA on exported frames (SDK example)", VS_MAKE_VERSION(1, 0), VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Invert", "clip:vnode:gpu;", "clip:vnode:gpu;", invert_create, nullptr, plugin);
}
