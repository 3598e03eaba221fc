/* What CUDA's copy engines reach on a Vulkan device's own memory: an upload and a download at
 * once, by cuMemcpy on two streams, between
 *   native    CUDA's pinned host memory (cuMemAllocHost) and cuMemAlloc'd device memory: the bus
 *             figure bench/pcie.py gives through PyTorch;
 *   vulkan    Vulkan allocations exported as opaque fds and imported into CUDA: host visible,
 *             host cached memory (the core's pinned frames and download planes) and device local
 *             memory (its GPU planes), so the copies are device-to-device over imported pointers;
 *   mixed     CUDA's pinned host memory and imported Vulkan device memory.
 * bench/vkcopy gives the same figures through Vulkan's queues; where this reaches the bus with
 * Vulkan's memory and vkcopy does not, the copies, not the memory, are what limits the core's
 * uploads and downloads beside each other. The CUDA driver is loaded at run time (libcuda.so.1).
 *
 * Use: vkcuda [--mib N] [--reps N]. One line per measurement on stdout. */
#include <vulkan/vulkan.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudaload.h"
#include "pick.h"

static VkDevice dev;
static PFN_vkGetMemoryFdKHR get_fd;
static size_t bytes;
static int reps = 4;

/* A dedicated, exportable Vulkan allocation of `bytes` imported into CUDA: its device pointer. */
static CUdeviceptr vulkan_memory(VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid, const char *what) {
    VkExternalMemoryBufferCreateInfo ext = {VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.pNext = &ext;
    bi.size = bytes;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer b;
    CHECK(vkCreateBuffer(dev, &bi, NULL, &b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b, &req);
    uint32_t t = memtype(req.memoryTypeBits, want, avoid);
    if (t == UINT32_MAX) {
        fprintf(stderr, "vkcuda: no memory type for %s\n", what);
        exit(1);
    }
    VkMemoryDedicatedAllocateInfo ded = {VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    ded.buffer = b;
    VkExportMemoryAllocateInfo ex = {VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    ex.pNext = &ded;
    ex.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &ex;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = t;
    VkDeviceMemory m;
    VkResult r = vkAllocateMemory(dev, &ai, NULL, &m);
    if (r != VK_SUCCESS) {
        printf("vulkan %s: no exportable allocation of memory type %u (%d)\n", what, t, r);
        return 0;
    }
    CHECK(vkBindBufferMemory(dev, b, m, 0));
    if (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        void *p;
        CHECK(vkMapMemory(dev, m, 0, VK_WHOLE_SIZE, 0, &p));
        memset(p, 0x5a, bytes);
    }
    VkMemoryGetFdInfoKHR gi = {VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    gi.memory = m;
    gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd;
    CHECK(get_fd(dev, &gi, &fd));
    MemDesc md = {0};
    md.type = 1; /* CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD */
    md.handle.fd = fd;
    md.size = req.size;
    md.flags = 1; /* CUDA_EXTERNAL_MEMORY_DEDICATED */
    CUexternalMemory em;
    cucheck(cu.import(&em, &md), "cuImportExternalMemory");
    BufDesc bd = {0};
    bd.size = bytes;
    CUdeviceptr ptr;
    cucheck(cu.mapped(&ptr, em, &bd), "cuExternalMemoryGetMappedBuffer");
    printf("vulkan %s: %zu MiB, memory type %u (flags 0x%x), imported\n", what, bytes >> 20, t, memprops.memoryTypes[t].propertyFlags);
    return ptr;
}

/* A side of a measurement: where its copies go from and to (host pointers where CUDA's own
 * pinned memory is one end, else device pointers, imported ones included). */
typedef struct {
    int up;
    void *host;
    CUdeviceptr hostptr, devptr;
} Side;

static void enqueue(const Side *s, CUstream st) {
    for (int r = 0; r < reps; r++) {
        if (s->host && s->up) cucheck(cu.htod(s->devptr, s->host, bytes, st), "cuMemcpyHtoDAsync");
        else if (s->host) cucheck(cu.dtoh(s->host, s->devptr, bytes, st), "cuMemcpyDtoHAsync");
        else if (s->up) cucheck(cu.dtod(s->devptr, s->hostptr, bytes, st), "cuMemcpyDtoDAsync");
        else cucheck(cu.dtod(s->hostptr, s->devptr, bytes, st), "cuMemcpyDtoDAsync");
    }
}

/* The sides at once on streams of their own, best of three: each side's GB/s (from its stream's
 * events) and, returned, all bytes over the wall time. */
static double measure(const Side *sides, int n, CUstream *streams, double *gbps) {
    static CUevent ev[2][2]; /* made once, reused by every measurement */
    for (int k = 0; k < n; k++)
        for (int e = 0; e < 2; e++)
            if (!ev[k][e]) cucheck(cu.event_create(&ev[k][e], 0), "cuEventCreate");
    double together = 0;
    for (int k = 0; k < n; k++) gbps[k] = 0;
    for (int trial = 0; trial < 3; trial++) {
        double t0 = now();
        for (int k = 0; k < n; k++) {
            cucheck(cu.event_record(ev[k][0], streams[k]), "cuEventRecord");
            enqueue(&sides[k], streams[k]);
            cucheck(cu.event_record(ev[k][1], streams[k]), "cuEventRecord");
        }
        for (int k = 0; k < n; k++) cucheck(cu.sync(streams[k]), "cuStreamSynchronize");
        double wall = now() - t0;
        for (int k = 0; k < n; k++) {
            float ms;
            cucheck(cu.elapsed(&ms, ev[k][0], ev[k][1]), "cuEventElapsedTime");
            double g = (double)bytes * reps / (ms * 1e-3) / 1e9;
            if (g > gbps[k]) gbps[k] = g;
        }
        double t = (double)bytes * reps * n / wall / 1e9;
        if (t > together) together = t;
    }
    return together;
}

static void report(const char *what, Side up, Side down, CUstream *streams) {
    double g[2];
    measure(&up, 1, streams, g);
    printf("%-7s up alone   %6.1f GB/s\n", what, g[0]);
    measure(&down, 1, streams + 1, g);
    printf("%-7s down alone %6.1f GB/s\n", what, g[0]);
    Side both[2] = {up, down};
    double t = measure(both, 2, streams, g);
    printf("%-7s both       %6.1f up %6.1f down %6.1f together\n", what, g[0], g[1], t);
}

int main(int argc, char **argv) {
    unsigned mib = 256;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mib") && i + 1 < argc) mib = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: vkcuda [--mib N] [--reps N]\n");
            return 2;
        }
    }
    bytes = (size_t)mib << 20;

    VkPhysicalDeviceIDProperties idp;
    int discrete;
    VkPhysicalDevice pd = pick_device("vkcuda", &idp, &discrete);
    if (!discrete) {
        fprintf(stderr, "vkcuda: no discrete Vulkan device\n");
        return 1;
    }
    float prio = 1;
    VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueCount = 1;
    qi.pQueuePriorities = &prio;
    const char *exts[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
    VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = 1;
    di.ppEnabledExtensionNames = exts;
    CHECK(vkCreateDevice(pd, &di, NULL, &dev));
    get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(dev, "vkGetMemoryFdKHR");

    if (cuda_load("vkcuda", idp.deviceUUID)) return 1;
    CUstream streams[2];
    for (int k = 0; k < 2; k++) cucheck(cu.stream_create(&streams[k], 1), "cuStreamCreate");
    printf("%u MiB x %d per measurement, best of 3, GB/s = 1e9 bytes/s; each direction on a stream of its own\n", mib, reps);

    void *host_up, *host_down;
    CUdeviceptr dev_up, dev_down;
    cucheck(cu.alloc_host(&host_up, bytes), "cuMemAllocHost");
    cucheck(cu.alloc_host(&host_down, bytes), "cuMemAllocHost");
    memset(host_up, 0x5a, bytes);
    memset(host_down, 0x5a, bytes);
    cucheck(cu.alloc(&dev_up, bytes), "cuMemAlloc");
    cucheck(cu.alloc(&dev_down, bytes), "cuMemAlloc");
    report("native", (Side){1, host_up, 0, dev_up}, (Side){0, host_down, 0, dev_down}, streams);

    VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    CUdeviceptr vk_dev_up = vulkan_memory(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "device (upload target)");
    CUdeviceptr vk_dev_down = vulkan_memory(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "device (download source)");
    if (vk_dev_up && vk_dev_down)
        report("mixed", (Side){1, host_up, 0, vk_dev_up}, (Side){0, host_down, 0, vk_dev_down}, streams);
    CUdeviceptr vk_host_up = vulkan_memory(host, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "host (upload source)");
    CUdeviceptr vk_host_down = vulkan_memory(host, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "host (download target)");
    if (vk_dev_up && vk_dev_down && vk_host_up && vk_host_down)
        report("vulkan", (Side){1, NULL, vk_host_up, vk_dev_up}, (Side){0, NULL, vk_host_down, vk_dev_down}, streams);
    return 0;
}
