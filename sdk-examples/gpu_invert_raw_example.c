/*
 * gpu_invert_raw_example.c -- the same GPU invert as gpu_invert_example.c, without an exec pool:
 * gpuinvertraw.Invert(clip:vnode:gpu), equal to std.Invert on every format it takes.
 *
 * This is the path for filters that own their submissions. Everything an exec pool does is done
 * here by hand, which is what the example is for:
 *  - a timeline of its own (createGPUTimeline), signalled by its submissions;
 *  - its own command pools: a few slots, each a command pool with one command buffer, since a
 *    command pool may only be used by one thread at a time;
 *  - waits on the producer pairs of every input plane, one per semaphore at its highest value;
 *  - the submission under lockVulkanQueue/unlockVulkanQueue, with the signal value allocated
 *    inside that lock so that signals reach the queue in increasing order, and nothing else done
 *    while the lock is held;
 *  - setGPUPlaneProducer on every output plane, only after the submission that signals the value
 *    has been made;
 *  - the input frame kept referenced until the submission that reads it has completed (a slot
 *    keeps it until the slot is reused, when its value is known reached), and host waits through
 *    gpuTimelineWaitValue, never a bare vkWaitSemaphores;
 *  - free: wait for the last value, then destroy; release the timeline without waiting for the
 *    consumers of the frames it was published on (those planes hold their own references).
 *
 * Every call that can fail is checked. Build: see Makefile (needs Vulkan 1.4 headers).
 * SPDX-License-Identifier: MIT
 */
#define VS_USE_API_43
#include "VapourSynth4.h"
#include "VSVulkan4.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How a plane's 32-bit words are inverted (the kernel's `mode` push constant). */
enum { MODE_INT8, MODE_INT16, MODE_F32, MODE_F32_NEG, MODE_F16, MODE_F16_NEG };

/*
 * One kernel for every format: the plane is a linear buffer of stride * height bytes (strides are
 * multiples of 32), processed as 32-bit words, padding included (nobody reads the padding).
 * Half floats are decoded and re-encoded by hand so that rounding (to nearest, ties to even) does
 * not depend on the driver: 1 - x is exact in single precision for any half x that matters here, and
 * rounding a float to a half is then the same as rounding the exact result. Negation flips the sign
 * bit, as the CPU's -x does (also for zeros and denormals, which a float unit may flush).
 * Workgroups are laid out in two dimensions because one dimension stops at 65535 groups.
 */
static const char *KERNEL =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) readonly buffer Src { uint s[]; };\n"
    "layout(set = 0, binding = 1) writeonly buffer Dst { uint d[]; };\n"
    "layout(push_constant) uniform P { uint words; uint mode; uint maxval; } p;\n"
    "float half_to_float(uint h) {\n"
    "    uint sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;\n"
    "    if (e == 0u) { float v = float(m) * exp2(-24.0); return (sign != 0u) ? -v : v; }\n"
    "    if (e == 31u) return uintBitsToFloat(sign | 0x7f800000u | (m << 13));\n"
    "    return uintBitsToFloat(sign | ((e + 112u) << 23) | (m << 13));\n"
    "}\n"
    "uint float_to_half(float v) {\n"
    "    uint b = floatBitsToUint(v), sign = (b >> 16) & 0x8000u, e = (b >> 23) & 0xffu, m = b & 0x7fffffu;\n"
    "    if (e == 255u) return sign | 0x7c00u | ((m != 0u) ? 0x200u : 0u);\n"
    "    int x = int(e) - 112;\n"
    "    if (x >= 31) return sign | 0x7c00u;\n"
    "    if (x <= 0) {\n"
    "        if (x < -10) return sign;\n"
    "        m |= 0x800000u;\n"
    "        uint shift = uint(14 - x), h = m >> shift, rest = m & ((1u << shift) - 1u), half_ = 1u << (shift - 1u);\n"
    "        if (rest > half_ || (rest == half_ && (h & 1u) != 0u)) h++;\n"
    "        return sign | h;\n"
    "    }\n"
    "    uint h = (uint(x) << 10) | (m >> 13), rest = m & 0x1fffu;\n"
    "    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0u)) h++;\n"
    "    return sign | h;\n"
    "}\n"
    "uint invert(uint w) {\n"
    "    uint r = 0u;\n"
    "    switch (p.mode) {\n"
    "    case 0u: for (uint i = 0u; i < 32u; i += 8u) r |= ((p.maxval - ((w >> i) & 0xffu)) & 0xffu) << i; return r;\n"
    "    case 1u: for (uint i = 0u; i < 32u; i += 16u) r |= ((p.maxval - ((w >> i) & 0xffffu)) & 0xffffu) << i; return r;\n"
    "    case 2u: return floatBitsToUint(1.0 - uintBitsToFloat(w));\n"
    "    case 3u: return w ^ 0x80000000u;\n"
    "    case 4u: return float_to_half(1.0 - half_to_float(w & 0xffffu)) | (float_to_half(1.0 - half_to_float(w >> 16)) << 16);\n"
    "    default: return w ^ 0x80008000u;\n"
    "    }\n"
    "}\n"
    "void main() {\n"
    "    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u;\n"
    "    if (i < p.words) d[i] = invert(s[i]);\n"
    "}\n";

typedef struct {
    uint32_t words;
    uint32_t mode;
    uint32_t maxval;
} PushConstants;

/* A recording slot: one command pool, one command buffer, and what its last submission holds. */
typedef struct {
    VkCommandPool commandPool;
    VkCommandBuffer commandBuffer;
    uint64_t value;     /* the timeline value its last submission signals; 0: none yet */
    const VSFrame *src; /* the input that submission reads, released once value is reached */
    int busy;           /* a thread is recording into it */
} Slot;

#define SLOTS 8

typedef struct {
    VSNode *node;
    VSVideoInfo vi;
    const VSVULKANAPI *vk;
    const VSVulkanFunctions *fn;
    VkDevice device;
    VkQueue queue;
    uint32_t maxGroupsX;
    VkShaderModule module;
    VkDescriptorSetLayout setLayout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VSGPUTimeline *timeline;
    VkSemaphore semaphore;
    uint64_t lastValue; /* the newest value submitted; guarded by the compute queue lock */
    pthread_mutex_t lock; /* guards slots */
    pthread_cond_t slotFreed;
    int syncReady;
    Slot slots[SLOTS];
} InvertData;

/* The kernel mode for a plane of a format std.Invert accepts. */
static uint32_t plane_mode(const VSVideoFormat *f, int plane) {
    int chroma = f->colorFamily == cfYUV && plane > 0;
    if (f->sampleType == stInteger) return f->bytesPerSample == 1 ? MODE_INT8 : MODE_INT16;
    if (f->bytesPerSample == 4) return chroma ? MODE_F32_NEG : MODE_F32;
    return chroma ? MODE_F16_NEG : MODE_F16;
}

static int format_supported(const VSVideoFormat *f) {
    if (f->colorFamily == cfUndefined) return 0;
    if (f->sampleType == stInteger) return f->bitsPerSample >= 8 && f->bitsPerSample <= 16;
    return f->sampleType == stFloat && (f->bitsPerSample == 16 || f->bitsPerSample == 32);
}

/* Records one plane's dispatch; 0 on success, else writes a message to err. */
static int record_plane(const InvertData *d, VkCommandBuffer cb, const VSFrame *src, const VSFrame *dst, int plane, char *err, size_t errSize) {
    VSVulkanPlaneInfo in, out;
    if (d->vk->getGPUPlane(src, plane, &in) || d->vk->getGPUPlane(dst, plane, &out)) {
        snprintf(err, errSize, "Invert: plane %d is not GPU resident", plane);
        return 1;
    }
    if (in.bufferSize % 4 != 0 || in.bufferSize != out.bufferSize || in.bufferSize / 4 > UINT32_MAX) {
        snprintf(err, errSize, "Invert: plane %d has an unexpected size (%llu bytes)", plane, (unsigned long long)in.bufferSize);
        return 1;
    }
    VkDescriptorBufferInfo buffers[2] = {{in.buffer, 0, in.bufferSize}, {out.buffer, 0, out.bufferSize}};
    VkWriteDescriptorSet writes[2];
    for (int i = 0; i < 2; i++) {
        writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                           .dstBinding = (uint32_t)i,
                                           .descriptorCount = 1,
                                           .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                           .pBufferInfo = &buffers[i]};
    }
    d->fn->vkCmdPushDescriptorSet(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, 2, writes);
    const VSVideoFormat *f = &d->vi.format;
    PushConstants pc = {(uint32_t)(in.bufferSize / 4), plane_mode(f, plane), (1u << f->bitsPerSample) - 1u};
    VkPushConstantsInfo pci = {.sType = VK_STRUCTURE_TYPE_PUSH_CONSTANTS_INFO,
                               .layout = d->layout,
                               .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                               .size = sizeof pc,
                               .pValues = &pc};
    d->fn->vkCmdPushConstants2(cb, &pci);
    uint32_t groups = (pc.words + 63) / 64;
    uint32_t x = groups < d->maxGroupsX ? groups : d->maxGroupsX;
    d->fn->vkCmdDispatch(cb, x, (groups + x - 1) / x, 1);
    return 0;
}

/*
 * Claims a slot whose last submission has completed and releases what it held. Returns NULL with
 * err set when the wait for it failed (the slot is then left as it was, still holding its input).
 */
static Slot *claim_slot(InvertData *d, char *err, int errSize) {
    pthread_mutex_lock(&d->lock);
    Slot *s = NULL;
    for (;;) {
        for (int i = 0; i < SLOTS; i++)
            if (!d->slots[i].busy && (!s || d->slots[i].value < s->value)) s = &d->slots[i];
        if (s) break;
        pthread_cond_wait(&d->slotFreed, &d->lock); /* more threads than slots */
    }
    s->busy = 1;
    pthread_mutex_unlock(&d->lock);
    /* the oldest submission of all: usually long done, so this wait rarely blocks */
    if (s->value) {
        int r = d->vk->gpuTimelineWaitValue(d->timeline, s->value, err, errSize);
        if (r != gdDrained && !vsGPUDrainSafeToDestroy(r)) {
            pthread_mutex_lock(&d->lock);
            s->busy = 0;
            pthread_cond_signal(&d->slotFreed);
            pthread_mutex_unlock(&d->lock);
            return NULL;
        }
    }
    return s;
}

static void release_slot(InvertData *d, Slot *s) {
    pthread_mutex_lock(&d->lock);
    s->busy = 0;
    pthread_cond_signal(&d->slotFreed);
    pthread_mutex_unlock(&d->lock);
}

/* Adds (semaphore, value) to the wait list, keeping one entry per semaphore at its highest value. */
static void add_wait(VkSemaphoreSubmitInfo *waits, uint32_t *count, VkSemaphore semaphore, uint64_t value) {
    if (semaphore == VK_NULL_HANDLE) return; /* written by the host: ready now */
    for (uint32_t i = 0; i < *count; i++) {
        if (waits[i].semaphore == semaphore) {
            if (waits[i].value < value) waits[i].value = value;
            return;
        }
    }
    waits[(*count)++] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                                .semaphore = semaphore,
                                                .value = value,
                                                .stageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT};
}

/* Records and submits the invert of src into dst on slot s; returns the value signalled, 0 on error. */
static uint64_t record_and_submit(InvertData *d, Slot *s, const VSFrame *src, VSFrame *dst, VSCore *core, char *err, int errSize) {
    VkResult r;
    if ((r = d->fn->vkResetCommandPool(d->device, s->commandPool, 0)) != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkResetCommandPool failed (%d)", (int)r);
        return 0;
    }
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    if ((r = d->fn->vkBeginCommandBuffer(s->commandBuffer, &begin)) != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkBeginCommandBuffer failed (%d)", (int)r);
        return 0;
    }
    d->fn->vkCmdBindPipeline(s->commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipeline);
    VkSemaphoreSubmitInfo waits[3];
    uint32_t nwaits = 0;
    for (int p = 0; p < d->vi.format.numPlanes; p++) {
        if (record_plane(d, s->commandBuffer, src, dst, p, err, (size_t)errSize)) {
            d->fn->vkEndCommandBuffer(s->commandBuffer);
            return 0;
        }
        VSVulkanPlaneInfo in;
        if (d->vk->getGPUPlane(src, p, &in)) {
            d->fn->vkEndCommandBuffer(s->commandBuffer);
            snprintf(err, (size_t)errSize, "Invert: plane %d is not GPU resident", p);
            return 0;
        }
        add_wait(waits, &nwaits, in.readySemaphore, in.readyValue);
    }
    if ((r = d->fn->vkEndCommandBuffer(s->commandBuffer)) != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkEndCommandBuffer failed (%d)", (int)r);
        return 0;
    }
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = s->commandBuffer};
    VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                    .semaphore = d->semaphore,
                                    .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkSubmitInfo2 submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                            .waitSemaphoreInfoCount = nwaits,
                            .pWaitSemaphoreInfos = waits,
                            .commandBufferInfoCount = 1,
                            .pCommandBufferInfos = &cbi,
                            .signalSemaphoreInfoCount = 1,
                            .pSignalSemaphoreInfos = &signal};
    /* The queue lock is a leaf: only the value and the submission happen inside it. A value is
       only taken for good when its submission was accepted, so no value is left unsignalled. */
    d->vk->lockVulkanQueue(core, vqCompute);
    signal.value = d->lastValue + 1;
    r = d->fn->vkQueueSubmit2(d->queue, 1, &submit, VK_NULL_HANDLE);
    if (r == VK_SUCCESS) d->lastValue = signal.value;
    d->vk->unlockVulkanQueue(core, vqCompute);
    if (r != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkQueueSubmit2 failed (%d)", (int)r);
        return 0;
    }
    return signal.value;
}

static const VSFrame *VS_CC invert_get_frame(int n, int activationReason, void *instanceData, void **frameData, VSFrameContext *frameCtx, VSCore *core, const VSAPI *vsapi) {
    (void)frameData;
    InvertData *d = instanceData;
    if (activationReason == arInitial) {
        vsapi->requestFrameFilter(n, d->node, frameCtx);
        return NULL;
    }
    if (activationReason != arAllFramesReady) return NULL;

    char err[1024];
    const VSFrame *src = vsapi->getFrameFilter(n, d->node, frameCtx);
    if (!src) {
        vsapi->setFilterError("Invert: no input frame", frameCtx);
        return NULL;
    }
    VSFrame *dst = d->vk->newGPUVideoFrame(&d->vi.format, vsapi->getFrameWidth(src, 0), vsapi->getFrameHeight(src, 0), src, core);
    if (!dst) {
        vsapi->setFilterError("Invert: newGPUVideoFrame failed (no Vulkan device?)", frameCtx);
        vsapi->freeFrame(src);
        return NULL;
    }
    Slot *s = claim_slot(d, err, (int)sizeof err);
    if (!s) {
        vsapi->setFilterError(err, frameCtx);
        vsapi->freeFrame(dst);
        vsapi->freeFrame(src);
        return NULL;
    }
    /* the slot's previous submission is complete: its input can go */
    vsapi->freeFrame(s->src);
    s->src = NULL;
    uint64_t value = record_and_submit(d, s, src, dst, core, err, (int)sizeof err);
    if (!value) {
        release_slot(d, s);
        vsapi->setFilterError(err, frameCtx);
        vsapi->freeFrame(dst);
        vsapi->freeFrame(src);
        return NULL;
    }
    /* the signal is on the queue now, so the value may be published */
    for (int p = 0; p < d->vi.format.numPlanes; p++) d->vk->setGPUPlaneProducer(dst, p, d->timeline, value);
    s->value = value;
    s->src = src; /* read by the submission: kept until value is reached */
    release_slot(d, s);
    return dst;
}

static void VS_CC invert_free(void *instanceData, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    InvertData *d = instanceData;
    int safe = 1;
    if (d->timeline && d->lastValue) {
        char err[1024];
        int r = d->vk->gpuTimelineWaitValue(d->timeline, d->lastValue, err, sizeof err);
        safe = vsGPUDrainSafeToDestroy(r);
        if (!safe) fprintf(stderr, "gpuinvertraw: %s; leaving the command pools and input frames in place\n", err);
    }
    if (safe) {
        for (int i = 0; i < SLOTS; i++) {
            vsapi->freeFrame(d->slots[i].src);
            if (d->slots[i].commandPool) d->fn->vkDestroyCommandPool(d->device, d->slots[i].commandPool, NULL);
        }
        if (d->pipeline) d->fn->vkDestroyPipeline(d->device, d->pipeline, NULL);
        if (d->layout) d->fn->vkDestroyPipelineLayout(d->device, d->layout, NULL);
        if (d->setLayout) d->fn->vkDestroyDescriptorSetLayout(d->device, d->setLayout, NULL);
        if (d->module) d->fn->vkDestroyShaderModule(d->device, d->module, NULL);
    }
    /* no wait for consumers: every plane it was published on holds its own reference */
    if (d->timeline) d->vk->freeGPUTimeline(d->timeline);
    if (d->syncReady) {
        pthread_cond_destroy(&d->slotFreed);
        pthread_mutex_destroy(&d->lock);
    }
    vsapi->freeNode(d->node);
    free(d);
}

/* Builds the pipeline, the timeline and the slots; 0 on success, else writes a message to err. */
static int invert_setup(InvertData *d, VSCore *core, char *err, int errSize) {
    if (pthread_mutex_init(&d->lock, NULL)) {
        snprintf(err, (size_t)errSize, "Invert: pthread_mutex_init failed");
        return 1;
    }
    if (pthread_cond_init(&d->slotFreed, NULL)) {
        pthread_mutex_destroy(&d->lock);
        snprintf(err, (size_t)errSize, "Invert: pthread_cond_init failed");
        return 1;
    }
    d->syncReady = 1;
    d->fn = d->vk->getVulkanFunctions(core, err, errSize);
    if (!d->fn) return 1;
    VSVulkanCoreHandles h;
    if (d->vk->getVulkanHandles(core, &h, err, errSize)) return 1;
    d->device = h.device;
    VkDeviceQueueInfo2 qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2,
                             .queueFamilyIndex = h.computeQueueFamily,
                             .queueIndex = h.computeQueueIndex};
    d->fn->vkGetDeviceQueue2(d->device, &qi, &d->queue);
    if (d->queue == VK_NULL_HANDLE) {
        snprintf(err, (size_t)errSize, "Invert: vkGetDeviceQueue2 gave no queue");
        return 1;
    }
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    d->fn->vkGetPhysicalDeviceProperties2(h.physicalDevice, &props);
    d->maxGroupsX = props.properties.limits.maxComputeWorkGroupCount[0];

    d->timeline = d->vk->createGPUTimeline(core, err, errSize);
    if (!d->timeline) return 1;
    d->semaphore = d->vk->getGPUTimelineSemaphore(d->timeline);

    VkResult r;
    for (int i = 0; i < SLOTS; i++) {
        VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                        .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                        .queueFamilyIndex = h.computeQueueFamily};
        if ((r = d->fn->vkCreateCommandPool(d->device, &cpci, NULL, &d->slots[i].commandPool)) != VK_SUCCESS) {
            snprintf(err, (size_t)errSize, "Invert: vkCreateCommandPool failed (%d)", (int)r);
            return 1;
        }
        VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                            .commandPool = d->slots[i].commandPool,
                                            .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                            .commandBufferCount = 1};
        if ((r = d->fn->vkAllocateCommandBuffers(d->device, &cbai, &d->slots[i].commandBuffer)) != VK_SUCCESS) {
            snprintf(err, (size_t)errSize, "Invert: vkAllocateCommandBuffers failed (%d)", (int)r);
            return 1;
        }
    }

    VSGPUShader *shader = d->vk->compileGPUShader(core, slGLSL, KERNEL, err, errSize);
    if (!shader) return 1;
    size_t size = 0;
    const uint32_t *code = d->vk->getGPUShaderCode(shader, &size);
    VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    r = code ? d->fn->vkCreateShaderModule(d->device, &smci, NULL, &d->module) : VK_ERROR_INITIALIZATION_FAILED;
    d->vk->freeGPUShader(shader);
    if (r != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkCreateShaderModule failed (%d)", (int)r);
        return 1;
    }
    VkDescriptorSetLayoutBinding bindings[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    VkDescriptorSetLayoutCreateInfo dslci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                             .flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT,
                                             .bindingCount = 2,
                                             .pBindings = bindings};
    if ((r = d->fn->vkCreateDescriptorSetLayout(d->device, &dslci, NULL, &d->setLayout)) != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkCreateDescriptorSetLayout failed (%d)", (int)r);
        return 1;
    }
    VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(PushConstants)};
    VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = 1,
                                       .pSetLayouts = &d->setLayout,
                                       .pushConstantRangeCount = 1,
                                       .pPushConstantRanges = &range};
    if ((r = d->fn->vkCreatePipelineLayout(d->device, &plci, NULL, &d->layout)) != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkCreatePipelineLayout failed (%d)", (int)r);
        return 1;
    }
    VkComputePipelineCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                                                  .module = d->module,
                                                  .pName = "main"},
                                        .layout = d->layout};
    if ((r = d->fn->vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &cpci, NULL, &d->pipeline)) != VK_SUCCESS) {
        snprintf(err, (size_t)errSize, "Invert: vkCreateComputePipelines failed (%d)", (int)r);
        return 1;
    }
    return 0;
}

static void VS_CC invert_create(const VSMap *in, VSMap *out, void *userData, VSCore *core, const VSAPI *vsapi) {
    (void)userData;
    InvertData *d = calloc(1, sizeof *d);
    if (!d) {
        vsapi->mapSetError(out, "Invert: out of memory");
        return;
    }
    d->node = vsapi->mapGetNode(in, "clip", 0, NULL);
    d->vi = *vsapi->getVideoInfo(d->node);
    d->vk = vsapi->getVulkanAPI();
    char err[2048];
    if (!format_supported(&d->vi.format)) {
        char name[32] = "variable";
        if (d->vi.format.colorFamily != cfUndefined && !vsapi->getVideoFormatName(&d->vi.format, name)) strcpy(name, "unknown");
        snprintf(err, sizeof err, "Invert: the clip must have a constant format of 8-16 bit integer or 16/32 bit float samples, not %s", name);
        vsapi->mapSetError(out, err);
        vsapi->freeNode(d->node);
        free(d);
        return;
    }
    if (invert_setup(d, core, err, (int)sizeof err)) {
        vsapi->mapSetError(out, err);
        invert_free(d, core, vsapi);
        return;
    }
    VSFilterDependency dep = {d->node, rpStrictSpatial};
    vsapi->createVideoFilterEx(out, "Invert", &d->vi, invert_get_frame, invert_free, fmParallel, ffGPUOutput, &dep, 1, d, core);
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("com.example.gpuinvertraw", "gpuinvertraw", "GPU invert with its own timeline and submissions (SDK example)", VS_MAKE_VERSION(1, 0), VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Invert", "clip:vnode:gpu;", "clip:vnode:gpu;", invert_create, NULL, plugin);
}
