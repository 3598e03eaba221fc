/* What the C test programs of this folder (stress.c, callbacks.c) share: the API table, the one way
 * they fail (an "error: ..." line on standard output, exit status 1, which tests/tests read), and
 * invoking a filter or loading a plugin through it. */
#ifndef VSVK_TEST_HARNESS_H
#define VSVK_TEST_HARNESS_H

#include "VapourSynth4.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const VSAPI *api;

static void fail(const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *c = msg; *c; c++)
        if (*c == '\n') *c = ' ';
    printf("error: %s\n", msg);
    fflush(stdout);
    exit(1);
}

/* ns.fn(args) (args freed), failing on an error; returns the "clip" it gave */
static VSNode *invoke(VSCore *core, const char *ns, const char *fn, VSMap *args) {
    VSPlugin *p = api->getPluginByNamespace(ns, core);
    if (!p) fail("no plugin %s", ns);
    VSMap *r = api->invoke(p, fn, args);
    if (api->mapGetError(r)) fail("%s.%s: %s", ns, fn, api->mapGetError(r));
    VSNode *n = api->mapGetNode(r, "clip", 0, NULL);
    api->freeMap(r);
    api->freeMap(args);
    return n;
}

static void load(VSCore *core, const char *path) {
    VSMap *a = api->createMap();
    api->mapSetData(a, "path", path, -1, dtUtf8, maReplace);
    VSMap *r = api->invoke(api->getPluginByNamespace("std", core), "LoadPlugin", a);
    if (api->mapGetError(r)) fail("LoadPlugin %s: %s", path, api->mapGetError(r));
    api->freeMap(r);
    api->freeMap(a);
}

/* the vsvknoise test source (tests/plugins/vsvknoise.c): `frames` frames of 64x48 YUV420P8 */
static VSNode *noise(VSCore *core, int frames) {
    VSMap *a = api->createMap();
    api->mapSetInt(a, "width", 64, maReplace);
    api->mapSetInt(a, "height", 48, maReplace);
    api->mapSetInt(a, "length", frames, maReplace);
    api->mapSetInt(a, "format", pfYUV420P8, maReplace);
    return invoke(core, "vsvknoise", "Noise", a);
}

#endif
