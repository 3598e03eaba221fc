/*
 * gpu_invert_example.c -- a GPU filter on an exec pool: gpuinvert.Invert(clip:vnode:gpu).
 *
 * The output equals std.Invert on every format std.Invert takes: integer samples of 8 to 16 bits
 * become (2^bits - 1) - x, float luma and RGB become 1 - x, float chroma becomes -x (half floats
 * included, rounded to nearest even like the CPU filter).
 *
 * What it shows, in the order a filter meets it:
 *  - create: the API table (getVulkanAPI), the core's device functions and handles, one GLSL kernel
 *    compiled at runtime (compileGPUShader), a compute pipeline with push descriptors, and one exec
 *    pool (createGPUExecPool) for this instance;
 *  - getFrame: gpuExecAcquire, recording into the context's command buffer, gpuExecReadsFrame for
 *    the input (its producer pairs become device-side waits and the frame is kept alive until the
 *    work is done), gpuExecWritesPlane for each output plane (the pool publishes its producer pair
 *    on it), gpuExecSubmit. The host never waits: consumers wait on the producer pairs;
 *  - free: freeGPUExecPool drains the pool's work, then the pipeline objects go.
 *
 * Every call that can fail is checked. Build: see Makefile (needs Vulkan 1.4 headers).
 * SPDX-License-Identifier: MIT
 */
#define VS_USE_API_43
#include "VapourSynth4.h"
#include "VSVulkan4.h"

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

typedef struct {
    VSNode *node;
    VSVideoInfo vi;
    const VSVULKANAPI *vk;
    const VSVulkanFunctions *fn;
    VkDevice device;
    uint32_t maxGroupsX;
    VkShaderModule module;
    VkDescriptorSetLayout setLayout;
    VkPipelineLayout layout;
    VkPipeline pipeline;
    VSGPUExecPool *pool;
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
static int record_plane(const InvertData *d, VkCommandBuffer cb, const VSFrame *src, VSFrame *dst, int plane, char *err, size_t errSize) {
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
    VSGPUExecContext *ctx = d->vk->gpuExecAcquire(d->pool, err, sizeof err);
    if (!ctx) {
        vsapi->setFilterError(err, frameCtx);
        vsapi->freeFrame(dst);
        vsapi->freeFrame(src);
        return NULL;
    }
    VkCommandBuffer cb = d->vk->gpuExecCommandBuffer(ctx);
    d->fn->vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipeline);
    for (int p = 0; p < d->vi.format.numPlanes; p++) {
        if (record_plane(d, cb, src, dst, p, err, sizeof err)) {
            /* nothing was submitted: give the context back and drop both frames */
            d->vk->gpuExecAbandon(ctx);
            vsapi->setFilterError(err, frameCtx);
            vsapi->freeFrame(dst);
            vsapi->freeFrame(src);
            return NULL;
        }
        d->vk->gpuExecWritesPlane(ctx, dst, p);
    }
    /* the context takes its own reference on src, so ours can go now */
    d->vk->gpuExecReadsFrame(ctx, src);
    vsapi->freeFrame(src);
    if (d->vk->gpuExecSubmit(ctx, NULL, err, sizeof err)) {
        vsapi->setFilterError(err, frameCtx);
        vsapi->freeFrame(dst);
        return NULL;
    }
    return dst;
}

static void VS_CC invert_free(void *instanceData, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    InvertData *d = instanceData;
    /* drains the pool's submissions first, so the pipeline below is no longer in use */
    d->vk->freeGPUExecPool(d->pool);
    if (d->pipeline) d->fn->vkDestroyPipeline(d->device, d->pipeline, NULL);
    if (d->layout) d->fn->vkDestroyPipelineLayout(d->device, d->layout, NULL);
    if (d->setLayout) d->fn->vkDestroyDescriptorSetLayout(d->device, d->setLayout, NULL);
    if (d->module) d->fn->vkDestroyShaderModule(d->device, d->module, NULL);
    vsapi->freeNode(d->node);
    free(d);
}

/* Builds the pipeline and the pool; 0 on success, else writes a message to err. */
static int invert_setup(InvertData *d, VSCore *core, char *err, int errSize) {
    d->fn = d->vk->getVulkanFunctions(core, err, errSize);
    if (!d->fn) return 1;
    VSVulkanCoreHandles h;
    if (d->vk->getVulkanHandles(core, &h, err, errSize)) return 1;
    d->device = h.device;
    VkPhysicalDeviceProperties2 props = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    d->fn->vkGetPhysicalDeviceProperties2(h.physicalDevice, &props);
    d->maxGroupsX = props.properties.limits.maxComputeWorkGroupCount[0];

    VSGPUShader *shader = d->vk->compileGPUShader(core, slGLSL, KERNEL, err, errSize);
    if (!shader) return 1;
    size_t size = 0;
    const uint32_t *code = d->vk->getGPUShaderCode(shader, &size);
    VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
    VkResult r = code ? d->fn->vkCreateShaderModule(d->device, &smci, NULL, &d->module) : VK_ERROR_INITIALIZATION_FAILED;
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
    /* one pool per filter instance, on the compute queue since it dispatches */
    d->pool = d->vk->createGPUExecPool(core, vqCompute, err, errSize);
    return d->pool ? 0 : 1;
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
    /* GPU output: the return type is vnode:gpu and the filter carries ffGPUOutput */
    vsapi->createVideoFilterEx(out, "Invert", &d->vi, invert_get_frame, invert_free, fmParallel, ffGPUOutput, &dep, 1, d, core);
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("com.example.gpuinvert", "gpuinvert", "GPU invert on an exec pool (SDK example)", VS_MAKE_VERSION(1, 0), VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Invert", "clip:vnode:gpu;", "clip:vnode:gpu;", invert_create, NULL, plugin);
}
