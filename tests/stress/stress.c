/*
 * vsvk teardown stress: builds a graph of scheduler test filters, puts many getFrameAsync requests in
 * flight, lets go of every node while they run and frees the core, then checks that every callback
 * came exactly once, with a frame or with an error message, and that once freeCore has returned every
 * filter instance is freed and no thread of the core is left. Repeats for several cores in one process
 * (run it under valgrind to look for leaks and use after free).
 *
 * usage: stress LIBCORE NOISE.so MODES.so [--threads N] [--requests N] [--rounds N] [--frames N] [--wait]
 *
 *   --threads N    setThreadCount (default 4)
 *   --requests N   getFrameAsync calls per round (default 200); every (frames+2)th one is for frame -1
 *                  and one more for frame `frames`, which must fail at once
 *   --rounds N     cores created and freed one after the other (default 3)
 *   --frames N     the source's length (default 30)
 *   --wait         wait for every callback, then free the output node, then the core: what R81 needs
 *                  (it crashes when a node is freed while requests for it run, and its freeCore must come
 *                  after the last reference is gone). Without it the output node is freed right after
 *                  the requests are made and freeCore comes right after that, with the requests still
 *                  running: the core must keep the graph alive and finish them first.
 *
 * The graph: Noise -> Parallel -> TwoStage (fmFrameState) -> Fail(5, frames-3) -> Unordered -> Cached
 * -> Exclusive (fmFrameState) -> { itself, Parallel } -> Merge -> ParallelRequests.
 *
 * Output: "ok rounds=.. requests=.. frames=.. errors=.." and exit status 0, or "error: ..." and 1.
 */
#include "harness.h"

#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


/* ---- one request ---------------------------------------------------------------------------------- */

typedef struct {
    int n;                /* the frame asked for */
    atomic_int calls;     /* callbacks received */
    int got_frame;
    int got_n;            /* the frame number the callback named */
    int null_node;        /* the callback's node argument was NULL */
    char msg[256];
} Slot;

static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

static void VS_CC frame_done(void *user, const VSFrame *f, int n, VSNode *node, const char *err) {
    Slot *s = user;
    if (atomic_fetch_add(&s->calls, 1) == 0) {
        s->got_frame = f != NULL;
        s->got_n = n;
        s->null_node = node == NULL;
        snprintf(s->msg, sizeof s->msg, "%s", err ? err : "");
    }
    if (f) api->freeFrame(f);
    pthread_mutex_lock(&done_lock);
    done++;
    pthread_cond_broadcast(&done_cond);
    pthread_mutex_unlock(&done_lock);
}

/* Whether thread `tid` of this process has begun to exit. pthread_join returns once the kernel has
 * cleared the thread's tid, which happens in the middle of its exit: the task stays listed in
 * /proc/self/task until the kernel reaps it, and on a loaded machine the joiner can run first. A thread
 * in that state runs no user code any more; the kernel flags it PF_EXITING (0x4, the ninth field of
 * its stat line) before that point, so a thread without the flag is still running code. */
static int exiting(const char *tid) {
    char path[64], line[1024];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f) return 1; /* reaped meanwhile */
    size_t len = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    if (!len) return 1; /* reaped while being read */
    line[len] = 0;
    /* fields after the name in parentheses (which may hold spaces): state ppid pgrp session tty_nr
     * tpgid flags */
    const char *p = strrchr(line, ')');
    unsigned long flags = 0;
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1) fail("cannot parse %s", path);
    return (flags & 0x4) != 0;
}

/* The threads of this process that still run code. */
static int count_threads(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) fail("cannot read /proc/self/task");
    int count = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && !exiting(e->d_name)) count++;
    closedir(d);
    return count;
}

/* ---- building ------------------------------------------------------------------------------------- */


/* applies vsvkmodes.fn to `clip` (and lets go of `clip`): the usual shape of a script */
static VSNode *step(VSCore *core, const char *fn, VSNode *clip, VSMap *args) {
    if (!args) args = api->createMap();
    api->mapConsumeNode(args, "clip", clip, maReplace);
    return invoke(core, "vsvkmodes", fn, args);
}

static VSMap *ints(const char *key, int a, int b) {
    VSMap *m = api->createMap();
    api->mapSetInt(m, key, a, maAppend);
    if (b >= 0) api->mapSetInt(m, key, b, maAppend);
    return m;
}

static VSNode *build(VSCore *core, int frames) {
    VSNode *n = noise(core, frames);
    n = step(core, "Parallel", n, ints("radius", 1, -1));
    n = step(core, "TwoStage", n, ints("mode", fmFrameState, -1));
    n = step(core, "Fail", n, ints("fail", 5, frames - 3));
    n = step(core, "Unordered", n, ints("radius", 1, -1));
    n = step(core, "Cached", n, NULL);
    VSMap *e = ints("mode", fmFrameState, -1);
    api->mapSetInt(e, "sleep", 20, maReplace);
    n = step(core, "Exclusive", n, e);
    VSNode *branch = step(core, "Parallel", api->addNodeRef(n), NULL);
    VSMap *m = api->createMap();
    api->mapConsumeNode(m, "clipa", n, maReplace);
    api->mapConsumeNode(m, "clipb", branch, maReplace);
    n = invoke(core, "vsvkmodes", "Merge", m);
    return step(core, "ParallelRequests", n, ints("radius", 1, -1));
}

/* ---- main ----------------------------------------------------------------------------------------- */

static int number(const char *s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 0 || v > 1000000) fail("bad number %s", s);
    return (int)v;
}

int main(int argc, char **argv) {
    if (argc < 4) fail("usage: stress LIBCORE NOISE.so MODES.so [--threads N] [--requests N] [--rounds N] [--frames N] [--wait]");
    int threads = 4, requests = 200, rounds = 3, frames = 30, wait_first = 0;
    for (int i = 4; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--threads")) threads = number(v), i++;
        else if (!strcmp(argv[i], "--requests")) requests = number(v), i++;
        else if (!strcmp(argv[i], "--rounds")) rounds = number(v), i++;
        else if (!strcmp(argv[i], "--frames")) frames = number(v), i++;
        else if (!strcmp(argv[i], "--wait")) wait_first = 1;
        else fail("unknown option %s", argv[i]);
    }
    if (frames < 8) fail("--frames must be at least 8");

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) fail("cannot load %s: %s", argv[1], dlerror());
    VSGetVapourSynthAPI entry = (VSGetVapourSynthAPI)dlsym(lib, "getVapourSynthAPI");
    if (!entry || !(api = entry(VAPOURSYNTH_API_VERSION))) fail("%s offers no API 4", argv[1]);

    /* the test plugin counts its live filter instances: freeCore must leave none */
    void *modes = dlopen(argv[3], RTLD_NOW | RTLD_LOCAL);
    int (*live_instances)(void) = modes ? (int (*)(void))dlsym(modes, "vsvkmodes_live_instances") : NULL;
    if (!live_instances) fail("%s exports no vsvkmodes_live_instances", argv[3]);

    Slot *slots = calloc((size_t)requests, sizeof *slots);
    int threads_before = count_threads();
    int total_frames = 0, total_errors = 0;
    for (int round = 0; round < rounds; round++) {
        VSCore *core = api->createCore(ccfDisableAutoLoading);
        api->setThreadCount(threads, core);
        load(core, argv[2]);
        load(core, argv[3]);
        VSNode *out = build(core, frames);

        memset(slots, 0, (size_t)requests * sizeof *slots);
        pthread_mutex_lock(&done_lock);
        done = 0;
        pthread_mutex_unlock(&done_lock);
        for (int i = 0; i < requests; i++) {
            slots[i].n = i % (frames + 2) - 1; /* -1 .. frames: the first and last are outside the clip */
            atomic_init(&slots[i].calls, 0);
        }
        for (int i = 0; i < requests; i++) api->getFrameAsync(slots[i].n, out, frame_done, &slots[i]);
        /* let go of the graph while the requests run (R81 crashes on that: there it waits below) */
        if (!wait_first) api->freeNode(out);

        if (wait_first) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 120;
            pthread_mutex_lock(&done_lock);
            while (done < requests)
                if (pthread_cond_timedwait(&done_cond, &done_lock, &until)) break;
            int got = done;
            pthread_mutex_unlock(&done_lock);
            if (got < requests) fail("round %d: only %d of %d callbacks within 120 s", round, got, requests);
            api->freeNode(out);
        }
        api->freeCore(core);
        int live = live_instances();
        if (live) fail("round %d: %d filter instances were still alive when freeCore returned", round, live);
        /* and no thread of the core is left running (R81 joins its thread pool in freeCore) */
        int threads_after = count_threads();
        if (threads_after != threads_before)
            fail("round %d: %d threads when freeCore returned, %d before the core was created", round, threads_after,
                 threads_before);

        /* every callback has come, exactly once, before freeCore returned */
        pthread_mutex_lock(&done_lock);
        int got = done;
        pthread_mutex_unlock(&done_lock);
        if (got != requests) fail("round %d: %d of %d callbacks had come when freeCore returned", round, got, requests);
        for (int i = 0; i < requests; i++) {
            Slot *s = &slots[i];
            int calls = atomic_load(&s->calls);
            if (calls != 1) fail("round %d: request %d (frame %d) got %d callbacks", round, i, s->n, calls);
            if (s->got_n != s->n) fail("round %d: request for frame %d answered as frame %d", round, s->n, s->got_n);
            if (s->null_node) fail("round %d: the callback for frame %d got a NULL node", round, s->n);
            int outside = s->n < 0 || s->n >= frames;
            if (s->got_frame) {
                if (outside) fail("round %d: frame %d, outside the clip, came back as a frame", round, s->n);
                if (s->msg[0]) fail("round %d: frame %d came with both a frame and the message '%s'", round, s->n, s->msg);
                total_frames++;
                continue;
            }
            total_errors++;
            if (!s->msg[0]) fail("round %d: frame %d failed without a message", round, s->n);
            const char *want = outside ? "Invalid frame number" : "fails on purpose";
            if (!strstr(s->msg, want)) fail("round %d: frame %d failed with '%s' (want '%s')", round, s->n, s->msg, want);
            /* the same frame fails the same way for every request */
            for (int j = 0; j < i; j++)
                if (slots[j].n == s->n && slots[j].got_frame)
                    fail("round %d: frame %d both succeeded and failed", round, s->n);
        }
        /* frame 5 fails upstream and everything downstream of it must have failed too */
        for (int i = 0; i < requests; i++)
            if (slots[i].n == 5 && slots[i].got_frame) fail("round %d: frame 5 should have failed", round);
    }
    free(slots);
    printf("ok rounds=%d requests=%d frames=%d errors=%d\n", rounds, requests, total_frames, total_errors);
    return 0;
}
