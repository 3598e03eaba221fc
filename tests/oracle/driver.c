/*
 * vsvk oracle driver: runs one filter chain on a VapourSynth API 4.3 core library and prints one line
 * that fingerprints everything the chain produced, so two cores can be held against each other.
 *
 * usage: driver LIBCORE [options] CHAIN
 *
 *   --threads N        setThreadCount(N) (default 0: the core chooses)
 *   --requests N       frames kept in flight (default: twice the core's thread count)
 *   --sync             fetch with the synchronous getFrame, from --requests caller threads (default 1)
 *   --plugin PATH      std.LoadPlugin(path=PATH) before anything else; may be repeated
 *   --width W --height H --frames N --format F --seed S
 *                      the video source vsvknoise.Noise; F is a preset name (YUV420P8, GrayS, RGB24,
 *                      YUV444PH, ...) or a numeric format id
 *   --audio            the source is vsvknoise.NoiseAudio instead, with
 *   --samples N --samplerate R --channels LAYOUT --bits B --float
 *   --frame-hashes     also print one hash per frame on stderr
 *   --props            also print the first frame's properties on stderr
 *   --dump FILE        also write every frame's visible bytes (planes or channels, unpadded) to FILE
 *   --list NS          print the functions of namespace NS (or of every plugin for '*') and exit
 *   --maxcpu LEVEL     std.SetMaxCPU(cpu=LEVEL) first ('none' pins a core to its plain C paths)
 *   --no-hash          do not read the frames (benchmarks: the fingerprint is left out, hash=0,
 *                      and GPU resident frames may end the chain)
 *   --warmup N         start the clock once the first N frames are in (default 0: at the first
 *                      request); fps counts the frames after them
 *   --timing           also print, on stderr, each node's processing time (setCoreNodeTiming and
 *                      getNodeProcessingTime: where a chain's time goes, on either core)
 *   --vram             also print vram_peak=<bytes>, the most getVulkanCoreInfo's `allocated`
 *                      showed after any frame, and vram_limit=<bytes> (only in a build that found
 *                      <vulkan/vulkan_core.h>: bench/run.py builds it with the Vulkan headers)
 *
 * CHAIN is a comma separated list of steps, '-' or '' for the bare source. A step is
 *   ns.Func[:arg]...
 * and each arg is one of
 *   key=123            an int                    key=0.5      a float (it has a dot)
 *   key='text          a string (utf-8)          key=$K       the node made by step K ($0: the source)
 *   key=<FILE          the whitespace separated numbers in FILE, appended as ints, or as floats if
 *                      any has a dot (tables too long for one command line argument; FILE may not
 *                      hold ',' or ':')
 *   @key               pass the previous step's node under `key` instead of `clip`
 *   @                  do not pass the previous step's node at all (for sources, or to use $K)
 * A key given twice appends, which makes arrays. Every step must return `clip`.
 *
 * Output, on stdout, one line:
 *   ok hash=<16 hex> frames=<n> clip=<video|audio>:<format>:<geometry>:<rate> threads=<n> fps=<f>
 * or a line that starts with "error:", and exit status 1. hash is 64-bit FNV-1a over, for every frame
 * in order: its format and size, every plane's visible bytes row by row (every channel's samples for
 * audio), then every frame property with the keys sorted: name, type, count and values.
 */
#define VS_USE_API_43
#include "VapourSynth4.h"
#if defined(__has_include)
#if __has_include(<vulkan/vulkan_core.h>)
#include "VSVulkan4.h"
#define DRIVER_HAS_VULKAN 1
#endif
#endif

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Loading the core: dlopen, or on Windows LoadLibraryExW on the UTF-8 path converted to UTF-16, with
   the altered search order so that the core's own DLLs beside it (R81's filters library) are found. */
#ifdef _WIN32
#include <windows.h>
static void *open_core(const char *path) {
    wchar_t wide[32768];
    if (!MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, path, -1, wide, 32768)) return NULL;
    return (void *)LoadLibraryExW(wide, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
}
static void *core_symbol(void *lib, const char *name) { return (void *)GetProcAddress((HMODULE)lib, name); }
static const char *open_error(void) {
    static char msg[512];
    DWORD e = GetLastError();
    int n = snprintf(msg, sizeof msg, "error %lu: ", (unsigned long)e);
    if (!FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg + n, (DWORD)(sizeof msg - n), NULL))
        msg[n] = 0;
    return msg;
}
#else
#include <dlfcn.h>
static void *open_core(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *core_symbol(void *lib, const char *name) { return dlsym(lib, name); }
static const char *open_error(void) { return dlerror(); }
#endif

static const VSAPI *api;

static void fail(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *c = msg; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    fflush(stderr);
    printf("error: %s\n", msg);
    fflush(stdout);
    _exit(1); /* worker threads may still be running inside the core: leave without tearing down */
}

/* ---- FNV-1a ------------------------------------------------------------------------------------- */

typedef uint64_t Fnv;
#define FNV_START 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static void fnv_bytes(Fnv *h, const void *data, size_t len) {
    const unsigned char *p = data;
    Fnv v = *h;
    for (size_t i = 0; i < len; i++) {
        v ^= p[i];
        v *= FNV_PRIME;
    }
    *h = v;
}

static void fnv_i64(Fnv *h, int64_t x) {
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)x >> (8 * i));
    fnv_bytes(h, b, 8);
}

static void fnv_str(Fnv *h, const char *s) { fnv_bytes(h, s, strlen(s) + 1); }

/* ---- fingerprints of frames and maps ------------------------------------------------------------- */

static void hash_frame(Fnv *h, const VSFrame *f);

static int key_order(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static void hash_map(Fnv *h, const VSMap *m) {
    int nkeys = api->mapNumKeys(m);
    const char **keys = calloc(nkeys > 0 ? (size_t)nkeys : 1, sizeof *keys);
    for (int i = 0; i < nkeys; i++) keys[i] = api->mapGetKey(m, i);
    qsort(keys, (size_t)nkeys, sizeof *keys, key_order);
    fnv_i64(h, nkeys);
    for (int i = 0; i < nkeys; i++) {
        const char *k = keys[i];
        int type = api->mapGetType(m, k), count = api->mapNumElements(m, k), err = 0;
        fnv_str(h, k);
        fnv_i64(h, type);
        fnv_i64(h, count);
        for (int e = 0; e < count; e++) {
            switch (type) {
            case ptInt: fnv_i64(h, api->mapGetInt(m, k, e, &err)); break;
            case ptFloat: {
                double d = api->mapGetFloat(m, k, e, &err);
                int64_t bits;
                memcpy(&bits, &d, sizeof bits);
                fnv_i64(h, bits);
                break;
            }
            case ptData: {
                int size = api->mapGetDataSize(m, k, e, &err);
                fnv_i64(h, size);
                fnv_i64(h, api->mapGetDataTypeHint(m, k, e, &err));
                fnv_bytes(h, api->mapGetData(m, k, e, &err), size > 0 ? (size_t)size : 0);
                break;
            }
            case ptVideoFrame:
            case ptAudioFrame: {
                const VSFrame *f = api->mapGetFrame(m, k, e, &err);
                if (f) { hash_frame(h, f); api->freeFrame(f); }
                break;
            }
            case ptVideoNode:
            case ptAudioNode: {
                VSNode *node = api->mapGetNode(m, k, e, &err);
                if (node && type == ptVideoNode) {
                    const VSVideoInfo *vi = api->getVideoInfo(node);
                    fnv_i64(h, vi->width); fnv_i64(h, vi->height); fnv_i64(h, vi->numFrames);
                } else if (node) {
                    const VSAudioInfo *ai = api->getAudioInfo(node);
                    fnv_i64(h, ai->sampleRate); fnv_i64(h, ai->numSamples);
                }
                if (node) api->freeNode(node);
                break;
            }
            default: break; /* functions: the type and count are all there is to compare */
            }
            if (err) fail("reading property %s[%d]: error %d", k, e, err);
        }
    }
    free(keys);
}

static void hash_frame(Fnv *h, const VSFrame *f) {
    if (api->getFrameType(f) == mtVideo) {
        const VSVideoFormat *fmt = api->getVideoFrameFormat(f);
        fnv_i64(h, fmt->colorFamily); fnv_i64(h, fmt->sampleType); fnv_i64(h, fmt->bitsPerSample);
        fnv_i64(h, fmt->subSamplingW); fnv_i64(h, fmt->subSamplingH);
        for (int p = 0; p < fmt->numPlanes; p++) {
            const uint8_t *src = api->getReadPtr(f, p);
            ptrdiff_t stride = api->getStride(f, p);
            int w = api->getFrameWidth(f, p), rows = api->getFrameHeight(f, p);
            fnv_i64(h, w); fnv_i64(h, rows);
            for (int y = 0; y < rows; y++) fnv_bytes(h, src + y * stride, (size_t)w * (size_t)fmt->bytesPerSample);
        }
    } else {
        const VSAudioFormat *fmt = api->getAudioFrameFormat(f);
        int len = api->getFrameLength(f);
        fnv_i64(h, fmt->sampleType); fnv_i64(h, fmt->bitsPerSample); fnv_i64(h, (int64_t)fmt->channelLayout);
        fnv_i64(h, len);
        for (int c = 0; c < fmt->numChannels; c++) fnv_bytes(h, api->getReadPtr(f, c), (size_t)len * (size_t)fmt->bytesPerSample);
    }
    hash_map(h, api->getFramePropertiesRO(f));
}

/* ---- options -------------------------------------------------------------------------------------- */

typedef struct {
    const char *lib, *chain, *list;
    const char **plugins;
    int nplugins;
    int threads, requests, sync, frame_hashes, show_props, audio, use_float;
    const char *dump, *maxcpu;
    int no_hash, warmup, vram, timing;
    int64_t width, height, frames, seed, samples, samplerate, channels, bits;
    const char *format;
} Options;

static int64_t number(const char *opt, const char *s) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || end == s || *end) fail("%s wants a number, not '%s'", opt, s);
    return v;
}

static void parse_options(int argc, char **argv, Options *o) {
    memset(o, 0, sizeof *o);
    o->width = 640; o->height = 480; o->frames = 20; o->format = "YUV420P8";
    o->samples = 48000; o->samplerate = 48000; o->channels = 3; o->bits = 0;
    o->plugins = calloc((size_t)argc, sizeof *o->plugins);
    int positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define WANT() do { if (!v) fail("%s needs a value", a); i++; } while (0)
        if (!strcmp(a, "--threads")) { WANT(); o->threads = (int)number(a, v); }
        else if (!strcmp(a, "--requests")) { WANT(); o->requests = (int)number(a, v); }
        else if (!strcmp(a, "--sync")) o->sync = 1;
        else if (!strcmp(a, "--plugin")) { WANT(); o->plugins[o->nplugins++] = v; }
        else if (!strcmp(a, "--width")) { WANT(); o->width = number(a, v); }
        else if (!strcmp(a, "--height")) { WANT(); o->height = number(a, v); }
        else if (!strcmp(a, "--frames")) { WANT(); o->frames = number(a, v); }
        else if (!strcmp(a, "--format")) { WANT(); o->format = v; }
        else if (!strcmp(a, "--seed")) { WANT(); o->seed = number(a, v); }
        else if (!strcmp(a, "--audio")) o->audio = 1;
        else if (!strcmp(a, "--samples")) { WANT(); o->samples = number(a, v); }
        else if (!strcmp(a, "--samplerate")) { WANT(); o->samplerate = number(a, v); }
        else if (!strcmp(a, "--channels")) { WANT(); o->channels = number(a, v); }
        else if (!strcmp(a, "--bits")) { WANT(); o->bits = number(a, v); }
        else if (!strcmp(a, "--float")) o->use_float = 1;
        else if (!strcmp(a, "--frame-hashes")) o->frame_hashes = 1;
        else if (!strcmp(a, "--props")) o->show_props = 1;
        else if (!strcmp(a, "--dump")) { WANT(); o->dump = v; }
        else if (!strcmp(a, "--list")) { WANT(); o->list = v; }
        else if (!strcmp(a, "--maxcpu")) { WANT(); o->maxcpu = v; }
        else if (!strcmp(a, "--no-hash")) o->no_hash = 1;
        else if (!strcmp(a, "--warmup")) { WANT(); o->warmup = (int)number(a, v); }
        else if (!strcmp(a, "--vram")) o->vram = 1;
        else if (!strcmp(a, "--timing")) o->timing = 1;
        else if (a[0] == '-' && a[1] == '-') fail("unknown option %s", a);
        else if (positional == 0) { o->lib = a; positional++; }
        else if (positional == 1) { o->chain = a; positional++; }
        else fail("more than one CHAIN given ('%s')", a);
#undef WANT
    }
    if (!o->lib || (!o->chain && !o->list))
        fail("usage: driver LIBCORE [--threads N] [--requests N] [--sync] [--plugin PATH]... CHAIN");
}

/* ---- formats by name ---------------------------------------------------------------------------- */

static const struct { const char *name; int family, type, bits, ssw, ssh; } presets[] = {
    {"Gray8", cfGray, stInteger, 8, 0, 0},       {"Gray9", cfGray, stInteger, 9, 0, 0},
    {"Gray10", cfGray, stInteger, 10, 0, 0},     {"Gray12", cfGray, stInteger, 12, 0, 0},
    {"Gray14", cfGray, stInteger, 14, 0, 0},     {"Gray16", cfGray, stInteger, 16, 0, 0},
    {"Gray32", cfGray, stInteger, 32, 0, 0},     {"GrayH", cfGray, stFloat, 16, 0, 0},
    {"GrayS", cfGray, stFloat, 32, 0, 0},        {"YUV410P8", cfYUV, stInteger, 8, 2, 2},
    {"YUV411P8", cfYUV, stInteger, 8, 2, 0},     {"YUV440P8", cfYUV, stInteger, 8, 0, 1},
    {"YUV420P8", cfYUV, stInteger, 8, 1, 1},     {"YUV422P8", cfYUV, stInteger, 8, 1, 0},
    {"YUV444P8", cfYUV, stInteger, 8, 0, 0},     {"YUV420P9", cfYUV, stInteger, 9, 1, 1},
    {"YUV422P9", cfYUV, stInteger, 9, 1, 0},     {"YUV444P9", cfYUV, stInteger, 9, 0, 0},
    {"YUV420P10", cfYUV, stInteger, 10, 1, 1},   {"YUV422P10", cfYUV, stInteger, 10, 1, 0},
    {"YUV444P10", cfYUV, stInteger, 10, 0, 0},   {"YUV420P12", cfYUV, stInteger, 12, 1, 1},
    {"YUV422P12", cfYUV, stInteger, 12, 1, 0},   {"YUV444P12", cfYUV, stInteger, 12, 0, 0},
    {"YUV420P14", cfYUV, stInteger, 14, 1, 1},   {"YUV422P14", cfYUV, stInteger, 14, 1, 0},
    {"YUV444P14", cfYUV, stInteger, 14, 0, 0},   {"YUV420P16", cfYUV, stInteger, 16, 1, 1},
    {"YUV422P16", cfYUV, stInteger, 16, 1, 0},   {"YUV444P16", cfYUV, stInteger, 16, 0, 0},
    {"YUV420PH", cfYUV, stFloat, 16, 1, 1},      {"YUV420PS", cfYUV, stFloat, 32, 1, 1},
    {"YUV422PH", cfYUV, stFloat, 16, 1, 0},      {"YUV422PS", cfYUV, stFloat, 32, 1, 0},
    {"YUV444PH", cfYUV, stFloat, 16, 0, 0},      {"YUV444PS", cfYUV, stFloat, 32, 0, 0},
    {"RGB24", cfRGB, stInteger, 8, 0, 0},        {"RGB27", cfRGB, stInteger, 9, 0, 0},
    {"RGB30", cfRGB, stInteger, 10, 0, 0},       {"RGB36", cfRGB, stInteger, 12, 0, 0},
    {"RGB42", cfRGB, stInteger, 14, 0, 0},       {"RGB48", cfRGB, stInteger, 16, 0, 0},
    {"RGBH", cfRGB, stFloat, 16, 0, 0},          {"RGBS", cfRGB, stFloat, 32, 0, 0},
};

static int64_t format_id(const char *name, VSCore *core) {
    char *end;
    long long id = strtoll(name, &end, 0);
    if (end != name && !*end) return id;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        if (strcmp(presets[i].name, name)) continue;
        uint32_t q = api->queryVideoFormatID(presets[i].family, presets[i].type, presets[i].bits, presets[i].ssw,
                                             presets[i].ssh, core);
        if (!q) fail("the core does not know the format %s", name);
        return q;
    }
    fail("unknown format name %s", name);
    return 0;
}

/* ---- building the chain ------------------------------------------------------------------------- */

typedef struct {
    VSNode **nodes;
    int count, cap;
} Nodes;

static void push_node(Nodes *ns, VSNode *n) {
    if (ns->count == ns->cap) {
        ns->cap = ns->cap ? ns->cap * 2 : 8;
        ns->nodes = realloc(ns->nodes, (size_t)ns->cap * sizeof *ns->nodes);
    }
    ns->nodes[ns->count++] = n;
}

static VSMap *invoke(VSCore *core, const char *ns, const char *fn, const VSMap *args) {
    VSPlugin *p = api->getPluginByNamespace(ns, core);
    if (!p) fail("no plugin with the namespace %s", ns);
    VSMap *r = api->invoke(p, fn, args);
    if (!r) fail("%s.%s: invoke returned nothing", ns, fn);
    const char *e = api->mapGetError(r);
    if (e) fail("%s.%s: %s", ns, fn, e);
    return r;
}

static VSNode *clip_of(VSMap *result, const char *what) {
    int err = 0;
    VSNode *n = api->mapGetNode(result, "clip", 0, &err);
    if (err || !n) fail("%s returned no clip", what);
    return n;
}

/* key=<FILE: a whole array at once, since 64 K numbers and more do not fit one argv entry */
static void set_from_file(VSMap *in, const char *key, const char *path, const char *ns, const char *fn) {
    FILE *fp = fopen(path, "rb");
    if (!fp) fail("%s.%s: %s=<%s: %s", ns, fn, key, path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap + 1);
    for (size_t n; (n = fread(text + len, 1, cap - len, fp)) > 0;) {
        len += n;
        if (len == cap) text = realloc(text, (cap *= 2) + 1);
    }
    fclose(fp);
    text[len] = 0;
    int floats = strchr(text, '.') != NULL;
    size_t count = 0, room = 1024;
    int64_t *iv = floats ? NULL : malloc(room * sizeof *iv);
    double *dv = floats ? malloc(room * sizeof *dv) : NULL;
    char *p = text, *end;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
        if (!*p) break;
        if (count == room) {
            room *= 2;
            if (floats) dv = realloc(dv, room * sizeof *dv);
            else iv = realloc(iv, room * sizeof *iv);
        }
        errno = 0;
        if (floats) dv[count] = strtod(p, &end);
        else iv[count] = strtoll(p, &end, 10);
        if (end == p || errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
            fail("%s.%s: %s=<%s: cannot read number %zu", ns, fn, key, path, count + 1);
        count++;
        p = end;
    }
    if (!count) fail("%s.%s: %s=<%s: no numbers", ns, fn, key, path);
    /* one call for the whole array when the key is new; appends keep 'a key given twice appends' */
    if (api->mapNumElements(in, key) < 0) {
        if (floats) api->mapSetFloatArray(in, key, dv, (int)count);
        else api->mapSetIntArray(in, key, iv, (int)count);
    } else {
        for (size_t i = 0; i < count; i++) {
            if (floats) api->mapSetFloat(in, key, dv[i], maAppend);
            else api->mapSetInt(in, key, iv[i], maAppend);
        }
    }
    free(iv);
    free(dv);
    free(text);
}

/* one step: "ns.Func[:arg]..." applied to the nodes made so far */
static void run_step(VSCore *core, char *step, Nodes *made) {
    char *args = strchr(step, ':');
    if (args) *args++ = 0;
    char *dot = strchr(step, '.');
    if (!dot || dot == step || !dot[1]) fail("bad chain step '%s' (want ns.Func)", step);
    *dot = 0;
    const char *ns = step, *fn = dot + 1;
    const char *input_key = "clip";
    VSMap *in = api->createMap();
    while (args) {
        char *next = strchr(args, ':');
        if (next) *next++ = 0;
        if (args[0] == '@') {
            input_key = args[1] ? args + 1 : NULL;
        } else {
            char *eq = strchr(args, '=');
            if (!eq || eq == args) fail("bad argument '%s' in %s.%s", args, ns, fn);
            *eq = 0;
            const char *key = args, *val = eq + 1;
            char *end;
            if (val[0] == '\'') {
                api->mapSetData(in, key, val + 1, -1, dtUtf8, maAppend);
            } else if (val[0] == '<') {
                set_from_file(in, key, val + 1, ns, fn);
            } else if (val[0] == '$') {
                long k = strtol(val + 1, &end, 10);
                if (end == val + 1 || *end || k < 0 || k >= made->count)
                    fail("%s.%s: %s=%s names no node made so far", ns, fn, key, val);
                api->mapSetNode(in, key, made->nodes[k], maAppend);
            } else {
                errno = 0;
                long long iv = strtoll(val, &end, 10);
                if (!errno && end != val && !*end) {
                    api->mapSetInt(in, key, iv, maAppend);
                } else {
                    double dv = strtod(val, &end);
                    if (end == val || *end || !strchr(val, '.')) fail("%s.%s: cannot read %s=%s", ns, fn, key, val);
                    api->mapSetFloat(in, key, dv, maAppend);
                }
            }
        }
        args = next;
    }
    if (input_key) api->mapSetNode(in, input_key, made->nodes[made->count - 1], maAppend);
    char what[256];
    snprintf(what, sizeof what, "%s.%s", ns, fn);
    VSMap *out = invoke(core, ns, fn, in);
    push_node(made, clip_of(out, what));
    api->freeMap(out);
    api->freeMap(in);
}

/* ---- fetching frames ---------------------------------------------------------------------------- */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    const VSFrame **frames;
    char *error;
    int error_frame;
    /* synchronous mode */
    VSNode *node;
    int next, consumed, window, total;
} Fetch;

static Fetch fetch = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, -1, NULL, 0, 0, 0, 0};

static void VS_CC frame_done(void *user, const VSFrame *f, int n, VSNode *node, const char *err) {
    (void)user;
    (void)node;
    pthread_mutex_lock(&fetch.lock);
    if (!f && !fetch.error) {
        fetch.error = strdup(err ? err : "(no message)");
        fetch.error_frame = n;
    }
    fetch.frames[n] = f;
    pthread_cond_broadcast(&fetch.changed);
    pthread_mutex_unlock(&fetch.lock);
}

static void *sync_worker(void *unused) {
    (void)unused;
    char err[1024];
    for (;;) {
        pthread_mutex_lock(&fetch.lock);
        while (!fetch.error && fetch.next < fetch.total && fetch.next >= fetch.consumed + fetch.window)
            pthread_cond_wait(&fetch.changed, &fetch.lock);
        if (fetch.error || fetch.next >= fetch.total) {
            pthread_mutex_unlock(&fetch.lock);
            return NULL;
        }
        int n = fetch.next++;
        pthread_mutex_unlock(&fetch.lock);
        err[0] = 0;
        const VSFrame *f = api->getFrame(n, fetch.node, err, sizeof err);
        frame_done(NULL, f, n, fetch.node, err[0] ? err : NULL);
    }
}

/* ---- debugging aids ----------------------------------------------------------------------------- */

static void dump_frame(FILE *out, const VSFrame *f) {
    if (api->getFrameType(f) == mtVideo) {
        const VSVideoFormat *fmt = api->getVideoFrameFormat(f);
        for (int p = 0; p < fmt->numPlanes; p++) {
            const uint8_t *src = api->getReadPtr(f, p);
            ptrdiff_t stride = api->getStride(f, p);
            size_t w = (size_t)api->getFrameWidth(f, p) * (size_t)fmt->bytesPerSample;
            for (int y = 0; y < api->getFrameHeight(f, p); y++) fwrite(src + y * stride, 1, w, out);
        }
    } else {
        const VSAudioFormat *fmt = api->getAudioFrameFormat(f);
        for (int c = 0; c < fmt->numChannels; c++)
            fwrite(api->getReadPtr(f, c), (size_t)fmt->bytesPerSample, (size_t)api->getFrameLength(f), out);
    }
}

static void print_props(const VSFrame *f) {
    const VSMap *m = api->getFramePropertiesRO(f);
    for (int i = 0; i < api->mapNumKeys(m); i++) {
        const char *k = api->mapGetKey(m, i);
        int type = api->mapGetType(m, k), count = api->mapNumElements(m, k), err;
        fprintf(stderr, "prop %s type=%d:", k, type);
        for (int e = 0; e < count && e < 16; e++) {
            if (type == ptInt) fprintf(stderr, " %lld", (long long)api->mapGetInt(m, k, e, &err));
            else if (type == ptFloat) fprintf(stderr, " %.17g", api->mapGetFloat(m, k, e, &err));
            else if (type == ptData && api->mapGetDataTypeHint(m, k, e, &err) == dtUtf8) fprintf(stderr, " '%s'", api->mapGetData(m, k, e, &err));
            else if (type == ptData) fprintf(stderr, " <%d bytes>", api->mapGetDataSize(m, k, e, &err));
            else fprintf(stderr, " <object>");
        }
        fprintf(stderr, "\n");
    }
}

/* ---- main --------------------------------------------------------------------------------------- */

static void VS_CC log_to_stderr(int type, const char *msg, void *user) {
    (void)user;
    if (type >= mtWarning) fprintf(stderr, "log[%d]: %s\n", type, msg);
}

static void list_functions(VSCore *core, const char *want) {
    for (VSPlugin *p = api->getNextPlugin(NULL, core); p; p = api->getNextPlugin(p, core)) {
        const char *ns = api->getPluginNamespace(p);
        if (strcmp(want, "*") && strcmp(want, ns)) continue;
        for (VSPluginFunction *f = api->getNextPluginFunction(NULL, p); f; f = api->getNextPluginFunction(f, p))
            printf("%s.%s(%s) -> %s\n", ns, api->getPluginFunctionName(f), api->getPluginFunctionArguments(f),
                   api->getPluginFunctionReturnType(f));
    }
}

static void describe(VSNode *node, char *buf, size_t size) {
    char name[64] = "?";
    if (api->getNodeType(node) == mtVideo) {
        const VSVideoInfo *vi = api->getVideoInfo(node);
        if (!api->getVideoFormatName(&vi->format, name)) snprintf(name, sizeof name, "variable");
        snprintf(buf, size, "video:%s:%dx%d:%lld/%lld", name, vi->width, vi->height, (long long)vi->fpsNum,
                 (long long)vi->fpsDen);
    } else {
        const VSAudioInfo *ai = api->getAudioInfo(node);
        api->getAudioFormatName(&ai->format, name);
        for (char *c = name; *c; c++)
            if (*c == ' ') *c = '_';
        snprintf(buf, size, "audio:%s:%llx:%lld@%d", name, (unsigned long long)ai->format.channelLayout,
                 (long long)ai->numSamples, ai->sampleRate);
    }
}

int main(int argc, char **argv) {
    Options o;
    parse_options(argc, argv, &o);

    void *lib = open_core(o.lib);
    if (!lib) fail("cannot load %s: %s", o.lib, open_error());
    VSGetVapourSynthAPI entry = (VSGetVapourSynthAPI)core_symbol(lib, "getVapourSynthAPI");
    if (!entry) fail("%s exports no getVapourSynthAPI", o.lib);
    api = entry(VAPOURSYNTH_API_VERSION);
    if (!api) fail("%s does not offer API %d.%d", o.lib, VAPOURSYNTH_API_MAJOR, VAPOURSYNTH_API_MINOR);

    VSCore *core = api->createCore(0);
    if (!core) fail("createCore failed");
    api->addLogHandler(log_to_stderr, NULL, NULL, core);
    int threads = api->setThreadCount(o.threads, core);
    if (o.timing) api->setCoreNodeTiming(core, 1);

    if (o.maxcpu) {
        VSMap *a = api->createMap();
        api->mapSetData(a, "cpu", o.maxcpu, -1, dtUtf8, maReplace);
        api->freeMap(invoke(core, "std", "SetMaxCPU", a));
        api->freeMap(a);
    }
    for (int i = 0; i < o.nplugins; i++) {
        VSMap *a = api->createMap();
        api->mapSetData(a, "path", o.plugins[i], -1, dtUtf8, maReplace);
        api->freeMap(invoke(core, "std", "LoadPlugin", a));
        api->freeMap(a);
    }
    if (o.list) {
        list_functions(core, o.list);
        api->freeCore(core);
        return 0;
    }

    /* the source */
    Nodes made = {0};
    VSMap *a = api->createMap();
    if (o.audio) {
        api->mapSetInt(a, "length", o.samples, maReplace);
        api->mapSetInt(a, "samplerate", o.samplerate, maReplace);
        api->mapSetInt(a, "channels", o.channels, maReplace);
        if (o.bits) api->mapSetInt(a, "bits", o.bits, maReplace);
        api->mapSetInt(a, "float", o.use_float, maReplace);
    } else {
        api->mapSetInt(a, "width", o.width, maReplace);
        api->mapSetInt(a, "height", o.height, maReplace);
        api->mapSetInt(a, "length", o.frames, maReplace);
        api->mapSetInt(a, "format", format_id(o.format, core), maReplace);
    }
    api->mapSetInt(a, "seed", o.seed, maReplace);
    const char *source = o.audio ? "NoiseAudio" : "Noise";
    VSMap *r = invoke(core, "vsvknoise", source, a);
    push_node(&made, clip_of(r, source));
    api->freeMap(r);
    api->freeMap(a);

    /* the chain */
    if (strcmp(o.chain, "-") && o.chain[0]) {
        char *chain = strdup(o.chain), *save = NULL;
        for (char *step = strtok_r(chain, ",", &save); step; step = strtok_r(NULL, ",", &save)) run_step(core, step, &made);
        free(chain);
    }
    VSNode *out = made.nodes[made.count - 1];
    char clip[256];
    describe(out, clip, sizeof clip);
    int total = api->getNodeType(out) == mtVideo ? api->getVideoInfo(out)->numFrames : api->getAudioInfo(out)->numFrames;

    /* fetch in order, keeping `window` requests in flight */
    int window = o.requests > 0 ? o.requests : (o.sync ? 1 : 2 * threads);
    if (window < 1) window = 1;
    fetch.frames = calloc(total > 0 ? (size_t)total : 1, sizeof *fetch.frames);
    fetch.node = out;
    fetch.total = total;
    fetch.window = window;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t *workers = NULL;
    int requested = 0;
    if (o.sync) {
        workers = calloc((size_t)window, sizeof *workers);
        for (int i = 0; i < window; i++)
            if (pthread_create(&workers[i], NULL, sync_worker, NULL)) fail("cannot start a thread");
    } else {
        for (; requested < total && requested < window; requested++) api->getFrameAsync(requested, out, frame_done, NULL);
    }
    FILE *dump = NULL;
    if (o.dump && !(dump = fopen(o.dump, "wb"))) fail("cannot write %s", o.dump);
    Fnv h = FNV_START;
    int64_t vram_peak = 0, vram_limit = 0;
#ifdef DRIVER_HAS_VULKAN
    const VSVULKANAPI *vkapi = o.vram ? api->getVulkanAPI() : NULL;
    VSVulkanCoreInfo vci;
    char vram_err[256];
#else
    if (o.vram) fail("--vram: this driver was built without the Vulkan headers");
#endif
#ifdef DRIVER_HAS_VULKAN
    /* With --no-hash nothing reads a GPU resident frame, so one whose GPU work was queued but not
       done when the clock stopped counted as done: upload-only rows then ran past the bus's speed.
       The last `window` such frames are kept and waited for (waitGPUFrame) before the clock stops. */
    const VSFrame **held = o.no_hash && api->getNodeResidency(out) == nrGPU ? calloc((size_t)window, sizeof *held) : NULL;
#else
    const VSFrame **held = NULL;
#endif
    for (int n = 0; n < total; n++) {
        if (n == o.warmup && n > 0) clock_gettime(CLOCK_MONOTONIC, &t0);
        pthread_mutex_lock(&fetch.lock);
        while (!fetch.frames[n] && !fetch.error) pthread_cond_wait(&fetch.changed, &fetch.lock);
        if (fetch.error) fail("frame %d: %s", fetch.error_frame, fetch.error);
        const VSFrame *f = fetch.frames[n];
        fetch.frames[n] = NULL;
        fetch.consumed = n + 1;
        pthread_cond_broadcast(&fetch.changed);
        pthread_mutex_unlock(&fetch.lock);
#ifdef DRIVER_HAS_VULKAN
        if (vkapi && vkapi->getVulkanCoreInfo(core, &vci, vram_err, sizeof vram_err) == 0) {
            if (vci.allocated > vram_peak) vram_peak = vci.allocated;
            vram_limit = vci.limit;
        }
#endif
        if (o.no_hash) {
            if (held) {
                const VSFrame *old = held[n % window];
                held[n % window] = f;
                f = old;
            }
            if (f) api->freeFrame(f);
            if (!o.sync && requested < total) api->getFrameAsync(requested++, out, frame_done, NULL);
            continue;
        }
        Fnv fh = FNV_START;
        hash_frame(&fh, f);
        fnv_i64(&h, (int64_t)fh);
        if (o.frame_hashes) fprintf(stderr, "frame %d %016llx\n", n, (unsigned long long)fh);
        if (o.show_props && n == 0) print_props(f);
        if (dump) dump_frame(dump, f);
        api->freeFrame(f);
        if (!o.sync && requested < total) api->getFrameAsync(requested++, out, frame_done, NULL);
    }
    if (o.sync)
        for (int i = 0; i < window; i++) pthread_join(workers[i], NULL);
#ifdef DRIVER_HAS_VULKAN
    for (int i = 0; held && i < window; i++) {
        char err[256];
        if (held[i] && api->getVulkanAPI()->waitGPUFrame(held[i], err, sizeof err)) fail("waitGPUFrame: %s", err);
        if (held[i]) api->freeFrame(held[i]);
    }
#endif
    free(held);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (dump && fclose(dump)) fail("cannot write %s", o.dump);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

    int timed = o.warmup > 0 && o.warmup < total ? total - o.warmup : total;
    if (o.no_hash) h = 0;
    for (int i = 0; o.timing && i < made.count; i++)
        fprintf(stderr, "timing %d %s %.1f ms\n", i, api->getNodeName(made.nodes[i]),
                (double)api->getNodeProcessingTime(made.nodes[i], 0) / 1e6);
    printf("ok hash=%016llx frames=%d clip=%s threads=%d fps=%.2f", (unsigned long long)h, total, clip, threads,
           secs > 0 ? timed / secs : 0.0);
    if (o.vram) printf(" vram_peak=%lld vram_limit=%lld", (long long)vram_peak, (long long)vram_limit);
    printf("\n");
    fflush(stdout);
    for (int i = 0; i < made.count; i++) api->freeNode(made.nodes[i]);
    free(made.nodes);
    free(fetch.frames);
    free(workers);
    api->freeCore(core);
    return 0;
}
