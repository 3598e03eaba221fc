/* Vulkan Video decode on FFmpeg's own Vulkan device, made on the core's physical device (checked by
 * UUID). The core's device has no video extensions (the GPU guide fixes its extension set), so the
 * pictures cross devices the way the guide prescribes: the core exports a frame plane's memory and
 * a timeline of ours, this device imports both, copies the picture's planes into the plane and
 * signals the timeline; the core then splits the planes on its own queue, waiting on that value.
 * Both devices are the same GPU, so nothing crosses the bus.
 *
 * FFmpeg's frame protocol (hwcontext_vulkan.h): under lock_frame, a submission reading the image
 * waits every sem[i] at sem_value[i], signals it at sem_value[i] + 1, and records the layout and
 * access it leaves (here: those it found, restored after the copy). FFmpeg's next decode into the image then waits for the copy, so the AVFrame can
 * go back to the decoder's pool as soon as the copy is submitted: nothing is held past that. */
#include "hwdec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_vulkan.h>
#include <libavutil/pixdesc.h>

#define RING 4          /* command buffers in flight */
#define MAX_IMPORTS 64  /* imported core memory blocks kept */
#define WAIT_NS 10000000000ull /* a copy that takes 10 s is a hung device, not a slow one */

typedef struct Import {
    uint64_t id;
    VkDeviceMemory memory;
    VkBuffer buffer;
} Import;

struct VkdHw {
    AVBufferRef *device;
    AVHWDeviceContext *dc;
    AVVulkanDeviceContext *vk;
    VkDevice dev;
    uint32_t family;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd[RING];
    VkFence fence[RING];
    int next;
    VkSemaphore timeline;
    Import imports[MAX_IMPORTS];
    int nimports;

    PFN_vkGetDeviceProcAddr GetDeviceProcAddr;
#define FN(name) PFN_##name name
    FN(vkDeviceWaitIdle); FN(vkGetDeviceQueue); FN(vkCreateCommandPool); FN(vkDestroyCommandPool);
    FN(vkAllocateCommandBuffers); FN(vkBeginCommandBuffer); FN(vkEndCommandBuffer); FN(vkResetCommandBuffer);
    FN(vkCmdPipelineBarrier2); FN(vkCmdCopyImageToBuffer); FN(vkQueueSubmit2); FN(vkCreateFence);
    FN(vkDestroyFence); FN(vkWaitForFences); FN(vkResetFences); FN(vkCreateSemaphore); FN(vkDestroySemaphore);
    FN(vkImportSemaphoreFdKHR); FN(vkAllocateMemory); FN(vkFreeMemory); FN(vkCreateBuffer); FN(vkDestroyBuffer);
    FN(vkGetBufferMemoryRequirements); FN(vkBindBufferMemory);
#undef FN
};

static void say(char *err, int errlen, const char *what, VkResult r) {
    snprintf(err, (size_t)errlen, "%s failed (VkResult %d)", what, (int)r);
}

static int load(VkdHw *h, char *err, int errlen) {
    PFN_vkGetInstanceProcAddr gipa = h->vk->get_proc_addr;
    h->GetDeviceProcAddr = (PFN_vkGetDeviceProcAddr)gipa(h->vk->inst, "vkGetDeviceProcAddr");
    if (!h->GetDeviceProcAddr) return snprintf(err, (size_t)errlen, "no vkGetDeviceProcAddr"), VKD_UNSUPPORTED;
#define LOAD(name)                                                                                 \
    if (!(h->name = (PFN_##name)h->GetDeviceProcAddr(h->dev, #name)))                              \
        return snprintf(err, (size_t)errlen, "FFmpeg's Vulkan device lacks %s", #name), VKD_UNSUPPORTED;
    LOAD(vkDeviceWaitIdle) LOAD(vkGetDeviceQueue) LOAD(vkCreateCommandPool) LOAD(vkDestroyCommandPool)
    LOAD(vkAllocateCommandBuffers) LOAD(vkBeginCommandBuffer) LOAD(vkEndCommandBuffer) LOAD(vkResetCommandBuffer)
    LOAD(vkCmdPipelineBarrier2) LOAD(vkCmdCopyImageToBuffer) LOAD(vkQueueSubmit2) LOAD(vkCreateFence)
    LOAD(vkDestroyFence) LOAD(vkWaitForFences) LOAD(vkResetFences) LOAD(vkCreateSemaphore) LOAD(vkDestroySemaphore)
    LOAD(vkImportSemaphoreFdKHR) LOAD(vkAllocateMemory) LOAD(vkFreeMemory) LOAD(vkCreateBuffer) LOAD(vkDestroyBuffer)
    LOAD(vkGetBufferMemoryRequirements) LOAD(vkBindBufferMemory)
#undef LOAD
    return VKD_OK;
}

static int same_gpu(VkdHw *h, const uint8_t uuid[16], char *err, int errlen) {
    PFN_vkGetPhysicalDeviceProperties2 props2 =
        (PFN_vkGetPhysicalDeviceProperties2)h->vk->get_proc_addr(h->vk->inst, "vkGetPhysicalDeviceProperties2");
    if (!props2) return snprintf(err, (size_t)errlen, "no vkGetPhysicalDeviceProperties2"), VKD_UNSUPPORTED;
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
    props2(h->vk->phys_dev, &p);
    if (memcmp(id.deviceUUID, uuid, 16))
        return snprintf(err, (size_t)errlen, "FFmpeg's device %s is not the core's GPU", p.properties.deviceName), VKD_UNSUPPORTED;
    return VKD_OK;
}

int vkd_hw_create(VkdHw **out, int index, const uint8_t uuid[16], AVBufferRef **device, char *err, int errlen) {
    *out = NULL;
    VkdHw *h = calloc(1, sizeof *h);
    if (!h) return snprintf(err, (size_t)errlen, "out of memory"), VKD_INTERNAL;
    char name[16];
    snprintf(name, sizeof name, "%d", index);
    int r = av_hwdevice_ctx_create(&h->device, AV_HWDEVICE_TYPE_VULKAN, name, NULL, 0);
    if (r < 0) {
        char e[128];
        av_strerror(r, e, sizeof e);
        snprintf(err, (size_t)errlen, "FFmpeg cannot make a Vulkan device: %s", e);
        free(h);
        return VKD_UNSUPPORTED;
    }
    h->dc = (AVHWDeviceContext *)h->device->data;
    h->vk = h->dc->hwctx;
    h->dev = h->vk->act_dev;
    if ((r = same_gpu(h, uuid, err, errlen)) || (r = load(h, err, errlen))) { vkd_hw_free(h); return r; }

    /* copies go to a queue that takes transfers and is not a video queue */
    int fam = -1;
    for (int i = 0; i < h->vk->nb_qf && fam < 0; i++) {
        VkQueueFlags f = h->vk->qf[i].flags;
        if ((f & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) &&
            !(f & (VK_QUEUE_VIDEO_DECODE_BIT_KHR | VK_QUEUE_VIDEO_ENCODE_BIT_KHR)))
            fam = h->vk->qf[i].idx;
    }
    if (fam < 0) { snprintf(err, (size_t)errlen, "FFmpeg's Vulkan device has no transfer queue"); vkd_hw_free(h); return VKD_UNSUPPORTED; }
    h->family = (uint32_t)fam;
    h->vkGetDeviceQueue(h->dev, h->family, 0, &h->queue);
    VkCommandPoolCreateInfo cp = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, .queueFamilyIndex = h->family};
    VkResult vr = h->vkCreateCommandPool(h->dev, &cp, NULL, &h->pool);
    if (vr) { say(err, errlen, "vkCreateCommandPool", vr); vkd_hw_free(h); return VKD_INTERNAL; }
    VkCommandBufferAllocateInfo ca = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = h->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = RING};
    if ((vr = h->vkAllocateCommandBuffers(h->dev, &ca, h->cmd))) { say(err, errlen, "vkAllocateCommandBuffers", vr); vkd_hw_free(h); return VKD_INTERNAL; }
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT};
    for (int i = 0; i < RING; i++)
        if ((vr = h->vkCreateFence(h->dev, &fi, NULL, &h->fence[i]))) { say(err, errlen, "vkCreateFence", vr); vkd_hw_free(h); return VKD_INTERNAL; }
    *device = av_buffer_ref(h->device);
    if (!*device) { vkd_hw_free(h); return snprintf(err, (size_t)errlen, "out of memory"), VKD_INTERNAL; }
    *out = h;
    return VKD_OK;
}

int vkd_hw_import_timeline(VkdHw *h, int handle_type, int fd, char *err, int errlen) {
    VkSemaphoreTypeCreateInfo ti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO, .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &ti};
    VkResult r = h->vkCreateSemaphore(h->dev, &si, NULL, &h->timeline);
    if (r) { close(fd); return say(err, errlen, "vkCreateSemaphore", r), VKD_INTERNAL; }
    VkImportSemaphoreFdInfoKHR imp = {.sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR, .semaphore = h->timeline,
                                      .handleType = (VkExternalSemaphoreHandleTypeFlagBits)handle_type, .fd = fd};
    if ((r = h->vkImportSemaphoreFdKHR(h->dev, &imp))) { close(fd); return say(err, errlen, "vkImportSemaphoreFdKHR", r), VKD_UNSUPPORTED; }
    return VKD_OK; /* the fd belongs to the semaphore now */
}

static void drop_imports(VkdHw *h) {
    for (int i = 0; i < h->nimports; i++) {
        h->vkDestroyBuffer(h->dev, h->imports[i].buffer, NULL);
        h->vkFreeMemory(h->dev, h->imports[i].memory, NULL);
    }
    h->nimports = 0;
}

/* The core's memory block `t` names, imported once and kept by its id (every export hands out a
 * new handle, so the handle is closed when the block is known already). */
static int import_memory(VkdHw *h, const VkdHwTarget *t, VkBuffer *buf, char *err, int errlen) {
    for (int i = 0; i < h->nimports; i++)
        if (h->imports[i].id == t->memory_id) { close(t->fd); *buf = h->imports[i].buffer; return VKD_OK; }
    if (h->nimports == MAX_IMPORTS) {
        /* a full table: the core has recycled its blocks; forget them once our copies are done */
        h->vkDeviceWaitIdle(h->dev);
        drop_imports(h);
    }
    Import im = {.id = t->memory_id};
    VkImportMemoryFdInfoKHR imp = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                   .handleType = (VkExternalMemoryHandleTypeFlagBits)t->handle_type, .fd = t->fd};
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &imp,
                               .allocationSize = t->memory_size, .memoryTypeIndex = t->memory_type};
    VkResult r = h->vkAllocateMemory(h->dev, &ai, NULL, &im.memory);
    if (r) { close(t->fd); return say(err, errlen, "importing the core's memory (vkAllocateMemory)", r), VKD_INTERNAL; }
    VkExternalMemoryBufferCreateInfo eb = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                           .handleTypes = (VkExternalMemoryHandleTypeFlags)t->handle_type};
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &eb, .size = t->memory_size,
                             .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT, .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    if ((r = h->vkCreateBuffer(h->dev, &bi, NULL, &im.buffer))) {
        h->vkFreeMemory(h->dev, im.memory, NULL);
        return say(err, errlen, "vkCreateBuffer", r), VKD_INTERNAL;
    }
    VkMemoryRequirements req;
    h->vkGetBufferMemoryRequirements(h->dev, im.buffer, &req);
    if (req.size > t->memory_size || !(req.memoryTypeBits & (1u << t->memory_type)) ||
        (r = h->vkBindBufferMemory(h->dev, im.buffer, im.memory, 0))) {
        h->vkDestroyBuffer(h->dev, im.buffer, NULL);
        h->vkFreeMemory(h->dev, im.memory, NULL);
        return snprintf(err, (size_t)errlen, "cannot bind a buffer to the core's memory (VkResult %d)", (int)r), VKD_INTERNAL;
    }
    h->imports[h->nimports++] = im;
    *buf = im.buffer;
    return VKD_OK;
}

int vkd_hw_copy_frame(VkdHw *h, const AVFrame *f, const VkdHwTarget *t, char *err, int errlen) {
    if (f->format != AV_PIX_FMT_VULKAN || !f->hw_frames_ctx) { close(t->fd); return snprintf(err, (size_t)errlen, "not a Vulkan frame"), VKD_INTERNAL; }
    AVHWFramesContext *hwfc = (AVHWFramesContext *)f->hw_frames_ctx->data;
    AVVulkanFramesContext *fc = hwfc->hwctx;
    AVVkFrame *vkf = (AVVkFrame *)f->data[0];
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(hwfc->sw_format);
    if (!d || d->nb_components != 3 || !d->log2_chroma_w || !d->log2_chroma_h || d->comp[1].plane != 1 || d->comp[2].plane != 1) {
        close(t->fd);
        return snprintf(err, (size_t)errlen, "the decoder's surface format %s is not 4:2:0 with interleaved chroma", d ? d->name : "?"), VKD_UNSUPPORTED;
    }
    uint64_t bytes = d->comp[0].depth > 8 ? 2 : 1;
    uint64_t rows_y = (uint64_t)t->height, rows_c = (uint64_t)t->height / 2;
    if (t->offset + t->stride * (rows_y + rows_c) > t->memory_size || t->stride * (rows_y + rows_c) > t->size) {
        close(t->fd);
        return snprintf(err, (size_t)errlen, "the target plane is too small for the picture"), VKD_INTERNAL;
    }
    VkBuffer buf;
    int ret = import_memory(h, t, &buf, err, errlen);
    if (ret) return ret;

    int slot = h->next;
    h->next = (h->next + 1) % RING;
    VkResult r = h->vkWaitForFences(h->dev, 1, &h->fence[slot], VK_TRUE, WAIT_NS);
    if (r) return say(err, errlen, "waiting for an earlier copy", r), VKD_INTERNAL;
    VkCommandBuffer cmd = h->cmd[slot];
    h->vkResetCommandBuffer(cmd, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    h->vkBeginCommandBuffer(cmd, &bi);

    int multiplane = !vkf->img[1];
    int nimg = multiplane ? 1 : 2;
    fc->lock_frame(hwfc, vkf);
    VkImageMemoryBarrier2 ib[2];
    for (int i = 0; i < nimg; i++)
        ib[i] = (VkImageMemoryBarrier2){
            .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
            .srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
            .srcAccessMask = (VkAccessFlags2)vkf->access[i],
            .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
            .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
            .oldLayout = vkf->layout[i],
            .newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
            .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
            .image = vkf->img[i],
            .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, VK_REMAINING_ARRAY_LAYERS},
        };
    VkDependencyInfo dep = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO, .imageMemoryBarrierCount = (uint32_t)nimg, .pImageMemoryBarriers = ib};
    h->vkCmdPipelineBarrier2(cmd, &dep);
    /* luma rows, then the interleaved chroma rows, at the target's stride (rows in texels) */
    VkBufferImageCopy luma = {
        .bufferOffset = t->offset, .bufferRowLength = (uint32_t)(t->stride / bytes),
        .imageSubresource = {multiplane ? VK_IMAGE_ASPECT_PLANE_0_BIT : VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {(uint32_t)t->width, (uint32_t)t->height, 1}};
    VkBufferImageCopy chroma = {
        .bufferOffset = t->offset + t->stride * rows_y, .bufferRowLength = (uint32_t)(t->stride / (2 * bytes)),
        .imageSubresource = {multiplane ? VK_IMAGE_ASPECT_PLANE_1_BIT : VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .imageExtent = {(uint32_t)t->width / 2, (uint32_t)rows_c, 1}};
    h->vkCmdCopyImageToBuffer(cmd, vkf->img[0], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &luma);
    h->vkCmdCopyImageToBuffer(cmd, vkf->img[multiplane ? 0 : 1], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &chroma);
    /* Back to the layout FFmpeg recorded: decodes already submitted may reference this picture
     * (it can be a reference of pictures decoded before it is shown) with that layout. */
    for (int i = 0; i < nimg; i++) {
        VkImageMemoryBarrier2 b = ib[i];
        ib[i].srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
        ib[i].srcAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT;
        ib[i].dstStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        ib[i].dstAccessMask = b.srcAccessMask;
        ib[i].oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        ib[i].newLayout = b.oldLayout;
    }
    h->vkCmdPipelineBarrier2(cmd, &dep);
    h->vkEndCommandBuffer(cmd);

    VkSemaphoreSubmitInfo waits[2], signals[3];
    for (int i = 0; i < nimg; i++) {
        waits[i] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = vkf->sem[i],
                                           .value = vkf->sem_value[i], .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
        signals[i] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = vkf->sem[i],
                                             .value = vkf->sem_value[i] + 1, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    }
    signals[nimg] = (VkSemaphoreSubmitInfo){.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = h->timeline,
                                            .value = t->signal_value, .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkCommandBufferSubmitInfo cb = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = cmd};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .waitSemaphoreInfoCount = (uint32_t)nimg, .pWaitSemaphoreInfos = waits,
                        .commandBufferInfoCount = 1, .pCommandBufferInfos = &cb,
                        .signalSemaphoreInfoCount = (uint32_t)nimg + 1, .pSignalSemaphoreInfos = signals};
    h->vkResetFences(h->dev, 1, &h->fence[slot]);
    h->vk->lock_queue(h->dc, h->family, 0);
    r = h->vkQueueSubmit2(h->queue, 1, &si, h->fence[slot]);
    h->vk->unlock_queue(h->dc, h->family, 0);
    if (!r)
        for (int i = 0; i < nimg; i++) vkf->sem_value[i]++; /* layout and access are as they were */
    fc->unlock_frame(hwfc, vkf);
    if (r) return say(err, errlen, "vkQueueSubmit2 (the copy out of the decoder's picture)", r), VKD_INTERNAL;
    return VKD_OK;
}

void vkd_hw_free(VkdHw *h) {
    if (!h) return;
    if (h->dev && h->vkDeviceWaitIdle) {
        h->vkDeviceWaitIdle(h->dev);
        drop_imports(h);
        for (int i = 0; i < RING; i++)
            if (h->fence[i]) h->vkDestroyFence(h->dev, h->fence[i], NULL);
        if (h->pool) h->vkDestroyCommandPool(h->dev, h->pool, NULL);
        if (h->timeline) h->vkDestroySemaphore(h->dev, h->timeline, NULL);
    }
    av_buffer_unref(&h->device);
    free(h);
}
