/*
 * Foreign memory in (include/VSVulkanImport4.h) between two Vulkan devices in one process: this
 * program makes a second VkDevice on the core's physical device, writes known samples into memory
 * it exports as an opaque fd, and hands that memory to the core as GPU frames that a filter chain
 * (vk.Invert, std.GPUDownload) reads. Prints "ok ..." lines the tests compare, "error: ..." else.
 *
 * usage: gpuimport LIBCORE SCENARIO [VKPLUGIN]
 *
 *   absent   whether vsvkFindImportAPI finds the extension (R81: it must not)
 *   frames   two YUV420P8 frames over one import, padded strides and offsets; their producer pair
 *            is a value the host signals only after the second device has written the samples,
 *            late; the chain must give exactly the inverted
 *            samples, the host must not have waited for the pair before the download, and each
 *            frame's release callback must run once, after the last reader finished
 *   errors   every refusal: its message, the callback never run, the failed fd still ours
 *
 * Needs a device that exports memory as an opaque fd (lavapipe does). Lavapipe exports no
 * semaphores at all, so a foreign timeline cannot be imported there; the frames scenario stands a
 * core timeline in for it, and the import's refusal is what the errors scenario checks.
 */
#define _GNU_SOURCE /* dladdr, for vsvkFindImportAPI */
#define VS_USE_API_43
#include "VapourSynth4.h"
#include "VSVulkan4.h"
#include "die.h"
#include "VSVulkanImport4.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const VSAPI *vsapi;
static const VSVULKANAPI *vk;
static const VSVKIMPORTAPI *ia;
static VSCore *core;
static VSVulkanCoreHandles handles;
static char err[1024];

#define CHECK(x, ...) do { if (!(x)) die(__VA_ARGS__); } while (0)
#define VKOK(call) do { VkResult r_ = (call); CHECK(r_ == VK_SUCCESS, "%s: VkResult %d", #call, (int)r_); } while (0)

static void VS_CC log_handler(int type, const char *msg, void *data) {
    (void)data;
    fprintf(stderr, "log %d: %s\n", type, msg);
    fflush(stderr);
}

/* ---- Vulkan entry points, loaded through the core's getInstanceProcAddr -------------------------- */

#define DEVICE_FUNCTIONS(X) \
    X(DestroyDevice) X(GetDeviceQueue) X(CreateBuffer) X(DestroyBuffer) X(GetBufferMemoryRequirements) \
    X(AllocateMemory) X(FreeMemory) X(BindBufferMemory) X(MapMemory) X(GetMemoryFdKHR) \
    X(CreateCommandPool) X(DestroyCommandPool) X(AllocateCommandBuffers) X(BeginCommandBuffer) \
    X(EndCommandBuffer) X(CmdFillBuffer) X(CmdCopyBuffer) X(QueueSubmit2) X(CreateSemaphore) \
    X(DestroySemaphore) X(WaitSemaphores) X(SignalSemaphore) X(GetSemaphoreCounterValue) X(DeviceWaitIdle)

typedef struct Fns {
#define MEMBER(n) PFN_vk##n n;
    DEVICE_FUNCTIONS(MEMBER)
#undef MEMBER
} Fns;

static PFN_vkGetDeviceProcAddr get_device_proc;

static void load(VkDevice d, Fns *f) {
#define LOAD(n) f->n = (PFN_vk##n)get_device_proc(d, "vk" #n);
    DEVICE_FUNCTIONS(LOAD)
#undef LOAD
}

static Fns cf; /* the core's device */

/* ---- the second device: the foreign API of this test --------------------------------------------- */

typedef struct Foreign {
    VkDevice dev;
    Fns f;
    VkQueue queue;
    VkCommandPool pool;
    VkSemaphore timeline; /* its own, not exported: the foreign side's completion */
    uint64_t value;
    VkBuffer buffer;      /* over the exported memory */
    VkDeviceMemory memory;
    VkDeviceSize size;    /* the allocation's, which the import must repeat */
    uint32_t type;
    VkBuffer staging;
    VkDeviceMemory staging_memory;
    uint8_t *staged;
} Foreign;

static uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) {
    PFN_vkGetPhysicalDeviceMemoryProperties props =
        (PFN_vkGetPhysicalDeviceMemoryProperties)handles.getInstanceProcAddr(handles.instance, "vkGetPhysicalDeviceMemoryProperties");
    VkPhysicalDeviceMemoryProperties mp;
    props(handles.physicalDevice, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
            return i;
    die("no memory type with flags %x in %x", want, bits);
    return 0;
}

static void make_buffer(Foreign *x, VkDeviceSize size, int exported, VkBuffer *b, VkDeviceMemory *m) {
    VkExternalMemoryBufferCreateInfo ext = {VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, NULL, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, exported ? &ext : NULL, 0, size,
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             VK_SHARING_MODE_EXCLUSIVE, 0, NULL};
    VKOK(x->f.CreateBuffer(x->dev, &bi, NULL, b));
    VkMemoryRequirements req;
    x->f.GetBufferMemoryRequirements(x->dev, *b, &req);
    VkExportMemoryAllocateInfo ex = {VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, NULL, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    uint32_t type = memory_type(req.memoryTypeBits, exported ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT
                                                             : VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, exported ? &ex : NULL, req.size, type};
    VKOK(x->f.AllocateMemory(x->dev, &ai, NULL, m));
    VKOK(x->f.BindBufferMemory(x->dev, *b, *m, 0));
    if (exported) {
        x->size = req.size;
        x->type = type;
    }
}

static void foreign_up(Foreign *x, VkDeviceSize size) {
    memset(x, 0, sizeof *x);
    const char *exts[] = {"VK_KHR_external_memory_fd"};
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, handles.computeQueueFamily, 1, &prio};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES, .timelineSemaphore = VK_TRUE};
    VkPhysicalDeviceVulkan13Features f13 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES, .pNext = &f12, .synchronization2 = VK_TRUE};
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &f13, 0, 1, &qi, 0, NULL, 1, exts, NULL};
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)handles.getInstanceProcAddr(handles.instance, "vkCreateDevice");
    VKOK(create(handles.physicalDevice, &di, NULL, &x->dev));
    load(x->dev, &x->f);
    CHECK(x->f.GetMemoryFdKHR && x->f.QueueSubmit2, "the second device lacks vkGetMemoryFdKHR or vkQueueSubmit2");
    x->f.GetDeviceQueue(x->dev, handles.computeQueueFamily, 0, &x->queue);
    VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, handles.computeQueueFamily};
    VKOK(x->f.CreateCommandPool(x->dev, &pi, NULL, &x->pool));
    VkSemaphoreTypeCreateInfo st = {VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, NULL, VK_SEMAPHORE_TYPE_TIMELINE, 0};
    VkSemaphoreCreateInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, &st, 0};
    VKOK(x->f.CreateSemaphore(x->dev, &si, NULL, &x->timeline));
    make_buffer(x, size, 1, &x->buffer, &x->memory);
    make_buffer(x, size, 0, &x->staging, &x->staging_memory);
    VKOK(x->f.MapMemory(x->dev, x->staging_memory, 0, VK_WHOLE_SIZE, 0, (void **)&x->staged));
}

/* One submission on the second device, finished before returning: the foreign side's own wait. */
enum { FILL, COPY };
static void foreign_run(Foreign *x, int what) {
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, x->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    VkCommandBuffer cb;
    VKOK(x->f.AllocateCommandBuffers(x->dev, &ai, &cb));
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, NULL};
    VKOK(x->f.BeginCommandBuffer(cb, &bi));
    if (what == FILL) {
        x->f.CmdFillBuffer(cb, x->buffer, 0, VK_WHOLE_SIZE, 0xeeeeeeeeu);
    } else {
        VkBufferCopy r = {0, 0, x->size};
        x->f.CmdCopyBuffer(cb, x->staging, x->buffer, 1, &r);
    }
    VKOK(x->f.EndCommandBuffer(cb));
    x->value++;
    VkCommandBufferSubmitInfo ci = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, NULL, cb, 0};
    VkSemaphoreSubmitInfo sig = {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, NULL, x->timeline, x->value, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0};
    VkSubmitInfo2 si = {VK_STRUCTURE_TYPE_SUBMIT_INFO_2, NULL, 0, 0, NULL, 1, &ci, 1, &sig};
    VKOK(x->f.QueueSubmit2(x->queue, 1, &si, VK_NULL_HANDLE));
    VkSemaphoreWaitInfo wi = {VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, NULL, 0, 1, &x->timeline, &x->value};
    VKOK(x->f.WaitSemaphores(x->dev, &wi, UINT64_MAX));
}

static int foreign_export(Foreign *x) {
    VkMemoryGetFdInfoKHR gi = {VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR, NULL, x->memory, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    int fd = -1;
    VKOK(x->f.GetMemoryFdKHR(x->dev, &gi, &fd));
    return fd;
}

static void foreign_down(Foreign *x) {
    x->f.DeviceWaitIdle(x->dev);
    x->f.DestroyBuffer(x->dev, x->buffer, NULL);
    x->f.DestroyBuffer(x->dev, x->staging, NULL);
    x->f.FreeMemory(x->dev, x->memory, NULL);
    x->f.FreeMemory(x->dev, x->staging_memory, NULL);
    x->f.DestroySemaphore(x->dev, x->timeline, NULL);
    x->f.DestroyCommandPool(x->dev, x->pool, NULL);
    x->f.DestroyDevice(x->dev, NULL);
}

/* ---- the frames ------------------------------------------------------------------------------------ */

enum { W = 70, H = 46, FRAMES = 2, FRAME_BYTES = 8192 };
/* padded strides and 256-aligned plane offsets within each frame's range */
static const ptrdiff_t strides[3] = {96, 64, 64};
static const uint64_t offsets[3] = {0, 4608, 6144};

static int plane_w(int p) { return p ? W / 2 : W; }
static int plane_h(int p) { return p ? H / 2 : H; }
static uint8_t sample(int f, int p, int x, int y) { return (uint8_t)(x * 3 + y * 5 + p * 50 + f * 100); }

static VSVideoFormat yuv420p8(void) {
    VSVideoFormat fmt;
    CHECK(vsapi->queryVideoFormat(&fmt, cfYUV, stInteger, 8, 1, 1, core), "queryVideoFormat");
    return fmt;
}

typedef struct Released {
    atomic_int calls;
    atomic_int early; /* called before the pair was signalled or before the last reader finished */
    VkSemaphore reader;
    uint64_t reader_value;
} Released;

static Released released[FRAMES];
static atomic_int signalled;

static void VS_CC on_release(void *data) {
    Released *r = data;
    uint64_t v = 0;
    int done = r->reader && cf.GetSemaphoreCounterValue(handles.device, r->reader, &v) == VK_SUCCESS && v >= r->reader_value;
    if (!atomic_load(&signalled) || !done)
        atomic_fetch_add(&r->early, 1);
    atomic_fetch_add(&r->calls, 1);
}

typedef struct Source {
    VSFrame *frames[FRAMES];
} Source;

static const VSFrame *VS_CC source_get(int n, int reason, void *data, void **fd, VSFrameContext *ctx, VSCore *c, const VSAPI *api) {
    (void)fd, (void)ctx, (void)c;
    Source *s = data;
    return reason == arInitial ? api->addFrameRef(s->frames[n]) : NULL;
}

static void VS_CC source_free(void *data, VSCore *c, const VSAPI *api) {
    (void)c;
    Source *s = data;
    for (int i = 0; i < FRAMES; i++)
        api->freeFrame(s->frames[i]);
    free(s);
}

typedef struct Gate {
    Foreign *x;
    VSGPUTimeline *ready;
} Gate;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* The foreign side, late: writes the samples, waits for its own submission, then signals. */
static void *late_writer(void *arg) {
    Gate *g = arg;
    usleep(300 * 1000);
    foreign_run(g->x, COPY);
    atomic_store(&signalled, 1);
    VkSemaphoreSignalInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, NULL, vk->getGPUTimelineSemaphore(g->ready), 1};
    VKOK(cf.SignalSemaphore(handles.device, &si));
    return NULL;
}

static VSNode *call(const char *ns, const char *name, VSMap *args) {
    VSPlugin *p = vsapi->getPluginByNamespace(ns, core);
    CHECK(p, "no plugin %s", ns);
    VSMap *r = vsapi->invoke(p, name, args);
    CHECK(!vsapi->mapGetError(r), "%s.%s: %s", ns, name, vsapi->mapGetError(r));
    VSNode *n = vsapi->mapGetNode(r, "clip", 0, NULL);
    vsapi->freeMap(r);
    return n;
}

static VSNode *on(const char *ns, const char *name, VSNode *clip) {
    VSMap *a = vsapi->createMap();
    vsapi->mapConsumeNode(a, "clip", clip, maAppend);
    VSNode *n = call(ns, name, a);
    vsapi->freeMap(a);
    return n;
}

static int frames_scenario(const char *vk_plugin) {
    CHECK(vk_plugin, "the frames scenario needs the vk plugin's path");
    VSMap *a = vsapi->createMap();
    vsapi->mapSetData(a, "path", vk_plugin, -1, dtUtf8, maReplace);
    VSMap *r = vsapi->invoke(vsapi->getPluginByNamespace("std", core), "LoadPlugin", a);
    CHECK(!vsapi->mapGetError(r), "LoadPlugin: %s", vsapi->mapGetError(r));
    vsapi->freeMap(r);
    vsapi->freeMap(a);

    Foreign x;
    foreign_up(&x, FRAMES * FRAME_BYTES);
    /* what the memory holds until the late write: a read before the signal would see this */
    foreign_run(&x, FILL);
    memset(x.staged, 0x11, x.size);
    for (int f = 0; f < FRAMES; f++)
        for (int p = 0; p < 3; p++)
            for (int y = 0; y < plane_h(p); y++)
                for (int i = 0; i < plane_w(p); i++)
                    x.staged[f * FRAME_BYTES + offsets[p] + y * strides[p] + i] = sample(f, p, i, y);

    int fd = foreign_export(&x);
    VSGPUImportedMemory *mem = ia->importGPUMemory(core, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, fd, x.size, (int)x.type, err, sizeof err);
    if (!mem)
        close(fd);
    CHECK(mem, "importGPUMemory: %s", err);

    /* The producer pair: a core timeline standing in for the foreign one lavapipe cannot export,
       signalled from the host once the second device's write is done. The guide wants values
       whose signal is already on its way; this one's comes from a thread that holds nothing of the
       core and waits for nothing it does, which is what that rule protects. A gate submitted to
       the core's queue instead would order the readers behind it on lavapipe's single in-order
       queue and hide a reader that ignored the pair. */
    VSGPUTimeline *ready = vk->createGPUTimeline(core, err, sizeof err);
    CHECK(ready, "createGPUTimeline: %s", err);

    VSVideoFormat fmt = yuv420p8();
    Source *src = calloc(1, sizeof *src);
    for (int f = 0; f < FRAMES; f++) {
        VSVulkanImportedPlane planes[3];
        for (int p = 0; p < 3; p++)
            planes[p] = (VSVulkanImportedPlane){mem, f * FRAME_BYTES + offsets[p], strides[p]};
        src->frames[f] = ia->newImportedGPUFrame(&fmt, W, H, planes, ready, 1, on_release, &released[f], NULL, core, err, sizeof err);
        CHECK(src->frames[f], "newImportedGPUFrame: %s", err);
        for (int p = 0; p < 3; p++) {
            VSVulkanPlaneInfo pi;
            CHECK(vk->getGPUPlane(src->frames[f], p, &pi) == 0, "getGPUPlane");
            CHECK(pi.readySemaphore == vk->getGPUTimelineSemaphore(ready) && pi.readyValue == 1, "plane %d: producer pair not published", p);
            CHECK(vsapi->getStride(src->frames[f], p) == strides[p], "plane %d: stride %d", p, (int)vsapi->getStride(src->frames[f], p));
        }
    }
    /* frames hold the memory and the timeline themselves */
    ia->freeGPUMemory(mem);

    VSVideoInfo vi = {fmt, 25, 1, W, H, FRAMES};
    VSNode *s = vsapi->createVideoFilterEx2("ImportSource", &vi, source_get, source_free, fmParallel, ffGPUOutput, NULL, 0, src, core);
    CHECK(s, "createVideoFilterEx2 failed");
    vsapi->addNodeRef(s);
    VSNode *inv = on("vk", "Invert", s);
    vsapi->addNodeRef(inv);
    VSNode *dl = on("std", "GPUDownload", inv);

    pthread_t t;
    Gate g = {&x, ready};
    double t0 = now();
    CHECK(pthread_create(&t, NULL, late_writer, &g) == 0, "pthread_create");

    /* Inverting records and submits: the host must not wait for the pair here. */
    const VSFrame *inverted[FRAMES];
    int before_signal = 1;
    for (int f = 0; f < FRAMES; f++) {
        inverted[f] = vsapi->getFrame(f, inv, err, sizeof err);
        CHECK(inverted[f], "vk.Invert frame %d: %s", f, err);
        before_signal &= !atomic_load(&signalled);
        VSVulkanPlaneInfo pi;
        CHECK(vk->getGPUPlane(inverted[f], 0, &pi) == 0, "getGPUPlane (inverted)");
        released[f].reader = pi.readySemaphore;
        released[f].reader_value = pi.readyValue;
    }
    long mismatches = 0;
    for (int f = 0; f < FRAMES; f++) {
        const VSFrame *d = vsapi->getFrame(f, dl, err, sizeof err);
        CHECK(d, "std.GPUDownload frame %d: %s", f, err);
        for (int p = 0; p < 3; p++) {
            const uint8_t *rp = vsapi->getReadPtr(d, p);
            ptrdiff_t st = vsapi->getStride(d, p);
            for (int y = 0; y < plane_h(p); y++)
                for (int i = 0; i < plane_w(p); i++) {
                    int got = rp[y * st + i], want = 255 - sample(f, p, i, y);
                    if (got != want && mismatches++ < 5)
                        fprintf(stderr, "frame %d plane %d (%d,%d): %d, expected %d\n", f, p, i, y, got, want);
                }
        }
        vsapi->freeFrame(d);
    }
    double waited = now() - t0;
    pthread_join(t, NULL);
    int held = atomic_load(&released[0].calls) + atomic_load(&released[1].calls);

    vsapi->freeNode(dl);
    vsapi->freeNode(inv);
    vsapi->freeNode(s);
    /* every reader is gone now; the inverted frames keep the readers' timeline alive for the check.
     * The last reference to a node may still be dropping on one of the core's worker threads as
     * freeNode returns (the release then follows there), so the callbacks get a few seconds. */
    for (double t1 = now(); now() - t1 < 5.0;) {
        int n = 0;
        for (int f = 0; f < FRAMES; f++)
            n += atomic_load(&released[f].calls) > 0;
        if (n == FRAMES)
            break;
        usleep(1000);
    }
    int calls[FRAMES], early = 0;
    for (int f = 0; f < FRAMES; f++) {
        calls[f] = atomic_load(&released[f].calls);
        early += atomic_load(&released[f].early);
        vsapi->freeFrame(inverted[f]);
    }
    vk->freeGPUTimeline(ready);
    foreign_down(&x);
    printf("ok frames mismatches=%ld invert_before_signal=%d download_after_signal=%d released_while_held=%d released=%d,%d early=%d\n", mismatches,
           before_signal, waited >= 0.3, held, calls[0], calls[1], early);
    return 0;
}

/* ---- refusals ---------------------------------------------------------------------------------------- */

static atomic_int failed_release_calls;
static void VS_CC count_release(void *data) {
    (void)data;
    atomic_fetch_add(&failed_release_calls, 1);
}

static int fd_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

#define REFUSED(name, call) do { err[0] = 0; void *r_ = (void *)(call); \
    printf("%s: %s\n", name, r_ ? "accepted" : err); if (r_) die("%s was accepted", name); } while (0)

static int errors_scenario(void) {
    Foreign x;
    foreign_up(&x, 16384);
    const int opaque = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = foreign_export(&x);

    REFUSED("dmabuf", ia->importGPUMemory(core, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, fd, x.size, (int)x.type, err, sizeof err));
    REFUSED("handletype", ia->importGPUMemory(core, 99, fd, x.size, (int)x.type, err, sizeof err));
    REFUSED("negativefd", ia->importGPUMemory(core, opaque, -1, x.size, (int)x.type, err, sizeof err));
    int closed = dup(fd);
    close(closed);
    REFUSED("closedfd", ia->importGPUMemory(core, opaque, closed, x.size, (int)x.type, err, sizeof err));
    REFUSED("zerosize", ia->importGPUMemory(core, opaque, fd, 0, (int)x.type, err, sizeof err));
    REFUSED("memorytype", ia->importGPUMemory(core, opaque, fd, x.size, 99, err, sizeof err));
    /* A file that no Vulkan device exported: the driver refuses it (lavapipe closing what it was
       given, which the specification does not allow; the core hands it a duplicate). */
    int stranger = memfd_create("not-vulkan", MFD_CLOEXEC);
    CHECK(stranger >= 0 && ftruncate(stranger, (off_t)x.size) == 0, "memfd_create");
    REFUSED("notvulkan", ia->importGPUMemory(core, opaque, stranger, x.size, (int)x.type, err, sizeof err));
    /* a refused import leaves the fd with its caller */
    printf("fds still open after refusals: %d %d\n", fd_open(fd), fd_open(stranger));
    close(stranger);

    VSGPUImportedMemory *mem = ia->importGPUMemory(core, opaque, fd, x.size, (int)x.type, err, sizeof err);
    if (!mem)
        close(fd);
    CHECK(mem, "importGPUMemory: %s", err);
    /* a successful import consumes the fd */
    printf("fd closed after the import: %d\n", !fd_open(fd));

    REFUSED("timelinetype", ia->importGPUTimeline(core, VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT, 0, err, sizeof err));
    VSVulkanCoreInfo ci;
    CHECK(vk->getVulkanCoreInfo(core, &ci, err, sizeof err) == 0, "getVulkanCoreInfo: %s", err);
    if (!ci.semaphoreExportHandleType) /* lavapipe: no external semaphores, so no import either */
        REFUSED("timelinenoexport", ia->importGPUTimeline(core, VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT, 0, err, sizeof err));

    VSVideoFormat fmt = yuv420p8();
    VSVulkanImportedPlane good[3], p[3];
    for (int i = 0; i < 3; i++)
        good[i] = (VSVulkanImportedPlane){mem, offsets[i], strides[i]};
#define FRAME_REFUSED(name, w, h) REFUSED(name, ia->newImportedGPUFrame(&fmt, w, h, p, NULL, 0, count_release, NULL, NULL, core, err, sizeof err))
    memcpy(p, good, sizeof p);
    p[2].memory = NULL;
    FRAME_REFUSED("planecount", W, H);
    memcpy(p, good, sizeof p);
    p[0].offset = x.size - 256; /* the luma plane from there passes the end: too small for the format */
    FRAME_REFUSED("toosmall", W, H);
    memcpy(p, good, sizeof p);
    FRAME_REFUSED("toolarge", W, 400);
    memcpy(p, good, sizeof p);
    p[1].stride = 16;
    FRAME_REFUSED("stride", W, H);
    memcpy(p, good, sizeof p);
    p[1].offset = 4609;
    FRAME_REFUSED("offset", W, H);
    memcpy(p, good, sizeof p);
    FRAME_REFUSED("oddwidth", W - 1, H);
    FRAME_REFUSED("zeroheight", W, 0);
    VSVideoFormat gray;
    vsapi->queryVideoFormat(&gray, cfGray, stInteger, 8, 0, 0, core);
    /* a one-plane format given a three-plane layout reads only what it needs */
    VSFrame *ok = ia->newImportedGPUFrame(&gray, W, H, good, NULL, 0, count_release, NULL, NULL, core, err, sizeof err);
    CHECK(ok, "newImportedGPUFrame (Gray8): %s", err);
    int before_free = atomic_load(&failed_release_calls);
    vsapi->freeFrame(ok);
    ia->freeGPUMemory(mem);
    foreign_down(&x);
    printf("ok errors release_calls_on_refusal=%d release_calls_after_free=%d\n", before_free, atomic_load(&failed_release_calls));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: gpuimport LIBCORE SCENARIO [VKPLUGIN]");
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) die("cannot load %s: %s", argv[1], dlerror());
    const VSAPI *(*get)(int) = (const VSAPI *(*)(int))dlsym(lib, "getVapourSynthAPI");
    if (!get) die("no getVapourSynthAPI");
    vsapi = get(VAPOURSYNTH_API_VERSION);
    if (!vsapi) die("getVapourSynthAPI refused API %d", VAPOURSYNTH_API_VERSION);
    ia = vsvkFindImportAPI(vsapi);
    if (!strcmp(argv[2], "absent")) {
        printf("ok absent found=%d\n", ia != NULL);
        return 0;
    }
    CHECK(ia && ia->version == VSVK_IMPORT_API_VERSION, "vsvkFindImportAPI found nothing");
    core = vsapi->createCore(0);
    vsapi->addLogHandler(log_handler, NULL, NULL, core);
    vk = vsapi->getVulkanAPI();
    CHECK(vk->getVulkanHandles(core, &handles, err, sizeof err) == 0, "getVulkanHandles: %s", err);
    get_device_proc = (PFN_vkGetDeviceProcAddr)handles.getInstanceProcAddr(handles.instance, "vkGetDeviceProcAddr");
    CHECK(get_device_proc, "no vkGetDeviceProcAddr");
    load(handles.device, &cf);
    int r;
    if (!strcmp(argv[2], "frames")) r = frames_scenario(argc > 3 ? argv[3] : NULL);
    else if (!strcmp(argv[2], "errors")) r = errors_scenario();
    else die("unknown scenario %s", argv[2]);
    vsapi->freeCore(core);
    fflush(stdout);
    return r;
}
