/* Which of a Vulkan device's queues move host<->device bytes at the same time: each direction
 * alone on each queue, then an upload and a download at once on every pair of queues, by the
 * copy engine (vkCmdCopyBuffer) or by the shader cores (copy.spvasm, a compute dispatch that
 * reads or writes host memory). bench/pcie.py gives the bus's figures through CUDA; this gives
 * what Vulkan's queues reach, so the core's routing of uploads and downloads can follow it.
 *
 * Use: vkcopy [--mib N] [--reps N] [--uncached | --import | --cuda-host] [--sm-groups N] [--chunk-mib N]
 *              [UP,DOWN ...]
 * An engine is a family letter (G graphics, C compute without graphics, T transfer only), the
 * queue's index in that family and the method: T0, C1, G0 (copy engine) or C0s, G0s (shaders).
 * UP and DOWN are an engine each, or two joined by '+' (C0s+C1s,T1): several at once per side.
 * With no pairs it runs every pair of G0 G1 C0 C1 T0 T1, and the shader pairs with T0.
 * Host buffers are HOST_VISIBLE|HOST_COHERENT|HOST_CACHED (the core's pinned frames and download
 * planes), or without HOST_CACHED where --uncached; with --import, the process's own memory (2 MiB
 * aligned, transparent huge pages asked for) imported through VK_EXT_external_memory_host, to see
 * whether the driver's allocations are what limits both directions at once; with --cuda-host,
 * CUDA's pinned memory imported the same way (the CUDA driver loaded at run time). One line per
 * measurement on stdout. */
#include <vulkan/vulkan.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy_spv.h"
#include "cudaload.h"
#include "pick.h"

enum { MAXQ = 2, MAXF = 8 };

static VkDevice dev;
static VkDeviceSize bytes;
static int reps = 4;
/* --import: host buffers are the process's own memory (2 MiB aligned, transparent huge pages
 * asked for), imported with VK_EXT_external_memory_host, instead of the driver's allocations. */
static int import_host;
/* --cuda-host: the imported host buffers are CUDA's pinned memory (cuMemHostAlloc) instead: CUDA's
 * copies move both directions at once at the bus's speed on it and at half of it on Vulkan's
 * (vkcuda), so this tells whether Vulkan's queues do too on CUDA's pages. */
static int cuda_host;
/* --sm-groups N: shader copies run N workgroups of 256 (a grid-stride loop), 0 for one
 * invocation a word (the whole GPU). */
static uint32_t sm_groups;
/* --chunk-mib N: copy engine repetitions as copies of N MiB each (0: one copy). */
static VkDeviceSize chunk;
static PFN_vkGetMemoryHostPointerPropertiesEXT host_pointer_props;
static char role[MAXF];            /* 'G', 'C', 'T' or 0 (not used) per family */
static uint32_t qcount[MAXF];
static VkQueue queues[MAXF][MAXQ];
static VkCommandPool pools[MAXF][MAXQ];
static pthread_mutex_t qlock[MAXF][MAXQ];
/* per slot: a side of a measurement may have two engines, each with buffers of its own (two
 * shader uploads of one buffer would share the GPU's L2 as repetitions without barriers did) */
static VkBuffer host_up[2], host_down[2], dev_up[2], dev_down[2];
static VkPipeline pipe;
static VkPipelineLayout playout;
static VkDescriptorSet set_up[2], set_down[2];

static VkBuffer buffer(VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid, const char *what) {
    int imported = import_host && (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    VkExternalMemoryBufferCreateInfo ext = {VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    if (imported) bi.pNext = &ext;
    bi.size = bytes;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer b;
    CHECK(vkCreateBuffer(dev, &bi, NULL, &b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b, &req);
    void *host = NULL;
    uint32_t bits = req.memoryTypeBits;
    if (imported) {
        size_t align = 2u << 20, len = (bytes + align - 1) / align * align;
        int thp = 0;
        if (cuda_host) {
            cucheck(cu.host_alloc(&host, len, 1 /* CU_MEMHOSTALLOC_PORTABLE */), "cuMemHostAlloc");
        } else {
            char *raw = mmap(NULL, len + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (raw == MAP_FAILED) { perror("vkcopy: mmap"); exit(1); }
            host = (void *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
            thp = madvise(host, len, MADV_HUGEPAGE);
        }
        memset(host, 0x5a, bytes);
        VkMemoryHostPointerPropertiesEXT hp = {VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
        CHECK(host_pointer_props(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, host, &hp));
        bits &= hp.memoryTypeBits;
        if (cuda_host) printf("buffer %s: imported from CUDA's pinned memory (cuMemHostAlloc)\n", what);
        else printf("buffer %s: imported from process memory (2 MiB aligned, MADV_HUGEPAGE %s)\n", what, thp ? "refused" : "taken");
    }
    uint32_t t = memtype(bits, want, avoid);
    if (t == UINT32_MAX) t = memtype(bits, want, 0); /* unified memory (lavapipe) */
    if (t == UINT32_MAX && imported) t = memtype(bits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0);
    if (t == UINT32_MAX) {
        fprintf(stderr, "vkcopy: no memory type for the %s buffer\n", what);
        exit(1);
    }
    VkImportMemoryHostPointerInfoEXT imp = {VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT};
    imp.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    imp.pHostPointer = host;
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = imported ? (bytes + (2u << 20) - 1) / (2u << 20) * (2u << 20) : req.size;
    ai.memoryTypeIndex = t;
    if (imported) ai.pNext = &imp;
    VkDeviceMemory m;
    CHECK(vkAllocateMemory(dev, &ai, NULL, &m));
    CHECK(vkBindBufferMemory(dev, b, m, 0));
    if ((want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && !imported) {
        void *p;
        CHECK(vkMapMemory(dev, m, 0, VK_WHOLE_SIZE, 0, &p));
        memset(p, 0x5a, bytes); /* fault every page in before timing */
    }
    printf("buffer %s: %llu MiB, memory type %u (flags 0x%x, heap %u)\n", what, (unsigned long long)(bytes >> 20), t,
           memprops.memoryTypes[t].propertyFlags, memprops.memoryTypes[t].heapIndex);
    return b;
}

typedef struct {
    int fam, idx, shader, ok;
    char name[8];
} Engine;

static Engine parse(const char *s) {
    Engine e = {0};
    snprintf(e.name, sizeof e.name, "%s", s);
    e.fam = -1;
    for (int f = 0; f < MAXF; f++)
        if (role[f] == s[0]) e.fam = f;
    e.idx = s[1] - '0';
    e.shader = s[2] == 's';
    e.ok = e.fam >= 0 && e.idx >= 0 && (uint32_t)e.idx < qcount[e.fam] && !(e.shader && role[e.fam] == 'T');
    return e;
}

typedef struct {
    Engine e;
    int up, slot;
    pthread_barrier_t *start;
    double seconds;
} Job;

/* A barrier between repetitions: without it the dispatches of one submission run at once and
 * read the same host lines together, so the GPU's L2 serves most of them and a shader upload
 * reads "faster" than the bus (202 GB/s on the H100, 2026-12-06, four repetitions at once). */
static void rep_barrier(VkCommandBuffer cb) {
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    VkPipelineStageFlags st = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    vkCmdPipelineBarrier(cb, st, st, 0, 1, &mb, 0, NULL, 0, NULL);
}

static void record(VkCommandBuffer cb, const Engine *e, int up, int slot) {
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK(vkBeginCommandBuffer(cb, &bi));
    if (e->shader) {
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, playout, 0, 1, up ? &set_up[slot] : &set_down[slot], 0, NULL);
        uint32_t n = (uint32_t)(bytes / 16);
        uint32_t groups = sm_groups ? sm_groups : (n + 255) / 256;
        uint32_t pc[2] = {n, groups * 256};
        vkCmdPushConstants(cb, playout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof pc, pc);
        for (int r = 0; r < reps; r++) {
            if (r) rep_barrier(cb);
            vkCmdDispatch(cb, groups, 1, 1);
        }
    } else {
        /* --chunk-mib: each repetition as copies of that size, one command each */
        VkDeviceSize step = chunk ? chunk : bytes;
        for (int r = 0; r < reps; r++) {
            if (r) rep_barrier(cb);
            for (VkDeviceSize at = 0; at < bytes; at += step) {
                VkBufferCopy c = {at, at, bytes - at < step ? bytes - at : step};
                vkCmdCopyBuffer(cb, up ? host_up[slot] : dev_down[slot], up ? dev_up[slot] : host_down[slot], 1, &c);
            }
        }
    }
    CHECK(vkEndCommandBuffer(cb));
}

static void *run_job(void *arg) {
    Job *j = arg;
    pthread_mutex_lock(&qlock[j->e.fam][j->e.idx]);
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pools[j->e.fam][j->e.idx];
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(dev, &ai, &cb));
    record(cb, &j->e, j->up, j->slot);
    VkFenceCreateInfo fi = {VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    CHECK(vkCreateFence(dev, &fi, NULL, &fence));
    pthread_mutex_unlock(&qlock[j->e.fam][j->e.idx]);
    pthread_barrier_wait(j->start);
    double t = now();
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    pthread_mutex_lock(&qlock[j->e.fam][j->e.idx]);
    CHECK(vkQueueSubmit(queues[j->e.fam][j->e.idx], 1, &si, fence));
    pthread_mutex_unlock(&qlock[j->e.fam][j->e.idx]);
    CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
    j->seconds = now() - t;
    vkDestroyFence(dev, fence, NULL);
    pthread_mutex_lock(&qlock[j->e.fam][j->e.idx]);
    vkFreeCommandBuffers(dev, pools[j->e.fam][j->e.idx], 1, &cb);
    pthread_mutex_unlock(&qlock[j->e.fam][j->e.idx]);
    return NULL;
}

/* Runs the jobs at once (best of three): in gbps[0] and gbps[1] the uploads' and the downloads'
 * GB/s (each side's bytes over the time its last job took; 0 for a side without jobs), and
 * returned, the GB/s of all of them over the time the last one took (what they reach together,
 * not inflated by one finishing early and the other then running alone). */
static double measure(Job *jobs, int n, double *gbps) {
    double together = 0;
    gbps[0] = gbps[1] = 0;
    for (int trial = 0; trial < 3; trial++) {
        pthread_barrier_t b;
        pthread_barrier_init(&b, NULL, n);
        pthread_t th[4];
        for (int k = 0; k < n; k++) {
            jobs[k].start = &b;
            pthread_create(&th[k], NULL, run_job, &jobs[k]);
        }
        for (int k = 0; k < n; k++) pthread_join(th[k], NULL);
        pthread_barrier_destroy(&b);
        double last = 0, side_last[2] = {0, 0};
        int side_jobs[2] = {0, 0};
        for (int k = 0; k < n; k++) {
            int side = jobs[k].up ? 0 : 1;
            side_jobs[side]++;
            if (jobs[k].seconds > side_last[side]) side_last[side] = jobs[k].seconds;
            if (jobs[k].seconds > last) last = jobs[k].seconds;
        }
        for (int side = 0; side < 2; side++) {
            double g = side_jobs[side] ? (double)bytes * reps * side_jobs[side] / side_last[side] / 1e9 : 0;
            if (g > gbps[side]) gbps[side] = g;
        }
        double t = (double)bytes * reps * n / last / 1e9;
        if (t > together) together = t;
    }
    return together;
}

static void pipeline(void) {
    VkDescriptorSetLayoutBinding bind[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
    };
    VkDescriptorSetLayoutCreateInfo li = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.bindingCount = 2;
    li.pBindings = bind;
    VkDescriptorSetLayout sl;
    CHECK(vkCreateDescriptorSetLayout(dev, &li, NULL, &sl));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 8};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &sl;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pr;
    CHECK(vkCreatePipelineLayout(dev, &pli, NULL, &playout));
    VkShaderModuleCreateInfo mi = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = sizeof copy_spv;
    mi.pCode = (const uint32_t *)copy_spv;
    VkShaderModule sm;
    CHECK(vkCreateShaderModule(dev, &mi, NULL, &sm));
    VkComputePipelineCreateInfo ci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = sm;
    ci.stage.pName = "main";
    ci.layout = playout;
    CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipe));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = 4;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &ps;
    VkDescriptorPool dp;
    CHECK(vkCreateDescriptorPool(dev, &dpi, NULL, &dp));
    VkDescriptorSetLayout sls[4] = {sl, sl, sl, sl};
    VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dai.descriptorPool = dp;
    dai.descriptorSetCount = 4;
    dai.pSetLayouts = sls;
    VkDescriptorSet sets[4];
    CHECK(vkAllocateDescriptorSets(dev, &dai, sets));
    for (int slot = 0; slot < 2; slot++) {
        set_up[slot] = sets[2 * slot];
        set_down[slot] = sets[2 * slot + 1];
        VkDescriptorBufferInfo info[4] = {{host_up[slot], 0, bytes}, {dev_up[slot], 0, bytes}, {dev_down[slot], 0, bytes}, {host_down[slot], 0, bytes}};
        VkWriteDescriptorSet w[4];
        for (int k = 0; k < 4; k++) {
            w[k] = (VkWriteDescriptorSet){VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w[k].dstSet = k < 2 ? set_up[slot] : set_down[slot];
            w[k].dstBinding = k % 2;
            w[k].descriptorCount = 1;
            w[k].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w[k].pBufferInfo = &info[k];
        }
        vkUpdateDescriptorSets(dev, 4, w, 0, NULL);
    }
}

int main(int argc, char **argv) {
    unsigned mib = 256;
    int uncached = 0, first_pair = argc;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--uncached")) uncached = 1;
        else if (!strcmp(argv[i], "--import")) import_host = 1;
        else if (!strcmp(argv[i], "--cuda-host")) import_host = cuda_host = 1;
        else if (!strcmp(argv[i], "--sm-groups") && i + 1 < argc) sm_groups = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--chunk-mib") && i + 1 < argc) chunk = (VkDeviceSize)atoi(argv[++i]) << 20;
        else { first_pair = i; break; }
    }
    bytes = (VkDeviceSize)mib << 20;
    VkPhysicalDeviceIDProperties idp;
    VkPhysicalDevice pd = pick_device("vkcopy", &idp, NULL);
    if (cuda_host && cuda_load("vkcopy", idp.deviceUUID)) return 1;
    uint32_t nf = MAXF;
    VkQueueFamilyProperties fp[MAXF];
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, fp);
    VkDeviceQueueCreateInfo qi[MAXF];
    float prio[MAXQ] = {1, 1};
    uint32_t nq = 0;
    for (uint32_t f = 0; f < nf; f++) {
        VkQueueFlags q = fp[f].queueFlags;
        char r = (q & VK_QUEUE_GRAPHICS_BIT) ? 'G' : (q & VK_QUEUE_COMPUTE_BIT) ? 'C' : (q & VK_QUEUE_TRANSFER_BIT) ? 'T' : 0;
        int taken = 0;
        for (uint32_t g = 0; g < f; g++) taken |= role[g] == r;
        printf("family %u: flags 0x%x, %u queues, timestamp bits %u%s\n", f, q, fp[f].queueCount, fp[f].timestampValidBits,
               r && !taken ? (r == 'G' ? " -> G" : r == 'C' ? " -> C" : " -> T") : "");
        if (!r || taken) continue;
        role[f] = r;
        qcount[f] = fp[f].queueCount < MAXQ ? fp[f].queueCount : MAXQ;
        qi[nq] = (VkDeviceQueueCreateInfo){VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qi[nq].queueFamilyIndex = f;
        qi[nq].queueCount = qcount[f];
        qi[nq].pQueuePriorities = prio;
        nq++;
    }
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = nq;
    di.pQueueCreateInfos = qi;
    const char *exts[] = {VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
    if (import_host) {
        di.enabledExtensionCount = 1;
        di.ppEnabledExtensionNames = exts;
    }
    CHECK(vkCreateDevice(pd, &di, NULL, &dev));
    if (import_host) {
        host_pointer_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(dev, "vkGetMemoryHostPointerPropertiesEXT");
        if (!host_pointer_props) { fprintf(stderr, "vkcopy: no VK_EXT_external_memory_host\n"); return 1; }
    }
    for (uint32_t f = 0; f < nf; f++)
        for (uint32_t i = 0; i < qcount[f]; i++) {
            vkGetDeviceQueue(dev, f, i, &queues[f][i]);
            VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
            pi.queueFamilyIndex = f;
            pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
            CHECK(vkCreateCommandPool(dev, &pi, NULL, &pools[f][i]));
            pthread_mutex_init(&qlock[f][i], NULL);
        }
    VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkMemoryPropertyFlags hw = uncached ? host : host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    VkMemoryPropertyFlags havoid = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | (uncached ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0);
    for (int slot = 0; slot < 2; slot++) {
        host_up[slot] = buffer(hw, havoid, "host (upload source)");
        host_down[slot] = buffer(hw, havoid, "host (download target)");
        dev_up[slot] = buffer(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "device (upload target)");
        dev_down[slot] = buffer(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "device (download source)");
    }
    pipeline();
    if (import_host) { /* whether the kernel gave huge pages */
        FILE *f = fopen("/proc/self/smaps_rollup", "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "AnonHugePages:", 14)) printf("process %s", line);
        if (f) fclose(f);
    }
    printf("%u MiB x %d per measurement, best of 3, GB/s = 1e9 bytes/s; shader copies on %s\n", mib, reps,
           sm_groups ? "a grid-stride loop of --sm-groups workgroups" : "one invocation a word");

    static const char *engines[] = {"G0", "G1", "C0", "C1", "T0", "T1", "G0s", "C0s", "C1s"};
    const int ne = sizeof engines / sizeof *engines;
    for (int k = 0; k < ne; k++)
        for (int up = 1; up >= 0; up--) {
            Job j = {parse(engines[k]), up, 0, NULL, 0};
            if (!j.e.ok) continue;
            double g[2];
            measure(&j, 1, g);
            printf("alone %-3s %-4s %6.1f GB/s\n", engines[k], up ? "up" : "down", g[up ? 0 : 1]);
        }
    static const char *pairs[] = {"T0,T1", "T1,T0", "T0,C0", "C0,T0", "T0,G0", "G0,T0", "C0,C1", "G0,G1", "G0,C0", "C0,G0",
                                  "C0s,T0", "T0,C0s", "C0s,C1", "C0,C1s", "C0s,C1s", "G0s,T0", "T0,G0s"};
    int defaults = first_pair == argc;
    int np = defaults ? (int)(sizeof pairs / sizeof *pairs) : argc - first_pair;
    for (int k = 0; k < np; k++) {
        /* UP,DOWN: each side one engine or two joined by '+' (each with buffers of its own) */
        char s[64];
        snprintf(s, sizeof s, "%s", defaults ? pairs[k] : argv[first_pair + k]);
        char *comma = strchr(s, ',');
        if (!comma) { fprintf(stderr, "vkcopy: a pair is UP,DOWN, not %s\n", s); return 2; }
        *comma = 0;
        Job j[4];
        int n = 0, ok = 1;
        char *sides[2] = {s, comma + 1};
        for (int side = 0; side < 2; side++) {
            char *plus = strchr(sides[side], '+');
            if (plus) *plus = 0;
            j[n] = (Job){parse(sides[side]), side == 0, 0, NULL, 0};
            ok &= j[n++].e.ok;
            if (plus) {
                j[n] = (Job){parse(plus + 1), side == 0, 1, NULL, 0};
                ok &= j[n++].e.ok;
                *plus = '+';
            }
        }
        if (!ok) { printf("pair %s,%s: not on this device\n", s, comma + 1); continue; }
        double g[2];
        double t = measure(j, n, g);
        printf("pair up %-7s down %-7s %6.1f up %6.1f down %6.1f together\n", s, comma + 1, g[0], g[1], t);
    }
    vkDeviceWaitIdle(dev);
    return 0;
}
