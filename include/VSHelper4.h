/*
 * VSHelper4.h -- small inline helpers for VapourSynth API 4 filters, vsvk edition.
 *
 * Written from scratch for vsvk; same names, signatures and results as VapourSynth R81's helpers.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * In C the helpers are named vsh_<name> and return int for truth values; in C++ they live in
 * namespace vsh under their plain names and return bool.
 */

#ifndef VSHELPER4_H
#define VSHELPER4_H

#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <malloc.h>
#endif
#include "VapourSynth4.h"

/* Identifiers of the plugins every core ships. */
#define VSH_STD_PLUGIN_ID "com.vapoursynth.std"
#define VSH_RESIZE_PLUGIN_ID "com.vapoursynth.resize"
#define VSH_TEXT_PLUGIN_ID "com.vapoursynth.text"

#ifdef __cplusplus
namespace vsh {
#define VSH4_MANGLE_FUNCTION_NAME(name) name
#define VSH4_BOOLEAN_TYPE bool
#else
#define VSH4_MANGLE_FUNCTION_NAME(name) vsh_##name
#define VSH4_BOOLEAN_TYPE int
#endif

/* MSVC's C mode only knows the underscored spelling of inline. */
#if defined(_MSC_VER) && !defined(__cplusplus)
#define inline _inline
#endif

/* restrict, where the compiler has some form of it. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define VS_RESTRICT restrict
#elif defined(__cplusplus) || defined(_MSC_VER)
#define VS_RESTRICT __restrict
#else
#define VS_RESTRICT
#endif

/* Aligned allocation: *pptr receives the block, or NULL on failure. */
#ifdef _WIN32
#define VSH_ALIGNED_MALLOC(pptr, size, alignment) do { *(pptr) = _aligned_malloc((size), (alignment)); } while (0)
#define VSH_ALIGNED_FREE(ptr) do { _aligned_free((ptr)); } while (0)
#else
#define VSH_ALIGNED_MALLOC(pptr, size, alignment) do { if (posix_memalign((void **)(pptr), (alignment), (size))) *((void **)pptr) = NULL; } while (0)
#define VSH_ALIGNED_FREE(ptr) do { free((ptr)); } while (0)
#endif

#define VSMAX(a, b) ((a) > (b) ? (a) : (b))
#define VSMIN(a, b) ((a) > (b) ? (b) : (a))

#ifdef __cplusplus
/* Typed aligned allocation for C++; NULL on failure. */
#if __cplusplus >= 201103L || (defined(_MSC_VER) && _MSC_VER >= 1900)
template<typename T = void>
#else
template<typename T>
#endif
static inline T *vsh_aligned_malloc(size_t size, size_t alignment) {
    void *block = NULL;
#ifdef _WIN32
    block = _aligned_malloc(size, alignment);
#else
    if (posix_memalign(&block, alignment, size) != 0)
        block = NULL;
#endif
    return static_cast<T *>(block);
}

static inline void vsh_aligned_free(void *ptr) {
    VSH_ALIGNED_FREE(ptr);
}
#endif

/* True when every frame of the clip has the same known format and size. */
static inline VSH4_BOOLEAN_TYPE VSH4_MANGLE_FUNCTION_NAME(isConstantVideoFormat)(const VSVideoInfo *vi) {
    if (vi->width <= 0 || vi->height <= 0)
        return 0;
    return vi->format.colorFamily != cfUndefined;
}

/* Compares family, sample type, depth and subsampling; two undefined formats count as equal. */
static inline VSH4_BOOLEAN_TYPE VSH4_MANGLE_FUNCTION_NAME(isSameVideoFormat)(const VSVideoFormat *v1, const VSVideoFormat *v2) {
    return v1->colorFamily == v2->colorFamily
        && v1->sampleType == v2->sampleType
        && v1->bitsPerSample == v2->bitsPerSample
        && v1->subSamplingW == v2->subSamplingW
        && v1->subSamplingH == v2->subSamplingH;
}

/* True when the format's id, as the core computes it, is presetFormat. */
static inline VSH4_BOOLEAN_TYPE VSH4_MANGLE_FUNCTION_NAME(isSameVideoPresetFormat)(unsigned presetFormat, const VSVideoFormat *v, VSCore *core, const VSAPI *vsapi) {
    uint32_t id = vsapi->queryVideoFormatID(v->colorFamily, v->sampleType, v->bitsPerSample, v->subSamplingW, v->subSamplingH, core);
    return id == presetFormat;
}

/* Same format and dimensions; the frame rate is not compared. */
static inline VSH4_BOOLEAN_TYPE VSH4_MANGLE_FUNCTION_NAME(isSameVideoInfo)(const VSVideoInfo *v1, const VSVideoInfo *v2) {
    if (v1->width != v2->width || v1->height != v2->height)
        return 0;
    return VSH4_MANGLE_FUNCTION_NAME(isSameVideoFormat)(&v1->format, &v2->format);
}

/* Compares sample type, depth and channel layout. */
static inline VSH4_BOOLEAN_TYPE VSH4_MANGLE_FUNCTION_NAME(isSameAudioFormat)(const VSAudioFormat *a1, const VSAudioFormat *a2) {
    return a1->sampleType == a2->sampleType
        && a1->bitsPerSample == a2->bitsPerSample
        && a1->channelLayout == a2->channelLayout;
}

/* Same audio format and sample rate; the length is not compared. */
static inline VSH4_BOOLEAN_TYPE VSH4_MANGLE_FUNCTION_NAME(isSameAudioInfo)(const VSAudioInfo *a1, const VSAudioInfo *a2) {
    if (a1->sampleRate != a2->sampleRate)
        return 0;
    return VSH4_MANGLE_FUNCTION_NAME(isSameAudioFormat)(&a1->format, &a2->format);
}

/* num/den becomes (num*mul)/(den*div), divided through by the greatest common divisor.
   A zero denominator marks an invalid value, which is left untouched. */
static inline void VSH4_MANGLE_FUNCTION_NAME(muldivRational)(int64_t *num, int64_t *den, int64_t mul, int64_t div) {
    int64_t x, y;
    if (*den == 0)
        return;
    assert(div != 0);
    *num *= mul;
    *den *= div;
    /* Euclid on the signed values; the result is made positive afterwards. */
    x = *num;
    y = *den;
    while (y != 0) {
        int64_t r = x % y;
        x = y;
        y = r;
    }
    if (x < 0)
        x = -x;
    *num /= x;
    *den /= x;
}

/* Divides num and den by their greatest common divisor. */
static inline void VSH4_MANGLE_FUNCTION_NAME(reduceRational)(int64_t *num, int64_t *den) {
    VSH4_MANGLE_FUNCTION_NAME(muldivRational)(num, den, 1, 1);
}

/* num/den += addnum/addden. Equal denominators just add the numerators; otherwise the sum is
   taken over the product of the denominators and reduced. A zero *den is left untouched. */
static inline void VSH4_MANGLE_FUNCTION_NAME(addRational)(int64_t *num, int64_t *den, int64_t addnum, int64_t addden) {
    if (*den == 0)
        return;
    assert(addden != 0);
    if (*den == addden) {
        *num += addnum;
        return;
    }
    *num = *num * addden + addnum * *den;
    *den *= addden;
    VSH4_MANGLE_FUNCTION_NAME(reduceRational)(num, den);
}

/* int64_t to int, clamped to the int range. */
static inline int VSH4_MANGLE_FUNCTION_NAME(int64ToIntS)(int64_t i) {
    if (i < INT_MIN)
        return INT_MIN;
    if (i > INT_MAX)
        return INT_MAX;
    return (int)i;
}

/* double to float, spelled out so that compilers do not warn about the narrowing. */
static inline float VSH4_MANGLE_FUNCTION_NAME(doubleToFloatS)(double d) {
    return (float)d;
}

/* Copies height rows of row_size bytes between two strided images. */
static inline void VSH4_MANGLE_FUNCTION_NAME(bitblt)(void *dstp, ptrdiff_t dst_stride, const void *srcp, ptrdiff_t src_stride, size_t row_size, size_t height) {
    const uint8_t *from = (const uint8_t *)srcp;
    uint8_t *to = (uint8_t *)dstp;
    size_t row;
    if (height == 0)
        return;
    if (src_stride == dst_stride && src_stride == (ptrdiff_t)row_size) {
        /* both images are packed: one copy does it */
        memcpy(to, from, row_size * height);
        return;
    }
    for (row = 0; row < height; row++) {
        memcpy(to, from, row_size);
        from += src_stride;
        to += dst_stride;
    }
}

/* True when width and height are multiples of the format's chroma subsampling. */
static inline VSH4_BOOLEAN_TYPE VSH4_MANGLE_FUNCTION_NAME(areValidDimensions)(const VSVideoFormat *fi, int width, int height) {
    return (width % (1 << fi->subSamplingW)) == 0 && (height % (1 << fi->subSamplingH)) == 0;
}

#if defined(_MSC_VER) && !defined(__cplusplus)
#undef inline
#endif

#ifdef __cplusplus
} /* namespace vsh */
#endif

#endif /* VSHELPER4_H */
