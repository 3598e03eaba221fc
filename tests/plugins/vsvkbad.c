/*
 * vsvkbad: a plugin that registers some functions with broken declarations, for the vsvk bad-input
 * tests. A core must refuse each broken registration (registerFunction returns 0 and a message is
 * logged) and go on loading the rest of the plugin.
 *
 *   vsvkbad.Good()      -> registered: int[]   what registerFunction returned, in the order below
 *   vsvkbad.BadType     an argument of a type that does not exist     (refused)
 *   vsvkbad.BadSyntax   an argument without a type                     (refused)
 *   vsvkbad.BadReturn   a return type string that does not parse       (refused)
 *   vsvkbad.Late()      -> late: int     registered after the bad ones
 *
 * Built against VapourSynth4.h.
 */
#include "VapourSynth4.h"

#include <stdint.h>

#define NUM_REGISTERED 5
static int64_t registered[NUM_REGISTERED];

static void VS_CC good_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)in;
    (void)user;
    (void)core;
    vsapi->mapSetIntArray(out, "registered", registered, NUM_REGISTERED);
}

static void VS_CC late_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)in;
    (void)user;
    (void)core;
    vsapi->mapSetInt(out, "late", 1, maReplace);
}

static void VS_CC never_called(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)in;
    (void)user;
    (void)core;
    vsapi->mapSetError(out, "vsvkbad: a function whose registration should have been refused was called");
}

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("org.vsvk.bad", "vsvkbad", "vsvk broken registrations", VS_MAKE_VERSION(1, 0),
                         VAPOURSYNTH_API_VERSION, 0, plugin);
    registered[0] = vspapi->registerFunction("Good", "", "registered:int[];", good_create, NULL, plugin);
    registered[1] = vspapi->registerFunction("BadType", "clip:vnode;strength:nosuchtype;", "clip:vnode;", never_called, NULL, plugin);
    registered[2] = vspapi->registerFunction("BadSyntax", "clip;", "clip:vnode;", never_called, NULL, plugin);
    registered[3] = vspapi->registerFunction("BadReturn", "clip:vnode;", "clip:vnode:what:ever;", never_called, NULL, plugin);
    registered[4] = vspapi->registerFunction("Late", "", "late:int;", late_create, NULL, plugin);
}
