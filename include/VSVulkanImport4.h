/*
 * vsvk's extension to VSVulkan4.h: foreign memory in. Not part of VapourSynth R81, whose headers
 * beside this one are unchanged; a core without it (R81) makes vsvkFindImportAPI return NULL.
 *
 * An allocation another API exported as an opaque fd (CUDA's VMM memory with a POSIX fd handle,
 * a second Vulkan device's memory) is imported once (importGPUMemory), the exporter's timeline
 * semaphore likewise (importGPUTimeline), and frames whose planes are ranges of that memory are
 * made with newImportedGPUFrame, publishing a (timeline, value) the foreign side has already
 * queued the signal of as every plane's producer pair: consumers wait for it on the device, and
 * the host never waits. The release callback runs once every consumer is done with the frame
 * (its last reference is gone, and with it every submission that read it), so the foreign side
 * may write the memory again.
 *
 * Handles: an fd is consumed by a successful import only; close it yourself when an import fails
 * (the core imports a duplicate, so this holds whatever the driver does on failure). That the fd
 * is an allocation of this GPU, of exactly `size`, and that an imported semaphore is a timeline,
 * cannot be checked: Vulkan leaves importing anything else undefined.
 * Only opaque fds are imported: dma-bufs would need VK_EXT_external_memory_dma_buf, which the
 * core's device does not enable. cudaMalloc'd memory cannot be exported at all; allocate with
 * cuMemCreate and a POSIX fd handle type and export with cuMemExportToShareableHandle.
 */
#ifndef VSVK_VULKAN_IMPORT4_H
#define VSVK_VULKAN_IMPORT4_H

/* vsvkFindImportAPI needs dladdr, which glibc declares only under _GNU_SOURCE, and that has to be
   defined before the first system header: define it at the top of the file (or on the command
   line) when this header is not the first one included. */
#ifndef _WIN32
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#if defined(__GLIBC__) && !defined(__USE_GNU)
#error "VSVulkanImport4.h needs dladdr: define _GNU_SOURCE before including any system header"
#endif
#endif

#include <stddef.h>
#include <stdint.h>
#include "VapourSynth4.h"
#include "VSVulkan4.h"

#define VSVK_IMPORT_API_VERSION 1

/* An imported allocation; frames made over it hold their own references. */
typedef struct VSGPUImportedMemory VSGPUImportedMemory;

typedef struct VSVulkanImportedPlane {
    VSGPUImportedMemory *memory;
    uint64_t offset;  /* a multiple of the plane buffer's alignment (256 is always enough) */
    ptrdiff_t stride; /* bytes per row: at least the row's, a whole number of samples */
} VSVulkanImportedPlane;

typedef void (VS_CC *VSGPUImportRelease)(void *userData);

typedef struct VSVKIMPORTAPI {
    int version; /* VSVK_IMPORT_API_VERSION */
    /* handleType: VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT; memoryTypeIndex: the exporter's
       (a Vulkan device of the same GPU must pass it, Vulkan requires the same type), or -1 for a
       device local type (CUDA). NULL on failure, with the reason in errorMessage. */
    VSGPUImportedMemory *(VS_CC *importGPUMemory)(VSCore *core, int handleType, int handle, uint64_t size, int memoryTypeIndex, char *errorMessage, int errorMessageSize);
    void (VS_CC *freeGPUMemory)(VSGPUImportedMemory *memory);
    /* A timeline semaphore exported as VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT, as a
       counted VSGPUTimeline: release it with VSVULKANAPI::freeGPUTimeline. */
    VSGPUTimeline *(VS_CC *importGPUTimeline)(VSCore *core, int handleType, int handle, char *errorMessage, int errorMessageSize);
    /* planes: one per plane of format. timeline may be NULL (the memory is ready now); else value
       must be one whose signal is already on its way. release (may be NULL) gets userData once,
       on any thread, when the frame is gone; never when this call fails (NULL returned). */
    VSFrame *(VS_CC *newImportedGPUFrame)(const VSVideoFormat *format, int width, int height, const VSVulkanImportedPlane *planes,
                                          VSGPUTimeline *timeline, uint64_t value, VSGPUImportRelease release, void *userData,
                                          const VSFrame *propSrc, VSCore *core, char *errorMessage, int errorMessageSize);
} VSVKIMPORTAPI;

/* Exported by vsvk's core (whichever library holds it: libvsvk.so, the Python module). */
typedef const VSVKIMPORTAPI *(VS_CC *VSVKGetImportAPI)(int version);

/* The table of the core that handed out vsapi, or NULL (R81, another core, Windows). */
static inline const VSVKIMPORTAPI *vsvkFindImportAPI(const VSAPI *vsapi) {
#ifndef _WIN32
    Dl_info info;
    if (!vsapi || !dladdr((const void *)vsapi, &info) || !info.dli_fname)
        return NULL;
    void *lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!lib)
        return NULL;
    VSVKGetImportAPI get = (VSVKGetImportAPI)dlsym(lib, "vsvkGetImportAPI");
    const VSVKIMPORTAPI *api = get ? get(VSVK_IMPORT_API_VERSION) : NULL;
    dlclose(lib);
    return api;
#else
    (void)vsapi;
    return NULL;
#endif
}

#endif
