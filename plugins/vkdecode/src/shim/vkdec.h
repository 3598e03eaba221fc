/* The C side of the vkdecode plugin: the only code that calls FFmpeg. It opens a file, indexes the
 * video stream's packets, and returns frame n by seeking to a keyframe and decoding forward.
 * Rust (src/ffi.rs) declares the same structs; change both together. */
#ifndef VKDEC_H
#define VKDEC_H

#include <stdint.h>

/* Results; the message buffer says more. */
enum {
    VKD_OK = 0,
    VKD_NOT_FOUND = 1,   /* the file cannot be opened */
    VKD_UNSUPPORTED = 2, /* a codec, layout or sample format the plugin does not decode */
    VKD_INVALID = 3,     /* not a media file, or no video stream, or no usable packets */
    VKD_DAMAGED = 4,     /* the frame depends on data the decoder rejected */
    VKD_INTERNAL = 5,    /* out of memory, or FFmpeg failed in a way the input does not explain */
};

enum { VKD_GRAY = 0, VKD_YUV = 1, VKD_RGB = 2 };

typedef struct VkdOptions {
    int threads;     /* decoder threads, 0: FFmpeg's choice */
    int cache;       /* decoded frames kept for random access */
    int hw;          /* decode with Vulkan Video on physical device hw_index (the loader's order), */
    int hw_index;    /* which must have the UUID hw_uuid (the core's GPU) */
    uint8_t hw_uuid[16];
} VkdOptions;

typedef struct VkdInfo {
    char codec[32];       /* "h264", "hevc", "av1" */
    char decoder[32];     /* the FFmpeg decoder that runs */
    char container[32];
    int width, height;
    int family;           /* VKD_GRAY / VKD_YUV / VKD_RGB */
    int bits, ssw, ssh;   /* bits per sample, log2 chroma subsampling */
    int planes;
    int64_t frames;
    int64_t fps_num, fps_den; /* 0/0 when the frame rate varies */
    int tb_num, tb_den;
    int threads;          /* what the decoder actually uses */
    int hw;               /* pictures are Vulkan images: use vkd_hw_copy, not the planes */
} VkdInfo;

typedef struct VkdFrame {
    const uint8_t *data[3];
    int linesize[3];
    int width, height;
    int64_t pts;             /* in the stream's time base */
    int64_t duration;        /* to the next frame's pts (the last: its packet's duration) */
    char pict_type;          /* 'I', 'P', 'B', ... ('?' unknown) */
    int key;
    int matrix, transfer, primaries; /* ITU-T H.273 code points (FFmpeg's enums are those) */
    int range;               /* AVColorRange: 0 unknown, 1 limited, 2 full */
    int chroma_location;     /* AVChromaLocation: 0 unknown, 1 left, 2 center, 3 top left, ... */
    int interlaced, top_field_first;
    int hw;                  /* a Vulkan picture: data[] is empty, vkd_hw_copy reads it */
    void *hold;              /* the decoder's reference to the planes; vkd_release gives it back */
} VkdFrame;

/* Where vkd_hw_copy puts a picture: a plane of a core GPU frame (exportGPUPlane) laid out as
 * `height` luma rows then height/2 rows of interleaved chroma, `stride` bytes apart. */
typedef struct VkdHwTarget {
    int handle_type;          /* VkExternalMemoryHandleTypeFlagBits of fd */
    int fd;                   /* the exported memory; the shim owns (and closes) it from the call on */
    uint64_t memory_id, memory_size;
    uint32_t memory_type;
    uint64_t offset, size;    /* the plane within that memory */
    uint64_t stride;
    int width, height;
    uint64_t signal_value;    /* signalled on the imported timeline once the copy is done */
} VkdHwTarget;

typedef struct VkdSource VkdSource;

int vkd_open(const char *path, const VkdOptions *opt, VkdSource **out, char *err, int errlen);
const VkdInfo *vkd_info(const VkdSource *s);
/* Frame n (0-based, presentation order). On success the caller owns out->hold. */
int vkd_frame(VkdSource *s, int64_t n, VkdFrame *out, char *err, int errlen);
void vkd_release(void *hold);
/* Seeks made so far (the one at open included): linear reads should make no more. */
int64_t vkd_seeks(const VkdSource *s);
/* The core timeline (exportGPUSemaphore) that vkd_hw_copy signals; the shim owns fd from the call on. */
int vkd_hw_set_timeline(VkdSource *s, int handle_type, int fd, char *err, int errlen);
/* Submits the copy of a Vulkan picture (vkd_frame's hold) into the target; hold may be released
 * right after this returns. */
int vkd_hw_copy(VkdSource *s, void *hold, const VkdHwTarget *t, char *err, int errlen);
void vkd_close(VkdSource *s);

#endif
