/*
 * vsvk plugin discovery probe: creates one core from the library it is given and prints which
 * plugins it has, so that the tests can compare two cores' autoloading.
 *
 * usage: probe LIBCORE            a core with autoloading, then a log handler
 *        probe LIBCORE FOLDER     a core without autoloading, a log handler, then
 *                                 std.LoadAllPlugins(path=FOLDER)
 *
 * What autoloading logs goes where the core sends messages while it has no handler: R81 keeps them
 * for the first handler added, vsvk writes them to stderr.
 *
 * Output, on stdout:
 *   log LEVEL MESSAGE             a message the handler received (LEVEL as a number)
 *   plugin NAMESPACE PATH         each plugin loaded from a file
 *   done                          after freeCore
 */
#include "VapourSynth4.h"

#include <dlfcn.h>
#include <stdio.h>

static void on_message(int level, const char *msg, void *data) {
    (void)data;
    printf("log %d %s\n", level, msg);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: probe LIBCORE [FOLDER]\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "probe: %s\n", dlerror());
        return 2;
    }
    const VSAPI *(*get_api)(int) = (const VSAPI *(*)(int))dlsym(lib, "getVapourSynthAPI");
    const VSAPI *api = get_api ? get_api(VAPOURSYNTH_API_VERSION) : NULL;
    if (!api) {
        fprintf(stderr, "probe: no API 4 table in %s\n", argv[1]);
        return 2;
    }
    VSCore *core = api->createCore(argc == 3 ? ccfDisableAutoLoading : 0);
    api->addLogHandler(on_message, NULL, NULL, core);
    if (argc == 3) {
        VSMap *args = api->createMap();
        api->mapSetData(args, "path", argv[2], -1, dtUtf8, maReplace);
        VSMap *ret = api->invoke(api->getPluginByNamespace("std", core), "LoadAllPlugins", args);
        if (api->mapGetError(ret))
            printf("error %s\n", api->mapGetError(ret));
        api->freeMap(ret);
        api->freeMap(args);
    }
    for (VSPlugin *p = api->getNextPlugin(NULL, core); p; p = api->getNextPlugin(p, core)) {
        const char *path = api->getPluginPath(p);
        if (path && *path)
            printf("plugin %s %s\n", api->getPluginNamespace(p), path);
    }
    fflush(stdout);
    api->freeCore(core);
    printf("done\n");
    return 0;
}
