/* A Vulkan layer that records what a process asks of the device, to set two cores side by side
 * on the same plugin: the device's extensions and queues, every shader module (size, hash,
 * optionally the SPIR-V), every compute pipeline (flags, required subgroup size, shader), and
 * per queue the submissions, command buffers, dispatches, barriers, copies and timestamps.
 * One summary goes to $VKTRACE_OUT (else stderr) when the process exits.
 *
 * Why a layer: both cores load Vulkan through the loader, and R81 resolves its entry points at
 * run time, so the loader's layer chain is the one place that sees both the same way.
 *
 * Use: VK_ADD_LAYER_PATH=<dir of VkLayer_vsvk_trace.json> VK_INSTANCE_LAYERS=VK_LAYER_VSVK_trace
 * VKTRACE_OUT=file [VKTRACE_SPIRV=dir]. Built by bench/vktrace/build.sh. */
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static PFN_vkGetInstanceProcAddr next_gipa;
static VkInstance last_instance;
static PFN_vkGetDeviceProcAddr next_gdpa;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The text summary, built as calls arrive (creation calls are few). */
static char *log_buf;
static size_t log_len, log_cap;
static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    pthread_mutex_lock(&lock);
    if (log_len + n + 1 > log_cap) {
        size_t cap = log_cap ? log_cap * 2 : 65536;
        while (cap < log_len + n + 1) cap *= 2;
        char *b = realloc(log_buf, cap);
        if (b) { log_buf = b; log_cap = cap; }
    }
    if (log_len + n + 1 <= log_cap) { memcpy(log_buf + log_len, line, n); log_len += n; log_buf[log_len] = 0; }
    pthread_mutex_unlock(&lock);
}

static uint64_t fnv(const void *p, size_t n) {
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ull; }
    return h;
}

/* ---- per queue counters ---- */
#define MAXQ 32
static struct {
    VkQueue q;
    uint32_t family, index;
    atomic_ulong submits, cbs, waits, signals;
} queues[MAXQ];
static int nqueues;

static void note_queue(VkQueue q, uint32_t family, uint32_t index) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nqueues; i++)
        if (queues[i].q == q) { pthread_mutex_unlock(&lock); return; }
    if (nqueues < MAXQ) { queues[nqueues].q = q; queues[nqueues].family = family; queues[nqueues].index = index; nqueues++; }
    pthread_mutex_unlock(&lock);
}
static int queue_slot(VkQueue q) {
    for (int i = 0; i < nqueues; i++)
        if (queues[i].q == q) return i;
    return -1;
}

/* ---- command counters ---- */
static atomic_ulong n_dispatch, n_dispatch_groups, n_barrier, n_barrier_mem, n_barrier_buf, n_copy, n_copy_bytes, n_fill,
    n_timestamp, n_bind_pipeline, n_push_desc, n_push_const, n_alloc_mem, n_alloc_bytes, n_buffers;

/* Dispatch shapes, the first few distinct ones with their counts. */
#define MAXSHAPE 64
static struct { uint32_t x, y, z; atomic_ulong n; } shapes[MAXSHAPE];
static int nshapes;
static void note_shape(uint32_t x, uint32_t y, uint32_t z) {
    for (int i = 0; i < nshapes; i++)
        if (shapes[i].x == x && shapes[i].y == y && shapes[i].z == z) { shapes[i].n++; return; }
    pthread_mutex_lock(&lock);
    int i;
    for (i = 0; i < nshapes; i++)
        if (shapes[i].x == x && shapes[i].y == y && shapes[i].z == z) break;
    if (i == nshapes && nshapes < MAXSHAPE) { shapes[i].x = x; shapes[i].y = y; shapes[i].z = z; nshapes++; }
    if (i < nshapes) shapes[i].n++;
    pthread_mutex_unlock(&lock);
}

/* Shader modules by handle, to name a pipeline's shader by its hash. */
#define MAXMOD 256
static struct { VkShaderModule m; uint64_t hash; size_t size; } mods[MAXMOD];
static int nmods;

static PFN_vkCreateShaderModule next_CreateShaderModule;
static PFN_vkCreateComputePipelines next_CreateComputePipelines;
static PFN_vkGetDeviceQueue next_GetDeviceQueue;
static PFN_vkGetDeviceQueue2 next_GetDeviceQueue2;
static PFN_vkQueueSubmit next_QueueSubmit;
static PFN_vkQueueSubmit2 next_QueueSubmit2;
static PFN_vkCmdDispatch next_CmdDispatch;
static PFN_vkCmdDispatchBase next_CmdDispatchBase;
static PFN_vkCmdPipelineBarrier next_CmdPipelineBarrier;
static PFN_vkCmdPipelineBarrier2 next_CmdPipelineBarrier2;
static PFN_vkCmdCopyBuffer next_CmdCopyBuffer;
static PFN_vkCmdCopyBuffer2 next_CmdCopyBuffer2;
static PFN_vkCmdFillBuffer next_CmdFillBuffer;
static PFN_vkCmdWriteTimestamp next_CmdWriteTimestamp;
static PFN_vkCmdWriteTimestamp2 next_CmdWriteTimestamp2;
static PFN_vkCmdBindPipeline next_CmdBindPipeline;
static PFN_vkCmdPushDescriptorSet next_CmdPushDescriptorSet;
static PFN_vkCmdPushDescriptorSet2 next_CmdPushDescriptorSet2;
static PFN_vkCmdPushDescriptorSetKHR next_CmdPushDescriptorSetKHR;
static PFN_vkCmdPushConstants next_CmdPushConstants;
static PFN_vkCmdPushConstants2 next_CmdPushConstants2;
static PFN_vkAllocateMemory next_AllocateMemory;
static PFN_vkBindBufferMemory next_BindBufferMemory;
static PFN_vkBindBufferMemory2 next_BindBufferMemory2;

/* Memory objects by handle with their type, to say where each bound buffer lives. */
#define MAXMEM 4096
static struct { VkDeviceMemory m; uint32_t type; VkDeviceSize size; } mems[MAXMEM];
static int nmems;
static atomic_ulong n_binds;
static void note_bind(VkBuffer b, VkDeviceMemory m, VkDeviceSize off) {
    (void)b;
    unsigned long k = n_binds++;
    if (k >= 200) return;
    uint32_t type = ~0u;
    VkDeviceSize size = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nmems; i++)
        if (mems[i].m == m) { type = mems[i].type; size = mems[i].size; }
    pthread_mutex_unlock(&lock);
    logf_("bind buffer to memory type %u (block %llu bytes) offset %llu\n", type, (unsigned long long)size, (unsigned long long)off);
}
static VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory(VkDevice d, VkBuffer b, VkDeviceMemory m, VkDeviceSize off) {
    note_bind(b, m, off);
    return next_BindBufferMemory(d, b, m, off);
}
static VKAPI_ATTR VkResult VKAPI_CALL BindBufferMemory2(VkDevice d, uint32_t n, const VkBindBufferMemoryInfo *bi) {
    for (uint32_t i = 0; i < n; i++) note_bind(bi[i].buffer, bi[i].memory, bi[i].memoryOffset);
    return next_BindBufferMemory2(d, n, bi);
}
static PFN_vkCreateBuffer next_CreateBuffer;

static void dump_spirv(uint64_t h, const void *code, size_t size) {
    const char *dir = getenv("VKTRACE_SPIRV");
    if (!dir || !*dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%016llx.spv", dir, (unsigned long long)h);
    FILE *f = fopen(path, "wb");
    if (f) { fwrite(code, 1, size, f); fclose(f); }
}

static VKAPI_ATTR VkResult VKAPI_CALL CreateShaderModule(VkDevice d, const VkShaderModuleCreateInfo *ci, const VkAllocationCallbacks *a, VkShaderModule *m) {
    VkResult r = next_CreateShaderModule(d, ci, a, m);
    uint64_t h = fnv(ci->pCode, ci->codeSize);
    logf_("shader %016llx %zu bytes\n", (unsigned long long)h, ci->codeSize);
    dump_spirv(h, ci->pCode, ci->codeSize);
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&lock);
        if (nmods < MAXMOD) { mods[nmods].m = *m; mods[nmods].hash = h; mods[nmods].size = ci->codeSize; nmods++; }
        pthread_mutex_unlock(&lock);
    }
    return r;
}

static uint64_t module_hash(VkShaderModule m) {
    for (int i = 0; i < nmods; i++)
        if (mods[i].m == m) return mods[i].hash;
    return 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL CreateComputePipelines(VkDevice d, VkPipelineCache c, uint32_t n, const VkComputePipelineCreateInfo *ci,
                                                             const VkAllocationCallbacks *a, VkPipeline *p) {
    for (uint32_t i = 0; i < n; i++) {
        const VkPipelineShaderStageCreateInfo *s = &ci[i].stage;
        uint32_t req = 0;
        for (const VkBaseInStructure *b = s->pNext; b; b = b->pNext)
            if (b->sType == VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO)
                req = ((const VkPipelineShaderStageRequiredSubgroupSizeCreateInfo *)b)->requiredSubgroupSize;
        int chained = 0;
        for (const VkBaseInStructure *b = ci[i].pNext; b; b = b->pNext) chained++;
        uint32_t spec = s->pSpecializationInfo ? s->pSpecializationInfo->mapEntryCount : 0;
        uint64_t code = module_hash(s->module);
        /* maintenance5: the module's create info chained to the stage instead of a module. */
        for (const VkBaseInStructure *b = s->pNext; b; b = b->pNext)
            if (b->sType == VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO) {
                const VkShaderModuleCreateInfo *m = (const void *)b;
                code = fnv(m->pCode, m->codeSize);
                logf_("shader %016llx %zu bytes (in the stage)\n", (unsigned long long)code, m->codeSize);
                dump_spirv(code, m->pCode, m->codeSize);
            }
        logf_("pipeline shader %016llx flags 0x%x stage flags 0x%x required subgroup %u spec constants %u create pNext %d cache %s\n",
              (unsigned long long)code, (unsigned)ci[i].flags, (unsigned)s->flags, req, spec, chained, c ? "yes" : "no");
    }
    return next_CreateComputePipelines(d, c, n, ci, a, p);
}

static VKAPI_ATTR void VKAPI_CALL GetDeviceQueue(VkDevice d, uint32_t fam, uint32_t idx, VkQueue *q) {
    next_GetDeviceQueue(d, fam, idx, q);
    note_queue(*q, fam, idx);
}
static VKAPI_ATTR void VKAPI_CALL GetDeviceQueue2(VkDevice d, const VkDeviceQueueInfo2 *i, VkQueue *q) {
    next_GetDeviceQueue2(d, i, q);
    note_queue(*q, i->queueFamilyIndex, i->queueIndex);
}

static VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue q, uint32_t n, const VkSubmitInfo *s, VkFence f) {
    int i = queue_slot(q);
    if (i >= 0) {
        queues[i].submits += n;
        for (uint32_t k = 0; k < n; k++) {
            queues[i].cbs += s[k].commandBufferCount;
            queues[i].waits += s[k].waitSemaphoreCount;
            queues[i].signals += s[k].signalSemaphoreCount;
        }
    }
    return next_QueueSubmit(q, n, s, f);
}
static VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit2(VkQueue q, uint32_t n, const VkSubmitInfo2 *s, VkFence f) {
    int i = queue_slot(q);
    if (i >= 0) {
        queues[i].submits += n;
        for (uint32_t k = 0; k < n; k++) {
            queues[i].cbs += s[k].commandBufferInfoCount;
            queues[i].waits += s[k].waitSemaphoreInfoCount;
            queues[i].signals += s[k].signalSemaphoreInfoCount;
        }
    }
    return next_QueueSubmit2(q, n, s, f);
}

static VKAPI_ATTR void VKAPI_CALL CmdDispatch(VkCommandBuffer cb, uint32_t x, uint32_t y, uint32_t z) {
    n_dispatch++;
    n_dispatch_groups += (unsigned long)x * y * z;
    note_shape(x, y, z);
    next_CmdDispatch(cb, x, y, z);
}
static VKAPI_ATTR void VKAPI_CALL CmdDispatchBase(VkCommandBuffer cb, uint32_t bx, uint32_t by, uint32_t bz, uint32_t x, uint32_t y, uint32_t z) {
    n_dispatch++;
    n_dispatch_groups += (unsigned long)x * y * z;
    note_shape(x, y, z);
    next_CmdDispatchBase(cb, bx, by, bz, x, y, z);
}
static VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkPipelineStageFlags dst, VkDependencyFlags f, uint32_t nm,
                                                     const VkMemoryBarrier *m, uint32_t nb, const VkBufferMemoryBarrier *b, uint32_t ni,
                                                     const VkImageMemoryBarrier *im) {
    n_barrier++;
    n_barrier_mem += nm;
    n_barrier_buf += nb;
    next_CmdPipelineBarrier(cb, src, dst, f, nm, m, nb, b, ni, im);
}
static VKAPI_ATTR void VKAPI_CALL CmdPipelineBarrier2(VkCommandBuffer cb, const VkDependencyInfo *d) {
    n_barrier++;
    n_barrier_mem += d->memoryBarrierCount;
    n_barrier_buf += d->bufferMemoryBarrierCount;
    next_CmdPipelineBarrier2(cb, d);
}
static VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer(VkCommandBuffer cb, VkBuffer s, VkBuffer d, uint32_t n, const VkBufferCopy *r) {
    n_copy += n;
    for (uint32_t i = 0; i < n; i++) n_copy_bytes += r[i].size;
    next_CmdCopyBuffer(cb, s, d, n, r);
}
static VKAPI_ATTR void VKAPI_CALL CmdCopyBuffer2(VkCommandBuffer cb, const VkCopyBufferInfo2 *c) {
    n_copy += c->regionCount;
    for (uint32_t i = 0; i < c->regionCount; i++) n_copy_bytes += c->pRegions[i].size;
    next_CmdCopyBuffer2(cb, c);
}
static VKAPI_ATTR void VKAPI_CALL CmdFillBuffer(VkCommandBuffer cb, VkBuffer b, VkDeviceSize o, VkDeviceSize s, uint32_t v) {
    n_fill++;
    next_CmdFillBuffer(cb, b, o, s, v);
}
static VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp(VkCommandBuffer cb, VkPipelineStageFlagBits st, VkQueryPool p, uint32_t q) {
    n_timestamp++;
    next_CmdWriteTimestamp(cb, st, p, q);
}
static VKAPI_ATTR void VKAPI_CALL CmdWriteTimestamp2(VkCommandBuffer cb, VkPipelineStageFlags2 st, VkQueryPool p, uint32_t q) {
    n_timestamp++;
    next_CmdWriteTimestamp2(cb, st, p, q);
}
static VKAPI_ATTR void VKAPI_CALL CmdBindPipeline(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipeline p) {
    n_bind_pipeline++;
    next_CmdBindPipeline(cb, bp, p);
}
static VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSet(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout l, uint32_t set, uint32_t n,
                                                       const VkWriteDescriptorSet *w) {
    n_push_desc++;
    next_CmdPushDescriptorSet(cb, bp, l, set, n, w);
}
static VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSetKHR(VkCommandBuffer cb, VkPipelineBindPoint bp, VkPipelineLayout l, uint32_t set, uint32_t n,
                                                          const VkWriteDescriptorSet *w) {
    n_push_desc++;
    next_CmdPushDescriptorSetKHR(cb, bp, l, set, n, w);
}
static VKAPI_ATTR void VKAPI_CALL CmdPushDescriptorSet2(VkCommandBuffer cb, const VkPushDescriptorSetInfo *i) {
    n_push_desc++;
    next_CmdPushDescriptorSet2(cb, i);
}
/* VKTRACE_PUSH=1: every push constant block's size and first words, in recording order (a
 * plugin's frame numbers often travel there, which shows the order it works in). */
static void log_push(uint32_t size, const void *v) {
    static int on = -1;
    if (on < 0) on = getenv("VKTRACE_PUSH") && atoi(getenv("VKTRACE_PUSH")) > 0;
    if (!on) return;
    const uint32_t *w = v;
    uint32_t n = size / 4 < 4 ? size / 4 : 4;
    char line[128];
    int k = snprintf(line, sizeof line, "push %u:", size);
    for (uint32_t i = 0; i < n; i++) k += snprintf(line + k, sizeof line - k, " %u", w[i]);
    logf_("%s\n", line);
}

static VKAPI_ATTR void VKAPI_CALL CmdPushConstants(VkCommandBuffer cb, VkPipelineLayout l, VkShaderStageFlags st, uint32_t o, uint32_t s, const void *v) {
    n_push_const++;
    log_push(s, v);
    next_CmdPushConstants(cb, l, st, o, s, v);
}
static VKAPI_ATTR void VKAPI_CALL CmdPushConstants2(VkCommandBuffer cb, const VkPushConstantsInfo *i) {
    n_push_const++;
    log_push(i->size, i->pValues);
    next_CmdPushConstants2(cb, i);
}
static VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice d, const VkMemoryAllocateInfo *ai, const VkAllocationCallbacks *a, VkDeviceMemory *m) {
    n_alloc_mem++;
    n_alloc_bytes += ai->allocationSize;
    int dedicated = 0, exportable = 0;
    for (const VkBaseInStructure *b = ai->pNext; b; b = b->pNext) {
        if (b->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO) dedicated = 1;
        if (b->sType == VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO) exportable = 1;
    }
    logf_("memory %llu bytes type %u%s%s\n", (unsigned long long)ai->allocationSize, ai->memoryTypeIndex, dedicated ? " dedicated" : "",
          exportable ? " exportable" : "");
    VkResult r = next_AllocateMemory(d, ai, a, m);
    if (r == VK_SUCCESS) {
        pthread_mutex_lock(&lock);
        if (nmems < MAXMEM) { mems[nmems].m = *m; mems[nmems].type = ai->memoryTypeIndex; mems[nmems].size = ai->allocationSize; nmems++; }
        pthread_mutex_unlock(&lock);
    }
    return r;
}
static VKAPI_ATTR VkResult VKAPI_CALL CreateBuffer(VkDevice d, const VkBufferCreateInfo *ci, const VkAllocationCallbacks *a, VkBuffer *b) {
    unsigned long k = n_buffers++;
    if (k < 200)
        logf_("buffer %llu bytes usage 0x%x flags 0x%x sharing %d\n", (unsigned long long)ci->size, (unsigned)ci->usage, (unsigned)ci->flags,
              (int)ci->sharingMode);
    return next_CreateBuffer(d, ci, a, b);
}

static void log_device(const VkDeviceCreateInfo *ci) {
    logf_("device: %u extensions\n", ci->enabledExtensionCount);
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) logf_("  extension %s\n", ci->ppEnabledExtensionNames[i]);
    for (uint32_t i = 0; i < ci->queueCreateInfoCount; i++) {
        const VkDeviceQueueCreateInfo *q = &ci->pQueueCreateInfos[i];
        logf_("  queues: family %u count %u priorities", q->queueFamilyIndex, q->queueCount);
        for (uint32_t k = 0; k < q->queueCount; k++) logf_(" %.2f", q->pQueuePriorities[k]);
        logf_(" flags 0x%x\n", (unsigned)q->flags);
    }
    for (const VkBaseInStructure *b = ci->pNext; b; b = b->pNext) {
        logf_("  chained sType %d", (int)b->sType);
        if (b->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2) {
            const VkPhysicalDeviceFeatures *f = &((const VkPhysicalDeviceFeatures2 *)b)->features;
            logf_(" robustBufferAccess %u shaderFloat64 %u shaderInt64 %u", f->robustBufferAccess, f->shaderFloat64, f->shaderInt64);
        }
        if (b->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT) {
            const VkPhysicalDeviceShaderAtomicFloatFeaturesEXT *f = (const void *)b;
            logf_(" bufferFloat32AtomicAdd %u bufferFloat32Atomics %u sharedFloat32AtomicAdd %u", f->shaderBufferFloat32AtomicAdd,
                  f->shaderBufferFloat32Atomics, f->shaderSharedFloat32AtomicAdd);
        }
        if (b->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES) {
            const VkPhysicalDeviceVulkan12Features *f = (const void *)b;
            logf_(" shaderFloat16 %u bufferInt64Atomics %u sharedInt64Atomics %u", f->shaderFloat16, f->shaderBufferInt64Atomics,
                  f->shaderSharedInt64Atomics);
        }
        if (b->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES) {
            const VkPhysicalDeviceVulkan14Features *f = (const void *)b;
            logf_(" pipelineRobustness %u", f->pipelineRobustness);
        }
        logf_("\n");
    }
}

static void __attribute__((destructor)) report(void) {
    const char *path = getenv("VKTRACE_OUT");
    FILE *f = path && *path ? fopen(path, "w") : NULL;
    FILE *o = f ? f : stderr;
    if (log_buf) fputs(log_buf, o);
    for (int i = 0; i < nqueues; i++)
        fprintf(o, "queue family %u index %u: %lu submits, %lu command buffers, %lu waits, %lu signals\n", queues[i].family, queues[i].index,
                (unsigned long)queues[i].submits, (unsigned long)queues[i].cbs, (unsigned long)queues[i].waits, (unsigned long)queues[i].signals);
    fprintf(o, "dispatches %lu (%lu workgroups), pipeline binds %lu, push descriptors %lu, push constants %lu\n", (unsigned long)n_dispatch,
            (unsigned long)n_dispatch_groups, (unsigned long)n_bind_pipeline, (unsigned long)n_push_desc, (unsigned long)n_push_const);
    fprintf(o, "barriers %lu (%lu memory, %lu buffer), copies %lu (%lu bytes), fills %lu, timestamps %lu\n", (unsigned long)n_barrier,
            (unsigned long)n_barrier_mem, (unsigned long)n_barrier_buf, (unsigned long)n_copy, (unsigned long)n_copy_bytes, (unsigned long)n_fill,
            (unsigned long)n_timestamp);
    fprintf(o, "memory allocations %lu (%lu bytes), buffers %lu\n", (unsigned long)n_alloc_mem, (unsigned long)n_alloc_bytes, (unsigned long)n_buffers);
    for (int i = 0; i < nshapes; i++) fprintf(o, "dispatch %ux%ux%u: %lu\n", shapes[i].x, shapes[i].y, shapes[i].z, (unsigned long)shapes[i].n);
    if (f) fclose(f);
}

static PFN_vkVoidFunction intercept(const char *name);

static VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a, VkInstance *inst) {
    VkLayerInstanceCreateInfo *li = (VkLayerInstanceCreateInfo *)ci->pNext;
    while (li && !(li->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && li->function == VK_LAYER_LINK_INFO))
        li = (VkLayerInstanceCreateInfo *)li->pNext;
    if (!li) return VK_ERROR_INITIALIZATION_FAILED;
    next_gipa = li->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    li->u.pLayerInfo = li->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkResult r = create(ci, a, inst);
    if (r == VK_SUCCESS) last_instance = *inst;
    return r;
}

#define LOAD(name) next_##name = (PFN_vk##name)next_gdpa(*dev, "vk" #name)

static VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci, const VkAllocationCallbacks *a, VkDevice *dev) {
    VkLayerDeviceCreateInfo *li = (VkLayerDeviceCreateInfo *)ci->pNext;
    while (li && !(li->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && li->function == VK_LAYER_LINK_INFO))
        li = (VkLayerDeviceCreateInfo *)li->pNext;
    if (!li) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = li->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    next_gdpa = li->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    li->u.pLayerInfo = li->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(VK_NULL_HANDLE, "vkCreateDevice");
    log_device(ci);
    PFN_vkGetPhysicalDeviceMemoryProperties mp = (PFN_vkGetPhysicalDeviceMemoryProperties)next_gipa(last_instance, "vkGetPhysicalDeviceMemoryProperties");
    if (mp) {
        VkPhysicalDeviceMemoryProperties p;
        mp(pd, &p);
        for (uint32_t i = 0; i < p.memoryTypeCount; i++)
            logf_("  memory type %u: heap %u flags 0x%x\n", i, p.memoryTypes[i].heapIndex, (unsigned)p.memoryTypes[i].propertyFlags);
    }
    VkResult r = create(pd, ci, a, dev);
    if (r != VK_SUCCESS) return r;
    LOAD(CreateShaderModule);
    LOAD(CreateComputePipelines);
    LOAD(GetDeviceQueue);
    LOAD(GetDeviceQueue2);
    LOAD(QueueSubmit);
    LOAD(QueueSubmit2);
    LOAD(CmdDispatch);
    LOAD(CmdDispatchBase);
    LOAD(CmdPipelineBarrier);
    LOAD(CmdPipelineBarrier2);
    LOAD(CmdCopyBuffer);
    LOAD(CmdCopyBuffer2);
    LOAD(CmdFillBuffer);
    LOAD(CmdWriteTimestamp);
    LOAD(CmdWriteTimestamp2);
    LOAD(CmdBindPipeline);
    LOAD(CmdPushDescriptorSet);
    LOAD(CmdPushDescriptorSet2);
    LOAD(CmdPushDescriptorSetKHR);
    LOAD(CmdPushConstants);
    LOAD(CmdPushConstants2);
    LOAD(AllocateMemory);
    LOAD(CreateBuffer);
    LOAD(BindBufferMemory);
    LOAD(BindBufferMemory2);
    return r;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vktrace_GetDeviceProcAddr(VkDevice d, const char *name) {
    PFN_vkVoidFunction f = intercept(name);
    if (f) return f;
    return next_gdpa ? next_gdpa(d, name) : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vktrace_GetInstanceProcAddr(VkInstance i, const char *name) {
    if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)CreateInstance;
    if (!strcmp(name, "vkCreateDevice")) return (PFN_vkVoidFunction)CreateDevice;
    if (!strcmp(name, "vkGetInstanceProcAddr")) return (PFN_vkVoidFunction)vktrace_GetInstanceProcAddr;
    if (!strcmp(name, "vkGetDeviceProcAddr")) return (PFN_vkVoidFunction)vktrace_GetDeviceProcAddr;
    PFN_vkVoidFunction f = intercept(name);
    if (f) return f;
    return next_gipa ? next_gipa(i, name) : NULL;
}

/* A device function is intercepted only where the next layer has it (the loader then hands the
 * intercept out; a NULL next pointer would crash on the first call). */
#define HOOK(name)                                                              \
    if (!strcmp(pname, "vk" #name)) return next_##name ? (PFN_vkVoidFunction)name : NULL;
static PFN_vkVoidFunction intercept(const char *name) {
    const char *pname = name;
    if (!next_gdpa) return NULL;
    HOOK(CreateShaderModule)
    HOOK(CreateComputePipelines)
    HOOK(GetDeviceQueue)
    HOOK(GetDeviceQueue2)
    HOOK(QueueSubmit)
    HOOK(QueueSubmit2)
    HOOK(CmdDispatch)
    HOOK(CmdDispatchBase)
    HOOK(CmdPipelineBarrier)
    HOOK(CmdPipelineBarrier2)
    HOOK(CmdCopyBuffer)
    HOOK(CmdCopyBuffer2)
    HOOK(CmdFillBuffer)
    HOOK(CmdWriteTimestamp)
    HOOK(CmdWriteTimestamp2)
    HOOK(CmdBindPipeline)
    HOOK(CmdPushDescriptorSet)
    HOOK(CmdPushDescriptorSet2)
    HOOK(CmdPushDescriptorSetKHR)
    HOOK(CmdPushConstants)
    HOOK(CmdPushConstants2)
    HOOK(AllocateMemory)
    HOOK(CreateBuffer)
    HOOK(BindBufferMemory)
    HOOK(BindBufferMemory2)
    return NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
    if (v->loaderLayerInterfaceVersion > 2) v->loaderLayerInterfaceVersion = 2;
    v->pfnGetInstanceProcAddr = vktrace_GetInstanceProcAddr;
    v->pfnGetDeviceProcAddr = vktrace_GetDeviceProcAddr;
    v->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
