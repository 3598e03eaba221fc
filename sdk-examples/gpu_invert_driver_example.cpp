/*
 * gpu_invert_driver_example.cpp -- an application using a VapourSynth API 4.3 core as a library,
 * with its GPU half:
 *
 *   gpu_invert_driver_example LIBCORE [--device N] [--plugin PATH] [--format NAME]
 *                             [--width W] [--height H] [--frames N]
 *
 *  1. loads the core library at run time (dlopen, LoadLibrary on Windows, + getVapourSynthAPI), so one binary runs on any
 *     core: vsvk's libvsvk.so or VapourSynth's libvapoursynth.so.4;
 *  2. lists the Vulkan devices (enumerateVulkanDevices, which needs no core) and picks one: the
 *     index given with --device, else the usable device with the most memory, discrete first;
 *  3. creates a core on it (setVulkanDevice before anything touches the device);
 *  4. builds a graph: a source defined by this program (createVideoFilter2: applications can add
 *     filters of their own without a plugin), std.GPUUpload, and with --plugin PATH the GPU invert
 *     of gpu_invert_example.so (gpuinvert.Invert); beside it, the same source through std.Invert
 *     on the CPU, as the expected result;
 *  5. pulls every frame of the GPU graph and reads its planes back itself: an exec pool on the
 *     transfer queue copies each plane into a host visible buffer from createGPUBuffer, and
 *     gpuExecWaitValue waits for exactly that copy;
 *  6. compares what came back with the CPU graph's frames, and reports the device and the VRAM
 *     figures (getVulkanCoreInfo) and the core's framebuffer use (getCoreInfo).
 *
 * The last line is "ok frames=N planes=P device=NAME" or "error: ...", with exit status 0 or 1.
 * Every call that can fail is checked.
 * SPDX-License-Identifier: MIT
 */
#define VS_USE_API_43
#include "VapourSynth4.h"
#include "VSVulkan4.h"

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

typedef const VSAPI *(VS_CC *GetApi)(int version);

/* The core library's getVapourSynthAPI, or NULL with why in err. (The Windows branch has not been
   compiled: see README.md.) */
GetApi load_core(const char *path, std::string &err) {
#ifdef _WIN32
    HMODULE lib = LoadLibraryA(path);
    if (!lib) {
        err = "LoadLibrary failed with error " + std::to_string(GetLastError());
        return nullptr;
    }
    GetApi get = reinterpret_cast<GetApi>(reinterpret_cast<void *>(GetProcAddress(lib, "getVapourSynthAPI")));
#else
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        err = dlerror();
        return nullptr;
    }
    GetApi get = reinterpret_cast<GetApi>(dlsym(lib, "getVapourSynthAPI"));
#endif
    if (!get) err = "the library exports no getVapourSynthAPI";
    return get; /* the library stays loaded for the life of the process */
}

[[noreturn]] void fail(const std::string &message) {
    std::fflush(stdout);
    std::printf("error: %s\n", message.c_str());
    std::fflush(stdout);
    std::exit(1);
}

struct Options {
    const char *library = nullptr;
    int device = -2; // -2: choose here
    const char *plugin = nullptr;
    std::string format = "YUV420P10";
    int width = 640, height = 360, frames = 10;
};

int to_int(const char *s, const char *what) {
    char *end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (!*s || *end || v < -1 || v > 1 << 20) fail(std::string("bad value for ") + what + ": " + s);
    return static_cast<int>(v);
}

Options parse(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&](const char *what) -> const char * {
            if (i + 1 >= argc) fail(std::string(what) + " needs a value");
            return argv[++i];
        };
        if (a == "--device") o.device = to_int(value("--device"), "--device");
        else if (a == "--plugin") o.plugin = value("--plugin");
        else if (a == "--format") o.format = value("--format");
        else if (a == "--width") o.width = to_int(value("--width"), "--width");
        else if (a == "--height") o.height = to_int(value("--height"), "--height");
        else if (a == "--frames") o.frames = to_int(value("--frames"), "--frames");
        else if (!o.library && a.rfind("--", 0) != 0) o.library = argv[i];
        else fail("unknown argument " + a);
    }
    if (!o.library) fail("usage: gpu_invert_driver_example LIBCORE [--device N] [--plugin PATH] [--format NAME] [--width W] [--height H] [--frames N]");
    if (o.width < 1 || o.height < 1 || o.frames < 1) fail("width, height and frames must be positive");
    return o;
}

const char *device_type(int t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
    }
}

std::string hex(const uint8_t *bytes, int n) {
    std::string s;
    char b[3];
    for (int i = 0; i < n; i++) {
        std::snprintf(b, sizeof b, "%02x", bytes[i]);
        s += b;
    }
    return s;
}

/* Lists the devices and returns the one to use. */
int pick_device(const VSVULKANAPI *vk, int wanted) {
    char err[1024] = {};
    int count = vk->enumerateVulkanDevices(nullptr, 0, err, sizeof err);
    if (count < 0) fail(std::string("enumerateVulkanDevices: ") + err);
    std::vector<VSVulkanDeviceListEntry> list(static_cast<size_t>(count));
    int listed = vk->enumerateVulkanDevices(list.data(), count, err, sizeof err);
    if (listed < 0) fail(std::string("enumerateVulkanDevices: ") + err);
    if (listed < count) count = listed; // a device went away in between
    int best = -1;
    for (int i = 0; i < count; i++) {
        const VSVulkanDeviceListEntry &e = list[static_cast<size_t>(i)];
        std::printf("device %d: %s (%s, Vulkan %u.%u, %lld MiB, uuid %s)%s%s\n", i, e.deviceName, device_type(e.deviceType),
                    VK_API_VERSION_MAJOR(e.apiVersion), VK_API_VERSION_MINOR(e.apiVersion), static_cast<long long>(e.deviceMemory >> 20),
                    hex(e.deviceUUID, VK_UUID_SIZE).c_str(), e.usable ? "" : " unusable: ", e.usable ? "" : e.unusableReason);
        if (!e.usable) continue;
        if (best < 0) {
            best = i;
            continue;
        }
        const VSVulkanDeviceListEntry &b = list[static_cast<size_t>(best)];
        bool discrete = e.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, bestDiscrete = b.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
        if (discrete != bestDiscrete ? discrete : e.deviceMemory > b.deviceMemory) best = i;
    }
    if (wanted >= -1) return wanted; // -1 lets the core choose; an unusable index fails with its reason
    if (best < 0) fail("no usable Vulkan device");
    return best;
}

/* ---- a source filter defined by the application ------------------------------------------------ */

struct Source {
    VSVideoInfo vi;
};

/* A pattern that differs per pixel, plane and frame, inside each format's range. */
const VSFrame *VS_CC source_get_frame(int n, int activationReason, void *instanceData, void **, VSFrameContext *frameCtx, VSCore *core, const VSAPI *vsapi) {
    if (activationReason != arInitial) return nullptr;
    const Source *s = static_cast<const Source *>(instanceData);
    const VSVideoFormat &f = s->vi.format;
    VSFrame *frame = vsapi->newVideoFrame(&f, s->vi.width, s->vi.height, nullptr, core);
    if (!frame) {
        vsapi->setFilterError("Source: newVideoFrame failed", frameCtx);
        return nullptr;
    }
    for (int p = 0; p < f.numPlanes; p++) {
        uint8_t *row = vsapi->getWritePtr(frame, p);
        ptrdiff_t stride = vsapi->getStride(frame, p);
        int w = vsapi->getFrameWidth(frame, p), h = vsapi->getFrameHeight(frame, p);
        uint32_t mask = (1u << f.bitsPerSample) - 1;
        for (int y = 0; y < h; y++, row += stride) {
            for (int x = 0; x < w; x++) {
                uint32_t v = static_cast<uint32_t>(x * 3 + y * 5 + n * 7 + p * 11);
                float fv = 0.5f * std::sin(0.013f * static_cast<float>(x) + 0.007f * static_cast<float>(y) + 0.1f * static_cast<float>(n + p));
                if (f.sampleType == stFloat && f.bytesPerSample == 4) std::memcpy(row + 4 * x, &fv, 4);
                else if (f.sampleType == stFloat) {
                    // a half: the float's top bits, truncated (any half will do for a test pattern)
                    uint32_t bits;
                    std::memcpy(&bits, &fv, 4);
                    int e = static_cast<int>((bits >> 23) & 0xff) - 112;
                    uint16_t hbits = static_cast<uint16_t>(((bits >> 16) & 0x8000) | (e > 0 ? (static_cast<uint32_t>(e) << 10) | ((bits >> 13) & 0x3ff) : 0));
                    std::memcpy(row + 2 * x, &hbits, 2);
                } else if (f.bytesPerSample == 1) row[x] = static_cast<uint8_t>(v & mask);
                else {
                    uint16_t u = static_cast<uint16_t>(v & mask);
                    std::memcpy(row + 2 * x, &u, 2);
                }
            }
        }
    }
    return frame;
}

void VS_CC source_free(void *instanceData, VSCore *, const VSAPI *) { delete static_cast<Source *>(instanceData); }

/* ---- the graph ---------------------------------------------------------------------------------- */

struct Graph {
    const VSAPI *api;
    VSCore *core;

    /* Calls ns.name with args (consumed) and returns its clip; fails on an error. */
    VSNode *call(const char *ns, const char *name, VSMap *args) const {
        VSPlugin *plugin = api->getPluginByNamespace(ns, core);
        if (!plugin) fail(std::string("no namespace ") + ns);
        VSMap *out = api->invoke(plugin, name, args);
        api->freeMap(args);
        if (!out) fail(std::string(ns) + "." + name + ": invoke failed");
        if (const char *e = api->mapGetError(out)) {
            std::string msg = std::string(ns) + "." + name + ": " + e;
            api->freeMap(out);
            fail(msg);
        }
        int err = 0;
        VSNode *node = api->mapGetNode(out, "clip", 0, &err);
        api->freeMap(out);
        if (err || !node) fail(std::string(ns) + "." + name + " returned no clip");
        return node;
    }

    /* A one-input filter: ns.name(clip=node); takes its own reference on node. */
    VSNode *filter(const char *ns, const char *name, VSNode *node) const {
        VSMap *args = api->createMap();
        if (api->mapSetNode(args, "clip", node, maReplace)) fail("mapSetNode failed");
        return call(ns, name, args);
    }

    void load_plugin(const char *path) const {
        VSMap *args = api->createMap();
        if (api->mapSetData(args, "path", path, -1, dtUtf8, maReplace)) fail("mapSetData failed");
        VSPlugin *std_ = api->getPluginByNamespace("std", core);
        if (!std_) fail("no std namespace");
        VSMap *out = api->invoke(std_, "LoadPlugin", args);
        api->freeMap(args);
        if (!out) fail("std.LoadPlugin: invoke failed");
        if (const char *e = api->mapGetError(out)) {
            std::string msg = std::string("std.LoadPlugin: ") + e;
            api->freeMap(out);
            fail(msg);
        }
        api->freeMap(out);
    }
};

/* ---- reading GPU planes back -------------------------------------------------------------------- */

struct Reader {
    const VSVULKANAPI *vk;
    const VSVulkanFunctions *fn;
    VSCore *core;
    VSGPUExecPool *pool; // on vqTransfer: it only ever records copies

    /* The visible bytes of one GPU plane, row by row (rowBytes of each stride). */
    std::vector<uint8_t> read(const VSFrame *frame, int plane, size_t rowBytes, int rows, ptrdiff_t stride) const {
        char err[1024] = {};
        VSVulkanPlaneInfo info;
        if (vk->getGPUPlane(frame, plane, &info)) fail("getGPUPlane: the frame is not GPU resident");
        VSVulkanBufferInfo host;
        // coherent is required: the buffer's VkDeviceMemory is not ours to invalidate
        VSGPUBuffer *buffer = vk->createGPUBuffer(core, info.bufferSize, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                                  VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &host, err, sizeof err);
        if (!buffer) fail(std::string("createGPUBuffer: ") + err);
        if (!host.mapped) fail("createGPUBuffer: a host visible buffer came back unmapped");
        VSGPUExecContext *ctx = vk->gpuExecAcquire(pool, err, sizeof err);
        if (!ctx) fail(std::string("gpuExecAcquire: ") + err);
        VkCommandBuffer cb = vk->gpuExecCommandBuffer(ctx);
        VkBufferCopy2 region = {};
        region.sType = VK_STRUCTURE_TYPE_BUFFER_COPY_2;
        region.size = info.bufferSize;
        VkCopyBufferInfo2 copy = {};
        copy.sType = VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2;
        copy.srcBuffer = info.buffer;
        copy.dstBuffer = host.buffer;
        copy.regionCount = 1;
        copy.pRegions = &region;
        fn->vkCmdCopyBuffer2(cb, &copy);
        // make the copy visible to the host once the wait below returns
        VkMemoryBarrier2 barrier = {};
        barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2;
        barrier.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
        barrier.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        barrier.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
        barrier.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
        VkDependencyInfo dep = {};
        dep.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO;
        dep.memoryBarrierCount = 1;
        dep.pMemoryBarriers = &barrier;
        fn->vkCmdPipelineBarrier2(cb, &dep);
        // waits for the plane's producer on the device, and keeps the frame alive until done
        vk->gpuExecReadsFrame(ctx, frame);
        uint64_t value = 0;
        if (vk->gpuExecSubmit(ctx, &value, err, sizeof err)) fail(std::string("gpuExecSubmit: ") + err);
        int drained = vk->gpuExecWaitValue(pool, value, err, sizeof err);
        if (drained != gdDrained) fail(std::string("gpuExecWaitValue: ") + err);
        std::vector<uint8_t> bytes(rowBytes * static_cast<size_t>(rows));
        const uint8_t *src = static_cast<const uint8_t *>(host.mapped);
        for (int y = 0; y < rows; y++) std::memcpy(bytes.data() + rowBytes * static_cast<size_t>(y), src + stride * y, rowBytes);
        vk->destroyGPUBuffer(buffer); // the copy has completed
        return bytes;
    }
};

} // namespace

int main(int argc, char **argv) {
    Options o = parse(argc, argv);

    std::string why;
    GetApi get_api = load_core(o.library, why);
    if (!get_api) fail(std::string("cannot load the core ") + o.library + ": " + why);
    const VSAPI *api = get_api(VAPOURSYNTH_API_VERSION);
    if (!api) fail("the core does not provide API 4.3 (getVulkanAPI needs it)");
    const VSVULKANAPI *vk = api->getVulkanAPI();

    int device = pick_device(vk, o.device);
    VSCore *core = api->createCore(0);
    if (!core) fail("createCore failed");
    char err[1024] = {};
    if (vk->setVulkanDevice(core, device, err, sizeof err)) fail(std::string("setVulkanDevice: ") + err);
    std::printf("picked device %d\n", device);
    const VSVulkanFunctions *fn = vk->getVulkanFunctions(core, err, sizeof err);
    if (!fn) fail(std::string("getVulkanFunctions: ") + err);

    Graph g = {api, core};
    if (o.plugin) g.load_plugin(o.plugin);

    // the source, defined here
    VSVideoFormat format;
    struct Preset { const char *name; int cf, st, bits, ssw, ssh; };
    const Preset presets[] = {{"Gray8", cfGray, stInteger, 8, 0, 0},       {"Gray16", cfGray, stInteger, 16, 0, 0},
                              {"GrayH", cfGray, stFloat, 16, 0, 0},        {"GrayS", cfGray, stFloat, 32, 0, 0},
                              {"YUV420P8", cfYUV, stInteger, 8, 1, 1},     {"YUV420P10", cfYUV, stInteger, 10, 1, 1},
                              {"YUV422P16", cfYUV, stInteger, 16, 1, 0},   {"YUV444P12", cfYUV, stInteger, 12, 0, 0},
                              {"YUV444PH", cfYUV, stFloat, 16, 0, 0},      {"YUV444PS", cfYUV, stFloat, 32, 0, 0},
                              {"RGB24", cfRGB, stInteger, 8, 0, 0},        {"RGB48", cfRGB, stInteger, 16, 0, 0},
                              {"RGBS", cfRGB, stFloat, 32, 0, 0}};
    const Preset *preset = nullptr;
    for (const Preset &p : presets)
        if (o.format == p.name) preset = &p;
    if (!preset) fail("unknown --format " + o.format);
    if (!api->queryVideoFormat(&format, preset->cf, preset->st, preset->bits, preset->ssw, preset->ssh, core)) fail("queryVideoFormat failed");
    if (o.width % (1 << format.subSamplingW) || o.height % (1 << format.subSamplingH)) fail("the size does not fit the subsampling of " + o.format);
    Source *s = new Source{};
    s->vi.format = format;
    s->vi.width = o.width;
    s->vi.height = o.height;
    s->vi.numFrames = o.frames;
    s->vi.fpsNum = 24;
    s->vi.fpsDen = 1;
    VSNode *source = api->createVideoFilter2("Source", &s->vi, source_get_frame, source_free, fmParallel, nullptr, 0, s, core);
    if (!source) fail("createVideoFilter2 failed");

    // the GPU graph, and the expected result on the CPU
    VSNode *gpu = g.filter("std", "GPUUpload", source);
    if (o.plugin) {
        VSNode *inverted = g.filter("gpuinvert", "Invert", gpu);
        api->freeNode(gpu);
        gpu = inverted;
    }
    VSNode *expected = o.plugin ? g.filter("std", "Invert", source) : api->addNodeRef(source);
    api->freeNode(source);

    Reader reader = {vk, fn, core, vk->createGPUExecPool(core, vqTransfer, err, sizeof err)};
    if (!reader.pool) fail(std::string("createGPUExecPool: ") + err);

    int planes = 0;
    std::vector<const VSFrame *> kept; // a few frames stay referenced while the VRAM figures are read
    for (int n = 0; n < o.frames; n++) {
        const VSFrame *f = api->getFrame(n, gpu, err, sizeof err);
        if (!f) fail(std::string("frame ") + std::to_string(n) + ": " + err);
        const VSFrame *e = api->getFrame(n, expected, err, sizeof err);
        if (!e) fail(std::string("expected frame ") + std::to_string(n) + ": " + err);
        if (api->getFrameResidency(f) != nrGPU) fail("the GPU graph gave a CPU frame");
        for (int p = 0; p < format.numPlanes; p++) {
            int w = api->getFrameWidth(e, p), h = api->getFrameHeight(e, p);
            size_t rowBytes = static_cast<size_t>(w) * static_cast<size_t>(format.bytesPerSample);
            std::vector<uint8_t> got = reader.read(f, p, rowBytes, h, api->getStride(f, p));
            const uint8_t *want = api->getReadPtr(e, p);
            for (int y = 0; y < h; y++)
                if (std::memcmp(got.data() + rowBytes * static_cast<size_t>(y), want + api->getStride(e, p) * y, rowBytes))
                    fail("frame " + std::to_string(n) + " plane " + std::to_string(p) + " row " + std::to_string(y) + " differs from the CPU result");
            planes++;
        }
        api->freeFrame(e);
        if (kept.size() < 4) kept.push_back(f);
        else api->freeFrame(f);
    }

    VSVulkanCoreInfo info;
    if (vk->getVulkanCoreInfo(core, &info, err, sizeof err)) fail(std::string("getVulkanCoreInfo: ") + err);
    VSCoreInfo ci;
    api->getCoreInfo(core, &ci);
    std::printf("device: %s (uuid %s)%s\n", info.deviceName, hex(info.deviceUUID, VK_UUID_SIZE).c_str(), info.unifiedMemory ? ", unified memory" : "");
    std::printf("vram: device memory %lld MiB, budget %lld MiB, limit %lld MiB, allocated %lld bytes (%zu frames held)\n",
                static_cast<long long>(info.deviceMemory >> 20), static_cast<long long>(info.budget >> 20), static_cast<long long>(info.limit >> 20),
                static_cast<long long>(info.allocated), kept.size());
    std::printf("host: framebuffers %lld bytes, cache limit %lld MiB, threads %d\n", static_cast<long long>(ci.usedFramebufferSize),
                static_cast<long long>(ci.maxFramebufferSize >> 20), ci.numThreads);
    std::printf("interop: memory export %s, semaphore export %s\n", info.exportHandleType ? "yes" : "no", info.semaphoreExportHandleType ? "yes" : "no");
    if (info.allocated <= 0) fail("the core reports no VRAM in use while GPU frames are held");

    for (const VSFrame *f : kept) api->freeFrame(f);
    api->freeNode(gpu);
    api->freeNode(expected);
    vk->freeGPUExecPool(reader.pool);
    api->freeCore(core);
    std::printf("ok frames=%d planes=%d device=%s\n", o.frames, planes, info.deviceName);
    return 0;
}
