/* The CUDA driver API as far as vkcopy and vkcuda use it, loaded at run time from libcuda.so.1
 * (no CUDA headers or libraries to build against): the types and struct layouts they need, the
 * entry points in `cu`, and cuda_load, which makes the primary context of the CUDA device with the
 * given UUID (the Vulkan device's) current on the calling thread. */
#ifndef VKCOPY_CUDALOAD_H
#define VKCOPY_CUDALOAD_H
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void *CUcontext, *CUstream, *CUexternalMemory, *CUevent;
typedef unsigned long long CUdeviceptr;

/* CUDA_EXTERNAL_MEMORY_HANDLE_DESC (104 bytes) and CUDA_EXTERNAL_MEMORY_BUFFER_DESC (88) */
typedef struct {
    int type;
    union {
        int fd;
        struct { void *handle; const void *name; } win32;
    } handle;
    unsigned long long size;
    unsigned flags;
    unsigned reserved[16];
} MemDesc;
typedef struct {
    unsigned long long offset, size;
    unsigned flags;
    unsigned reserved[16];
} BufDesc;
_Static_assert(sizeof(MemDesc) == 104, "CUDA_EXTERNAL_MEMORY_HANDLE_DESC");
_Static_assert(sizeof(BufDesc) == 88, "CUDA_EXTERNAL_MEMORY_BUFFER_DESC");

static struct {
    CUresult (*init)(unsigned);
    CUresult (*device_get)(int *, int);
    CUresult (*uuid)(unsigned char *, int);
    CUresult (*count)(int *);
    CUresult (*retain)(CUcontext *, int);
    CUresult (*set_current)(CUcontext);
    CUresult (*stream_create)(CUstream *, unsigned);
    CUresult (*sync)(CUstream);
    CUresult (*import)(CUexternalMemory *, const MemDesc *);
    CUresult (*mapped)(CUdeviceptr *, CUexternalMemory, const BufDesc *);
    CUresult (*dtod)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
    CUresult (*htod)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*dtoh)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*alloc_host)(void **, size_t);
    CUresult (*host_alloc)(void **, size_t, unsigned);
    CUresult (*alloc)(CUdeviceptr *, size_t);
    CUresult (*event_create)(CUevent *, unsigned);
    CUresult (*event_record)(CUevent, CUstream);
    CUresult (*event_sync)(CUevent);
    CUresult (*elapsed)(float *, CUevent, CUevent);
} cu;

static const char *cuda_tool = "cuda";

static void cucheck(CUresult r, const char *what) {
    if (r) {
        fprintf(stderr, "%s: %s failed (CUresult %d)\n", cuda_tool, what, r);
        exit(1);
    }
}

static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "%s: the CUDA driver lacks %s\n", cuda_tool, name);
        exit(1);
    }
    return p;
}

/* Loads the driver and makes the primary context of the device with `uuid` current: 0, or 1
 * with the reason on stderr. */
static int cuda_load(const char *tool, const unsigned char uuid[16]) {
    cuda_tool = tool;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "%s: no CUDA driver: %s\n", tool, dlerror());
        return 1;
    }
    cu.init = sym(lib, "cuInit");
    cu.device_get = sym(lib, "cuDeviceGet");
    cu.uuid = sym(lib, "cuDeviceGetUuid_v2");
    cu.count = sym(lib, "cuDeviceGetCount");
    cu.retain = sym(lib, "cuDevicePrimaryCtxRetain");
    cu.set_current = sym(lib, "cuCtxSetCurrent");
    cu.stream_create = sym(lib, "cuStreamCreate");
    cu.sync = sym(lib, "cuStreamSynchronize");
    cu.import = sym(lib, "cuImportExternalMemory");
    cu.mapped = sym(lib, "cuExternalMemoryGetMappedBuffer");
    cu.dtod = sym(lib, "cuMemcpyDtoDAsync_v2");
    cu.htod = sym(lib, "cuMemcpyHtoDAsync_v2");
    cu.dtoh = sym(lib, "cuMemcpyDtoHAsync_v2");
    cu.alloc_host = sym(lib, "cuMemAllocHost_v2");
    cu.host_alloc = sym(lib, "cuMemHostAlloc");
    cu.alloc = sym(lib, "cuMemAlloc_v2");
    cu.event_create = sym(lib, "cuEventCreate");
    cu.event_record = sym(lib, "cuEventRecord");
    cu.event_sync = sym(lib, "cuEventSynchronize");
    cu.elapsed = sym(lib, "cuEventElapsedTime");
    cucheck(cu.init(0), "cuInit");
    int n, cudev = -1;
    cucheck(cu.count(&n), "cuDeviceGetCount");
    for (int i = 0; i < n && cudev < 0; i++) {
        int d;
        unsigned char id[16];
        cucheck(cu.device_get(&d, i), "cuDeviceGet");
        cucheck(cu.uuid(id, d), "cuDeviceGetUuid");
        if (!memcmp(id, uuid, 16)) cudev = d;
    }
    if (cudev < 0) {
        fprintf(stderr, "%s: no CUDA device is the Vulkan device\n", tool);
        return 1;
    }
    CUcontext ctx;
    cucheck(cu.retain(&ctx, cudev), "cuDevicePrimaryCtxRetain");
    cucheck(cu.set_current(ctx), "cuCtxSetCurrent");
    return 0;
}

#endif
