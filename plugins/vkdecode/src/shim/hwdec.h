/* The Vulkan Video side of the shim (hwdec.c): FFmpeg's own Vulkan device on the core's physical
 * device, and the copy of each decoded picture into memory the core exported, on that device. */
#ifndef VKDEC_HWDEC_H
#define VKDEC_HWDEC_H

#include <libavutil/buffer.h>
#include <libavutil/frame.h>

#include "vkdec.h"

typedef struct VkdHw VkdHw;

/* FFmpeg's Vulkan device on physical device `index` of the loader's list, which must have `uuid`. */
int vkd_hw_create(VkdHw **out, int index, const uint8_t uuid[16], AVBufferRef **device, char *err, int errlen);
int vkd_hw_import_timeline(VkdHw *hw, int handle_type, int fd, char *err, int errlen);
/* Copies the picture's planes into the target (see VkdHwTarget); the frame may be released as
 * soon as this returns: FFmpeg's next write to the image waits for the copy. */
int vkd_hw_copy_frame(VkdHw *hw, const AVFrame *f, const VkdHwTarget *t, char *err, int errlen);
void vkd_hw_free(VkdHw *hw);

#endif
