/*
 * vsvkgpu: a GPU test plugin for the GPU tests (tests/tests/gpu.rs), built on getVulkanAPI the way
 * real GPU filters are.
 *
 *   vsvkgpu.Invert(clip:vnode:gpu)      every 8-bit sample inverted by a compute shader: one exec pool
 *                                       per instance, push descriptors, producer pairs only
 *   vsvkgpu.Export(clip, src)           takes clip's frame with getExportableFrameFilter, exports every
 *                                       plane (closing the handles), waits with waitGPUFrame, and
 *                                       returns src's frame (an exported input never goes back)
 *   vsvkgpu.GiveBack(clip:vnode:gpu)    returns the exportable input itself: an error, since such
 *                                       inputs never go back to the core
 *   vsvkgpu.BadReturn(clip:vnode:gpu)   a GPU node returned under a plain vnode return type
 *   vsvkgpu.Lie(clip:vnode:gpu, mode)   residency lies the core must catch: mode 0 declares GPU
 *                                       output and returns a CPU frame; mode 1 returns the GPU frame
 *                                       without ffGPUOutput
 */
#define VS_USE_API_43
#include "VapourSynth4.h"
#include "VSVulkan4.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *INVERT =
    "#version 460\n"
    "layout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 0) readonly buffer Src { uint s[]; };\n"
    "layout(set = 0, binding = 1) writeonly buffer Dst { uint d[]; };\n"
    "layout(push_constant) uniform P { uint n; } p;\n"
    "void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) d[i] = ~s[i]; }\n";

typedef struct {
    VSNode *node;
    VSNode *src;
    const VSVULKANAPI *vk;
    const VSVulkanFunctions *fn;
    VkDevice dev;
    VSGPUExecPool *pool;
    VkShaderModule mod;
    VkDescriptorSetLayout dsl;
    VkPipelineLayout layout;
    VkPipeline pipe;
    int mode;
} Data;

static const VSFrame *VS_CC invert_get(int n, int reason, void *inst, void **fd, VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)fd;
    Data *d = inst;
    if (reason == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
        return NULL;
    }
    if (reason != arAllFramesReady) return NULL;
    const VSFrame *src = vsapi->getFrameFilter(n, d->node, ctx);
    const VSVideoFormat *f = vsapi->getVideoFrameFormat(src);
    VSFrame *dst = d->vk->newGPUVideoFrame(f, vsapi->getFrameWidth(src, 0), vsapi->getFrameHeight(src, 0), src, core);
    char err[512];
    VSGPUExecContext *c = d->vk->gpuExecAcquire(d->pool, err, sizeof err);
    if (!c || !dst) {
        vsapi->setFilterError(c ? "Invert: no output frame" : err, ctx);
        vsapi->freeFrame(src);
        vsapi->freeFrame(dst);
        return NULL;
    }
    VkCommandBuffer cb = d->vk->gpuExecCommandBuffer(c);
    d->fn->vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->pipe);
    for (int p = 0; p < f->numPlanes; p++) {
        VSVulkanPlaneInfo sp, dp;
        d->vk->getGPUPlane(src, p, &sp);
        d->vk->getGPUPlane(dst, p, &dp);
        VkDescriptorBufferInfo bi[2] = {{sp.buffer, 0, VK_WHOLE_SIZE}, {dp.buffer, 0, VK_WHOLE_SIZE}};
        VkWriteDescriptorSet wr[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, VK_NULL_HANDLE, 0, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi[0], NULL},
                                      {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, VK_NULL_HANDLE, 1, 0, 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi[1], NULL}};
        d->fn->vkCmdPushDescriptorSet(cb, VK_PIPELINE_BIND_POINT_COMPUTE, d->layout, 0, 2, wr);
        uint32_t words = (uint32_t)(sp.bufferSize / 4);
        VkPushConstantsInfo pci = {VK_STRUCTURE_TYPE_PUSH_CONSTANTS_INFO, NULL, d->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &words};
        d->fn->vkCmdPushConstants2(cb, &pci);
        d->fn->vkCmdDispatch(cb, (words + 63) / 64, 1, 1);
        d->vk->gpuExecWritesPlane(c, dst, p);
    }
    d->vk->gpuExecReadsFrame(c, src);
    vsapi->freeFrame(src);
    if (d->vk->gpuExecSubmit(c, NULL, err, sizeof err)) {
        vsapi->setFilterError(err, ctx);
        vsapi->freeFrame(dst);
        return NULL;
    }
    return dst;
}

static const VSFrame *VS_CC export_get(int n, int reason, void *inst, void **fd, VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)fd;
    (void)core;
    Data *d = inst;
    if (reason == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
        vsapi->requestFrameFilter(n, d->src, ctx);
        return NULL;
    }
    if (reason != arAllFramesReady) return NULL;
    char err[512];
    const VSFrame *f = d->vk->getExportableFrameFilter(n, d->node, ctx, err, sizeof err);
    if (!f) {
        vsapi->setFilterError(err, ctx);
        return NULL;
    }
    for (int p = 0; p < vsapi->getVideoFrameFormat(f)->numPlanes; p++) {
        VSVulkanExportedMemory m;
        if (d->vk->exportGPUPlane(f, p, &m, err, sizeof err)) {
            vsapi->setFilterError(err, ctx);
            vsapi->freeFrame(f);
            return NULL;
        }
        if (m.handle < 0 || m.size != (VkDeviceSize)(vsapi->getStride(f, p) * vsapi->getFrameHeight(f, p)) || m.offset + m.size > m.memorySize) {
            vsapi->setFilterError("Export: a bad exported plane", ctx);
            vsapi->freeFrame(f);
            return NULL;
        }
        close((int)m.handle);
    }
    if (d->vk->waitGPUFrame(f, err, sizeof err)) {
        vsapi->setFilterError(err, ctx);
        vsapi->freeFrame(f);
        return NULL;
    }
    /* the exported input is the foreign API's for good: the output is the other clip's frame */
    vsapi->freeFrame(f);
    return vsapi->getFrameFilter(n, d->src, ctx);
}

/* Returns the exportable input itself, which can never go back to the core: an error. */
static const VSFrame *VS_CC give_back_get(int n, int reason, void *inst, void **fd, VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)fd;
    (void)core;
    Data *d = inst;
    if (reason == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
        return NULL;
    }
    if (reason != arAllFramesReady) return NULL;
    char err[512];
    const VSFrame *f = d->vk->getExportableFrameFilter(n, d->node, ctx, err, sizeof err);
    if (!f) vsapi->setFilterError(err, ctx);
    return f;
}

static const VSFrame *VS_CC lie_get(int n, int reason, void *inst, void **fd, VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)fd;
    Data *d = inst;
    if (reason == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
        return NULL;
    }
    if (reason != arAllFramesReady) return NULL;
    const VSFrame *src = vsapi->getFrameFilter(n, d->node, ctx);
    if (d->mode == 1) return src;
    VSFrame *cpu = vsapi->newVideoFrame(vsapi->getVideoFrameFormat(src), vsapi->getFrameWidth(src, 0), vsapi->getFrameHeight(src, 0), src, core);
    vsapi->freeFrame(src);
    return cpu;
}

static void VS_CC data_free(void *inst, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    Data *d = inst;
    if (d->pool) d->vk->freeGPUExecPool(d->pool);
    if (d->pipe) d->fn->vkDestroyPipeline(d->dev, d->pipe, NULL);
    if (d->layout) d->fn->vkDestroyPipelineLayout(d->dev, d->layout, NULL);
    if (d->dsl) d->fn->vkDestroyDescriptorSetLayout(d->dev, d->dsl, NULL);
    if (d->mod) d->fn->vkDestroyShaderModule(d->dev, d->mod, NULL);
    vsapi->freeNode(d->node);
    vsapi->freeNode(d->src);
    free(d);
}

static Data *data_new(const VSMap *in, VSCore *core, const VSAPI *vsapi) {
    Data *d = calloc(1, sizeof *d);
    int e = 0;
    d->node = vsapi->mapGetNode(in, "clip", 0, NULL);
    d->src = vsapi->mapGetNode(in, "src", 0, &e);
    d->vk = vsapi->getVulkanAPI();
    d->mode = (int)vsapi->mapGetInt(in, "mode", 0, &e);
    char err[512];
    d->fn = d->vk->getVulkanFunctions(core, err, sizeof err);
    VSVulkanCoreHandles h;
    d->vk->getVulkanHandles(core, &h, err, sizeof err);
    d->dev = h.device;
    return d;
}

static void VS_CC invert_create(const VSMap *in, VSMap *out, void *ud, VSCore *core, const VSAPI *vsapi) {
    (void)ud;
    Data *d = data_new(in, core, vsapi);
    char err[1024];
    VSGPUShader *sh = d->vk->compileGPUShader(core, slGLSL, INVERT, err, sizeof err);
    if (!sh) {
        vsapi->mapSetError(out, err);
        data_free(d, core, vsapi);
        return;
    }
    size_t size;
    const uint32_t *code = d->vk->getGPUShaderCode(sh, &size);
    VkShaderModuleCreateInfo smci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, size, code};
    d->fn->vkCreateShaderModule(d->dev, &smci, NULL, &d->mod);
    d->vk->freeGPUShader(sh);
    VkDescriptorSetLayoutBinding b[2] = {{0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
                                         {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    VkDescriptorSetLayoutCreateInfo dslci = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT, 2, b};
    d->fn->vkCreateDescriptorSetLayout(d->dev, &dslci, NULL, &d->dsl);
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, NULL, 0, 1, &d->dsl, 1, &pcr};
    d->fn->vkCreatePipelineLayout(d->dev, &plci, NULL, &d->layout);
    VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, NULL, 0,
                                        {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_COMPUTE_BIT, d->mod, "main", NULL},
                                        d->layout, VK_NULL_HANDLE, 0};
    if (d->fn->vkCreateComputePipelines(d->dev, VK_NULL_HANDLE, 1, &cpci, NULL, &d->pipe) != VK_SUCCESS) {
        vsapi->mapSetError(out, "Invert: vkCreateComputePipelines failed");
        data_free(d, core, vsapi);
        return;
    }
    d->pool = d->vk->createGPUExecPool(core, vqCompute, err, sizeof err);
    if (!d->pool) {
        vsapi->mapSetError(out, err);
        data_free(d, core, vsapi);
        return;
    }
    const VSVideoInfo *vi = vsapi->getVideoInfo(d->node);
    if (vi->format.bytesPerSample != 1) {
        vsapi->mapSetError(out, "Invert: 8-bit clips only");
        data_free(d, core, vsapi);
        return;
    }
    VSFilterDependency dep = {d->node, rpStrictSpatial};
    vsapi->createVideoFilterEx(out, "Invert", vi, invert_get, data_free, fmParallel, ffGPUOutput, &dep, 1, d, core);
}

static void VS_CC plain_create(const VSMap *in, VSMap *out, void *ud, VSCore *core, const VSAPI *vsapi) {
    Data *d = data_new(in, core, vsapi);
    int kind = (int)(intptr_t)ud; /* 0 Export, 1 Lie, 2 GiveBack, 3 BadReturn */
    VSFilterDependency deps[2] = {{d->node, rpStrictSpatial}, {d->src, rpStrictSpatial}};
    int flags = (kind == 1 && d->mode == 1) ? 0 : ffGPUOutput;
    if (kind == 3) d->mode = 1; /* passes its GPU input through, declared plain vnode */
    const char *names[] = {"Export", "Lie", "GiveBack", "BadReturn"};
    VSFilterGetFrame gets[] = {export_get, lie_get, give_back_get, lie_get};
    vsapi->createVideoFilterEx(out, names[kind], vsapi->getVideoInfo(d->node), gets[kind], data_free, fmParallel, flags, deps, d->src ? 2 : 1, d, core);
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("com.vsvk.gpu", "vsvkgpu", "vsvk GPU test filters", VS_MAKE_VERSION(1, 0), VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Invert", "clip:vnode:gpu;", "clip:vnode:gpu;", invert_create, NULL, plugin);
    vspapi->registerFunction("Export", "clip:vnode:gpu;src:vnode:gpu;", "clip:vnode:gpu;", plain_create, NULL, plugin);
    vspapi->registerFunction("Lie", "clip:vnode:gpu;mode:int;", "clip:vnode:all;", plain_create, (void *)1, plugin);
    vspapi->registerFunction("GiveBack", "clip:vnode:gpu;", "clip:vnode:gpu;", plain_create, (void *)2, plugin);
    vspapi->registerFunction("BadReturn", "clip:vnode:gpu;", "clip:vnode;", plain_create, (void *)3, plugin);
}
