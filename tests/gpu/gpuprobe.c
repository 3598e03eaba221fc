/*
 * vsvk GPU probe: exercises getVulkanAPI on a core library (ours or the reference) without a filter
 * graph, one scenario per run, printing "ok ..." lines the tests compare, or dying the way the API
 * says a misuse must (the fatal scenarios).
 *
 * usage: gpuprobe LIBCORE SCENARIO
 *
 *   info         device, limits and export capabilities
 *   shader       compileGPUShader: success, cache, failure log, unknown language
 *   invert       upload (transfer pool) -> dispatch (compute pool, push descriptors, push constants)
 *                -> readback, chained only by producer pairs; checks every byte
 *   stress       8 threads x 200 submissions on one pool with scratch buffers and retain callbacks;
 *                every callback must have run after gpuExecPoolWaitIdle
 *   vram         setMaxVRAMUse floor, reservations and accounting
 *   memory       allocateGPUMemory for an image, bound at the returned offset
 *   timeline     createGPUTimeline, a host signal, gpuTimelineWaitValue, references
 *   evict        cached GPU frames past a small VRAM limit, evicted by a reservation
 *   blank        std.BlankClip's residency with gpu=1 and with a GPU clip argument
 *   select       setVulkanDevice before and after the device is first used
 *   errors       failure messages of the calls that take an error buffer
 *   export       exportGPUPlane on a fresh plane, exportGPUSemaphore on timelines (where offered)
 *   stall        ours only, run with VSVK_GPU_STALL_SECONDS below a second: a submission waits on a
 *                timeline a thread signals only after two seconds; the host wait must be reported as a
 *                stall naming that submission and what it waits for, then complete
 *   lost         ours only, run with VSVK_INJECT_DEVICE_LOST (and VS_VULKAN_FORCE_STAGING so copies
 *                submit): submissions, then frames in flight through GPUUpload -> GPUDownload when
 *                the device is lost; every host wait must report gdDeviceLost, every frame an error
 *                naming the loss, every retained object must be released and VRAM given back
 *   fatal-read-ptr | fatal-write-ptr
 *                getReadPtr/getWritePtr on a GPU frame (R81: NULL, not fatal)
 *   fatal-shared-write | fatal-after-submit | fatal-wait-past | fatal-producer-past |
 *   fatal-release-acquire | fatal-wrong-thread
 *                misuses the API defines as fatal: the process must end, naming the call
 */
#define VS_USE_API_43
#include "VapourSynth4.h"
#include "VSVulkan4.h"
#include "die.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The platform's parts: loading the core, and giving back an exported handle (an NT handle on
   Windows, which CloseHandle closes and GetHandleInformation tells open; an fd elsewhere). */
#ifdef _WIN32
#include <windows.h>
static void *open_core(const char *path) { return (void *)LoadLibraryExA(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH); }
static void *core_symbol(void *lib, const char *name) { return (void *)GetProcAddress((HMODULE)lib, name); }
static const char *open_error(void) { return "LoadLibraryEx failed"; }
static int handle_open(intptr_t h) {
    DWORD flags;
    return h && h != (intptr_t)INVALID_HANDLE_VALUE && GetHandleInformation((HANDLE)h, &flags);
}
static void close_handle(intptr_t h) { CloseHandle((HANDLE)h); }
#else
#include <dlfcn.h>
static void *open_core(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *core_symbol(void *lib, const char *name) { return dlsym(lib, name); }
static const char *open_error(void) { return dlerror(); }
static int handle_open(intptr_t h) { return h >= 0; }
static void close_handle(intptr_t h) { close((int)h); }
#endif

static const VSAPI *vsapi;
static const VSVULKANAPI *vk;
static const VSVulkanFunctions *fn;
static VSCore *core;
static VkDevice dev;
static char err[1024];

static void VS_CC log_handler(int type, const char *msg, void *data) {
    (void)data;
    fprintf(stderr, "log %d: %s\n", type, msg);
    fflush(stderr);
}

#define CHECK(x, ...) do { if (!(x)) die(__VA_ARGS__); } while (0)

static VSGPUExecPool *pool(int queue) {
    VSGPUExecPool *p = vk->createGPUExecPool(core, queue, err, sizeof err);
    CHECK(p, "createGPUExecPool: %s", err);
    return p;
}

static VSFrame *gray8(int w, int h) {
    VSVideoFormat f;
    vsapi->queryVideoFormat(&f, cfGray, stInteger, 8, 0, 0, core);
    VSFrame *fr = vk->newGPUVideoFrame(&f, w, h, NULL, core);
    CHECK(fr, "newGPUVideoFrame failed");
    return fr;
}

static VSGPUBuffer *host_buffer(VkDeviceSize n, VkBufferUsageFlags usage, VSVulkanBufferInfo *info) {
    VSGPUBuffer *b = vk->createGPUBuffer(core, n, usage, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, info, err, sizeof err);
    CHECK(b, "createGPUBuffer: %s", err);
    CHECK(info->mapped, "host visible buffer without a mapping");
    return b;
}

static void copy(VkCommandBuffer cb, VkBuffer src, VkBuffer dst, VkDeviceSize n) {
    VkBufferCopy2 r = {VK_STRUCTURE_TYPE_BUFFER_COPY_2, NULL, 0, 0, n};
    VkCopyBufferInfo2 ci = {VK_STRUCTURE_TYPE_COPY_BUFFER_INFO_2, NULL, src, dst, 1, &r};
    fn->vkCmdCopyBuffer2(cb, &ci);
}

/* ---- scenarios ---------------------------------------------------------------------------------- */

static int info(void) {
    VSVulkanCoreInfo ci;
    CHECK(vk->getVulkanCoreInfo(core, &ci, err, sizeof err) == 0, "getVulkanCoreInfo: %s", err);
    int n = vk->enumerateVulkanDevices(NULL, 0, err, sizeof err);
    CHECK(n >= 1, "enumerateVulkanDevices: %d %s", n, err);
    VSVulkanDeviceListEntry e[16];
    int m = vk->enumerateVulkanDevices(e, 16, err, sizeof err);
    CHECK(m == n, "enumerateVulkanDevices counts differ");
    int usable = 0;
    for (int i = 0; i < n && i < 16; i++) usable += e[i].usable;
    VSVulkanCoreHandles h;
    CHECK(vk->getVulkanHandles(core, &h, err, sizeof err) == 0, "getVulkanHandles: %s", err);
    CHECK(fn->vkCmdDispatch && fn->vkQueueSubmit2 && fn->vkCmdPushDescriptorSet && fn->vkCmdPushConstants2, "missing entry points");
    CHECK(h.getInstanceProcAddr(h.instance, "vkGetPhysicalDeviceProperties2") != NULL, "getInstanceProcAddr");
    int64_t floor = vk->setMaxVRAMUse(1, core);
    printf("ok info devices=%d usable=%d export=%d semexport=%d unified=%d floor=%lld apiversion=%u.%u uuidmatch=%d\n", n, usable,
           ci.exportHandleType, ci.semaphoreExportHandleType, ci.unifiedMemory, (long long)floor, VK_API_VERSION_MAJOR(e[0].apiVersion),
           VK_API_VERSION_MINOR(e[0].apiVersion), memcmp(ci.deviceUUID, e[0].deviceUUID, VK_UUID_SIZE) == 0);
    return 0;
}

static const char *INVERT =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) readonly buffer Src { uint s[]; };\n"
    "layout(set = 0, binding = 1) writeonly buffer Dst { uint d[]; };\n"
    "layout(push_constant) uniform P { uint n; } p;\n"
    "void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) d[i] = ~s[i]; }\n";

static int shader(void) {
    VSGPUShader *a = vk->compileGPUShader(core, slGLSL, INVERT, err, sizeof err);
    CHECK(a, "compileGPUShader: %s", err);
    size_t n = 0;
    const uint32_t *w = vk->getGPUShaderCode(a, &n);
    CHECK(w && n > 20 && n % 4 == 0 && w[0] == 0x07230203, "bad SPIR-V");
    uint32_t version = w[1];
    /* how access qualifiers and the workgroup size are stated: on the variables as well as the
       block members, and as literals, as R81's glslang writes them (drivers may key read-only
       paths on the variable's decoration) */
    int var_access = 0, member_access = 0;
    const char *size = "none";
    for (size_t i = 5; i < n / 4;) {
        uint32_t len = w[i] >> 16, op = w[i] & 0xffff;
        CHECK(len > 0 && i + len <= n / 4, "bad instruction at word %zu", i);
        if (op == 71 && len >= 3 && (w[i + 2] == 24 || w[i + 2] == 25)) var_access++;
        if (op == 72 && len >= 4 && (w[i + 3] == 24 || w[i + 3] == 25)) member_access++;
        if (op == 16 && len >= 3 && w[i + 2] == 17) size = "literal";
        if (op == 331 && len >= 3 && w[i + 2] == 38) size = "id";
        i += len;
    }
    VSGPUShader *b = vk->compileGPUShader(core, slGLSL, INVERT, err, sizeof err);
    size_t n2 = 0;
    const uint32_t *w2 = vk->getGPUShaderCode(b, &n2);
    CHECK(n2 == n && memcmp(w, w2, n) == 0, "cached compile differs");
    vk->freeGPUShader(a);
    CHECK(w2[0] == 0x07230203, "a shader depends on another handle");
    vk->freeGPUShader(b);
    err[0] = 0;
    VSGPUShader *bad = vk->compileGPUShader(core, slGLSL, "#version 460\nvoid main() { undefined_thing(); }\n", err, sizeof err);
    CHECK(!bad && strstr(err, "undefined_thing"), "a broken shader compiled or the log lacks the compiler's message: %s", err);
    err[0] = 0;
    VSGPUShader *lang = vk->compileGPUShader(core, 7, INVERT, err, sizeof err);
    CHECK(!lang && err[0], "an unknown language compiled");
    printf("ok shader spirv=%u.%u access=%d/%d localsize=%s\n", (version >> 16) & 0xff, (version >> 8) & 0xff, var_access, member_access, size);
    return 0;
}

static int invert(void) {
    const int W = 256, H = 64;
    VSFrame *src = gray8(W, H);
    VSFrame *dst = gray8(W, H);
    VSVulkanPlaneInfo sp, dp;
    CHECK(vk->getGPUPlane(src, 0, &sp) == 0 && vk->getGPUPlane(dst, 0, &dp) == 0, "getGPUPlane");
    ptrdiff_t stride = vsapi->getStride(src, 0);
    CHECK(sp.bufferSize == (VkDeviceSize)(stride * H) && sp.readySemaphore == VK_NULL_HANDLE, "plane info %llu", (unsigned long long)sp.bufferSize);
    CHECK(vsapi->getFrameResidency(src) == nrGPU, "residency");
    VkDeviceSize n = sp.bufferSize;

    /* upload through a transfer pool */
    VSGPUExecPool *tp = pool(vqTransfer), *cp = pool(vqCompute);
    VSVulkanBufferInfo up;
    VSGPUBuffer *ub = host_buffer(n, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &up);
    for (VkDeviceSize i = 0; i < n; i++) ((uint8_t *)up.mapped)[i] = (uint8_t)(i * 7 + 3);
    VSGPUExecContext *c = vk->gpuExecAcquire(tp, err, sizeof err);
    CHECK(c, "gpuExecAcquire: %s", err);
    copy(vk->gpuExecCommandBuffer(c), up.buffer, sp.buffer, n);
    vk->gpuExecUsesBuffer(c, ub);
    vk->gpuExecWritesPlane(c, src, 0);
    uint64_t v1 = 0;
    CHECK(vk->gpuExecSubmit(c, &v1, err, sizeof err) == 0 && v1 > 0, "gpuExecSubmit: %s", err);
    CHECK(vk->getGPUPlane(src, 0, &sp) == 0 && sp.readySemaphore != VK_NULL_HANDLE && sp.readyValue == v1, "producer pair not published");

    /* dispatch on the compute pool: waits the upload through the producer pair only */
    VSGPUShader *sh = vk->compileGPUShader(core, slGLSL, INVERT, err, sizeof err);
    CHECK(sh, "compileGPUShader: %s", err);
    size_t codeSize;
    const uint32_t *code = vk->getGPUShaderCode(sh, &codeSize);
    VkShaderModuleCreateInfo smci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, codeSize, code};
    VkShaderModule mod;
    CHECK(fn->vkCreateShaderModule(dev, &smci, NULL, &mod) == VK_SUCCESS, "vkCreateShaderModule");
    vk->freeGPUShader(sh);
    VkDescriptorSetLayoutBinding b[2] = {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
                                         {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    VkDescriptorSetLayoutCreateInfo dslci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL,
                                             VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT, 2, b};
    VkDescriptorSetLayout dsl;
    CHECK(fn->vkCreateDescriptorSetLayout(dev, &dslci, NULL, &dsl) == VK_SUCCESS, "vkCreateDescriptorSetLayout");
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &dsl, 1, &pcr};
    VkPipelineLayout pl;
    CHECK(fn->vkCreatePipelineLayout(dev, &plci, NULL, &pl) == VK_SUCCESS, "vkCreatePipelineLayout");
    VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
                                        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, mod, "main", NULL},
                                        pl, VK_NULL_HANDLE, 0};
    VkPipeline pipe;
    CHECK(fn->vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, NULL, &pipe) == VK_SUCCESS, "vkCreateComputePipelines");

    c = vk->gpuExecAcquire(cp, err, sizeof err);
    CHECK(c, "gpuExecAcquire: %s", err);
    VkCommandBuffer cb = vk->gpuExecCommandBuffer(c);
    fn->vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
    VkDescriptorBufferInfo bi[2] = {{sp.buffer, 0, VK_WHOLE_SIZE}, {dp.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet wr[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, VK_NULL_HANDLE, 0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi[0], NULL},
                                  {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, VK_NULL_HANDLE, 1, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi[1], NULL}};
    fn->vkCmdPushDescriptorSet(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 2, wr);
    uint32_t words = (uint32_t)(n / 4);
    VkPushConstantsInfo pci = {VK_STRUCTURE_TYPE_PUSH_CONSTANTS_INFO, NULL, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &words};
    fn->vkCmdPushConstants2(cb, &pci);
    fn->vkCmdDispatch(cb, (words + 63) / 64, 1, 1);
    vk->gpuExecReadsFrame(c, src);
    vk->gpuExecWritesPlane(c, dst, 0);
    uint64_t v2;
    CHECK(vk->gpuExecSubmit(c, &v2, err, sizeof err) == 0, "gpuExecSubmit: %s", err);
    vsapi->freeFrame(src); /* the submission keeps it alive */

    /* readback through the transfer pool again, waiting on this one value only */
    VSVulkanBufferInfo down;
    VSGPUBuffer *db = host_buffer(n, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &down);
    c = vk->gpuExecAcquire(tp, err, sizeof err);
    CHECK(c, "gpuExecAcquire: %s", err);
    cb = vk->gpuExecCommandBuffer(c);
    copy(cb, dp.buffer, down.buffer, n);
    VkMemoryBarrier2 mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER_2, NULL, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                           VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT};
    VkDependencyInfo di = {VK_STRUCTURE_TYPE_DEPENDENCY_INFO, NULL, 0, 1, &mb, 0, NULL, 0, NULL};
    fn->vkCmdPipelineBarrier2(cb, &di);
    vk->gpuExecReadsFrame(c, dst);
    uint64_t v3;
    CHECK(vk->gpuExecSubmit(c, &v3, err, sizeof err) == 0, "gpuExecSubmit: %s", err);
    int r = vk->gpuExecWaitValue(tp, v3, err, sizeof err);
    CHECK(r == gdDrained, "gpuExecWaitValue: %d %s", r, err);
    for (VkDeviceSize i = 0; i < n; i++)
        CHECK(((uint8_t *)down.mapped)[i] == (uint8_t)~(uint8_t)(i * 7 + 3), "byte %llu is %u", (unsigned long long)i, ((uint8_t *)down.mapped)[i]);
    vk->destroyGPUBuffer(db);
    CHECK(vk->gpuExecPoolWaitIdle(cp, err, sizeof err) == gdDrained, "gpuExecPoolWaitIdle: %s", err);
    fn->vkDestroyPipeline(dev, pipe, NULL);
    fn->vkDestroyPipelineLayout(dev, pl, NULL);
    fn->vkDestroyDescriptorSetLayout(dev, dsl, NULL);
    fn->vkDestroyShaderModule(dev, mod, NULL);
    vk->freeGPUExecPool(tp);
    vk->freeGPUExecPool(cp);
    vsapi->freeFrame(dst);
    printf("ok invert bytes=%llu\n", (unsigned long long)n);
    return 0;
}

static atomic_int released;
static void VS_CC count_release(void *obj) {
    atomic_fetch_add(&released, 1);
    free(obj);
}

static VSGPUExecPool *stress_pool;
static void *stress_thread(void *arg) {
    (void)arg;
    for (int i = 0; i < 200; i++) {
        VSGPUExecContext *c = vk->gpuExecAcquire(stress_pool, err, sizeof err);
        CHECK(c, "gpuExecAcquire: %s", err);
        VSVulkanBufferInfo bi;
        VSGPUBuffer *b = vk->createGPUBuffer(core, 4096 * (1 + i % 4), VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &bi, err, sizeof err);
        CHECK(b, "createGPUBuffer: %s", err);
        fn->vkCmdFillBuffer(vk->gpuExecCommandBuffer(c), bi.buffer, 0, VK_WHOLE_SIZE, (uint32_t)i);
        vk->gpuExecUsesBuffer(c, b);
        vk->gpuExecRetain(c, count_release, malloc(16), 0);
        if (i % 17 == 0) {
            vk->gpuExecAbandon(c);
            continue;
        }
        uint64_t v;
        CHECK(vk->gpuExecSubmit(c, &v, err, sizeof err) == 0, "gpuExecSubmit: %s", err);
        if (i % 10 == 0) CHECK(vk->gpuExecWaitValue(stress_pool, v, err, sizeof err) == gdDrained, "gpuExecWaitValue: %s", err);
    }
    return NULL;
}

static int stress(void) {
    stress_pool = pool(vqCompute);
    pthread_t t[8];
    for (int i = 0; i < 8; i++) pthread_create(&t[i], NULL, stress_thread, NULL);
    for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
    CHECK(vk->gpuExecPoolWaitIdle(stress_pool, err, sizeof err) == gdDrained, "gpuExecPoolWaitIdle: %s", err);
    int r = atomic_load(&released);
    CHECK(r == 8 * 200, "%d of %d release callbacks ran after gpuExecPoolWaitIdle", r, 8 * 200);
    vk->freeGPUExecPool(stress_pool);
    printf("ok stress released=%d\n", r);
    return 0;
}

static int vram(void) {
    VSVulkanCoreInfo ci;
    CHECK(vk->getVulkanCoreInfo(core, &ci, err, sizeof err) == 0, "getVulkanCoreInfo: %s", err);
    int64_t def = ci.limit;
    int64_t same = vk->setMaxVRAMUse(0, core);
    int64_t floor = vk->setMaxVRAMUse(1000, core);
    int64_t set = vk->setMaxVRAMUse(512ll << 20, core);
    int64_t a0 = (vk->getVulkanCoreInfo(core, &ci, err, sizeof err), ci.allocated);
    VSGPUMemoryReservation *res = vk->reserveGPUMemory(core, 100ll << 20, err, sizeof err);
    CHECK(res, "reserveGPUMemory: %s", err);
    int64_t a1 = (vk->getVulkanCoreInfo(core, &ci, err, sizeof err), ci.allocated);
    vk->updateGPUMemoryReservation(res, 50ll << 20);
    int64_t a2 = (vk->getVulkanCoreInfo(core, &ci, err, sizeof err), ci.allocated);
    vk->updateGPUMemoryReservation(res, -5);
    int64_t a3 = (vk->getVulkanCoreInfo(core, &ci, err, sizeof err), ci.allocated);
    vk->releaseGPUMemoryReservation(res);
    int64_t a4 = (vk->getVulkanCoreInfo(core, &ci, err, sizeof err), ci.allocated);
    VSFrame *f = gray8(1920, 1080);
    int64_t a5 = (vk->getVulkanCoreInfo(core, &ci, err, sizeof err), ci.allocated);
    vsapi->freeFrame(f);
    printf("ok vram default_positive=%d unchanged=%d floor=%lld set=%lld reserve=%lld update=%lld zero=%lld release=%lld frame_counted=%d\n",
           def > 0, same == def, (long long)floor, (long long)set, (long long)(a1 - a0), (long long)(a2 - a0), (long long)(a3 - a0),
           (long long)(a4 - a0), a5 - a4 >= 1920 * 1080);
    return 0;
}

static int memory(void) {
    VkImageCreateInfo ici = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, NULL, 0, VK_IMAGE_TYPE_2D, VK_FORMAT_R8_UNORM, {333, 77, 1}, 1, 1,
                             VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                             VK_SHARING_MODE_EXCLUSIVE, 0, NULL, VK_IMAGE_LAYOUT_UNDEFINED};
    VkImage img;
    CHECK(fn->vkCreateImage(dev, &ici, NULL, &img) == VK_SUCCESS, "vkCreateImage");
    VkImageMemoryRequirementsInfo2 ri = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2, NULL, img};
    VkMemoryRequirements2 req = {VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, NULL, {0}};
    fn->vkGetImageMemoryRequirements2(dev, &ri, &req);
    VSVulkanMemoryInfo mi;
    VSGPUMemory *m = vk->allocateGPUMemory(core, &req.memoryRequirements, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &mi, err, sizeof err);
    CHECK(m, "allocateGPUMemory: %s", err);
    CHECK(mi.offset % req.memoryRequirements.alignment == 0 && mi.size >= req.memoryRequirements.size, "region offset=%llu size=%llu align=%llu need=%llu", (unsigned long long)mi.offset, (unsigned long long)mi.size, (unsigned long long)req.memoryRequirements.alignment, (unsigned long long)req.memoryRequirements.size);
    VkBindImageMemoryInfo bind = {VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, NULL, img, mi.memory, mi.offset};
    CHECK(fn->vkBindImageMemory2(dev, 1, &bind) == VK_SUCCESS, "vkBindImageMemory2");
    fn->vkDestroyImage(dev, img, NULL);
    vk->freeGPUMemory(m);
    VkMemoryRequirements zero = {0, 256, ~0u};
    CHECK(!vk->allocateGPUMemory(core, &zero, 0, 0, &mi, err, sizeof err) && err[0], "a zero sized region");
    /* host visible memory always comes back mapped; a device address only when asked for */
    VSVulkanBufferInfo bi;
    VSGPUBuffer *b1 = vk->createGPUBuffer(core, 4096, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &bi, err, sizeof err);
    CHECK(b1, "createGPUBuffer: %s", err);
    int m1 = (bi.mapped != NULL) == ((bi.memoryFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0), a1 = bi.address != 0, s1 = bi.size == 4096;
    VSGPUBuffer *b2 = vk->createGPUBuffer(core, 1000, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0, 0, &bi, err, sizeof err);
    CHECK(b2, "createGPUBuffer: %s", err);
    int m2 = (bi.mapped != NULL) == ((bi.memoryFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0), a2 = bi.address != 0, s2 = bi.size == 1000;
    vk->destroyGPUBuffer(b1);
    vk->destroyGPUBuffer(b2);
    vk->destroyGPUBuffer(NULL);
    vk->freeGPUMemory(NULL);
    printf("ok memory mapped=%d%d address=%d%d size=%d%d\n", m1, m2, a1, a2, s1, s2);
    return 0;
}

static int timeline(void) {
    VSGPUTimeline *t = vk->createGPUTimeline(core, err, sizeof err);
    CHECK(t, "createGPUTimeline: %s", err);
    VkSemaphore s = vk->getGPUTimelineSemaphore(t);
    vk->addGPUTimelineRef(t);
    vk->freeGPUTimeline(t);
    VkSemaphoreSignalInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, NULL, s, 5};
    CHECK(fn->vkSignalSemaphore(dev, &si) == VK_SUCCESS, "vkSignalSemaphore");
    CHECK(vk->gpuTimelineWaitValue(t, 5, err, sizeof err) == gdDrained, "gpuTimelineWaitValue: %s", err);
    VSFrame *f = gray8(64, 8);
    vk->setGPUPlaneProducer(f, 0, t, 5);
    vk->freeGPUTimeline(t); /* the plane keeps it */
    VSVulkanPlaneInfo p;
    CHECK(vk->getGPUPlane(f, 0, &p) == 0 && p.readySemaphore == s && p.readyValue == 5, "producer pair");
    uint64_t c = 0;
    CHECK(fn->vkGetSemaphoreCounterValue(dev, p.readySemaphore, &c) == VK_SUCCESS && c == 5, "the plane's timeline is gone");
    vk->setGPUPlaneProducer(f, 0, NULL, 0);
    CHECK(vk->getGPUPlane(f, 0, &p) == 0 && p.readySemaphore == VK_NULL_HANDLE, "host ready");
    CHECK(vk->getGPUPlane(f, 1, &p) != 0, "a missing plane");
    vsapi->freeFrame(f);
    printf("ok timeline\n");
    return 0;
}

static void *signal_later(void *arg) {
    VkSemaphore s = *(VkSemaphore *)arg;
    struct timespec ts = {2, 0};
    nanosleep(&ts, NULL);
    VkSemaphoreSignalInfo si = {VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, NULL, s, 1};
    if (fn->vkSignalSemaphore(dev, &si) != VK_SUCCESS) die("vkSignalSemaphore");
    return NULL;
}

static int stall(void) {
    VSGPUTimeline *t = vk->createGPUTimeline(core, err, sizeof err);
    CHECK(t, "createGPUTimeline: %s", err);
    VkSemaphore s = vk->getGPUTimelineSemaphore(t);
    VSFrame *f = gray8(64, 8);
    vk->setGPUPlaneProducer(f, 0, t, 1);
    VSGPUExecPool *p = pool(vqCompute);
    VSGPUExecContext *c = vk->gpuExecAcquire(p, err, sizeof err);
    CHECK(c, "gpuExecAcquire: %s", err);
    vk->gpuExecReadsFrame(c, f);
    uint64_t v = 0;
    CHECK(vk->gpuExecSubmit(c, &v, err, sizeof err) == 0 && v > 0, "gpuExecSubmit: %s", err);
    pthread_t th;
    pthread_create(&th, NULL, signal_later, &s);
    int r = vk->gpuExecWaitValue(p, v, err, sizeof err);
    pthread_join(th, NULL);
    CHECK(r == gdDrained, "gpuExecWaitValue: %d %s", r, err);
    vk->freeGPUExecPool(p);
    vsapi->freeFrame(f);
    vk->freeGPUTimeline(t);
    printf("ok stall value=%llu\n", (unsigned long long)v);
    return 0;
}

/* VRAM pressure: cached GPU frames of an upload node pile up past a small limit; a reservation
   must evict them down under it before returning. */
static int evict(void) {
    VSPlugin *std = vsapi->getPluginByNamespace("std", core);
    VSMap *a = vsapi->createMap();
    vsapi->mapSetInt(a, "width", 1920, 0);
    vsapi->mapSetInt(a, "height", 1080, 0);
    vsapi->mapSetInt(a, "format", pfGray8, 0);
    vsapi->mapSetInt(a, "length", 400, 0);
    VSMap *r = vsapi->invoke(std, "BlankClip", a);
    CHECK(!vsapi->mapGetError(r), "BlankClip: %s", vsapi->mapGetError(r));
    VSNode *blank = vsapi->mapGetNode(r, "clip", 0, NULL);
    vsapi->freeMap(r);
    vsapi->clearMap(a);
    vsapi->mapConsumeNode(a, "clip", blank, maReplace);
    r = vsapi->invoke(std, "GPUUpload", a);
    CHECK(!vsapi->mapGetError(r), "GPUUpload: %s", vsapi->mapGetError(r));
    VSNode *up = vsapi->mapGetNode(r, "clip", 0, NULL);
    vsapi->freeMap(r);
    vsapi->freeMap(a);
    CHECK(vsapi->getNodeResidency(up) == nrGPU, "GPUUpload output is not GPU resident");
    vsapi->setCacheMode(up, cmForceEnable);
    vsapi->setCacheOptions(up, 0, 400, 400);
    int64_t limit = vk->setMaxVRAMUse(256ll << 20, core);
    VSVulkanCoreInfo ci;
    for (int n = 0; n < 200; n++) {
        const VSFrame *f = vsapi->getFrame(n, up, err, sizeof err);
        CHECK(f, "getFrame: %s", err);
        CHECK(vsapi->getFrameResidency(f) == nrGPU, "a CPU frame from GPUUpload");
        vsapi->freeFrame(f);
    }
    vk->getVulkanCoreInfo(core, &ci, err, sizeof err);
    int64_t peak = ci.allocated;
    VSGPUMemoryReservation *res = vk->reserveGPUMemory(core, 64ll << 20, err, sizeof err);
    vk->getVulkanCoreInfo(core, &ci, err, sizeof err);
    int64_t after = ci.allocated;
    vk->releaseGPUMemoryReservation(res);
    vsapi->freeNode(up);
    printf("ok evict limit=%lld over_before=%d under_after=%d\n", (long long)limit, peak > limit, after <= limit);
    return 0;
}

/* std.BlankClip's residency: gpu=1, and following a GPU clip argument. */
static VSNode *blank(VSMap *a) {
    VSPlugin *std = vsapi->getPluginByNamespace("std", core);
    vsapi->mapSetInt(a, "width", 64, maAppend);
    vsapi->mapSetInt(a, "height", 48, maAppend);
    vsapi->mapSetInt(a, "format", pfYUV420P8, maAppend);
    vsapi->mapSetInt(a, "length", 3, maAppend);
    VSMap *r = vsapi->invoke(std, "BlankClip", a);
    CHECK(!vsapi->mapGetError(r), "BlankClip: %s", vsapi->mapGetError(r));
    VSNode *n = vsapi->mapGetNode(r, "clip", 0, NULL);
    vsapi->freeMap(r);
    return n;
}

static int blank_residency(void) {
    VSMap *a = vsapi->createMap();
    VSNode *cpu = blank(a);
    vsapi->clearMap(a);
    vsapi->mapSetInt(a, "gpu", 1, maReplace);
    VSNode *gpu = blank(a);
    vsapi->clearMap(a);
    vsapi->mapSetNode(a, "clip", gpu, maReplace);
    VSNode *follow = blank(a);
    vsapi->clearMap(a);
    vsapi->mapSetNode(a, "clip", gpu, maReplace);
    vsapi->mapSetInt(a, "gpu", 0, maReplace);
    VSNode *down = blank(a);
    vsapi->freeMap(a);
    const VSFrame *f = vsapi->getFrame(0, gpu, err, sizeof err);
    CHECK(f, "getFrame: %s", err);
    VSVulkanPlaneInfo p;
    int planes = vk->getGPUPlane(f, 0, &p) == 0;
    printf("ok blank cpu=%d gpu=%d follow=%d down=%d frame=%d plane=%d\n", vsapi->getNodeResidency(cpu), vsapi->getNodeResidency(gpu),
           vsapi->getNodeResidency(follow), vsapi->getNodeResidency(down), vsapi->getFrameResidency(f), planes);
    vsapi->freeFrame(f);
    vsapi->freeNode(cpu);
    vsapi->freeNode(gpu);
    vsapi->freeNode(follow);
    vsapi->freeNode(down);
    return 0;
}

/* Failure messages, which land in the caller's buffer as R81 words them. */
static int errors(void) {
    VSVulkanBufferInfo bi;
    VSVulkanMemoryInfo mi;
    VkMemoryRequirements zero = {0, 256, ~0u};
    VSVulkanExportedMemory em;
    VSVulkanExportedSemaphore es;
    VSVideoFormat f;
    vsapi->queryVideoFormat(&f, cfGray, stInteger, 8, 0, 0, core);
    VSFrame *cpu = vsapi->newVideoFrame(&f, 64, 8, NULL, core);
    VSFrame *g = gray8(64, 8);
#define SHOW(name, expr) do { err[0] = 0; int failed_ = !(expr); printf("%s failed=%d '%s'\n", name, failed_, err); } while (0)
    SHOW("buffer0", vk->createGPUBuffer(core, 0, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, 0, 0, &bi, err, sizeof err));
    SHOW("protected", vk->createGPUBuffer(core, 100, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_MEMORY_PROPERTY_PROTECTED_BIT, 0, &bi, err, sizeof err));
    SHOW("memory0", vk->allocateGPUMemory(core, &zero, 0, 0, &mi, err, sizeof err));
    SHOW("language", vk->compileGPUShader(core, 7, "x", err, sizeof err));
    SHOW("nullsem", !vk->exportGPUSemaphore(core, VK_NULL_HANDLE, &es, err, sizeof err));
    SHOW("exportcpu", !vk->exportGPUPlane(cpu, 0, &em, err, sizeof err));
    SHOW("exportmissing", !vk->exportGPUPlane(g, 3, &em, err, sizeof err));
    SHOW("waitcpu", !vk->waitGPUFrame(cpu, err, sizeof err));
    SHOW("waitgpu", !vk->waitGPUFrame(g, err, sizeof err));
    VSGPUExecPool *p = vk->createGPUExecPool(core, 5, err, sizeof err);
    printf("pool5 %d\n", p != NULL);
    if (p) vk->freeGPUExecPool(p);
    vsapi->freeFrame(cpu);
    vsapi->freeFrame(g);
    printf("ok errors\n");
    return 0;
}

/* exportGPUPlane on a fresh plane and exportGPUSemaphore on timelines, where the device can. */
static int export_scenario(void) {
    VSVulkanCoreInfo ci;
    CHECK(vk->getVulkanCoreInfo(core, &ci, err, sizeof err) == 0, "getVulkanCoreInfo: %s", err);
    int mem_ok = 0, sem_ok = 0;
    if (ci.exportHandleType) {
        VSFrame *f = gray8(256, 16);
        VSVulkanExportedMemory a, b;
        CHECK(vk->exportGPUPlane(f, 0, &a, err, sizeof err) == 0, "exportGPUPlane: %s", err);
        CHECK(vk->exportGPUPlane(f, 0, &b, err, sizeof err) == 0, "exportGPUPlane: %s", err);
        mem_ok = handle_open(a.handle) && handle_open(b.handle) && a.handle != b.handle && a.memoryId == b.memoryId && a.handleType == ci.exportHandleType &&
                 a.size == (VkDeviceSize)(vsapi->getStride(f, 0) * 16) && a.offset + a.size <= a.memorySize;
        close_handle(a.handle);
        close_handle(b.handle);
        vsapi->freeFrame(f);
    }
    if (ci.semaphoreExportHandleType) {
        VSGPUExecPool *p = pool(vqCompute);
        VSGPUExecContext *c = vk->gpuExecAcquire(p, err, sizeof err);
        uint64_t v;
        CHECK(vk->gpuExecSubmit(c, &v, err, sizeof err) == 0, "gpuExecSubmit: %s", err);
        VSVulkanExportedSemaphore es;
        VkSemaphore ps = vk->getGPUTimelineSemaphore(vk->gpuExecPoolTimeline(p));
        CHECK(vk->exportGPUSemaphore(core, ps, &es, err, sizeof err) == 0, "exportGPUSemaphore (pool): %s", err);
        int ok1 = handle_open(es.handle) && es.handleType == ci.semaphoreExportHandleType;
        close_handle(es.handle);
        VSGPUTimeline *t = vk->createGPUTimeline(core, err, sizeof err);
        CHECK(vk->exportGPUSemaphore(core, vk->getGPUTimelineSemaphore(t), &es, err, sizeof err) == 0, "exportGPUSemaphore (own): %s", err);
        sem_ok = ok1 && handle_open(es.handle);
        close_handle(es.handle);
        vk->freeGPUTimeline(t);
        vk->freeGPUExecPool(p);
    }
#ifdef _WIN32
    /* Windows: opaque NT handles (VK_EXTERNAL_*_HANDLE_TYPE_OPAQUE_WIN32_BIT, 2), the adapter's LUID for
       D3D12 and DXGI, and imports charged to the process again */
    printf("ok export memory=%d/%d semaphore=%d/%d win32=%d luid=%d charged_again=%d\n", ci.exportHandleType != 0, mem_ok,
           ci.semaphoreExportHandleType != 0, sem_ok, ci.exportHandleType == 2 && ci.semaphoreExportHandleType == 2, ci.deviceLUIDValid,
           VS_GPU_IMPORT_CHARGED_AGAIN);
#else
    printf("ok export memory=%d/%d semaphore=%d/%d\n", ci.exportHandleType != 0, mem_ok, ci.semaphoreExportHandleType != 0, sem_ok);
#endif
    return 0;
}

/* Device loss (injected by our core's VSVK_INJECT_DEVICE_LOST): nothing may hang, every wait must
   say gdDeviceLost, and everything held must come back. */
static atomic_int lost_ok, lost_named, lost_other;
static int lost_done;
static pthread_mutex_t lost_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lost_cv = PTHREAD_COND_INITIALIZER;
static void VS_CC lost_frame(void *ud, const VSFrame *f, int n, VSNode *node, const char *msg) {
    (void)ud;
    (void)node;
    if (f) {
        atomic_fetch_add(&lost_ok, 1);
        vsapi->freeFrame(f);
    } else if (msg && strstr(msg, "device loss")) {
        atomic_fetch_add(&lost_named, 1);
    } else {
        atomic_fetch_add(&lost_other, 1);
        fprintf(stderr, "frame %d: %s\n", n, msg ? msg : "(no message)");
    }
    pthread_mutex_lock(&lost_mu);
    lost_done++;
    pthread_cond_signal(&lost_cv);
    pthread_mutex_unlock(&lost_mu);
}

static VSNode *invoke1(const char *name, VSMap *a) {
    VSMap *r = vsapi->invoke(vsapi->getPluginByNamespace("std", core), name, a);
    CHECK(!vsapi->mapGetError(r), "%s: %s", name, vsapi->mapGetError(r));
    VSNode *n = vsapi->mapGetNode(r, "clip", 0, NULL);
    vsapi->freeMap(r);
    vsapi->clearMap(a);
    return n;
}

static int lost(void) {
    CHECK(getenv("VSVK_INJECT_DEVICE_LOST"), "the lost scenario needs VSVK_INJECT_DEVICE_LOST");
    VSVulkanCoreInfo ci;
    CHECK(vk->getVulkanCoreInfo(core, &ci, err, sizeof err) == 0, "getVulkanCoreInfo: %s", err);
    int64_t before = ci.allocated;
    VSGPUExecPool *p = pool(vqCompute);
    /* three submissions before the loss, each with a scratch buffer and a release callback: the
       first waited for, two still in flight */
    uint64_t v[3];
    for (int i = 0; i < 3; i++) {
        VSGPUExecContext *c = vk->gpuExecAcquire(p, err, sizeof err);
        CHECK(c, "gpuExecAcquire before the loss: %s", err);
        VSVulkanBufferInfo bi;
        VSGPUBuffer *b = vk->createGPUBuffer(core, 1 << 20, VK_BUFFER_USAGE_TRANSFER_DST_BIT, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &bi, err, sizeof err);
        CHECK(b, "createGPUBuffer: %s", err);
        fn->vkCmdFillBuffer(vk->gpuExecCommandBuffer(c), bi.buffer, 0, VK_WHOLE_SIZE, 7u);
        vk->gpuExecUsesBuffer(c, b);
        vk->gpuExecRetain(c, count_release, malloc(16), 0);
        CHECK(vk->gpuExecSubmit(c, &v[i], err, sizeof err) == 0, "gpuExecSubmit before the loss: %s", err);
        if (i == 0) CHECK(vk->gpuExecWaitValue(p, v[0], err, sizeof err) == gdDrained, "gpuExecWaitValue before the loss: %s", err);
    }
    /* frames in flight through staged copies when the device goes */
    const int N = 40;
    VSMap *a = vsapi->createMap();
    vsapi->mapSetInt(a, "width", 640, 0);
    vsapi->mapSetInt(a, "height", 480, 0);
    vsapi->mapSetInt(a, "format", pfGray8, 0);
    vsapi->mapSetInt(a, "length", N, 0);
    VSNode *blank = invoke1("BlankClip", a);
    vsapi->mapConsumeNode(a, "clip", blank, maReplace);
    VSNode *up = invoke1("GPUUpload", a);
    vsapi->mapConsumeNode(a, "clip", up, maReplace);
    VSNode *down = invoke1("GPUDownload", a);
    vsapi->freeMap(a);
    vsapi->setCacheMode(down, cmForceDisable); /* a later request must reach the lost device */
    for (int n = 0; n < N; n++) vsapi->getFrameAsync(n, down, lost_frame, NULL);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 120;
    pthread_mutex_lock(&lost_mu);
    while (lost_done < N)
        if (pthread_cond_timedwait(&lost_cv, &lost_mu, &until)) break;
    int answered = lost_done;
    pthread_mutex_unlock(&lost_mu);
    CHECK(answered == N, "frames in flight hung: %d of %d answered", answered, N);
    /* every host wait and every new piece of work reports the loss */
    err[0] = 0;
    int wait = vk->gpuExecWaitValue(p, v[2], err, sizeof err);
    int waitmsg = strstr(err, "device loss") != NULL;
    err[0] = 0;
    int idle = vk->gpuExecPoolWaitIdle(p, err, sizeof err);
    int idlemsg = strstr(err, "device loss") != NULL;
    int tl = -1;
    VSGPUTimeline *t = vk->createGPUTimeline(core, err, sizeof err);
    if (t) {
        tl = vk->gpuTimelineWaitValue(t, 1, err, sizeof err);
        vk->freeGPUTimeline(t);
    }
    err[0] = 0;
    int acquire = vk->gpuExecAcquire(p, err, sizeof err) == NULL && strstr(err, "device loss");
    err[0] = 0;
    VSGPUExecPool *p2 = vk->createGPUExecPool(core, vqCompute, err, sizeof err);
    int newpool = p2 == NULL && strstr(err, "device loss");
    if (p2) vk->freeGPUExecPool(p2);
    err[0] = 0;
    const VSFrame *f = vsapi->getFrame(0, down, err, sizeof err);
    int getframe = f == NULL && strstr(err, "device loss");
    if (f) vsapi->freeFrame(f);
    int released_before_free = atomic_load(&released);
    vk->freeGPUExecPool(p);
    vsapi->freeNode(down);
    /* A worker that answered its frame with the loss may still be unwinding and hold that
       frame's planes for a moment after the callback: give the VRAM up to 2 s to come back. */
    int settle_ms = 0;
    for (;; settle_ms += 10) {
        CHECK(vk->getVulkanCoreInfo(core, &ci, err, sizeof err) == 0, "getVulkanCoreInfo after the loss: %s", err);
        if (ci.allocated <= before || settle_ms >= 2000) break;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (settle_ms) fprintf(stderr, "VRAM came back %d ms after the nodes were freed\n", settle_ms);
    printf("ok lost frames=%d named=%d other=%d wait=%d/%d idle=%d/%d timeline=%d acquire=%d pool=%d getframe=%d released=%d "
           "allocated_before=%lld allocated_after=%lld\n",
           atomic_load(&lost_ok), atomic_load(&lost_named), atomic_load(&lost_other), wait, waitmsg, idle, idlemsg, tl, acquire, newpool,
           getframe, released_before_free, (long long)before, (long long)ci.allocated);
    return 0;
}

/* ---- fatal misuses ------------------------------------------------------------------------------ */

static VSGPUExecPool *rel_pool;
static void VS_CC acquire_in_release(void *obj) {
    (void)obj;
    vk->gpuExecAcquire(rel_pool, err, sizeof err);
}

static VSGPUExecContext *other_ctx;
static void *use_other(void *arg) {
    (void)arg;
    vk->gpuExecCommandBuffer(other_ctx);
    return NULL;
}

static int fatal(const char *what) {
    VSGPUExecPool *p = pool(vqCompute);
    if (!strcmp(what, "fatal-shared-write")) {
        VSFrame *f = gray8(64, 8);
        VSFrame *g = vsapi->copyFrame(f, core);
        VSGPUExecContext *c = vk->gpuExecAcquire(p, err, sizeof err);
        vk->gpuExecWritesPlane(c, g, 0);
    } else if (!strcmp(what, "fatal-after-submit")) {
        VSGPUExecContext *c = vk->gpuExecAcquire(p, err, sizeof err);
        vk->gpuExecSubmit(c, NULL, err, sizeof err);
        vk->gpuExecReadsFrame(c, gray8(64, 8));
    } else if (!strcmp(what, "fatal-wait-past")) {
        vk->gpuExecWaitValue(p, 100, err, sizeof err);
    } else if (!strcmp(what, "fatal-producer-past")) {
        VSFrame *f = gray8(64, 8);
        vk->setGPUPlaneProducer(f, 0, vk->gpuExecPoolTimeline(p), 3);
    } else if (!strcmp(what, "fatal-release-acquire")) {
        rel_pool = p;
        VSGPUExecContext *c = vk->gpuExecAcquire(p, err, sizeof err);
        vk->gpuExecRetain(c, acquire_in_release, NULL, 0);
        vk->gpuExecSubmit(c, NULL, err, sizeof err);
        vk->gpuExecPoolWaitIdle(p, err, sizeof err);
    } else if (!strcmp(what, "fatal-wrong-thread")) {
        other_ctx = vk->gpuExecAcquire(p, err, sizeof err);
        pthread_t t;
        pthread_create(&t, NULL, use_other, NULL);
        pthread_join(t, NULL);
    } else if (!strcmp(what, "fatal-read-ptr")) {
        VSFrame *f = gray8(64, 8);
        printf("read ptr %p\n", (const void *)vsapi->getReadPtr(f, 0));
    } else if (!strcmp(what, "fatal-write-ptr")) {
        VSFrame *f = gray8(64, 8);
        printf("write ptr %p\n", (void *)vsapi->getWritePtr(f, 0));
    } else {
        die("unknown scenario %s", what);
    }
    printf("survived %s\n", what);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: gpuprobe LIBCORE SCENARIO");
    void *lib = open_core(argv[1]);
    if (!lib) die("cannot load %s: %s", argv[1], open_error());
    const VSAPI *(*get)(int) = (const VSAPI *(*)(int))core_symbol(lib, "getVapourSynthAPI");
    if (!get) die("no getVapourSynthAPI");
    vsapi = get(VAPOURSYNTH_API_VERSION);
    if (!vsapi) die("no API 4.3");
    core = vsapi->createCore(ccfDisableAutoLoading);
    vsapi->addLogHandler(log_handler, NULL, NULL, core);
    vk = vsapi->getVulkanAPI();
    if (!strcmp(argv[2], "select")) {
        /* setVulkanDevice before first use: a bad index, then the automatic choice, then device 0;
           after first use it fails */
        err[0] = 0;
        int bad = vk->setVulkanDevice(core, 7, err, sizeof err);
        int badmsg = err[0] != 0;
        if (getenv("PROBE_VERBOSE")) fprintf(stderr, "bad: %s\n", err);
        int autom = vk->setVulkanDevice(core, -1, err, sizeof err);
        int zero = vk->setVulkanDevice(core, 0, err, sizeof err);
        VSVulkanCoreInfo ci;
        int up = vk->getVulkanCoreInfo(core, &ci, err, sizeof err);
        err[0] = 0;
        int late = vk->setVulkanDevice(core, 0, err, sizeof err);
        printf("ok select bad=%d badmsg=%d auto=%d zero=%d up=%d late=%d latemsg=%d\n", bad != 0, badmsg, autom, zero, up, late != 0, err[0] != 0);
        vsapi->freeCore(core);
        return 0;
    }
    fn = vk->getVulkanFunctions(core, err, sizeof err);
    if (!fn) die("getVulkanFunctions: %s", err);
    VSVulkanCoreHandles h;
    if (vk->getVulkanHandles(core, &h, err, sizeof err)) die("getVulkanHandles: %s", err);
    dev = h.device;
    const char *s = argv[2];
    int r;
    if (!strcmp(s, "info")) r = info();
    else if (!strcmp(s, "shader")) r = shader();
    else if (!strcmp(s, "invert")) r = invert();
    else if (!strcmp(s, "stress")) r = stress();
    else if (!strcmp(s, "vram")) r = vram();
    else if (!strcmp(s, "memory")) r = memory();
    else if (!strcmp(s, "timeline")) r = timeline();
    else if (!strcmp(s, "evict")) r = evict();
    else if (!strcmp(s, "blank")) r = blank_residency();
    else if (!strcmp(s, "errors")) r = errors();
    else if (!strcmp(s, "export")) r = export_scenario();
    else if (!strcmp(s, "lost")) r = lost();
    else if (!strcmp(s, "stall")) r = stall();
    else if (!strncmp(s, "fatal-", 6)) r = fatal(s);
    else die("unknown scenario %s", s);
    fflush(stdout);
    vsapi->freeCore(core);
    return r;
}
