/*
 * vsvkcheap: filters that cost next to nothing, so that a long chain of them measures the core's
 * scheduler (requests, activations, caches, frame references) rather than pixel work. Built against
 * the API 4 header (VapourSynth4.h), so the same library runs on R81 and on vsvk.
 *
 *   vsvkcheap.Source(width, height, format, length)  -> vnode
 *       one frame made at creation; frame n is copyFrame of it with the first byte of plane 0 set
 *       to n & 255 (getWritePtr copies that one plane).
 *   vsvkcheap.Copy(clip)      requests frame n; returns copyFrame with the first byte of plane 0
 *                              increased by one (fmParallel, rpStrictSpatial).
 *   vsvkcheap.Pass(clip)      requests frame n; returns it unchanged (addFrameRef): nothing but
 *                              scheduling (fmParallel, rpStrictSpatial).
 *   vsvkcheap.Temporal(clip)  requests frames n-1, n and n+1 (clamped); returns a copy of n whose
 *                              first byte of plane 0 is the sum of the three first bytes
 *                              (fmParallel, rpGeneral: the input's cache is exercised).
 *
 * Every output depends only on the frame number, so both cores must print the same fingerprint.
 * With VSVKCHEAP_COUNT set, each filter prints to stderr, when it is freed, how many frames it
 * made: the same chain made more often on one core means its cache let it recompute them.
 */
#include "VapourSynth4.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    VSNode *node;
    VSVideoInfo vi;
    const VSFrame *frame; /* Source only */
    int made;            /* frames returned (counted only for VSVKCHEAP_COUNT) */
    const char *kind;
} Data;

static void VS_CC free_data(void *instance, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    Data *d = instance;
    if (d->kind && getenv("VSVKCHEAP_COUNT")) fprintf(stderr, "vsvkcheap: %s made %d frames\n", d->kind, d->made);
    if (d->node) vsapi->freeNode(d->node);
    if (d->frame) vsapi->freeFrame(d->frame);
    free(d);
}

/* ---- Source ------------------------------------------------------------------------------------ */

static const VSFrame *VS_CC source_get_frame(int n, int activation, void *instance, void **frame_data,
                                             VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    (void)ctx;
    if (activation != arInitial) return NULL;
    Data *d = instance;
    VSFrame *f = vsapi->copyFrame(d->frame, core);
    vsapi->getWritePtr(f, 0)[0] = (uint8_t)n;
    return f;
}

static void VS_CC source_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    int err = 0;
    int64_t w = vsapi->mapGetInt(in, "width", 0, &err);
    if (err) w = 64;
    int64_t h = vsapi->mapGetInt(in, "height", 0, &err);
    if (err) h = 64;
    int64_t len = vsapi->mapGetInt(in, "length", 0, &err);
    if (err) len = 1000;
    int64_t id = vsapi->mapGetInt(in, "format", 0, &err);
    if (err) id = pfGray8;
    Data *d = calloc(1, sizeof *d);
    if (!vsapi->getVideoFormatByID(&d->vi.format, (uint32_t)id, core) || d->vi.format.sampleType != stInteger ||
        d->vi.format.bytesPerSample != 1 || w <= 0 || h <= 0 || len <= 0) {
        free(d);
        vsapi->mapSetError(out, "Source: wants an 8-bit integer format and a positive size and length");
        return;
    }
    d->vi.width = (int)w;
    d->vi.height = (int)h;
    d->vi.numFrames = (int)len;
    d->vi.fpsNum = 25;
    d->vi.fpsDen = 1;
    VSFrame *f = vsapi->newVideoFrame(&d->vi.format, d->vi.width, d->vi.height, NULL, core);
    for (int p = 0; p < d->vi.format.numPlanes; p++) {
        uint8_t *row = vsapi->getWritePtr(f, p);
        ptrdiff_t stride = vsapi->getStride(f, p);
        int pw = vsapi->getFrameWidth(f, p), ph = vsapi->getFrameHeight(f, p);
        for (int y = 0; y < ph; y++, row += stride)
            for (int x = 0; x < pw; x++) row[x] = (uint8_t)(x * 3 + y * 5 + p * 50);
    }
    d->frame = f;
    vsapi->createVideoFilter(out, "Source", &d->vi, source_get_frame, free_data, fmParallel, NULL, 0, d, core);
}

/* ---- Copy, Pass, Temporal ------------------------------------------------------------------------ */

static const VSFrame *VS_CC copy_get_frame(int n, int activation, void *instance, void **frame_data,
                                           VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    Data *d = instance;
    if (activation == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
    } else if (activation == arAllFramesReady) {
        const VSFrame *src = vsapi->getFrameFilter(n, d->node, ctx);
        VSFrame *dst = vsapi->copyFrame(src, core);
        vsapi->freeFrame(src);
        vsapi->getWritePtr(dst, 0)[0] += 1;
        __atomic_fetch_add(&d->made, 1, __ATOMIC_RELAXED);
        return dst;
    }
    return NULL;
}

static const VSFrame *VS_CC pass_get_frame(int n, int activation, void *instance, void **frame_data,
                                           VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    (void)core;
    Data *d = instance;
    if (activation == arInitial) vsapi->requestFrameFilter(n, d->node, ctx);
    else if (activation == arAllFramesReady) {
        __atomic_fetch_add(&d->made, 1, __ATOMIC_RELAXED);
        return vsapi->getFrameFilter(n, d->node, ctx);
    }
    return NULL;
}

static const VSFrame *VS_CC temporal_get_frame(int n, int activation, void *instance, void **frame_data,
                                               VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    Data *d = instance;
    int last = d->vi.numFrames - 1;
    int prev = n > 0 ? n - 1 : 0, next = n < last ? n + 1 : last;
    if (activation == arInitial) {
        vsapi->requestFrameFilter(prev, d->node, ctx);
        vsapi->requestFrameFilter(n, d->node, ctx);
        vsapi->requestFrameFilter(next, d->node, ctx);
    } else if (activation == arAllFramesReady) {
        const VSFrame *a = vsapi->getFrameFilter(prev, d->node, ctx);
        const VSFrame *b = vsapi->getFrameFilter(n, d->node, ctx);
        const VSFrame *c = vsapi->getFrameFilter(next, d->node, ctx);
        uint8_t sum = (uint8_t)(vsapi->getReadPtr(a, 0)[0] + vsapi->getReadPtr(b, 0)[0] + vsapi->getReadPtr(c, 0)[0]);
        VSFrame *dst = vsapi->copyFrame(b, core);
        vsapi->freeFrame(a);
        vsapi->freeFrame(b);
        vsapi->freeFrame(c);
        vsapi->getWritePtr(dst, 0)[0] = sum;
        __atomic_fetch_add(&d->made, 1, __ATOMIC_RELAXED);
        return dst;
    }
    return NULL;
}

typedef struct {
    const char *name;
    VSFilterGetFrame get_frame;
    int pattern;
} Kind;

static const Kind kinds[] = {
    {"Copy", copy_get_frame, rpStrictSpatial},
    {"Pass", pass_get_frame, rpStrictSpatial},
    {"Temporal", temporal_get_frame, rpGeneral},
};

static void VS_CC filter_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    const Kind *k = user;
    Data *d = calloc(1, sizeof *d);
    d->kind = k->name;
    d->node = vsapi->mapGetNode(in, "clip", 0, NULL);
    d->vi = *vsapi->getVideoInfo(d->node);
    if (d->vi.format.colorFamily == cfUndefined || d->vi.format.bytesPerSample != 1 || !d->vi.width) {
        vsapi->freeNode(d->node);
        free(d);
        vsapi->mapSetError(out, "vsvkcheap: wants a constant 8-bit format and size");
        return;
    }
    VSFilterDependency dep = {d->node, k->pattern};
    vsapi->createVideoFilter(out, k->name, &d->vi, k->get_frame, free_data, fmParallel, &dep, 1, d, core);
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("org.vsvk.cheap", "vsvkcheap", "vsvk scheduler benchmark filters", VS_MAKE_VERSION(1, 0),
                         VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Source", "width:int:opt;height:int:opt;format:int:opt;length:int:opt;", "clip:vnode;",
                             source_create, NULL, plugin);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        vspapi->registerFunction(kinds[i].name, "clip:vnode;", "clip:vnode;", filter_create, (void *)&kinds[i], plugin);
}
