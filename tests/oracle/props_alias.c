/*
 * Probe: how a core treats the frame property key `_ColorRange`, the name plugins written before
 * API 4.2 use for what is now `_Range`. Runs a fixed list of map operations through the public API
 * on a frame's property map and on an ordinary map, and std.SetFrameProps / SetFrameProp /
 * RemoveFrameProps / CopyFrameProps on a BlankClip, printing every return value, error code and the
 * resulting map, so that two cores' outputs can be compared line by line.
 *
 * usage: props_alias LIBCORE
 */
#define VS_USE_API_43
#include "VapourSynth4.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const VSAPI *api;
static VSCore *core;
static VSVideoFormat gray8;
static uint32_t gray8_id;

static void die(const char *what) {
    printf("fatal: %s\n", what);
    fflush(stdout);
    exit(1);
}

/* every key with its type and values, in the map's own order */
static void dump(const char *label, const VSMap *m) {
    int n = api->mapNumKeys(m);
    printf("  %s: %d keys\n", label, n);
    for (int i = 0; i < n; i++) {
        const char *k = api->mapGetKey(m, i);
        int t = api->mapGetType(m, k);
        int ne = api->mapNumElements(m, k);
        printf("    %s type=%d n=%d:", k, t, ne);
        for (int j = 0; j < ne; j++) {
            int err = 0;
            if (t == ptInt) printf(" %" PRId64, api->mapGetInt(m, k, j, &err));
            else if (t == ptFloat) printf(" %g", api->mapGetFloat(m, k, j, &err));
            else if (t == ptData) printf(" '%s'", api->mapGetData(m, k, j, &err));
            else printf(" ?");
            if (err) printf("(err %d)", err);
        }
        printf("\n");
    }
}

/* what reading `key` gives, whatever is stored */
static void look(const VSMap *m, const char *key) {
    int err = -7;
    int64_t v = api->mapGetInt(m, key, 0, &err);
    printf("  get %s: int=%" PRId64 " err=%d", key, v, err);
    err = -7;
    int sat = api->mapGetIntSaturated(m, key, 0, &err);
    printf(" sat=%d err=%d", sat, err);
    err = -7;
    v = api->mapGetInt(m, key, 1, &err);
    printf(" [1]=%" PRId64 " err=%d", v, err);
    err = -7;
    const int64_t *arr = api->mapGetIntArray(m, key, &err);
    printf(" array=%s", arr ? "yes" : "null");
    if (arr && !err) {
        int ne = api->mapNumElements(m, key);
        for (int j = 0; j < ne; j++) printf(" %" PRId64, arr[j]);
    }
    printf(" err=%d", err);
    err = -7;
    double f = api->mapGetFloat(m, key, 0, &err);
    printf(" float=%g err=%d", f, err);
    printf(" type=%d n=%d\n", api->mapGetType(m, key), api->mapNumElements(m, key));
}

/* ---- one fresh map per scenario, of either kind ------------------------------------------------ */

typedef struct {
    VSFrame *frame; /* NULL: an ordinary map */
    VSMap *map;
} Fresh;

static Fresh fresh(int frame_props) {
    Fresh f = {0};
    if (frame_props) {
        f.frame = api->newVideoFrame(&gray8, 8, 8, NULL, core);
        if (!f.frame) die("newVideoFrame");
        f.map = api->getFramePropertiesRW(f.frame);
    } else {
        f.map = api->createMap();
    }
    return f;
}

static void done(Fresh *f) {
    if (f->frame) api->freeFrame(f->frame);
    else api->freeMap(f->map);
}

#define SCENARIO(name) for (int once_ = (printf("%s %s\n", kind, name), 1); once_; once_ = 0)

static void scenarios(int frame_props) {
    const char *kind = frame_props ? "[frame]" : "[plain]";

    static const int64_t values[] = {0, 1, 2, -1, 3, 255, (int64_t)1 << 40};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        char name[64];
        snprintf(name, sizeof name, "setInt _ColorRange=%" PRId64, values[i]);
        SCENARIO(name) {
            Fresh f = fresh(frame_props);
            printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", values[i], maReplace));
            dump("after", f.map);
            look(f.map, "_ColorRange");
            look(f.map, "_Range");
            done(&f);
        }
    }

    static const int64_t ranges[] = {0, 1, 2, -1};
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
        char name[64];
        snprintf(name, sizeof name, "only _Range=%" PRId64, ranges[i]);
        SCENARIO(name) {
            Fresh f = fresh(frame_props);
            api->mapSetInt(f.map, "_Range", ranges[i], maReplace);
            look(f.map, "_ColorRange");
            done(&f);
        }
    }

    SCENARIO("_Range=0, then setInt _ColorRange=0") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_Range", 0, maReplace);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 0, maReplace));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("_Range=0,1 array, then get _ColorRange") {
        Fresh f = fresh(frame_props);
        int64_t two[] = {0, 1};
        printf("  ret=%d\n", api->mapSetIntArray(f.map, "_Range", two, 2));
        look(f.map, "_ColorRange");
        done(&f);
    }

    SCENARIO("_Range as float 1.0, then get _ColorRange") {
        Fresh f = fresh(frame_props);
        api->mapSetFloat(f.map, "_Range", 1.0, maReplace);
        look(f.map, "_ColorRange");
        done(&f);
    }

    SCENARIO("_Range as data, then get _ColorRange") {
        Fresh f = fresh(frame_props);
        api->mapSetData(f.map, "_Range", "limited", -1, dtUtf8, maReplace);
        look(f.map, "_ColorRange");
        done(&f);
    }

    SCENARIO("_ColorRange=1 then append _ColorRange=0") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 1, maReplace));
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 0, maAppend));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("append _ColorRange=1 on an empty map") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 1, maAppend));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("_Range=1 then append _ColorRange=1") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_Range", 1, maReplace);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 1, maAppend));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("_Range as float, then append _ColorRange=1") {
        Fresh f = fresh(frame_props);
        api->mapSetFloat(f.map, "_Range", 0.5, maReplace);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 1, maAppend));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("_Range as float, then setInt _ColorRange=1") {
        Fresh f = fresh(frame_props);
        api->mapSetFloat(f.map, "_Range", 0.5, maReplace);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 1, maReplace));
        dump("after", f.map);
        done(&f);
    }

    static const int64_t arr0[] = {0}, arr1[] = {1}, arr2[] = {1, 0}, arr3[] = {0, 1, 2};
    static const struct { const int64_t *v; int n; const char *name; } arrays[] = {
        {arr0, 0, "setIntArray _ColorRange={}"},
        {arr0, 1, "setIntArray _ColorRange={0}"},
        {arr1, 1, "setIntArray _ColorRange={1}"},
        {arr2, 2, "setIntArray _ColorRange={1,0}"},
        {arr3, 3, "setIntArray _ColorRange={0,1,2}"},
    };
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) {
        SCENARIO(arrays[i].name) {
            Fresh f = fresh(frame_props);
            printf("  ret=%d\n", api->mapSetIntArray(f.map, "_ColorRange", arrays[i].v, arrays[i].n));
            dump("after", f.map);
            look(f.map, "_ColorRange");
            done(&f);
        }
    }

    SCENARIO("setFloat _ColorRange=1.0") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapSetFloat(f.map, "_ColorRange", 1.0, maReplace));
        dump("after", f.map);
        look(f.map, "_ColorRange");
        done(&f);
    }

    SCENARIO("_Range=1 then setFloat _ColorRange=0.0") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_Range", 1, maReplace);
        printf("  ret=%d\n", api->mapSetFloat(f.map, "_ColorRange", 0.0, maReplace));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("setFloatArray _ColorRange={1.0}") {
        Fresh f = fresh(frame_props);
        double one[] = {1.0};
        printf("  ret=%d\n", api->mapSetFloatArray(f.map, "_ColorRange", one, 1));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("setData _ColorRange='full'") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapSetData(f.map, "_ColorRange", "full", -1, dtUtf8, maReplace));
        dump("after", f.map);
        look(f.map, "_ColorRange");
        done(&f);
    }

    SCENARIO("_Range=1 then setData _ColorRange='x'") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_Range", 1, maReplace);
        printf("  ret=%d\n", api->mapSetData(f.map, "_ColorRange", "x", -1, dtUtf8, maReplace));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("setEmpty _ColorRange int") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapSetEmpty(f.map, "_ColorRange", ptInt));
        dump("after", f.map);
        look(f.map, "_ColorRange");
        done(&f);
    }

    SCENARIO("_Range=1 then setEmpty _ColorRange int") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_Range", 1, maReplace);
        printf("  ret=%d\n", api->mapSetEmpty(f.map, "_ColorRange", ptInt));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("_Range=1 then deleteKey _ColorRange") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_Range", 1, maReplace);
        api->mapSetInt(f.map, "Other", 4, maReplace);
        printf("  ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        dump("after", f.map);
        printf("  again ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        done(&f);
    }

    SCENARIO("_Range as data then deleteKey _ColorRange") {
        Fresh f = fresh(frame_props);
        api->mapSetData(f.map, "_Range", "d", -1, dtUtf8, maReplace);
        printf("  ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("setInt _ColorRange=0 then deleteKey _ColorRange") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_ColorRange", 0, maReplace);
        printf("  ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("deleteKey _ColorRange on an empty map") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        done(&f);
    }

    SCENARIO("setFloat _ColorRange=1.0 then deleteKey _ColorRange") {
        Fresh f = fresh(frame_props);
        api->mapSetFloat(f.map, "_ColorRange", 1.0, maReplace);
        printf("  ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        dump("after", f.map);
        look(f.map, "_ColorRange");
        done(&f);
    }

    SCENARIO("_Range=0 and setFloat _ColorRange=1.0 then deleteKey _ColorRange twice") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_Range", 0, maReplace);
        api->mapSetFloat(f.map, "_ColorRange", 1.0, maReplace);
        printf("  ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        dump("after", f.map);
        printf("  ret=%d\n", api->mapDeleteKey(f.map, "_ColorRange"));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("setFloat _ColorRange=1.0, then setInt _ColorRange=1, then append float") {
        Fresh f = fresh(frame_props);
        api->mapSetFloat(f.map, "_ColorRange", 1.0, maReplace);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange", 1, maReplace));
        dump("after", f.map);
        printf("  ret=%d\n", api->mapSetFloat(f.map, "_ColorRange", 2.0, maAppend));
        printf("  ret=%d\n", api->mapSetData(f.map, "_ColorRange", "d", -1, dtBinary, maAppend));
        int err = -7;
        printf("  float[1]=%g", api->mapGetFloat(f.map, "_ColorRange", 1, &err));
        printf(" err=%d", err);
        err = -7;
        const double *fa = api->mapGetFloatArray(f.map, "_ColorRange", &err);
        printf(" farray=%s err=%d\n", fa ? "yes" : "null", err);
        done(&f);
    }

    SCENARIO("setData _ColorRange then data getters") {
        Fresh f = fresh(frame_props);
        api->mapSetData(f.map, "_ColorRange", "abc", -1, dtBinary, maReplace);
        int err = -7;
        const char *d = api->mapGetData(f.map, "_ColorRange", 0, &err);
        printf("  data=%s err=%d", d ? d : "(null)", err);
        err = -7;
        printf(" size=%d", api->mapGetDataSize(f.map, "_ColorRange", 0, &err));
        printf(" err=%d", err);
        err = -7;
        printf(" hint=%d", api->mapGetDataTypeHint(f.map, "_ColorRange", 0, &err));
        printf(" err=%d\n", err);
        done(&f);
    }

    SCENARIO("setEmpty _ColorRange float and data") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapSetEmpty(f.map, "_ColorRange", ptFloat));
        printf("  ret=%d\n", api->mapSetEmpty(f.map, "_ColorRange", ptData));
        printf("  ret=%d\n", api->mapSetEmpty(f.map, "_ColorRange", ptInt));
        printf("  ret=%d\n", api->mapSetEmpty(f.map, "_ColorRange", ptInt));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("empty _Range: int array of _Range and of _ColorRange") {
        Fresh f = fresh(frame_props);
        api->mapSetEmpty(f.map, "_Range", ptInt);
        look(f.map, "_Range");
        look(f.map, "_ColorRange");
        api->mapSetEmpty(f.map, "F", ptFloat);
        int err = -7;
        const double *fa = api->mapGetFloatArray(f.map, "F", &err);
        printf("  empty float array=%s err=%d\n", fa ? "yes" : "null", err);
        done(&f);
    }

    SCENARIO("copyMap of a map holding a float _ColorRange and _Range=1") {
        Fresh f = fresh(frame_props);
        VSMap *src = api->createMap();
        api->mapSetInt(src, "_Range", 1, maReplace);
        api->mapSetFloat(src, "_ColorRange", 0.25, maReplace);
        api->copyMap(src, f.map);
        dump("after", f.map);
        int err = -7;
        printf("  float=%g", api->mapGetFloat(f.map, "_ColorRange", 0, &err));
        printf(" err=%d\n", err);
        api->freeMap(src);
        done(&f);
    }

    SCENARIO("other spellings") {
        Fresh f = fresh(frame_props);
        printf("  ret=%d\n", api->mapSetInt(f.map, "_colorrange", 1, maReplace));
        printf("  ret=%d\n", api->mapSetInt(f.map, "ColorRange", 1, maReplace));
        printf("  ret=%d\n", api->mapSetInt(f.map, "_ColorRange_", 1, maReplace));
        dump("after", f.map);
        done(&f);
    }

    SCENARIO("copyMap of a plain map holding _ColorRange=1 into this one") {
        Fresh f = fresh(frame_props);
        VSMap *src = api->createMap();
        api->mapSetInt(src, "_ColorRange", 1, maReplace);
        api->mapSetInt(src, "Z", 9, maReplace);
        dump("source", src);
        api->copyMap(src, f.map);
        dump("after", f.map);
        api->freeMap(src);
        done(&f);
    }

    SCENARIO("copyMap of this one, holding _ColorRange=1, into a plain map") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_ColorRange", 1, maReplace);
        VSMap *dst = api->createMap();
        api->copyMap(f.map, dst);
        dump("copy", dst);
        api->freeMap(dst);
        done(&f);
    }

    SCENARIO("copyMap of this one, holding _ColorRange=1, into a frame's map") {
        Fresh f = fresh(frame_props);
        api->mapSetInt(f.map, "_ColorRange", 1, maReplace);
        VSFrame *g = api->newVideoFrame(&gray8, 8, 8, NULL, core);
        api->copyMap(f.map, api->getFramePropertiesRW(g));
        dump("copy", api->getFramePropertiesRO(g));
        api->freeFrame(g);
        done(&f);
    }

    if (frame_props) {
        SCENARIO("newVideoFrame with propSrc holding _ColorRange=1, and the read-only map") {
            Fresh f = fresh(frame_props);
            api->mapSetInt(f.map, "_ColorRange", 1, maReplace);
            VSFrame *g = api->newVideoFrame(&gray8, 8, 8, f.frame, core);
            const VSMap *ro = api->getFramePropertiesRO(g);
            dump("copy", ro);
            look(ro, "_ColorRange");
            api->freeFrame(g);
            done(&f);
        }
    }
}

/* ---- std functions on a BlankClip --------------------------------------------------------------- */

static VSNode *call(const char *fn, VSMap *args) {
    VSMap *r = api->invoke(api->getPluginByNamespace("std", core), fn, args);
    api->freeMap(args);
    const char *e = api->mapGetError(r);
    if (e) {
        printf("  %s error: %s\n", fn, e);
        api->freeMap(r);
        return NULL;
    }
    VSNode *n = api->mapGetNode(r, "clip", 0, NULL);
    api->freeMap(r);
    return n;
}

static VSNode *blank(void) {
    VSMap *a = api->createMap();
    api->mapSetInt(a, "format", gray8_id, maReplace);
    api->mapSetInt(a, "width", 8, maReplace);
    api->mapSetInt(a, "height", 8, maReplace);
    api->mapSetInt(a, "length", 1, maReplace);
    return call("BlankClip", a);
}

static VSMap *with_clip(VSNode *n) {
    VSMap *a = api->createMap();
    api->mapConsumeNode(a, "clip", n, maReplace);
    return a;
}

static VSNode *set_props(VSNode *n, const char *key, int64_t v) {
    VSMap *a = with_clip(n);
    api->mapSetInt(a, key, v, maReplace);
    return call("SetFrameProps", a);
}

static void show(const char *label, VSNode *n) {
    if (!n) return;
    char err[512] = "";
    const VSFrame *f = api->getFrame(0, n, err, sizeof err);
    if (!f) {
        printf("  getFrame error: %s\n", err);
    } else {
        dump(label, api->getFramePropertiesRO(f));
        api->freeFrame(f);
    }
    api->freeNode(n);
}

static void std_scenarios(void) {
    const char *kind = "[std]";
    static const int64_t values[] = {0, 1, 2, -1};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        char name[64];
        snprintf(name, sizeof name, "SetFrameProps _ColorRange=%" PRId64, values[i]);
        SCENARIO(name) show("frame", set_props(blank(), "_ColorRange", values[i]));
    }

    SCENARIO("SetFrameProps _Range=0:_ColorRange=0") {
        VSMap *a = with_clip(blank());
        api->mapSetInt(a, "_Range", 0, maReplace);
        api->mapSetInt(a, "_ColorRange", 0, maReplace);
        show("frame", call("SetFrameProps", a));
    }

    SCENARIO("SetFrameProps _ColorRange=1.5 (float)") {
        VSMap *a = with_clip(blank());
        api->mapSetFloat(a, "_ColorRange", 1.5, maReplace);
        show("frame", call("SetFrameProps", a));
    }

    SCENARIO("SetFrameProps _ColorRange='x' (data)") {
        VSMap *a = with_clip(blank());
        api->mapSetData(a, "_ColorRange", "x", -1, dtUtf8, maReplace);
        show("frame", call("SetFrameProps", a));
    }

    SCENARIO("SetFrameProps _ColorRange=1,0 (array)") {
        VSMap *a = with_clip(blank());
        int64_t two[] = {1, 0};
        api->mapSetIntArray(a, "_ColorRange", two, 2);
        dump("arguments", a);
        show("frame", call("SetFrameProps", a));
    }

    SCENARIO("SetFrameProp prop=_ColorRange intval=1") {
        VSMap *a = with_clip(blank());
        api->mapSetData(a, "prop", "_ColorRange", -1, dtUtf8, maReplace);
        api->mapSetInt(a, "intval", 1, maReplace);
        show("frame", call("SetFrameProp", a));
    }

    SCENARIO("SetFrameProp prop=_ColorRange intval=0,1") {
        VSMap *a = with_clip(blank());
        api->mapSetData(a, "prop", "_ColorRange", -1, dtUtf8, maReplace);
        api->mapSetInt(a, "intval", 0, maReplace);
        api->mapSetInt(a, "intval", 1, maAppend);
        show("frame", call("SetFrameProp", a));
    }

    SCENARIO("SetFrameProp prop=_ColorRange floatval=0.0") {
        VSMap *a = with_clip(blank());
        api->mapSetData(a, "prop", "_ColorRange", -1, dtUtf8, maReplace);
        api->mapSetFloat(a, "floatval", 0.0, maReplace);
        show("frame", call("SetFrameProp", a));
    }

    static const char *removals[] = {"_ColorRange", "_Color*", "_Range", "*Range"};
    for (size_t i = 0; i < sizeof removals / sizeof *removals; i++) {
        char name[96];
        snprintf(name, sizeof name, "_Range=1, RemoveFrameProps props=%s", removals[i]);
        SCENARIO(name) {
            VSMap *a = with_clip(set_props(blank(), "_Range", 1));
            api->mapSetData(a, "props", removals[i], -1, dtUtf8, maReplace);
            show("frame", call("RemoveFrameProps", a));
        }
    }

    SCENARIO("CopyFrameProps props=_ColorRange from _Range=0 onto _Range=1") {
        VSNode *src = set_props(blank(), "_Range", 0);
        VSMap *a = with_clip(set_props(blank(), "_Range", 1));
        api->mapConsumeNode(a, "prop_src", src, maReplace);
        api->mapSetData(a, "props", "_ColorRange", -1, dtUtf8, maReplace);
        show("frame", call("CopyFrameProps", a));
    }

    SCENARIO("CopyFrameProps props=_ColorRange from no range onto _Range=1") {
        VSNode *src = blank();
        VSMap *a = with_clip(set_props(blank(), "_Range", 1));
        api->mapConsumeNode(a, "prop_src", src, maReplace);
        api->mapSetData(a, "props", "_ColorRange", -1, dtUtf8, maReplace);
        show("frame", call("CopyFrameProps", a));
    }

    SCENARIO("_Range=1 and a float _ColorRange, RemoveFrameProps props=_ColorRange") {
        VSMap *a = with_clip(set_props(blank(), "_Range", 1));
        api->mapSetFloat(a, "_ColorRange", 0.5, maReplace);
        VSNode *n = call("SetFrameProps", a);
        a = with_clip(n);
        api->mapSetData(a, "props", "_ColorRange", -1, dtUtf8, maReplace);
        show("frame", call("RemoveFrameProps", a));
    }

    SCENARIO("CopyFrameProps props=_ColorRange from _Range=0 and a float _ColorRange onto _Range=1") {
        VSMap *s = with_clip(set_props(blank(), "_Range", 0));
        api->mapSetFloat(s, "_ColorRange", 0.5, maReplace);
        VSNode *src = call("SetFrameProps", s);
        VSMap *a = with_clip(set_props(blank(), "_Range", 1));
        api->mapConsumeNode(a, "prop_src", src, maReplace);
        api->mapSetData(a, "props", "_ColorRange", -1, dtUtf8, maReplace);
        show("frame", call("CopyFrameProps", a));
    }

    SCENARIO("CopyFrameProps props=_ColorRange from a float _ColorRange onto _Range=1 and a data _ColorRange") {
        VSMap *s = with_clip(blank());
        api->mapSetFloat(s, "_ColorRange", 0.5, maReplace);
        VSNode *src = call("SetFrameProps", s);
        VSMap *d = with_clip(set_props(blank(), "_Range", 1));
        api->mapSetData(d, "_ColorRange", "d", -1, dtUtf8, maReplace);
        VSMap *a = with_clip(call("SetFrameProps", d));
        api->mapConsumeNode(a, "prop_src", src, maReplace);
        api->mapSetData(a, "props", "_ColorRange", -1, dtUtf8, maReplace);
        show("frame", call("CopyFrameProps", a));
    }

    SCENARIO("CopyFrameProps props=_Range from _Range=0 and a float _ColorRange onto _Range=1") {
        VSMap *s = with_clip(set_props(blank(), "_Range", 0));
        api->mapSetFloat(s, "_ColorRange", 0.5, maReplace);
        VSNode *src = call("SetFrameProps", s);
        VSMap *a = with_clip(set_props(blank(), "_Range", 1));
        api->mapConsumeNode(a, "prop_src", src, maReplace);
        api->mapSetData(a, "props", "_Range", -1, dtUtf8, maReplace);
        show("frame", call("CopyFrameProps", a));
    }

    SCENARIO("CopyFrameProps all from _ColorRange=1") {
        VSNode *src = set_props(blank(), "_ColorRange", 1);
        VSMap *a = with_clip(blank());
        api->mapConsumeNode(a, "prop_src", src, maReplace);
        show("frame", call("CopyFrameProps", a));
    }
}

int main(int argc, char **argv) {
    if (argc != 2) die("usage: props_alias LIBCORE");
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) die(dlerror());
    VSGetVapourSynthAPI entry = (VSGetVapourSynthAPI)dlsym(lib, "getVapourSynthAPI");
    if (!entry) die("no getVapourSynthAPI");
    api = entry(VAPOURSYNTH_API_VERSION);
    if (!api) die("API 4.3 not offered");
    core = api->createCore(0);
    if (!core) die("createCore");
    gray8_id = api->queryVideoFormatID(cfGray, stInteger, 8, 0, 0, core);
    if (!api->getVideoFormatByID(&gray8, gray8_id, core)) die("Gray8");

    scenarios(1);
    scenarios(0);
    std_scenarios();
    api->freeCore(core);
    printf("end\n");
    return 0;
}
