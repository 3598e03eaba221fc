/*
 * vsvk callback promises: checks what the API documentation promises about the callbacks a core
 * calls, on any core given as LIBCORE.
 *
 * usage: callbacks LIBCORE NOISE.so overlap [--threads N] [--inflight N] [--frames N] [--sleep-us N]
 *        callbacks LIBCORE NOISE.so inline
 *        callbacks LIBCORE NOISE.so log
 *        callbacks LIBCORE NOISE.so free [--wait]
 *
 *   overlap   getFrameAsync completion callbacks come one at a time. Keeps --inflight (16) requests in
 *             flight on --threads (8) threads over a vsvknoise clip of --frames (300) frames, twice:
 *             the second pass asks for the same frames again, so a core that caches them answers from
 *             its cache. Each callback sleeps --sleep-us (300) microseconds and asks for the next frame
 *             itself (the documentation allows getFrameAsync from a callback). A callback entered while
 *             another runs (on another thread, or nested on the same one) is an overlap.
 *             Prints "ok frames=.. overlaps=.. nested=.. threads_seen=.." when every frame arrived
 *             exactly once, with its own number and a frame; the caller judges the overlaps.
 *
 *   inline    getFrameAsync never runs the callback before it returns, not even for a cached frame or a
 *             frame number outside the clip: a host may hold a lock there that its callback takes.
 *             Prints "ok requests=.. inline=..".
 *
 *   log       addLogHandler: messages logged while no handler is installed are kept ("up to a few
 *             hundred") and delivered, in order, to the next handler added, and to it alone; what did
 *             not fit is counted. Each handler's free runs once, after its last call (on removal, or
 *             in freeCore for one still installed). Prints "ok replayed=.. second=.. kept=..
 *             discarded=.." after checking the order; stderr must stay empty (the caller checks).
 *
 *   free      The free callbacks of createFunction and createVideoFilter2 run once, after the last
 *             call of what they free: a function's when its last reference goes, a filter's once its
 *             node is gone and no frame of it is being made (in freeCore at the latest), with frame
 *             requests still in flight when the node is freed (with --wait, after every callback: R81 crashes
 *             when a node is freed with requests for it in flight). Prints "ok function_frees=..
 *             filter_frees=.. calls_after_free=..".
 *
 * Output: "ok ..." and exit status 0, or "error: ..." and 1.
 */
#include "harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


static int number(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 1000000) fail("bad number '%s'", s);
    return (int)v;
}

/* ---- overlap -------------------------------------------------------------------------------------- */

typedef struct {
    VSNode *node;
    int frames, passes, sleep_us;
    atomic_int next;        /* the next request to make, over all passes: pass * frames + n */
    atomic_int inside;      /* callbacks running now */
    atomic_int overlaps;    /* callbacks entered while another ran */
    atomic_int nested;      /* ... of them on a thread already inside a callback */
    atomic_int *arrivals;   /* per request */
    atomic_int bad;         /* callbacks with an error, no frame or the wrong number */
    char bad_msg[256];
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done;
    pthread_t seen[64];
    int nseen;
} Overlap;

static _Thread_local int in_callback;

static void VS_CC overlap_done(void *user, const VSFrame *f, int n, VSNode *node, const char *err);

/* asks for the next frame, if any is left */
static void request_next(Overlap *o) {
    int i = atomic_fetch_add(&o->next, 1);
    if (i >= o->frames * o->passes) return;
    api->getFrameAsync(i % o->frames, o->node, overlap_done, o);
}

static void VS_CC overlap_done(void *user, const VSFrame *f, int n, VSNode *node, const char *err) {
    (void)node;
    Overlap *o = user;
    if (in_callback) atomic_fetch_add(&o->nested, 1);
    if (atomic_fetch_add(&o->inside, 1) != 0) atomic_fetch_add(&o->overlaps, 1);
    in_callback++;

    if (!f || err || n < 0 || n >= o->frames) {
        if (atomic_fetch_add(&o->bad, 1) == 0)
            snprintf(o->bad_msg, sizeof o->bad_msg, "frame %d: %s%s", n, f ? "" : "no frame; ", err ? err : "");
    } else {
        atomic_fetch_add(&o->arrivals[n], 1);
    }
    if (f) api->freeFrame(f);

    pthread_mutex_lock(&o->lock);
    pthread_t me = pthread_self();
    int known = 0;
    for (int i = 0; i < o->nseen; i++) known |= pthread_equal(o->seen[i], me);
    if (!known && o->nseen < 64) o->seen[o->nseen++] = me;
    pthread_mutex_unlock(&o->lock);

    usleep((useconds_t)o->sleep_us);
    request_next(o);

    in_callback--;
    atomic_fetch_sub(&o->inside, 1);
    pthread_mutex_lock(&o->lock);
    o->done++;
    pthread_cond_broadcast(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

static int run_overlap(const char *libnoise, int argc, char **argv) {
    int threads = 8, inflight = 16, frames = 300, sleep_us = 300;
    for (int i = 0; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--threads")) threads = number(v), i++;
        else if (!strcmp(argv[i], "--inflight")) inflight = number(v), i++;
        else if (!strcmp(argv[i], "--frames")) frames = number(v), i++;
        else if (!strcmp(argv[i], "--sleep-us")) sleep_us = number(v), i++;
        else fail("unknown option %s", argv[i]);
    }
    if (frames < 1 || inflight < 1) fail("--frames and --inflight must be positive");

    VSCore *core = api->createCore(ccfDisableAutoLoading);
    api->setThreadCount(threads, core);
    load(core, libnoise);

    Overlap *o = calloc(1, sizeof *o);
    o->node = noise(core, frames);
    /* keep every frame, so that the second pass is answered from the cache */
    api->setCacheMode(o->node, cmForceEnable);
    api->setCacheOptions(o->node, 1, frames, frames);
    o->frames = frames;
    o->passes = 2;
    o->sleep_us = sleep_us;
    o->arrivals = calloc((size_t)frames, sizeof *o->arrivals);
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->cond, NULL);
    int total = frames * o->passes;

    for (int i = 0; i < inflight && i < total; i++) request_next(o);

    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 60;
    pthread_mutex_lock(&o->lock);
    while (o->done < total)
        if (pthread_cond_timedwait(&o->cond, &o->lock, &until)) break;
    int done = o->done;
    pthread_mutex_unlock(&o->lock);
    if (done < total) fail("only %d of %d callbacks within 60 s (overlaps so far %d)", done, total, atomic_load(&o->overlaps));

    if (atomic_load(&o->bad)) fail("%d callbacks without their frame, first: %s", atomic_load(&o->bad), o->bad_msg);
    for (int n = 0; n < frames; n++)
        if (atomic_load(&o->arrivals[n]) != o->passes)
            fail("frame %d arrived %d times over %d passes", n, atomic_load(&o->arrivals[n]), o->passes);

    api->freeNode(o->node);
    api->freeCore(core);
    /* a callback after freeCore would be one too many */
    pthread_mutex_lock(&o->lock);
    done = o->done;
    pthread_mutex_unlock(&o->lock);
    if (done != total) fail("%d callbacks came for %d requests", done, total);
    printf("ok frames=%d overlaps=%d nested=%d threads_seen=%d\n", total, atomic_load(&o->overlaps), atomic_load(&o->nested),
           o->nseen);
    free(o->arrivals);
    free(o);
    return 0;
}

/* ---- inline ------------------------------------------------------------------------------------- */

static _Thread_local int in_request;
static atomic_int inline_calls, inline_done;

static void VS_CC inline_done_cb(void *user, const VSFrame *f, int n, VSNode *node, const char *err) {
    (void)user, (void)n, (void)node, (void)err;
    if (in_request) atomic_fetch_add(&inline_calls, 1);
    if (f) api->freeFrame(f);
    atomic_fetch_add(&inline_done, 1);
}

static int run_inline(const char *libnoise) {
    VSCore *core = api->createCore(ccfDisableAutoLoading);
    api->setThreadCount(2, core);
    load(core, libnoise);
    VSNode *node = noise(core, 10);
    api->setCacheMode(node, cmForceEnable);
    char err[256];
    const VSFrame *f = api->getFrame(0, node, err, sizeof err);
    if (!f) fail("getFrame(0): %s", err);
    api->freeFrame(f);
    /* frame 0 is cached now; -1 and 10 are outside the clip */
    int frames[] = {0, 0, -1, 10, 0, 1};
    int count = (int)(sizeof frames / sizeof *frames);
    for (int i = 0; i < count; i++) {
        in_request = 1;
        api->getFrameAsync(frames[i], node, inline_done_cb, NULL);
        in_request = 0;
    }
    for (int i = 0; i < 10000 && atomic_load(&inline_done) < count; i++) usleep(1000);
    if (atomic_load(&inline_done) != count) fail("%d of %d callbacks within 10 s", atomic_load(&inline_done), count);
    api->freeNode(node);
    api->freeCore(core);
    printf("ok requests=%d inline=%d\n", count, atomic_load(&inline_calls));
    return 0;
}

/* ---- log ---------------------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    int calls, freed, after_free;
    int types[4096];
    char msgs[4096][24];
} Handler;

static void VS_CC log_handler(int type, const char *msg, void *user) {
    Handler *h = user;
    if (h->freed) h->after_free++;
    if (h->calls < 4096) {
        h->types[h->calls] = type;
        snprintf(h->msgs[h->calls], sizeof h->msgs[0], "%s", msg);
    }
    h->calls++;
}

static void VS_CC log_free(void *user) {
    ((Handler *)user)->freed++;
}

static int run_log(void) {
    static Handler a = {.name = "A"}, b = {.name = "B"}, c = {.name = "C"};
    VSCore *core = api->createCore(ccfDisableAutoLoading);
    const char *early[] = {"early debug", "early information", "early warning", "early critical"};
    for (int t = mtDebug; t <= mtCritical; t++) api->logMessage(t, early[t], core);

    VSLogHandle *ha = api->addLogHandler(log_handler, log_free, &a, core);
    /* the kept messages have gone to A; B, added next, sees only what comes after it */
    VSLogHandle *hb = api->addLogHandler(log_handler, log_free, &b, core);
    api->logMessage(mtWarning, "both", core);
    if (a.calls != 5) fail("handler A got %d messages, want the 4 logged before it and 1 after", a.calls);
    for (int t = mtDebug; t <= mtCritical; t++)
        if (a.types[t] != t || strcmp(a.msgs[t], early[t]))
            fail("handler A's message %d is (%d, '%s'), want (%d, '%s')", t, a.types[t], a.msgs[t], t, early[t]);
    if (strcmp(a.msgs[4], "both")) fail("handler A's last message is '%s'", a.msgs[4]);
    if (b.calls != 1 || strcmp(b.msgs[0], "both")) fail("handler B got %d messages (first '%s'), want only 'both'", b.calls, b.msgs[0]);

    if (!api->removeLogHandler(ha, core) || !api->removeLogHandler(hb, core)) fail("removeLogHandler failed");
    if (a.freed != 1 || b.freed != 1) fail("removed handlers freed %d and %d times", a.freed, b.freed);
    if (api->removeLogHandler(ha, core)) fail("a removed handle was removed again");

    /* with none installed again, messages are kept again: more than fit */
    int many = 2000;
    for (int i = 0; i < many; i++) {
        char m[24];
        snprintf(m, sizeof m, "m%d", i);
        api->logMessage(mtInformation, m, core);
    }
    api->addLogHandler(log_handler, log_free, &c, core);
    int kept = 0, discarded = 0;
    for (int i = 0; i < c.calls && i < 4096; i++) {
        char want[24];
        snprintf(want, sizeof want, "m%d", i);
        if (!strcmp(c.msgs[i], want)) {
            kept++;
            continue;
        }
        if (i != c.calls - 1 || sscanf(c.msgs[i], "%d", &discarded) != 1 || c.types[i] != mtWarning)
            fail("handler C's message %d is (%d, '%s'), want '%s' or a last warning counting what was dropped", i, c.types[i],
                 c.msgs[i], want);
    }
    if (kept + discarded != many) fail("%d messages kept and %d counted as discarded, of %d", kept, discarded, many);
    int before_free = c.calls;
    api->freeCore(core);
    if (c.freed != 1) fail("freeCore freed the handler still installed %d times", c.freed);
    if (a.after_free + b.after_free + c.after_free) fail("a handler was called after its free");
    if (c.calls != before_free) fail("handler C got %d messages in freeCore", c.calls - before_free);
    printf("ok replayed=%d second=%d kept=%d discarded=%d\n", a.calls - 1, b.calls - 1, kept, discarded);
    return 0;
}

/* ---- free --------------------------------------------------------------------------------------- */

static atomic_int fn_calls, fn_frees, fn_after_free, filter_calls, filter_frees, filter_after_free, free_done;

static void VS_CC counted_func(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)in, (void)out, (void)user, (void)core, (void)vsapi;
    if (atomic_load(&fn_frees)) atomic_fetch_add(&fn_after_free, 1);
    atomic_fetch_add(&fn_calls, 1);
}

static void VS_CC counted_func_free(void *user) {
    (void)user;
    atomic_fetch_add(&fn_frees, 1);
}

static const VSFrame *VS_CC counted_get_frame(int n, int ar, void *inst, void **fd, VSFrameContext *ctx, VSCore *core,
                                              const VSAPI *vsapi) {
    (void)fd;
    VSNode *src = inst;
    if (atomic_load(&filter_frees)) atomic_fetch_add(&filter_after_free, 1);
    atomic_fetch_add(&filter_calls, 1);
    if (ar == arInitial) {
        vsapi->requestFrameFilter(n, src, ctx);
        return NULL;
    }
    if (ar != arAllFramesReady) return NULL;
    usleep(2000);
    (void)core;
    return vsapi->getFrameFilter(n, src, ctx);
}

static void VS_CC counted_filter_free(void *inst, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    atomic_fetch_add(&filter_frees, 1);
    vsapi->freeNode(inst);
}

static void VS_CC free_frame_done(void *user, const VSFrame *f, int n, VSNode *node, const char *err) {
    (void)user, (void)n, (void)node, (void)err;
    if (f) api->freeFrame(f);
    atomic_fetch_add(&free_done, 1);
}

static int run_free(const char *libnoise, int wait_first) {
    VSCore *core = api->createCore(ccfDisableAutoLoading);
    api->setThreadCount(4, core);
    load(core, libnoise);

    VSFunction *fn = api->createFunction(counted_func, NULL, counted_func_free, core);
    api->addFunctionRef(fn);
    VSMap *in = api->createMap(), *out = api->createMap();
    api->callFunction(fn, in, out);
    api->freeFunction(fn);
    api->callFunction(fn, in, out);
    if (atomic_load(&fn_frees)) fail("a function was freed while a reference remained");
    api->freeFunction(fn);
    if (atomic_load(&fn_frees) != 1) fail("a function's free ran %d times when its last reference went", atomic_load(&fn_frees));
    api->freeMap(in);
    api->freeMap(out);

    VSNode *src = noise(core, 40);
    const VSVideoInfo *vi = api->getVideoInfo(src);
    VSFilterDependency dep = {src, rpStrictSpatial};
    VSNode *node = api->createVideoFilter2("Counted", vi, counted_get_frame, counted_filter_free, fmParallel, &dep, 1, src, core);
    if (!node) fail("createVideoFilter2 failed");
    int requests = 40;
    for (int i = 0; i < requests; i++) api->getFrameAsync(i, node, free_frame_done, NULL);
    if (wait_first)
        for (int i = 0; i < 20000 && atomic_load(&free_done) < requests; i++) usleep(1000);
    api->freeNode(node);
    api->freeCore(core);
    if (atomic_load(&free_done) != requests) fail("%d of %d callbacks by the time freeCore returned", atomic_load(&free_done), requests);
    if (atomic_load(&filter_frees) != 1) fail("the filter's free ran %d times", atomic_load(&filter_frees));
    printf("ok function_frees=%d filter_frees=%d calls_after_free=%d\n", atomic_load(&fn_frees), atomic_load(&filter_frees),
           atomic_load(&fn_after_free) + atomic_load(&filter_after_free));
    return 0;
}

/* ---- main ----------------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    if (argc < 4) fail("usage: callbacks LIBCORE NOISE.so overlap [options]");
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) fail("cannot load %s: %s", argv[1], dlerror());
    VSGetVapourSynthAPI entry = (VSGetVapourSynthAPI)dlsym(lib, "getVapourSynthAPI");
    if (!entry || !(api = entry(VAPOURSYNTH_API_VERSION))) fail("%s offers no API 4", argv[1]);
    if (!strcmp(argv[3], "overlap")) return run_overlap(argv[2], argc - 4, argv + 4);
    if (!strcmp(argv[3], "inline")) return run_inline(argv[2]);
    if (!strcmp(argv[3], "log")) return run_log();
    if (!strcmp(argv[3], "free")) return run_free(argv[2], argc > 4 && !strcmp(argv[4], "--wait"));
    fail("unknown check %s", argv[3]);
    return 1;
}
