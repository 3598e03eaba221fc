/* Graph inspection of the built-in namespaces' filters: makes a core with graph inspection on,
 * calls text and std functions (those written on the plugin layer among them: props, geometry, edit,
 * audio) and prints each
 * returned node's name and creation records (function, plugin identifier and namespace, argument
 * keys), level by level. tests/tests/text.rs compares the output on R81 and on our core.
 *
 * usage: creation CORE_LIBRARY */
#define VS_USE_API_43
#define VS_GRAPH_API
#include "VapourSynth4.h"

#include <dlfcn.h>
#include <stdio.h>

static const VSAPI *api;
static VSCore *core;

/* a BlankClip of `length` frames (the default, 240, where 0) */
static VSNode *blank_of(int length) {
    VSMap *in = api->createMap();
    if (length)
        api->mapSetInt(in, "length", length, maReplace);
    VSMap *out = api->invoke(api->getPluginByNamespace("std", core), "BlankClip", in);
    VSNode *n = api->mapGetNode(out, "clip", 0, NULL);
    api->freeMap(in);
    api->freeMap(out);
    return n;
}

static VSNode *blank(void) { return blank_of(0); }

/* Calls ns.name with `in` (consumed) and prints what graph inspection records of its clip. */
static void show(const char *ns, const char *name, VSMap *in) {
    VSMap *out = api->invoke(api->getPluginByNamespace(ns, core), name, in);
    printf("%s.%s:", ns, name);
    if (api->mapGetError(out)) {
        printf(" error %s\n", api->mapGetError(out));
    } else {
        VSNode *n = api->mapGetNode(out, "clip", 0, NULL);
        printf(" node %s\n", api->getNodeName(n));
        for (int level = 0; level < 4; level++) {
            const char *f = api->getNodeCreationFunctionName(n, level);
            if (!f)
                break;
            const VSMap *args = api->getNodeCreationFunctionArguments(n, level);
            printf("  %d: %s %s %s args", level, f, api->getNodeCreationPluginID(n, level), api->getNodeCreationPluginNS(n, level));
            for (int k = 0; k < api->mapNumKeys(args); k++)
                printf(" %s", api->mapGetKey(args, k));
            printf("\n");
        }
        /* the request pattern of each input, which the core's cache and graph tools go by */
        printf("  deps");
        for (int d = 0; d < api->getNumNodeDependencies(n); d++)
            printf(" %d", api->getNodeDependency(n, d)->requestPattern);
        printf("\n");
        api->freeNode(n);
    }
    api->freeMap(in);
    api->freeMap(out);
}

/* A script function for FrameEval and ModifyFrame (never called: only the graph is looked at). */
static void unused_callback(const VSMap *in, VSMap *out, void *user, VSCore *c, const VSAPI *a) {
    (void)in;
    (void)out;
    (void)user;
    (void)c;
    (void)a;
}

static VSNode *blank_audio(void) {
    VSMap *in = api->createMap();
    api->mapSetInt(in, "length", 10000, maReplace);
    VSMap *out = api->invoke(api->getPluginByNamespace("std", core), "BlankAudio", in);
    VSNode *n = api->mapGetNode(out, "clip", 0, NULL);
    api->freeMap(in);
    api->freeMap(out);
    return n;
}

static VSMap *with_audio(void) {
    VSMap *m = api->createMap();
    api->mapConsumeNode(m, "clip", blank_audio(), maReplace);
    return m;
}

/* a map with `count` audio clips under "clips", the same clip twice where `same` */
static VSMap *with_audios(int count, int same) {
    VSMap *m = api->createMap();
    VSNode *a = blank_audio();
    for (int i = 0; i < count; i++)
        api->mapSetNode(m, "clips", (same || i == 0) ? a : blank_audio(), maAppend);
    api->freeNode(a);
    return m;
}

static VSMap *with_clip(void) {
    VSMap *m = api->createMap();
    api->mapConsumeNode(m, "clip", blank(), maReplace);
    return m;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: creation CORE_LIBRARY\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    const VSAPI *(*get)(int) = (const VSAPI *(*)(int))dlsym(lib, "getVapourSynthAPI");
    api = get ? get(VAPOURSYNTH_API_VERSION) : NULL;
    if (!api) {
        fprintf(stderr, "no API 4.3\n");
        return 1;
    }
    core = api->createCore(ccfEnableGraphInspection | ccfDisableAutoLoading);
    VSMap *m = with_clip();
    api->mapSetData(m, "text", "hi", -1, dtUtf8, maReplace);
    show("text", "Text", m);
    show("text", "FrameNum", with_clip());
    show("text", "ClipInfo", with_clip());
    m = with_clip();
    api->mapSetData(m, "props", "_Matrix", -1, dtUtf8, maReplace);
    show("text", "FrameProps", m);
    show("text", "CoreInfo", api->createMap());
    m = with_clip();
    api->mapSetInt(m, "value", 1, maReplace);
    show("std", "SetFieldBased", m);
    m = with_clip();
    api->mapSetData(m, "prop", "Foo", -1, dtUtf8, maReplace);
    api->mapSetInt(m, "intval", 3, maReplace);
    show("std", "SetFrameProp", m);
    m = with_clip();
    api->mapSetInt(m, "Foo", 3, maReplace);
    show("std", "SetFrameProps", m);
    show("std", "RemoveFrameProps", with_clip());
    m = with_clip();
    api->mapSetInt(m, "left", 2, maReplace);
    show("std", "Crop", m);
    m = with_clip();
    api->mapSetInt(m, "width", 16, maReplace);
    api->mapSetInt(m, "height", 16, maReplace);
    show("std", "CropAbs", m);
    m = with_clip();
    api->mapSetInt(m, "top", 2, maReplace);
    show("std", "AddBorders", m);
    show("std", "FlipVertical", with_clip());
    show("std", "Transpose", with_clip());
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    show("std", "StackHorizontal", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapSetInt(m, "planes", 0, maAppend);
    api->mapSetInt(m, "colorfamily", 1, maReplace);
    show("std", "ShufflePlanes", m);
    /* R81 declares the clip of each output plane, then the properties' source */
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    for (int p = 0; p < 3; p++)
        api->mapSetInt(m, "planes", 2 - p, maAppend);
    api->mapSetInt(m, "colorfamily", 3, maReplace);
    api->mapConsumeNode(m, "prop_src", blank(), maReplace);
    show("std", "ShufflePlanes", m);
    show("std", "Invert", with_clip());
    show("std", "InvertMask", with_clip());
    m = with_clip();
    api->mapSetFloat(m, "max", 200, maReplace);
    show("std", "Limiter", m);
    show("std", "Binarize", with_clip());
    m = with_clip();
    api->mapSetFloat(m, "gamma", 2.2, maReplace);
    show("std", "Levels", m);
    m = with_clip();
    for (int i = 0; i < 256; i++)
        api->mapSetInt(m, "lut", 255 - i, maAppend);
    show("std", "Lut", m);
    /* edit: one call per function, each input pattern of R81's */
    m = with_clip();
    api->mapSetInt(m, "first", 2, maReplace);
    show("std", "Trim", m);
    m = with_clip();
    api->mapSetInt(m, "times", 2, maReplace);
    show("std", "Loop", m);
    show("std", "Reverse", with_clip());
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    show("std", "Splice", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    show("std", "Interleave", m);
    m = with_clip();
    api->mapSetInt(m, "cycle", 2, maReplace);
    api->mapSetInt(m, "offsets", 0, maAppend);
    show("std", "SelectEvery", m);
    m = with_clip();
    api->mapSetInt(m, "cycle", 3, maReplace);
    api->mapSetInt(m, "offsets", 2, maAppend);
    api->mapSetInt(m, "offsets", 0, maAppend);
    show("std", "SelectEvery", m);
    m = with_clip();
    api->mapSetInt(m, "cycle", 3, maReplace);
    api->mapSetInt(m, "offsets", 1, maAppend);
    api->mapSetInt(m, "offsets", 1, maAppend);
    show("std", "SelectEvery", m);
    m = with_clip();
    api->mapSetInt(m, "frames", 1, maAppend);
    show("std", "DeleteFrames", m);
    m = with_clip();
    api->mapSetInt(m, "frames", 1, maAppend);
    show("std", "DuplicateFrames", m);
    m = with_clip();
    api->mapSetInt(m, "first", 1, maAppend);
    api->mapSetInt(m, "last", 2, maAppend);
    api->mapSetInt(m, "replacement", 0, maAppend);
    show("std", "FreezeFrames", m);
    m = with_clip();
    api->mapSetInt(m, "fpsnum", 30, maReplace);
    show("std", "AssumeFPS", m);
    m = with_clip();
    api->mapSetInt(m, "tff", 1, maReplace);
    show("std", "SeparateFields", m);
    m = with_clip();
    api->mapSetInt(m, "tff", 1, maReplace);
    show("std", "DoubleWeave", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapSetFloat(m, "weights", 1, maAppend);
    api->mapSetFloat(m, "weights", 1, maAppend);
    api->mapSetFloat(m, "weights", 1, maAppend);
    show("std", "AverageFrames", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapConsumeNode(m, "clips", blank(), maAppend);
    api->mapSetFloat(m, "weights", 1, maAppend);
    api->mapSetFloat(m, "weights", 1, maAppend);
    show("std", "AverageFrames", m);
    /* props */
    m = api->createMap();
    api->mapConsumeNode(m, "clipa", blank(), maReplace);
    show("std", "PlaneStats", m);
    m = with_clip();
    api->mapConsumeNode(m, "prop_src", blank(), maReplace);
    show("std", "CopyFrameProps", m);
    m = with_clip();
    api->mapConsumeNode(m, "mclip", blank(), maReplace);
    show("std", "ClipToProp", m);
    show("std", "PropToClip", with_clip());
    show("std", "PEMVerifier", with_clip());
    m = with_clip();
    api->mapConsumeFunction(m, "eval", api->createFunction(unused_callback, NULL, NULL, core), maReplace);
    show("std", "FrameEval", m);
    m = with_clip();
    api->mapConsumeNode(m, "clips", blank(), maReplace);
    api->mapConsumeFunction(m, "selector", api->createFunction(unused_callback, NULL, NULL, core), maReplace);
    show("std", "ModifyFrame", m);
    /* inputs of other lengths than the output: R81 declares one that is at least as long strict
       spatial and a shorter one (its last frame given again) rpFrameReuseLastOnly */
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank_of(10), maAppend);
    api->mapConsumeNode(m, "clips", blank_of(20), maAppend);
    show("std", "StackHorizontal", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank_of(10), maAppend);
    api->mapConsumeNode(m, "clips", blank_of(20), maAppend);
    for (int p = 0; p < 3; p++)
        api->mapSetInt(m, "planes", p, maAppend);
    api->mapSetInt(m, "colorfamily", 2, maReplace);
    show("std", "ShufflePlanes", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank_of(20), maAppend);
    api->mapConsumeNode(m, "clips", blank_of(10), maAppend);
    show("std", "Interleave", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clip", blank_of(10), maReplace);
    api->mapConsumeNode(m, "prop_src", blank_of(1), maReplace);
    show("std", "CopyFrameProps", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clip", blank_of(10), maReplace);
    api->mapConsumeNode(m, "mclip", blank_of(20), maReplace);
    show("std", "ClipToProp", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clipa", blank_of(20), maReplace);
    api->mapConsumeNode(m, "clipb", blank_of(10), maReplace);
    show("std", "PlaneStats", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clipa", blank_of(20), maReplace);
    api->mapConsumeNode(m, "clipb", blank_of(10), maReplace);
    show("std", "Merge", m);
    m = api->createMap();
    api->mapConsumeNode(m, "clips", blank_of(20), maAppend);
    api->mapConsumeNode(m, "clips", blank_of(10), maAppend);
    api->mapSetData(m, "expr", "x y +", -1, dtUtf8, maAppend);
    show("std", "Expr", m);
    /* audio */
    show("std", "BlankAudio", api->createMap());
    m = api->createMap();
    api->mapSetInt(m, "keep", 1, maReplace);
    show("std", "BlankAudio", m);
    m = with_audio();
    api->mapSetFloat(m, "gain", 0.5, maAppend);
    show("std", "AudioGain", m);
    for (int same = 0; same < 2; same++) {
        m = with_audios(2, same);
        for (int i = 0; i < 4; i++)
            api->mapSetFloat(m, "matrix", 0.5, maAppend);
        api->mapSetInt(m, "channels_out", 0, maAppend);
        show("std", "AudioMix", m);
        show("std", "AudioSplice", with_audios(2, same));
        m = with_audios(2, same);
        api->mapSetInt(m, "channels_in", 0, maAppend);
        api->mapSetInt(m, "channels_in", 1, maAppend);
        api->mapSetInt(m, "channels_out", 1, maAppend);
        api->mapSetInt(m, "channels_out", 0, maAppend);
        show("std", "ShuffleChannels", m);
    }
    m = with_audio();
    api->mapSetInt(m, "first", 5000, maReplace);
    show("std", "AudioTrim", m);
    m = with_audio();
    api->mapSetInt(m, "times", 2, maReplace);
    show("std", "AudioLoop", m);
    show("std", "AudioReverse", with_audio());
    m = with_audio();
    api->mapSetInt(m, "samplerate", 48000, maReplace);
    show("std", "AudioResample", m);
    m = with_audio();
    api->mapSetInt(m, "bits", 32, maReplace);
    show("std", "AudioResample", m);
    show("std", "SplitChannels", with_audio());
    m = with_audio();
    api->mapSetInt(m, "samplerate", 48000, maReplace);
    show("std", "AssumeSampleRate", m);
    api->freeCore(core);
    printf("end\n");
    return 0;
}
