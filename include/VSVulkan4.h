/*
 * VSVulkan4.h -- the GPU half of the VapourSynth API 4.3, vsvk edition.
 *
 * Written from scratch for vsvk; binary compatible with VapourSynth R81's VSVulkan4.h.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The table is reached through VSAPI::getVulkanAPI. It carries no version of its own: it is
 * tied to the core API version, and a plugin built against one layout must be rebuilt when
 * the layout changes. In outline:
 *  - the core owns one Vulkan 1.4 device; getVulkanHandles and getVulkanFunctions expose it;
 *  - submissions to the core's queues are made under lockVulkanQueue/unlockVulkanQueue;
 *  - a GPU plane is a linear buffer with a (timeline semaphore, value) pair that readers wait
 *    for; writers publish theirs with setGPUPlaneProducer (or let an exec pool do it);
 *  - frames used by a submission stay referenced until it has completed;
 *  - GPU producing filters return "vnode:gpu" and are created with ffGPUOutput.
 */

#ifndef VSVULKAN4_H
#define VSVULKAN4_H

#include "VapourSynth4.h"

/* Only the Vulkan types are used here, so prototypes are switched off unless the includer
   already pulled Vulkan in. */
#ifndef VULKAN_CORE_H_
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan_core.h>

/* The core always creates a Vulkan 1.4 device. */
#define VS_VULKAN_API_VERSION VK_API_VERSION_1_4

/* The handle a VSVulkanFunctions entry is loaded from. */
enum VSVulkanLevel {
    VS_VK_GLOBAL,   /* vkGetInstanceProcAddr(NULL, ...) */
    VS_VK_INSTANCE, /* vkGetInstanceProcAddr(instance, ...) */
    VS_VK_DEVICE    /* vkGetDeviceProcAddr(device, ...) */
};

/* Whether a VSVulkanFunctions entry may be NULL. */
enum VSVulkanRequirement {
    VS_VK_REQUIRED, /* always present on a working core */
    VS_VK_OPTIONAL  /* may be NULL: check before calling */
};

/* X-macro over VSVulkanFunctions, in member order: FN(level, requirement, name), where name
   lacks the "vk" prefix. */
#define VS_VK_FUNCTION_LIST(FN) \
    /* loader level, looked up with a NULL instance */ \
    FN(VS_VK_GLOBAL, VS_VK_REQUIRED, EnumerateInstanceVersion) \
    FN(VS_VK_GLOBAL, VS_VK_REQUIRED, EnumerateInstanceExtensionProperties) \
    FN(VS_VK_GLOBAL, VS_VK_REQUIRED, EnumerateInstanceLayerProperties) \
    FN(VS_VK_GLOBAL, VS_VK_REQUIRED, CreateInstance) \
    /* instance and physical device queries */ \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, DestroyInstance) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, EnumeratePhysicalDevices) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, GetPhysicalDeviceProperties2) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, GetPhysicalDeviceFeatures2) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, GetPhysicalDeviceMemoryProperties2) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, GetPhysicalDeviceQueueFamilyProperties2) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, GetPhysicalDeviceFormatProperties2) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, GetPhysicalDeviceImageFormatProperties2) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, EnumerateDeviceExtensionProperties) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, CreateDevice) \
    FN(VS_VK_INSTANCE, VS_VK_REQUIRED, GetDeviceProcAddr) \
    /* VK_EXT_debug_utils messenger; NULL unless enabled */ \
    FN(VS_VK_INSTANCE, VS_VK_OPTIONAL, CreateDebugUtilsMessengerEXT) \
    FN(VS_VK_INSTANCE, VS_VK_OPTIONAL, DestroyDebugUtilsMessengerEXT) \
    /* device and queues */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyDevice) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DeviceWaitIdle) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetDeviceQueue2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, QueueSubmit2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, QueueWaitIdle) \
    /* device memory */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, AllocateMemory) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, FreeMemory) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, MapMemory2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, UnmapMemory2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, FlushMappedMemoryRanges) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, InvalidateMappedMemoryRanges) \
    /* buffers */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateBuffer) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyBuffer) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetBufferMemoryRequirements2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, BindBufferMemory2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetBufferDeviceAddress) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetDeviceBufferMemoryRequirements) \
    /* images */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateImage) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyImage) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetImageMemoryRequirements2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, BindImageMemory2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateImageView) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyImageView) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetImageSubresourceLayout2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetDeviceImageMemoryRequirements) \
    /* samplers */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateSampler) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroySampler) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateSamplerYcbcrConversion) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroySamplerYcbcrConversion) \
    /* descriptor sets */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateDescriptorSetLayout) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyDescriptorSetLayout) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateDescriptorPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyDescriptorPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, ResetDescriptorPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, AllocateDescriptorSets) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, FreeDescriptorSets) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, UpdateDescriptorSets) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateDescriptorUpdateTemplate) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyDescriptorUpdateTemplate) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, UpdateDescriptorSetWithTemplate) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetDescriptorSetLayoutSupport) \
    /* compute pipelines and shader modules */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreatePipelineLayout) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyPipelineLayout) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateComputePipelines) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyPipeline) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreatePipelineCache) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyPipelineCache) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetPipelineCacheData) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, MergePipelineCaches) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateShaderModule) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyShaderModule) \
    /* command pools and command buffers */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateCommandPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyCommandPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, ResetCommandPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, TrimCommandPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, AllocateCommandBuffers) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, FreeCommandBuffers) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, BeginCommandBuffer) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, EndCommandBuffer) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, ResetCommandBuffer) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdExecuteCommands) \
    /* recording (the 1.4 core names of the "2" commands) */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdBindPipeline) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdBindDescriptorSets2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdPushConstants2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdPushDescriptorSet) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdPushDescriptorSetWithTemplate) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdDispatch) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdDispatchBase) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdDispatchIndirect) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdPipelineBarrier2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdCopyBuffer2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdCopyImage2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdCopyBufferToImage2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdCopyImageToBuffer2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdBlitImage2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdFillBuffer) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdUpdateBuffer) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdClearColorImage) \
    /* semaphores, fences and events */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateSemaphore) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroySemaphore) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, WaitSemaphores) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, SignalSemaphore) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetSemaphoreCounterValue) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateFence) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyFence) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, ResetFences) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, WaitForFences) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetFenceStatus) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateEvent) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyEvent) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdSetEvent2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdResetEvent2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdWaitEvents2) \
    /* queries and timestamps */ \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CreateQueryPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, DestroyQueryPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, GetQueryPoolResults) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, ResetQueryPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdResetQueryPool) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdWriteTimestamp2) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdCopyQueryPoolResults) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdBeginQuery) \
    FN(VS_VK_DEVICE, VS_VK_REQUIRED, CmdEndQuery) \
    /* VK_EXT_debug_utils names and labels; NULL unless enabled */ \
    FN(VS_VK_DEVICE, VS_VK_OPTIONAL, SetDebugUtilsObjectNameEXT) \
    FN(VS_VK_DEVICE, VS_VK_OPTIONAL, CmdBeginDebugUtilsLabelEXT) \
    FN(VS_VK_DEVICE, VS_VK_OPTIONAL, CmdEndDebugUtilsLabelEXT)

/* The core's dispatch table, one vkName member of type PFN_vkName per list entry. */
typedef struct VSVulkanFunctions {
#define VSVK_TABLE_ENTRY_(level, requirement, name) PFN_vk##name vk##name;
    VS_VK_FUNCTION_LIST(VSVK_TABLE_ENTRY_)
#undef VSVK_TABLE_ENTRY_
} VSVulkanFunctions;

/* The core's queues. vqCompute accepts any work. vqTransfer may be a transfer-only queue and
   must only be given copy commands; where there is no separate transfer queue it aliases a
   compute queue (possibly the vqCompute one). */
typedef enum VSVulkanQueueType {
    vqCompute = 0,
    vqTransfer = 1
} VSVulkanQueueType;

/* Outcome of a host-side wait (gpuExecPoolWaitIdle, gpuExecWaitValue, gpuTimelineWaitValue).
   Nonzero means failure. */
typedef enum VSGPUDrainResult {
    gdDrained = 0,    /* the work completed (for a pool: and all release callbacks ran) */
    gdIncomplete = 1, /* completion could not be established; the work may still be running */
    gdDeviceLost = 2  /* the device was lost or reset, so no work remains in flight */
} VSGPUDrainResult;

/* Whether resources used by the waited-for work may be destroyed after a wait that returned
   drainResult. Written as a list of safe results so that values added later count as unsafe. */
static inline int vsGPUDrainSafeToDestroy(int drainResult) {
    switch (drainResult) {
    case gdDrained:
    case gdDeviceLost:
        return 1;
    default:
        return 0;
    }
}

/* The core's Vulkan objects, for filters doing their own Vulkan work. */
typedef struct VSVulkanCoreHandles {
    VkInstance instance;
    VkPhysicalDevice physicalDevice;
    VkDevice device;
    PFN_vkGetInstanceProcAddr getInstanceProcAddr;
    uint32_t computeQueueFamily;
    uint32_t computeQueueIndex;
    uint32_t transferQueueFamily; /* the queue behind vqTransfer; may equal the compute one */
    uint32_t transferQueueIndex;
} VSVulkanCoreHandles;

/* A GPU plane: a linear buffer with the same stride and size as the CPU plane would have. */
typedef struct VSVulkanPlaneInfo {
    VkBuffer buffer;
    VkDeviceSize bufferSize;    /* stride * height */
    VkSemaphore readySemaphore; /* timeline to wait on before reading; VK_NULL_HANDLE: ready now */
    uint64_t readyValue;
} VSVulkanPlaneInfo;

/* A reference counted timeline semaphore owned by the core. Planes carrying one of its
   (semaphore, value) pairs keep it alive, so it can live on after its creator is freed. */
typedef struct VSGPUTimeline VSGPUTimeline;

/* A buffer allocated from the same device memory pool that frames use. */
typedef struct VSGPUBuffer VSGPUBuffer;

typedef struct VSVulkanBufferInfo {
    VkBuffer buffer;
    VkDeviceAddress address;           /* 0 unless the usage asked for a device address */
    void *mapped;                      /* persistent mapping when host visible, else NULL */
    VkDeviceSize size;                 /* the size that was asked for */
    VkMemoryPropertyFlags memoryFlags; /* properties of the memory type actually used */
} VSVulkanBufferInfo;

/* Bare pooled device memory, for binding resources such as images that the core does not create. */
typedef struct VSGPUMemory VSGPUMemory;

typedef struct VSVulkanMemoryInfo {
    VkDeviceMemory memory;             /* shared block: bind to it, never free it */
    VkDeviceSize offset;               /* start of the region inside memory */
    VkDeviceSize size;                 /* bytes reserved, at least the requested amount */
    void *mapped;                      /* host pointer to the region when host visible, else NULL */
    VkMemoryPropertyFlags memoryFlags; /* properties of the memory type actually used */
} VSVulkanMemoryInfo;

/* Bookkeeping for device memory allocated outside the core, so it counts against the core's
   budget. It only holds a byte count. */
typedef struct VSGPUMemoryReservation VSGPUMemoryReservation;

/* A plane's backing allocation exported as an OS handle for another API (CUDA, another
   Vulkan instance). Import the whole allocation and address the plane at offset. memoryId
   identifies the allocation for its whole life and is never reused; each export produces a
   new handle, which belongs to the caller. */
typedef struct VSVulkanExportedMemory {
    uint64_t memoryId;
    VkDeviceSize memorySize;
    uint32_t memoryTypeIndex; /* to be passed unchanged to a Vulkan import */
    VkDeviceSize offset;
    VkDeviceSize size;        /* stride * height */
    int handleType;           /* a VkExternalMemoryHandleTypeFlagBits value */
    intptr_t handle;          /* a HANDLE on Windows, a file descriptor elsewhere */
} VSVulkanExportedMemory;

/* 1 where importing exported memory charges it to the process a second time (Windows), so
   imports should be declared with reserveGPUMemory; 0 elsewhere. */
#ifdef _WIN32
#define VS_GPU_IMPORT_CHARGED_AGAIN 1
#else
#define VS_GPU_IMPORT_CHARGED_AGAIN 0
#endif

/* An exec pool bundles, for one of the core's queues, its own timeline semaphore, command
   pool and a small ring of recording contexts. A context belongs to the thread that acquired
   it until that thread submits or abandons it. */
typedef struct VSGPUExecPool VSGPUExecPool;
typedef struct VSGPUExecContext VSGPUExecContext;

/* Deferred cleanup registered with gpuExecRetain. */
typedef void (VS_CC *VSGPUReleaseFunc)(void *object);

/* SPIR-V compiled by the core; independent of the core once returned. */
typedef struct VSGPUShader VSGPUShader;

typedef enum VSGPUShaderLanguage {
    slGLSL = 0 /* GLSL compute shaders, #version 460, compiled for Vulkan 1.4 / SPIR-V 1.6 */
} VSGPUShaderLanguage;

/* OS handle for a timeline semaphore, from exportGPUSemaphore; each call yields a new one. */
typedef struct VSVulkanExportedSemaphore {
    int handleType;  /* a VkExternalSemaphoreHandleTypeFlagBits value */
    intptr_t handle; /* a HANDLE on Windows, a file descriptor elsewhere */
} VSVulkanExportedSemaphore;

typedef struct VSVulkanCoreInfo {
    char deviceName[256];
    int64_t deviceMemory; /* size of the largest device local heap */
    int64_t budget;       /* the driver's current budget for this process */
    int64_t allocated;    /* device memory the core currently uses */
    int64_t limit;        /* eviction threshold, see setMaxVRAMUse */
    uint8_t deviceUUID[VK_UUID_SIZE];
    uint8_t deviceLUID[VK_LUID_SIZE];
    uint32_t deviceNodeMask;
    int deviceLUIDValid;
    int exportHandleType;          /* handle type of exportGPUPlane, 0 when unsupported */
    int semaphoreExportHandleType; /* handle type of exportGPUSemaphore, 0 when unsupported */
    int unifiedMemory;             /* nonzero when device memory is host memory */
} VSVulkanCoreInfo;

/* One physical device as listed by enumerateVulkanDevices; its index is what setVulkanDevice
   takes. Devices that cannot be used are listed too, with the reason. */
typedef struct VSVulkanDeviceListEntry {
    char deviceName[256];
    uint32_t apiVersion;
    int deviceType;       /* a VkPhysicalDeviceType value */
    int64_t deviceMemory; /* size of the largest device local heap */
    int usable;
    char unusableReason[256];
    uint8_t deviceUUID[VK_UUID_SIZE];
    uint8_t deviceLUID[VK_LUID_SIZE];
    uint32_t deviceNodeMask;
    int deviceLUIDValid;
} VSVulkanDeviceListEntry;

/* Conventions: int results are 0 on success, pointer results NULL on failure; functions with
   an errorMessage buffer describe failures there. */
struct VSVULKANAPI {
    /* ---- Devices ---- */
    int (VS_CC *enumerateVulkanDevices)(VSVulkanDeviceListEntry *entries, int maxEntries, char *errorMessage, int errorMessageSize) VS_NOEXCEPT; /* number of devices, or -1 */
    int (VS_CC *setVulkanDevice)(VSCore *core, int deviceIndex, char *errorMessage, int errorMessageSize) VS_NOEXCEPT; /* before first use; -1 picks automatically */
    int (VS_CC *getVulkanCoreInfo)(VSCore *core, VSVulkanCoreInfo *info, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    int64_t (VS_CC *setMaxVRAMUse)(int64_t bytes, VSCore *core) VS_NOEXCEPT;

    /* ---- Raw Vulkan access ---- */
    int (VS_CC *getVulkanHandles)(VSCore *core, VSVulkanCoreHandles *handles, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    const VSVulkanFunctions *(VS_CC *getVulkanFunctions)(VSCore *core, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    void (VS_CC *lockVulkanQueue)(VSCore *core, int queue) VS_NOEXCEPT;   /* VSVulkanQueueType; hold only around vkQueueSubmit* */
    void (VS_CC *unlockVulkanQueue)(VSCore *core, int queue) VS_NOEXCEPT;

    /* ---- GPU frames ---- */
    VSFrame *(VS_CC *newGPUVideoFrame)(const VSVideoFormat *format, int width, int height, const VSFrame *propSrc, VSCore *core) VS_NOEXCEPT;
    int (VS_CC *getGPUPlane)(const VSFrame *frame, int plane, VSVulkanPlaneInfo *info) VS_NOEXCEPT;
    void (VS_CC *setGPUPlaneProducer)(const VSFrame *frame, int plane, VSGPUTimeline *timeline, uint64_t value) VS_NOEXCEPT;

    /* ---- Timelines ---- */
    VSGPUTimeline *(VS_CC *createGPUTimeline)(VSCore *core, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    void (VS_CC *freeGPUTimeline)(VSGPUTimeline *timeline) VS_NOEXCEPT;
    void (VS_CC *addGPUTimelineRef)(VSGPUTimeline *timeline) VS_NOEXCEPT;
    VkSemaphore (VS_CC *getGPUTimelineSemaphore)(VSGPUTimeline *timeline) VS_NOEXCEPT;
    int (VS_CC *gpuTimelineWaitValue)(VSGPUTimeline *timeline, uint64_t value, char *errorMessage, int errorMessageSize) VS_NOEXCEPT; /* VSGPUDrainResult */

    /* ---- Pooled device memory ---- */
    VSGPUBuffer *(VS_CC *createGPUBuffer)(VSCore *core, VkDeviceSize size, VkBufferUsageFlags usage,
        VkMemoryPropertyFlags requiredFlags, VkMemoryPropertyFlags preferredFlags,
        VSVulkanBufferInfo *info, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    void (VS_CC *destroyGPUBuffer)(VSGPUBuffer *buffer) VS_NOEXCEPT;
    VSGPUMemory *(VS_CC *allocateGPUMemory)(VSCore *core, const VkMemoryRequirements *requirements,
        VkMemoryPropertyFlags requiredFlags, VkMemoryPropertyFlags preferredFlags,
        VSVulkanMemoryInfo *info, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    void (VS_CC *freeGPUMemory)(VSGPUMemory *memory) VS_NOEXCEPT;
    VSGPUMemoryReservation *(VS_CC *reserveGPUMemory)(VSCore *core, int64_t bytes, char *errorMessage, int errorMessageSize) VS_NOEXCEPT; /* bytes is a total, not a delta */
    void (VS_CC *updateGPUMemoryReservation)(VSGPUMemoryReservation *reservation, int64_t bytes) VS_NOEXCEPT;
    void (VS_CC *releaseGPUMemoryReservation)(VSGPUMemoryReservation *reservation) VS_NOEXCEPT;

    /* ---- Shaders ---- */
    VSGPUShader *(VS_CC *compileGPUShader)(VSCore *core, int language, const char *source, char *errorLog, int errorLogSize) VS_NOEXCEPT; /* language: VSGPUShaderLanguage */
    const uint32_t *(VS_CC *getGPUShaderCode)(const VSGPUShader *shader, size_t *sizeInBytes) VS_NOEXCEPT;
    void (VS_CC *freeGPUShader)(VSGPUShader *shader) VS_NOEXCEPT;

    /* ---- Exec pools ---- */
    VSGPUExecPool *(VS_CC *createGPUExecPool)(VSCore *core, int queue, char *errorMessage, int errorMessageSize) VS_NOEXCEPT; /* queue: VSVulkanQueueType */
    void (VS_CC *freeGPUExecPool)(VSGPUExecPool *pool) VS_NOEXCEPT;
    int (VS_CC *gpuExecPoolWaitIdle)(VSGPUExecPool *pool, char *errorMessage, int errorMessageSize) VS_NOEXCEPT; /* VSGPUDrainResult */
    int (VS_CC *gpuExecWaitValue)(VSGPUExecPool *pool, uint64_t value, char *errorMessage, int errorMessageSize) VS_NOEXCEPT; /* VSGPUDrainResult */
    VSGPUTimeline *(VS_CC *gpuExecPoolTimeline)(VSGPUExecPool *pool) VS_NOEXCEPT;

    /* ---- Recording contexts ---- */
    VSGPUExecContext *(VS_CC *gpuExecAcquire)(VSGPUExecPool *pool, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    VkCommandBuffer (VS_CC *gpuExecCommandBuffer)(VSGPUExecContext *context) VS_NOEXCEPT;
    void (VS_CC *gpuExecReadsFrame)(VSGPUExecContext *context, const VSFrame *frame) VS_NOEXCEPT;
    void (VS_CC *gpuExecWritesPlane)(VSGPUExecContext *context, VSFrame *frame, int plane) VS_NOEXCEPT;
    void (VS_CC *gpuExecUsesBuffer)(VSGPUExecContext *context, VSGPUBuffer *buffer) VS_NOEXCEPT;
    void (VS_CC *gpuExecUsesMemory)(VSGPUExecContext *context, VSGPUMemory *memory) VS_NOEXCEPT;
    void (VS_CC *gpuExecRetain)(VSGPUExecContext *context, VSGPUReleaseFunc release, void *object, VkDeviceSize bytes) VS_NOEXCEPT;
    int (VS_CC *gpuExecSubmit)(VSGPUExecContext *context, uint64_t *signaledValue, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    void (VS_CC *gpuExecAbandon)(VSGPUExecContext *context) VS_NOEXCEPT;

    /* ---- Interop with other APIs ---- */
    int (VS_CC *exportGPUPlane)(const VSFrame *frame, int plane, VSVulkanExportedMemory *out, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    int (VS_CC *exportGPUSemaphore)(VSCore *core, VkSemaphore semaphore, VSVulkanExportedSemaphore *out, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    int (VS_CC *waitGPUFrame)(const VSFrame *frame, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
    const VSFrame *(VS_CC *getExportableFrameFilter)(int n, VSNode *node, VSFrameContext *frameCtx, char *errorMessage, int errorMessageSize) VS_NOEXCEPT;
};

#endif /* VSVULKAN4_H */
