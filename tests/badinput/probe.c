/*
 * vsvk bad-input probe: feeds a VapourSynth API 4 core one mistake after another and prints what
 * came back, one line per case, so that the tests can check the messages and compare two cores.
 * Every case must leave the core usable: the probe goes on to the next one and ends with frames that
 * must still work.
 *
 * usage: probe LIBCORE NOISE.so MODES.so BAD.so NOTPLUGIN.so
 *
 *   NOISE.so, MODES.so, BAD.so   the vsvknoise, vsvkmodes and vsvkbad test plugins
 *   NOTPLUGIN.so                 a shared library that is not a plugin (e.g. libz)
 *
 * Output, on stdout:
 *   case NAME: ok: DETAILS        the call succeeded
 *   case NAME: error: MESSAGE     the call failed with MESSAGE (newlines turned into spaces)
 *   log NAME: LEVEL: MESSAGE      a message the core logged while the case ran
 *   done                          the last line, after freeCore
 * Exit status 0 unless the probe itself could not run.
 */
#include "VapourSynth4.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const VSAPI *api;
static VSCore *core;

/* ---- output ------------------------------------------------------------------------------------- */

static void one_line(char *s) {
    for (; *s; s++)
        if (*s == '\n' || *s == '\r') *s = ' ';
}

static void report(const char *name, int ok, const char *fmt, ...) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    one_line(msg);
    printf("case %s: %s: %s\n", name, ok ? "ok" : "error", msg);
    fflush(stdout);
}

static void die(const char *what) {
    printf("fatal: %s\n", what);
    fflush(stdout);
    exit(2);
}

/* ---- captured log messages ---------------------------------------------------------------------- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[65536];
static size_t log_used;

static void VS_CC capture(int level, const char *msg, void *user) {
    (void)user;
    pthread_mutex_lock(&log_lock);
    int w = snprintf(log_text + log_used, sizeof log_text - log_used, "%d: %s\n", level, msg);
    if (w > 0) log_used = log_used + (size_t)w < sizeof log_text ? log_used + (size_t)w : sizeof log_text - 1;
    pthread_mutex_unlock(&log_lock);
}

/* prints and forgets what was logged since the last call, under the case's name */
static void flush_log(const char *name) {
    pthread_mutex_lock(&log_lock);
    char *save = NULL;
    for (char *line = strtok_r(log_text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        printf("log %s: %s\n", name, line);
    log_used = 0;
    log_text[0] = 0;
    pthread_mutex_unlock(&log_lock);
    fflush(stdout);
}

/* ---- invoking ----------------------------------------------------------------------------------- */

/* invokes ns.fn; reports a failure as the case's error and returns NULL, else the result map */
static VSMap *call(const char *name, const char *ns, const char *fn, VSMap *args, int report_ok) {
    VSPlugin *p = api->getPluginByNamespace(ns, core);
    if (!p) {
        report(name, 0, "(probe) no plugin with namespace %s", ns);
        return NULL;
    }
    VSMap *r = api->invoke(p, fn, args);
    const char *e = api->mapGetError(r);
    if (e) {
        report(name, 0, "%s", e);
        api->freeMap(r);
        r = NULL;
    } else if (report_ok) {
        report(name, 1, "%s.%s returned %d keys", ns, fn, api->mapNumKeys(r));
    }
    api->freeMap(args);
    flush_log(name);
    return r;
}

static VSMap *map_with_path(const char *path) {
    VSMap *m = api->createMap();
    api->mapSetData(m, "path", path, -1, dtUtf8, maReplace);
    return m;
}

static VSNode *take_clip(VSMap *r) {
    if (!r) return NULL;
    VSNode *n = api->mapGetNode(r, "clip", 0, NULL);
    api->freeMap(r);
    return n;
}

static VSNode *noise(int length) {
    VSMap *a = api->createMap();
    api->mapSetInt(a, "width", 64, maReplace);
    api->mapSetInt(a, "height", 48, maReplace);
    api->mapSetInt(a, "length", length, maReplace);
    api->mapSetInt(a, "format", pfYUV420P8, maReplace);
    VSNode *n = take_clip(call("make_noise", "vsvknoise", "Noise", a, 0));
    if (!n) die("cannot make the noise source");
    return n;
}

static VSNode *filter(const char *name, const char *fn, VSNode *clip, VSMap *args) {
    api->mapSetNode(args, "clip", clip, maReplace);
    return take_clip(call(name, "vsvkmodes", fn, args, 0));
}

/* ---- fetching ----------------------------------------------------------------------------------- */

static void get_frame(const char *name, VSNode *node, int n) {
    char err[1024] = "(untouched)";
    const VSFrame *f = api->getFrame(n, node, err, sizeof err);
    if (f) {
        report(name, 1, "frame %d", n);
        api->freeFrame(f);
    } else {
        report(name, 0, "%s", err);
    }
    flush_log(name);
}

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    const VSFrame *frame;
    char msg[1024];
    int had_msg;
} Waiter;

static void VS_CC async_done(void *user, const VSFrame *f, int n, VSNode *node, const char *err) {
    (void)n;
    (void)node;
    Waiter *w = user;
    pthread_mutex_lock(&w->lock);
    w->calls++;
    w->frame = f;
    w->had_msg = err != NULL;
    snprintf(w->msg, sizeof w->msg, "%s", err ? err : "");
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static void get_frame_async(const char *name, VSNode *node, int n) {
    Waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL, "", 0};
    api->getFrameAsync(n, node, async_done, &w);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&w.lock);
    while (w.calls == 0)
        if (pthread_cond_timedwait(&w.cond, &w.lock, &until)) break;
    pthread_mutex_unlock(&w.lock);
    if (w.calls == 0) {
        report(name, 0, "(probe) no callback within 30 s");
        die("a callback never came");
    }
    if (w.frame) {
        report(name, 1, "frame %d%s", n, w.had_msg ? " (and an error message)" : "");
        api->freeFrame(w.frame);
    } else {
        report(name, 0, "%s", w.had_msg ? w.msg : "(callback without frame or message)");
    }
    flush_log(name);
}

/* ---- the cases ---------------------------------------------------------------------------------- */

int main(int argc, char **argv) {
    if (argc != 6) die("usage: probe LIBCORE NOISE.so MODES.so BAD.so NOTPLUGIN.so");
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) die(dlerror());
    VSGetVapourSynthAPI entry = (VSGetVapourSynthAPI)dlsym(lib, "getVapourSynthAPI");
    if (!entry || !(api = entry(VAPOURSYNTH_API_VERSION))) die("no API 4 in the core library");
    core = api->createCore(ccfDisableAutoLoading);
    api->addLogHandler(capture, NULL, NULL, core);
    api->setThreadCount(4, core);
    flush_log("startup");

    /* plugins that cannot be loaded */
    call("load_not_plugin", "std", "LoadPlugin", map_with_path(argv[5]), 1);
    call("load_missing", "std", "LoadPlugin", map_with_path("/nonexistent/vsvk/libnothing.so"), 1);
    call("load_directory", "std", "LoadPlugin", map_with_path("/tmp"), 1);
    call("load_noise", "std", "LoadPlugin", map_with_path(argv[2]), 1);
    call("load_modes", "std", "LoadPlugin", map_with_path(argv[3]), 1);
    call("load_twice", "std", "LoadPlugin", map_with_path(argv[3]), 1);

    /* a plugin with broken registrations loads, without them */
    call("load_bad_register", "std", "LoadPlugin", map_with_path(argv[4]), 1);
    VSPlugin *bad = api->getPluginByNamespace("vsvkbad", core);
    if (!bad) {
        report("bad_plugin_present", 0, "no plugin vsvkbad after loading it");
    } else {
        report("bad_plugin_present", 1, "vsvkbad is loaded");
        const char *names[] = {"Good", "BadType", "BadSyntax", "BadReturn", "Late"};
        char list[256] = "";
        for (int i = 0; i < 5; i++) {
            strcat(list, api->getPluginFunctionByName(names[i], bad) ? "+" : "-");
            strcat(list, names[i]);
            strcat(list, " ");
        }
        report("bad_functions", 1, "%s", list);
        VSMap *r = call("bad_good", "vsvkbad", "Good", api->createMap(), 0);
        if (r) {
            char vals[128] = "";
            for (int i = 0; i < api->mapNumElements(r, "registered"); i++) {
                char one[24];
                snprintf(one, sizeof one, "%s%lld", i ? "," : "", (long long)api->mapGetInt(r, "registered", i, NULL));
                strcat(vals, one);
            }
            report("bad_good", 1, "registered=%s", vals);
            api->freeMap(r);
        }
        r = call("bad_late", "vsvkbad", "Late", api->createMap(), 1);
        if (r) api->freeMap(r);
        call("invoke_refused_function", "vsvkbad", "BadType", api->createMap(), 1);
    }

    /* invoke with bad arguments */
    VSNode *src = noise(20);
    call("invoke_unknown_function", "vsvknoise", "NoSuchFunction", api->createMap(), 1);
    VSMap *a = api->createMap();
    api->mapSetInt(a, "width", 64, maReplace);
    api->mapSetInt(a, "bogus", 1, maReplace);
    call("invoke_unknown_argument", "vsvknoise", "Noise", a, 1);
    call("invoke_missing_argument", "vsvkmodes", "Parallel", api->createMap(), 1);
    a = api->createMap();
    api->mapSetInt(a, "clip", 5, maReplace);
    call("invoke_mistyped_clip", "vsvkmodes", "Parallel", a, 1);
    a = api->createMap();
    api->mapSetData(a, "width", "wide", -1, dtUtf8, maReplace);
    call("invoke_mistyped_int", "vsvknoise", "Noise", a, 1);
    a = api->createMap();
    api->mapSetInt(a, "width", 64, maAppend);
    api->mapSetInt(a, "width", 48, maAppend);
    call("invoke_too_many_values", "vsvknoise", "Noise", a, 1);
    a = api->createMap();
    VSNode *audio = take_clip(call("make_audio", "vsvknoise", "NoiseAudio", api->createMap(), 0));
    api->mapSetNode(a, "clip", audio, maReplace);
    call("invoke_audio_for_video", "vsvkmodes", "Parallel", a, 1);
    api->freeNode(audio);
    a = api->createMap();
    api->mapSetInt(a, "format", 12345, maReplace);
    call("invoke_plugin_error", "vsvknoise", "Noise", a, 1);
    a = api->createMap();
    api->mapSetInt(a, "radius", 99, maReplace);
    api->mapSetNode(a, "clip", src, maReplace);
    call("invoke_filter_refuses", "vsvkmodes", "Parallel", a, 1);

    /* frames outside the clip */
    get_frame("getframe_past_end", src, 20);
    get_frame("getframe_negative", src, -1);
    get_frame("getframe_int_max", src, INT_MAX);
    get_frame_async("getframeasync_past_end", src, 20);
    get_frame_async("getframeasync_negative", src, -1);
    get_frame("getframe_last", src, 19);

    /* filters that fail frames, and their consumers */
    a = api->createMap();
    api->mapSetInt(a, "fail", 2, maAppend);
    api->mapSetInt(a, "fail", 15, maAppend);
    VSNode *fail = filter("make_fail", "Fail", src, a);
    a = api->createMap();
    api->mapSetInt(a, "fail", 2, maAppend);
    api->mapSetInt(a, "initial", 1, maAppend);
    VSNode *fail_initial = filter("make_fail_initial", "Fail", src, a);
    VSNode *consumer = filter("make_consumer", "Parallel", fail, api->createMap());
    VSNode *serial = filter("make_serial_consumer", "FrameState", consumer, api->createMap());
    if (!fail || !fail_initial || !consumer || !serial) die("cannot make the failing filters");

    get_frame("filter_error_getframe", fail, 2);
    get_frame("filter_error_neighbour", fail, 1);
    get_frame_async("filter_error_async", fail, 15);
    get_frame("filter_error_again", fail, 2);
    get_frame("filter_error_initial", fail_initial, 2);
    get_frame("dependency_failed_getframe", consumer, 1);
    get_frame_async("dependency_failed_async", consumer, 3);
    get_frame("dependency_failed_twice_removed", serial, 0);
    get_frame("dependency_fine_far_away", consumer, 9);
    {
        char small[8] = "XXXXXXX";
        const VSFrame *f = api->getFrame(2, fail, small, sizeof small);
        if (f) {
            report("error_buffer_small", 1, "frame");
            api->freeFrame(f);
        } else {
            report("error_buffer_small", 0, "%s", small);
        }
    }
    get_frame("core_still_works", consumer, 12);

    api->freeNode(serial);
    api->freeNode(consumer);
    api->freeNode(fail_initial);
    api->freeNode(fail);
    api->freeNode(src);
    flush_log("teardown");
    api->freeCore(core);
    printf("done\n");
    return 0;
}
