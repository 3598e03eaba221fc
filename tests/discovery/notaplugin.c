/* A shared library that is no VapourSynth plugin (no VapourSynthPluginInit2): what a plugin folder
 * may hold beside its plugins, e.g. a dependency. */
int vsvk_not_a_plugin(int x) {
    return x + 1;
}
