/*
 * vsvkfunc: callbacks for the std filters that take a VSFunction (FrameEval, ModifyFrame), so that the
 * oracle driver can run them from a chain. Each filter builds a C function with createFunction and
 * invokes the std filter with it.
 *
 *   vsvkfunc.Eval(clip, clips[], mode, key, prop_src[], clip_src[], badarg)
 *       std.FrameEval(clip, eval=<function>, prop_src, clip_src); the function returns under `key`
 *       (default "val"):
 *         mode 0  clips[n % count]
 *         mode 1  clips[(VsvkFrame of f[0] + number of frames in f) % count]: needs prop_src
 *         mode 2  fails with an error
 *         mode 3  returns an int instead of a clip
 *         mode 4  returns nothing
 *         mode 5  clips[1] when the function got an `f`, clips[0] when not
 *         mode 6  clips[n % count], two values under `key` (the second one reversed in order)
 *   vsvkfunc.Modify(clip, clips[], mode, key)
 *       std.ModifyFrame(clip, clips, selector=<function>); the function gets n and f and returns under
 *       `key` (default "val"):
 *         mode 0  a copy of f[n % count] with VsvkN = n, VsvkCount = frames in f, VsvkDrop removed
 *         mode 1  f[count - 1 - n % count] as it is
 *         mode 2  fails with an error
 *         mode 3  returns nothing
 *         mode 4  returns an int instead of a frame
 *         mode 5  a new Gray8 16x16 frame (another format or size than the clip)
 *
 * Every result depends only on n and the input frames, never on the thread or the order.
 * Built against VapourSynth4.h (API 4.0 features only).
 */
#include "VapourSynth4.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the API the plugin was given, for freeing the nodes when the core frees a function */
static const VSAPI *vsvkfunc_api;

typedef struct {
    VSNode **clips;
    int count;
    int mode;
    char key[64];
} FuncData;

static void VS_CC free_func_data(void *user) {
    FuncData *d = user;
    for (int i = 0; i < d->count; i++) vsvkfunc_api->freeNode(d->clips[i]);
    free(d->clips);
    free(d);
}

static FuncData *take_clips(const VSMap *in, const VSAPI *vsapi, const char *key) {
    FuncData *d = calloc(1, sizeof *d);
    int count = vsapi->mapNumElements(in, key);
    if (count < 0) count = 0;
    d->clips = calloc((size_t)(count > 0 ? count : 1), sizeof *d->clips);
    for (int i = 0; i < count; i++) d->clips[i] = vsapi->mapGetNode(in, key, i, NULL);
    d->count = count;
    int err = 0;
    int64_t mode = vsapi->mapGetInt(in, "mode", 0, &err);
    d->mode = err ? 0 : (int)mode;
    const char *k = vsapi->mapGetData(in, "key", 0, &err);
    snprintf(d->key, sizeof d->key, "%s", err ? "val" : k);
    return d;
}

/* passes `key` of `in` on to `args` when present (nodes only) */
static void pass_nodes(const VSMap *in, VSMap *args, const char *key, const VSAPI *vsapi) {
    int n = vsapi->mapNumElements(in, key);
    for (int i = 0; i < n; i++) {
        VSNode *node = vsapi->mapGetNode(in, key, i, NULL);
        vsapi->mapConsumeNode(args, key, node, maAppend);
    }
}

/* invokes std.`fn` with `args` and hands its clip (or error) on to `out` */
static void call_std(const char *fn, VSMap *args, VSMap *out, VSCore *core, const VSAPI *vsapi) {
    VSPlugin *std = vsapi->getPluginByNamespace("std", core);
    VSMap *r = vsapi->invoke(std, fn, args);
    const char *e = vsapi->mapGetError(r);
    if (e) {
        vsapi->mapSetError(out, e);
    } else {
        VSNode *node = vsapi->mapGetNode(r, "clip", 0, NULL);
        vsapi->mapConsumeNode(out, "clip", node, maReplace);
    }
    vsapi->freeMap(r);
}

/* ---- FrameEval ------------------------------------------------------------------------------------ */

static void VS_CC eval_func(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    FuncData *d = user;
    int err = 0;
    int64_t n = vsapi->mapGetInt(in, "n", 0, &err);
    if (err) { vsapi->mapSetError(out, "vsvkfunc: no n"); return; }
    int nf = vsapi->mapNumElements(in, "f");
    int pick = (int)(n % d->count);
    switch (d->mode) {
    case 1: {
        if (nf < 1) { vsapi->mapSetError(out, "vsvkfunc: no f"); return; }
        const VSFrame *f = vsapi->mapGetFrame(in, "f", 0, NULL);
        int64_t v = vsapi->mapGetInt(vsapi->getFramePropertiesRO(f), "VsvkFrame", 0, &err);
        vsapi->freeFrame(f);
        pick = (int)(((err ? 0 : v) + nf) % d->count);
        break;
    }
    case 2: vsapi->mapSetError(out, "vsvkfunc: eval failed on purpose"); return;
    case 3: vsapi->mapSetInt(out, d->key, n, maReplace); return;
    case 4: return;
    case 5: pick = nf > 0 ? 1 % d->count : 0; break;
    case 6: {
        vsapi->mapSetNode(out, d->key, d->clips[pick], maAppend);
        vsapi->mapSetNode(out, d->key, d->clips[(pick + 1) % d->count], maAppend);
        return;
    }
    default: break;
    }
    vsapi->mapSetNode(out, d->key, d->clips[pick], maReplace);
}

static void VS_CC eval_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    vsvkfunc_api = vsapi;
    FuncData *d = take_clips(in, vsapi, "clips");
    if (d->count == 0) { free_func_data(d); vsapi->mapSetError(out, "Eval: clips is empty"); return; }
    VSFunction *fn = vsapi->createFunction(eval_func, d, free_func_data, core);
    VSMap *args = vsapi->createMap();
    pass_nodes(in, args, "clip", vsapi);
    vsapi->mapConsumeFunction(args, "eval", fn, maReplace);
    pass_nodes(in, args, "prop_src", vsapi);
    pass_nodes(in, args, "clip_src", vsapi);
    call_std("FrameEval", args, out, core, vsapi);
    vsapi->freeMap(args);
}

/* ---- ModifyFrame ------------------------------------------------------------------------------------ */

static void VS_CC modify_func(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    FuncData *d = user;
    int err = 0;
    int64_t n = vsapi->mapGetInt(in, "n", 0, &err);
    if (err) { vsapi->mapSetError(out, "vsvkfunc: no n"); return; }
    int nf = vsapi->mapNumElements(in, "f");
    if (nf < 1) { vsapi->mapSetError(out, "vsvkfunc: no f"); return; }
    switch (d->mode) {
    case 0: {
        const VSFrame *f = vsapi->mapGetFrame(in, "f", (int)(n % nf), NULL);
        VSFrame *c = vsapi->copyFrame(f, core);
        vsapi->freeFrame(f);
        VSMap *props = vsapi->getFramePropertiesRW(c);
        vsapi->mapSetInt(props, "VsvkN", n, maReplace);
        vsapi->mapSetInt(props, "VsvkCount", nf, maReplace);
        vsapi->mapDeleteKey(props, "VsvkBlob");
        vsapi->mapConsumeFrame(out, d->key, c, maReplace);
        return;
    }
    case 1: {
        const VSFrame *f = vsapi->mapGetFrame(in, "f", nf - 1 - (int)(n % nf), NULL);
        vsapi->mapConsumeFrame(out, d->key, f, maReplace);
        return;
    }
    case 2: vsapi->mapSetError(out, "vsvkfunc: selector failed on purpose"); return;
    case 3: return;
    case 4: vsapi->mapSetInt(out, d->key, n, maReplace); return;
    case 5: {
        VSVideoFormat fmt;
        vsapi->queryVideoFormat(&fmt, cfGray, stInteger, 8, 0, 0, core);
        VSFrame *f = vsapi->newVideoFrame(&fmt, 16, 16, NULL, core);
        for (int y = 0; y < 16; y++) memset(vsapi->getWritePtr(f, 0) + y * vsapi->getStride(f, 0), (int)(n & 0xff), 16);
        vsapi->mapConsumeFrame(out, d->key, f, maReplace);
        return;
    }
    default: vsapi->mapSetError(out, "vsvkfunc: unknown mode"); return;
    }
}

static void VS_CC modify_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    vsvkfunc_api = vsapi;
    FuncData *d = take_clips(in, vsapi, "none");
    VSFunction *fn = vsapi->createFunction(modify_func, d, free_func_data, core);
    VSMap *args = vsapi->createMap();
    pass_nodes(in, args, "clip", vsapi);
    pass_nodes(in, args, "clips", vsapi);
    vsapi->mapConsumeFunction(args, "selector", fn, maReplace);
    call_std("ModifyFrame", args, out, core, vsapi);
    vsapi->freeMap(args);
}

/* ---- registration ------------------------------------------------------------------------------- */

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("org.vsvk.func", "vsvkfunc", "vsvk callbacks for FrameEval and ModifyFrame", VS_MAKE_VERSION(1, 0),
                         VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Eval",
                             "clip:vnode;clips:vnode[];mode:int:opt;key:data:opt;prop_src:vnode[]:opt;clip_src:vnode[]:opt;",
                             "clip:vnode;", eval_create, NULL, plugin);
    vspapi->registerFunction("Modify", "clip:vnode;clips:vnode[];mode:int:opt;key:data:opt;", "clip:vnode;", modify_create,
                             NULL, plugin);
}
