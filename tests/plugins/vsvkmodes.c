/*
 * vsvkmodes: test filters that exercise a core's scheduler, for the vsvk scheduler tests.
 *
 *   vsvkmodes.Parallel(clip, radius)            fmParallel          } weighted average of frames n-radius
 *   vsvkmodes.ParallelRequests(clip, radius)    fmParallelRequests  } ..n+radius (radius default 2, at most
 *   vsvkmodes.Unordered(clip, radius)           fmUnordered         } 8), requested in arInitial unclamped
 *   vsvkmodes.FrameState(clip, radius)          fmFrameState        } (the core clamps) and carried to
 *                                                                      arAllFramesReady in frameData; the
 *                                                                      odd modes also invert the result
 *   vsvkmodes.TwoStage(clip, mode)              requests frame n, then from arAllFramesReady a second frame
 *                                               that depends on the first one's pixels, returns NULL and
 *                                               finishes in a later activation (filter mode `mode`, default
 *                                               fmParallel)
 *   vsvkmodes.Fail(clip, fail[], initial)       calls setFilterError on the frames listed in `fail`, in
 *                                               arAllFramesReady (or arInitial with initial=1)
 *   vsvkmodes.Exclusive(clip, mode, sleep)      average of n-1..n+1 in filter mode `mode`, checking the
 *                                               promises of that mode with atomic counters: two activations
 *                                               inside at once (fmUnordered, fmFrameState, and fmParallel as
 *                                               a negative control), two arAllFramesReady activations at once
 *                                               (fmParallelRequests), another frame started while one is
 *                                               open (fmFrameState). A broken promise fails the frame with a
 *                                               message that contains "overlap". Each activation stays inside
 *                                               for `sleep` microseconds (default 200) to widen the window.
 *   vsvkmodes.Cached(clip)                      a linear filter (setLinearFilter, fmUnordered) that inverts
 *                                               frame n, also makes the other frame of its pair (n xor 1) and
 *                                               hands it to cacheFrame, and drops its source frames with
 *                                               releaseFrameEarly
 *   vsvkmodes.Merge(clipa, clipb)               the average of two clips (for diamond graphs)
 *   vsvkmodes.Meet(clip, count, timeout)        fmParallel, returns frame n of clip as it is; the first
 *                                               `count` arAllFramesReady activations (default 3) wait
 *                                               for one another, up to `timeout` ms (default 5000), and
 *                                               fail with a message that contains "never met" when fewer
 *                                               ran at once: frames made ready together by one frame
 *                                               must be spread over the workers, not run one after
 *                                               another on the thread that finished it
 *
 * The library also exports `int vsvkmodes_live_instances(void)`: filter instances created and not yet
 * freed, so that a test can check that freeing a core freed every filter.
 *
 * Every output depends only on the input frames and the frame number, never on the thread or the order
 * in which frames are made, so every conforming core and every thread count gives the same bytes.
 * Formats: constant integer formats of 8 to 16 bits and 32-bit float.
 *
 * Built against VapourSynth4.h (API 4.0 features only).
 */
#include "VapourSynth4.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RADIUS 8
#define MAX_FRAMES (2 * MAX_RADIUS + 1)

/* ---- shared helpers ----------------------------------------------------------------------------- */

/* the kinds of filter, also the `kind` field of every instance */
enum { kAverage, kTwoStage, kFail, kExclusive, kCached, kMerge, kMeet };

typedef struct {
    int kind;
    int mode;
    VSNode *node;
    VSNode *other;           /* Merge's second clip */
    VSVideoInfo vi;
    int radius;
    int initial;             /* Fail: fail in arInitial */
    int64_t *fail;           /* Fail: the frames that fail */
    int nfail;
    int sleep_us;            /* Exclusive */
    atomic_int inside;       /* Exclusive: activations running now */
    atomic_int inside_ready; /* Exclusive: arAllFramesReady activations running now */
    atomic_int open_frame;   /* Exclusive: the frame fmFrameState has started and not finished, or -1 */
    int meet_count;          /* Meet: activations that must run at once */
    int meet_timeout_ms;     /* Meet */
    atomic_int arrived;      /* Meet: activations that reached the meeting point so far */
} Filter;

/* what a frame carries from one activation to the next */
#define PENDING_MAGIC 0x5eed0001
typedef struct {
    int magic;
    int n;
    int stage;
    int count;
    int frames[MAX_FRAMES];  /* the numbers requested, as passed (unclamped) */
    const VSFrame *held;     /* TwoStage: the first frame, kept across stages */
} Pending;

static Pending *pending_new(int n) {
    Pending *p = calloc(1, sizeof *p);
    if (p) {
        p->magic = PENDING_MAGIC;
        p->n = n;
    }
    return p;
}

static void pending_free(Pending *p, const VSAPI *vsapi) {
    if (!p) return;
    if (p->held) vsapi->freeFrame(p->held);
    p->magic = 0;
    free(p);
}

/* the pending state of frame n, or NULL (and the frame fails) if frameData lost it */
static Pending *pending_of(void **frame_data, int n, VSFrameContext *ctx, const VSAPI *vsapi, const char *who) {
    Pending *p = *frame_data;
    char msg[160];
    if (!p) {
        snprintf(msg, sizeof msg, "%s: frame %d: frameData is NULL in arAllFramesReady", who, n);
        vsapi->setFilterError(msg, ctx);
        return NULL;
    }
    if (p->magic != PENDING_MAGIC || p->n != n) {
        snprintf(msg, sizeof msg, "%s: frame %d: frameData belongs to frame %d", who, n, p->n);
        vsapi->setFilterError(msg, ctx);
        return NULL;
    }
    return p;
}

static int clamp_frame(int n, int count) { return n < 0 ? 0 : (n >= count ? count - 1 : n); }

static int supported(const VSVideoInfo *vi) {
    const VSVideoFormat *f = &vi->format;
    if (f->colorFamily == cfUndefined || vi->width == 0 || vi->height == 0) return 0;
    if (f->sampleType == stInteger) return f->bitsPerSample <= 16;
    return f->bitsPerSample == 32;
}

/*
 * Writes the weighted average of `count` frames into a new frame with the properties of `props`:
 * sum(weight_i * src_i) / sum(weight_i), rounded half up for integers. When `invert` is set the
 * result is mirrored (peak - v, or 1 - v for float) so that filters in a chain differ.
 */
static VSFrame *combine(const VSFrame **src, const int *weights, int count, const VSFrame *props, int invert,
                        const Filter *d, VSCore *core, const VSAPI *vsapi) {
    const VSVideoFormat *fmt = &d->vi.format;
    VSFrame *dst = vsapi->newVideoFrame(fmt, d->vi.width, d->vi.height, props, core);
    int64_t total = 0;
    for (int i = 0; i < count; i++) total += weights[i];
    for (int p = 0; p < fmt->numPlanes; p++) {
        int w = vsapi->getFrameWidth(dst, p), h = vsapi->getFrameHeight(dst, p);
        ptrdiff_t dstride = vsapi->getStride(dst, p);
        uint8_t *drow = vsapi->getWritePtr(dst, p);
        const uint8_t *srow[MAX_FRAMES + 1];
        ptrdiff_t sstride[MAX_FRAMES + 1];
        for (int i = 0; i < count; i++) {
            srow[i] = vsapi->getReadPtr(src[i], p);
            sstride[i] = vsapi->getStride(src[i], p);
        }
        int64_t peak = fmt->sampleType == stInteger ? ((int64_t)1 << fmt->bitsPerSample) - 1 : 0;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                if (fmt->sampleType == stFloat) {
                    double s = 0.0;
                    for (int i = 0; i < count; i++) s += weights[i] * (double)((const float *)(srow[i] + y * sstride[i]))[x];
                    float v = (float)(s / (double)total);
                    ((float *)(drow + y * dstride))[x] = invert ? 1.0f - v : v;
                } else {
                    int64_t s = 0;
                    for (int i = 0; i < count; i++) {
                        const uint8_t *r = srow[i] + y * sstride[i];
                        s += weights[i] * (int64_t)(fmt->bytesPerSample == 1 ? r[x] : ((const uint16_t *)r)[x]);
                    }
                    int64_t v = (s + total / 2) / total;
                    if (invert) v = peak - v;
                    if (fmt->bytesPerSample == 1) (drow + y * dstride)[x] = (uint8_t)v;
                    else ((uint16_t *)(drow + y * dstride))[x] = (uint16_t)v;
                }
            }
        }
    }
    return dst;
}

/* the first sample of plane 0, as an integer (for TwoStage's data-dependent second request) */
static int64_t first_sample(const VSFrame *f, const VSAPI *vsapi) {
    const VSVideoFormat *fmt = vsapi->getVideoFrameFormat(f);
    const uint8_t *p = vsapi->getReadPtr(f, 0);
    if (fmt->sampleType == stFloat) return (int64_t)(((const float *)p)[0] * 1000.0f);
    return fmt->bytesPerSample == 1 ? p[0] : ((const uint16_t *)p)[0];
}

static void sleep_us(int us) {
    if (us <= 0) return;
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000L};
    nanosleep(&ts, NULL);
}

/* ---- the averaging filters, one per filter mode ------------------------------------------------ */

/* arInitial for every filter that averages a window: request n-radius..n+radius as they are */
static void request_window(Filter *d, int n, int radius, void **frame_data, VSFrameContext *ctx, const VSAPI *vsapi) {
    Pending *p = pending_new(n);
    for (int k = n - radius; k <= n + radius; k++) {
        vsapi->requestFrameFilter(k, d->node, ctx);
        p->frames[p->count++] = k;
    }
    *frame_data = p;
}

/* arAllFramesReady for them: the weighted average of the window (weight radius+2-distance) */
static VSFrame *average_window(Filter *d, int n, void **frame_data, VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi,
                               const char *who, int invert) {
    Pending *p = pending_of(frame_data, n, ctx, vsapi, who);
    if (!p) return NULL;
    const VSFrame *src[MAX_FRAMES];
    int weights[MAX_FRAMES];
    const VSFrame *centre = NULL;
    int missing = -1, any_missing = 0;
    for (int i = 0; i < p->count; i++) {
        /* the unclamped number: the core clamps it, as it did for the request */
        src[i] = vsapi->getFrameFilter(p->frames[i], d->node, ctx);
        weights[i] = 1 + (p->count - 1) / 2 - abs(p->frames[i] - n) + 1;
        if (!src[i] && !any_missing) {
            missing = p->frames[i];
            any_missing = 1;
        }
        if (p->frames[i] == n) centre = src[i];
    }
    VSFrame *out = NULL;
    if (any_missing) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: frame %d: requested frame %d is not available", who, n, missing);
        vsapi->setFilterError(msg, ctx);
    } else {
        out = combine(src, weights, p->count, centre, invert, d, core, vsapi);
        int64_t used[MAX_FRAMES];
        for (int i = 0; i < p->count; i++) used[i] = clamp_frame(p->frames[i], d->vi.numFrames);
        vsapi->mapSetIntArray(vsapi->getFramePropertiesRW(out), "VsvkModesUsed", used, p->count);
    }
    for (int i = 0; i < p->count; i++) vsapi->freeFrame(src[i]);
    pending_free(p, vsapi);
    *frame_data = NULL;
    return out;
}

static const char *mode_name(int mode) {
    switch (mode) {
    case fmParallel: return "Parallel";
    case fmParallelRequests: return "ParallelRequests";
    case fmUnordered: return "Unordered";
    case fmFrameState: return "FrameState";
    default: return "?";
    }
}

static const VSFrame *VS_CC average_get_frame(int n, int activation, void *instance, void **frame_data,
                                              VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    Filter *d = instance;
    if (activation == arInitial) {
        request_window(d, n, d->radius, frame_data, ctx, vsapi);
    } else if (activation == arAllFramesReady) {
        return average_window(d, n, frame_data, ctx, core, vsapi, mode_name(d->mode), d->mode & 1);
    } else {
        pending_free(*frame_data, vsapi);
        *frame_data = NULL;
    }
    return NULL;
}

/* ---- TwoStage ----------------------------------------------------------------------------------- */

static const VSFrame *VS_CC twostage_get_frame(int n, int activation, void *instance, void **frame_data,
                                               VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    Filter *d = instance;
    if (activation == arInitial) {
        Pending *p = pending_new(n);
        p->stage = 1;
        *frame_data = p;
        vsapi->requestFrameFilter(n, d->node, ctx);
        return NULL;
    }
    if (activation == arError) {
        pending_free(*frame_data, vsapi);
        *frame_data = NULL;
        return NULL;
    }
    Pending *p = pending_of(frame_data, n, ctx, vsapi, "TwoStage");
    if (!p) return NULL;
    if (p->stage == 1) {
        /* stage 1: look at frame n, then ask for a frame chosen by its content */
        p->held = vsapi->getFrameFilter(n, d->node, ctx);
        if (!p->held) {
            vsapi->setFilterError("TwoStage: frame n missing in stage 1", ctx);
            pending_free(p, vsapi);
            *frame_data = NULL;
            return NULL;
        }
        int m = (int)((first_sample(p->held, vsapi) + n * 7) % d->vi.numFrames);
        p->frames[0] = m;
        p->count = 1;
        p->stage = 2;
        vsapi->requestFrameFilter(m, d->node, ctx);
        return NULL;
    }
    /* stage 2 */
    const VSFrame *second = vsapi->getFrameFilter(p->frames[0], d->node, ctx);
    VSFrame *out = NULL;
    if (!second) {
        vsapi->setFilterError("TwoStage: the second-stage frame is missing", ctx);
    } else {
        const VSFrame *src[2] = {p->held, second};
        int weights[2] = {3, 1};
        out = combine(src, weights, 2, p->held, 0, d, core, vsapi);
        vsapi->mapSetInt(vsapi->getFramePropertiesRW(out), "VsvkTwoStage", p->frames[0], maReplace);
        vsapi->freeFrame(second);
    }
    pending_free(p, vsapi);
    *frame_data = NULL;
    return out;
}

/* ---- Fail --------------------------------------------------------------------------------------- */

static int listed(const Filter *d, int n) {
    for (int i = 0; i < d->nfail; i++)
        if (d->fail[i] == n) return 1;
    return 0;
}

static const VSFrame *VS_CC fail_get_frame(int n, int activation, void *instance, void **frame_data,
                                           VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    (void)core;
    Filter *d = instance;
    char msg[128];
    snprintf(msg, sizeof msg, "Fail: frame %d fails on purpose", n);
    if (activation == arInitial) {
        if (d->initial && listed(d, n)) {
            vsapi->setFilterError(msg, ctx);
            return NULL;
        }
        vsapi->requestFrameFilter(n, d->node, ctx);
    } else if (activation == arAllFramesReady) {
        if (listed(d, n)) {
            vsapi->setFilterError(msg, ctx);
            return NULL;
        }
        return vsapi->getFrameFilter(n, d->node, ctx);
    }
    return NULL;
}

/* ---- Exclusive ---------------------------------------------------------------------------------- */

static void overlap(const char *what, int n, int activation, VSFrameContext *ctx, const VSAPI *vsapi) {
    char msg[192];
    snprintf(msg, sizeof msg, "Exclusive: overlap: %s (frame %d, activation %d)", what, n, activation);
    vsapi->setFilterError(msg, ctx);
}

static const VSFrame *VS_CC exclusive_get_frame(int n, int activation, void *instance, void **frame_data,
                                                VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    Filter *d = instance;
    int serial = d->mode == fmUnordered || d->mode == fmFrameState || d->mode == fmParallel;
    int ready = activation == arAllFramesReady;
    int bad = 0;
    if (serial && atomic_fetch_add(&d->inside, 1) != 0) {
        overlap("two activations at once", n, activation, ctx, vsapi);
        bad = 1;
    }
    if (d->mode == fmParallelRequests && ready && atomic_fetch_add(&d->inside_ready, 1) != 0) {
        overlap("two arAllFramesReady activations at once", n, activation, ctx, vsapi);
        bad = 1;
    }
    if (d->mode == fmFrameState && !bad) {
        int open = -1;
        if (activation == arInitial) {
            if (!atomic_compare_exchange_strong(&d->open_frame, &open, n)) {
                overlap("a frame started while another was open", n, activation, ctx, vsapi);
                bad = 1;
            }
        } else if ((open = atomic_load(&d->open_frame)) != n) {
            overlap("a frame continued while another was open", n, activation, ctx, vsapi);
            bad = 1;
        }
    }
    sleep_us(d->sleep_us);

    const VSFrame *out = NULL;
    if (activation == arInitial && !bad) {
        request_window(d, n, 1, frame_data, ctx, vsapi);
    } else if (ready && !bad) {
        out = average_window(d, n, frame_data, ctx, core, vsapi, "Exclusive", 0);
    } else {
        pending_free(*frame_data, vsapi);
        *frame_data = NULL;
    }
    /* leave: the frame is finished unless arInitial requested frames */
    int finished = !(activation == arInitial && !bad);
    if (d->mode == fmFrameState && finished) {
        int mine = n;
        atomic_compare_exchange_strong(&d->open_frame, &mine, -1);
    }
    if (d->mode == fmParallelRequests && ready) atomic_fetch_sub(&d->inside_ready, 1);
    if (serial) atomic_fetch_sub(&d->inside, 1);
    return out;
}

/* ---- Cached ------------------------------------------------------------------------------------- */

static VSFrame *invert_one(const VSFrame *src, const Filter *d, VSCore *core, const VSAPI *vsapi) {
    int weight = 1;
    return combine(&src, &weight, 1, src, 1, d, core, vsapi);
}

static const VSFrame *VS_CC cached_get_frame(int n, int activation, void *instance, void **frame_data,
                                             VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    Filter *d = instance;
    /* frames come in pairs (0 1, 2 3, ...) that need the same source frames, so a frame made ahead
       for the cache fails or succeeds exactly as it would have on its own */
    int next = (n ^ 1) < d->vi.numFrames ? (n ^ 1) : -1;
    if (activation == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
        if (next >= 0) vsapi->requestFrameFilter(next, d->node, ctx);
        return NULL;
    }
    if (activation != arAllFramesReady) return NULL;
    if (next >= 0) {
        /* make the other frame of the pair too, as a linear filter does, and offer it to the cache */
        const VSFrame *src = vsapi->getFrameFilter(next, d->node, ctx);
        if (!src) {
            vsapi->setFilterError("Cached: the other frame of the pair is missing", ctx);
            return NULL;
        }
        VSFrame *ahead = invert_one(src, d, core, vsapi);
        vsapi->freeFrame(src);
        vsapi->releaseFrameEarly(d->node, next, ctx);
        const VSFrame *gone = vsapi->getFrameFilter(next, d->node, ctx);
        if (gone) {
            /* a released frame is no longer the filter's to get */
            vsapi->freeFrame(gone);
            vsapi->freeFrame(ahead);
            vsapi->setFilterError("Cached: getFrameFilter still returns a frame after releaseFrameEarly", ctx);
            return NULL;
        }
        vsapi->cacheFrame(ahead, next, ctx);
        vsapi->freeFrame(ahead);
    }
    const VSFrame *src = vsapi->getFrameFilter(n, d->node, ctx);
    if (!src) {
        vsapi->setFilterError("Cached: frame n is missing", ctx);
        return NULL;
    }
    vsapi->releaseFrameEarly(d->node, n, ctx);
    VSFrame *out = invert_one(src, d, core, vsapi);
    vsapi->freeFrame(src);
    return out;
}

/* ---- Merge -------------------------------------------------------------------------------------- */

static const VSFrame *VS_CC merge_get_frame(int n, int activation, void *instance, void **frame_data,
                                            VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    Filter *d = instance;
    if (activation == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
        vsapi->requestFrameFilter(n, d->other, ctx);
        return NULL;
    }
    if (activation != arAllFramesReady) return NULL;
    const VSFrame *src[2] = {vsapi->getFrameFilter(n, d->node, ctx), vsapi->getFrameFilter(n, d->other, ctx)};
    VSFrame *out = NULL;
    if (!src[0] || !src[1]) {
        vsapi->setFilterError("Merge: an input frame is missing", ctx);
    } else {
        int weights[2] = {1, 1};
        out = combine(src, weights, 2, src[0], 0, d, core, vsapi);
    }
    vsapi->freeFrame(src[0]);
    vsapi->freeFrame(src[1]);
    return out;
}

/* ---- Meet --------------------------------------------------------------------------------------- */

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const VSFrame *VS_CC meet_get_frame(int n, int activation, void *instance, void **frame_data,
                                           VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    (void)core;
    Filter *d = instance;
    if (activation == arInitial) {
        vsapi->requestFrameFilter(n, d->node, ctx);
        return NULL;
    }
    if (activation != arAllFramesReady) return NULL;
    /* the first `count` arrivals wait for each other; once they met, the rest pass */
    int mine = atomic_fetch_add(&d->arrived, 1) + 1;
    if (mine <= d->meet_count) {
        int64_t end = now_ms() + d->meet_timeout_ms;
        while (atomic_load(&d->arrived) < d->meet_count) {
            if (now_ms() > end) {
                char msg[160];
                snprintf(msg, sizeof msg, "Meet: %d activations never met: %d ran at once within %d ms (frame %d)",
                         d->meet_count, atomic_load(&d->arrived), d->meet_timeout_ms, n);
                vsapi->setFilterError(msg, ctx);
                return NULL;
            }
            sleep_us(1000);
        }
    }
    return vsapi->getFrameFilter(n, d->node, ctx);
}

/* ---- creation ----------------------------------------------------------------------------------- */

/* filter instances created and not yet freed, for tests that check a core's teardown */
static atomic_int live_instances;

VS_EXTERNAL_API(int) vsvkmodes_live_instances(void) { return atomic_load(&live_instances); }

static void VS_CC free_filter(void *instance, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    Filter *d = instance;
    atomic_fetch_sub(&live_instances, 1);
    vsapi->freeNode(d->node);
    vsapi->freeNode(d->other);
    free(d->fail);
    free(d);
}

static int64_t int_arg(const VSMap *in, const char *key, int64_t def, const VSAPI *vsapi) {
    int err = 0;
    int64_t v = vsapi->mapGetInt(in, key, 0, &err);
    return err ? def : v;
}

/* reads `clip`, checks the format; NULL (and an error in `out`) when it does not fit */
static Filter *filter_new(int kind, const char *name, const VSMap *in, VSMap *out, const VSAPI *vsapi) {
    Filter *d = calloc(1, sizeof *d);
    atomic_fetch_add(&live_instances, 1);
    d->kind = kind;
    d->node = vsapi->mapGetNode(in, kind == kMerge ? "clipa" : "clip", 0, NULL);
    d->vi = *vsapi->getVideoInfo(d->node);
    atomic_init(&d->inside, 0);
    atomic_init(&d->inside_ready, 0);
    atomic_init(&d->open_frame, -1);
    atomic_init(&d->arrived, 0);
    if (!supported(&d->vi)) {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: only constant 8-16 bit integer and 32-bit float formats", name);
        vsapi->mapSetError(out, msg);
        free_filter(d, NULL, vsapi);
        return NULL;
    }
    return d;
}

static void create(Filter *d, const char *name, int mode, VSMap *out, VSCore *core, const VSAPI *vsapi) {
    VSFilterDependency deps[2] = {{d->node, rpGeneral}, {d->other, rpStrictSpatial}};
    d->mode = mode;
    vsapi->createVideoFilter(out, name, &d->vi,
                             d->kind == kAverage     ? average_get_frame
                             : d->kind == kTwoStage  ? twostage_get_frame
                             : d->kind == kFail      ? fail_get_frame
                             : d->kind == kExclusive ? exclusive_get_frame
                             : d->kind == kCached    ? cached_get_frame
                             : d->kind == kMeet      ? meet_get_frame
                                                     : merge_get_frame,
                             free_filter, mode, deps, d->other ? 2 : 1, d, core);
    if (vsapi->mapGetError(out)) free_filter(d, core, vsapi); /* the core refused: the instance is still ours */
}

static void VS_CC average_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    int mode = (int)(intptr_t)user;
    Filter *d = filter_new(kAverage, mode_name(mode), in, out, vsapi);
    if (!d) return;
    d->radius = (int)int_arg(in, "radius", 2, vsapi);
    if (d->radius < 0 || d->radius > MAX_RADIUS) {
        vsapi->mapSetError(out, "radius must be between 0 and 8");
        free_filter(d, core, vsapi);
        return;
    }
    create(d, mode_name(mode), mode, out, core, vsapi);
}

static void VS_CC twostage_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    Filter *d = filter_new(kTwoStage, "TwoStage", in, out, vsapi);
    if (!d) return;
    int mode = (int)int_arg(in, "mode", fmParallel, vsapi);
    if (mode < fmParallel || mode > fmFrameState) {
        vsapi->mapSetError(out, "TwoStage: mode must be 0 to 3");
        free_filter(d, core, vsapi);
        return;
    }
    create(d, "TwoStage", mode, out, core, vsapi);
}

static void VS_CC fail_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    Filter *d = filter_new(kFail, "Fail", in, out, vsapi);
    if (!d) return;
    int n = vsapi->mapNumElements(in, "fail");
    if (n > 0) {
        d->fail = calloc((size_t)n, sizeof *d->fail);
        for (int i = 0; i < n; i++) d->fail[i] = vsapi->mapGetInt(in, "fail", i, NULL);
        d->nfail = n;
    }
    d->initial = (int)int_arg(in, "initial", 0, vsapi);
    create(d, "Fail", fmParallel, out, core, vsapi);
}

static void VS_CC exclusive_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    Filter *d = filter_new(kExclusive, "Exclusive", in, out, vsapi);
    if (!d) return;
    int mode = (int)int_arg(in, "mode", fmUnordered, vsapi);
    d->sleep_us = (int)int_arg(in, "sleep", 200, vsapi);
    if (mode < fmParallel || mode > fmFrameState) {
        vsapi->mapSetError(out, "Exclusive: mode must be 0 to 3");
        free_filter(d, core, vsapi);
        return;
    }
    create(d, "Exclusive", mode, out, core, vsapi);
}

static void VS_CC cached_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    Filter *d = filter_new(kCached, "Cached", in, out, vsapi);
    if (!d) return;
    d->mode = fmUnordered;
    VSFilterDependency dep = {d->node, rpGeneral};
    VSNode *node = vsapi->createVideoFilter2("Cached", &d->vi, cached_get_frame, free_filter, fmUnordered, &dep, 1, d, core);
    if (!node) {
        vsapi->mapSetError(out, "Cached: createVideoFilter2 failed");
        free_filter(d, core, vsapi);
        return;
    }
    vsapi->setLinearFilter(node);
    vsapi->mapConsumeNode(out, "clip", node, maReplace);
}

static void VS_CC merge_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    Filter *d = filter_new(kMerge, "Merge", in, out, vsapi);
    if (!d) return;
    d->other = vsapi->mapGetNode(in, "clipb", 0, NULL);
    const VSVideoInfo *b = vsapi->getVideoInfo(d->other);
    const VSVideoFormat *fa = &d->vi.format, *fb = &b->format;
    if (fb->colorFamily != fa->colorFamily || fb->sampleType != fa->sampleType || fb->bitsPerSample != fa->bitsPerSample ||
        fb->subSamplingW != fa->subSamplingW || fb->subSamplingH != fa->subSamplingH || b->width != d->vi.width ||
        b->height != d->vi.height) {
        vsapi->mapSetError(out, "Merge: the clips must have the same format and size");
        free_filter(d, core, vsapi);
        return;
    }
    if (b->numFrames < d->vi.numFrames) d->vi.numFrames = b->numFrames;
    create(d, "Merge", fmParallel, out, core, vsapi);
}

static void VS_CC meet_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    Filter *d = filter_new(kMeet, "Meet", in, out, vsapi);
    if (!d) return;
    d->meet_count = (int)int_arg(in, "count", 3, vsapi);
    d->meet_timeout_ms = (int)int_arg(in, "timeout", 5000, vsapi);
    if (d->meet_count < 1 || d->meet_timeout_ms < 0) {
        vsapi->mapSetError(out, "Meet: count must be positive and timeout not negative");
        free_filter(d, core, vsapi);
        return;
    }
    create(d, "Meet", fmParallel, out, core, vsapi);
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("org.vsvk.modes", "vsvkmodes", "vsvk scheduler test filters", VS_MAKE_VERSION(1, 0),
                         VAPOURSYNTH_API_VERSION, 0, plugin);
    static const int modes[4] = {fmParallel, fmParallelRequests, fmUnordered, fmFrameState};
    for (int i = 0; i < 4; i++)
        vspapi->registerFunction(mode_name(modes[i]), "clip:vnode;radius:int:opt;", "clip:vnode;", average_create,
                                 (void *)(intptr_t)modes[i], plugin);
    vspapi->registerFunction("TwoStage", "clip:vnode;mode:int:opt;", "clip:vnode;", twostage_create, NULL, plugin);
    vspapi->registerFunction("Fail", "clip:vnode;fail:int[]:opt;initial:int:opt;", "clip:vnode;", fail_create, NULL, plugin);
    vspapi->registerFunction("Exclusive", "clip:vnode;mode:int:opt;sleep:int:opt;", "clip:vnode;", exclusive_create, NULL,
                             plugin);
    vspapi->registerFunction("Cached", "clip:vnode;", "clip:vnode;", cached_create, NULL, plugin);
    vspapi->registerFunction("Merge", "clipa:vnode;clipb:vnode;", "clip:vnode;", merge_create, NULL, plugin);
    vspapi->registerFunction("Meet", "clip:vnode;count:int:opt;timeout:int:opt;", "clip:vnode;", meet_create, NULL, plugin);
}
