/*
 * vsvknoise: deterministic test sources for the vsvk oracle tests.
 *
 *   vsvknoise.Noise(width, height, format, length, seed, fpsnum, fpsden)     -> vnode
 *   vsvknoise.NoiseAudio(samplerate, length, channels, bits, float, seed)    -> anode
 *
 * Every value depends only on (seed, frame or sample index, plane or channel, position), never on
 * the order or the thread in which frames are produced, so any conforming core gives the same bytes.
 * The pictures are a smooth diagonal wave, a moving block with hard edges and hashed noise, so that
 * denoisers, resamplers, edge detectors and deinterlacers all have something to work on. Every video
 * format is supported: 8 to 16 bit integer, 16 bit float (written as half-precision bits) and 32 bit
 * float. Frames carry a few properties of every kind so that property handling is exercised too.
 *
 * Built against the API 4 header (VapourSynth4.h) from whatever include folder the build names.
 */
/* API 4.0, as most real plugins declare: any 4.x core must take it */
#include "VapourSynth4.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ----------------------------------------------------------------------------- */

static uint64_t scramble(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* a uniform value in [0, 1) from a 64-bit hash */
static double unit(uint64_t h) { return (double)(h >> 11) * (1.0 / 9007199254740992.0); }

/* a triangle wave of period `period`, in [0, 1] */
static double triangle(int64_t t, int64_t period) {
    int64_t m = t % period;
    if (m < 0) m += period;
    double half = (double)period / 2.0;
    double d = (double)m / half;
    return d <= 1.0 ? d : 2.0 - d;
}

/* IEEE 754 binary32 to binary16, round to nearest even, with subnormals, infinities and NaN */
static uint16_t to_half(float value) {
    uint32_t f;
    memcpy(&f, &value, sizeof f);
    uint32_t sign = (f >> 16) & 0x8000u;
    int32_t exp = (int32_t)((f >> 23) & 0xff);
    uint32_t man = f & 0x7fffffu;
    if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0u));
    int32_t e = exp - 127 + 15;
    if (e >= 0x1f) return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t h = man >> shift;
        uint32_t rest = man & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
        if (rest > halfway || (rest == halfway && (h & 1u))) h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rest = man & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++; /* may carry into the exponent: correct */
    return (uint16_t)(sign | h);
}

static int get_int(const VSAPI *vsapi, const VSMap *in, const char *key, int64_t def, int64_t *out) {
    int err = 0;
    int64_t v = vsapi->mapGetInt(in, key, 0, &err);
    *out = err ? def : v;
    return err == 0;
}

/* ---- video -------------------------------------------------------------------------------------- */

typedef struct {
    VSVideoInfo vi;
    uint64_t seed;
} NoiseData;

static double picture(const NoiseData *d, int n, int plane, int pw, int ph, int x, int y) {
    /* smooth diagonal wave that drifts with the frame number */
    double wave = triangle((int64_t)x * 3 + (int64_t)y * 2 + (int64_t)n * 5 + plane * 37, 96);
    /* a block with hard edges that moves a little every frame */
    int bw = pw / 4 > 0 ? pw / 4 : 1, bh = ph / 4 > 0 ? ph / 4 : 1;
    int bx = (n * 7 + plane * 3) % (pw - bw + 1), by = (n * 5 + plane * 2) % (ph - bh + 1);
    double block = (x >= bx && x < bx + bw && y >= by && y < by + bh) ? 0.2 : 0.0;
    uint64_t h = scramble(d->seed ^ (((uint64_t)(uint32_t)n << 8) | (uint64_t)plane));
    h = scramble(h ^ (((uint64_t)(uint32_t)y << 32) | (uint64_t)(uint32_t)x));
    double noise = unit(h) - 0.5;
    double v = 0.15 + 0.5 * wave + block + 0.15 * noise;
    return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

static const VSFrame *VS_CC noise_get_frame(int n, int activation, void *instance, void **frame_data,
                                            VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    (void)ctx;
    if (activation != arInitial) return NULL;
    const NoiseData *d = instance;
    const VSVideoFormat *fmt = &d->vi.format;
    VSFrame *f = vsapi->newVideoFrame(fmt, d->vi.width, d->vi.height, NULL, core);
    for (int p = 0; p < fmt->numPlanes; p++) {
        uint8_t *base = vsapi->getWritePtr(f, p);
        ptrdiff_t stride = vsapi->getStride(f, p);
        int pw = vsapi->getFrameWidth(f, p), ph = vsapi->getFrameHeight(f, p);
        /* chroma of float YUV is centred on zero */
        double offset = (fmt->sampleType == stFloat && fmt->colorFamily == cfYUV && p > 0) ? -0.5 : 0.0;
        double peak = fmt->sampleType == stInteger ? (double)((1u << fmt->bitsPerSample) - 1u) : 1.0;
        for (int y = 0; y < ph; y++) {
            uint8_t *row = base + y * stride;
            for (int x = 0; x < pw; x++) {
                double v = picture(d, n, p, pw, ph, x, y);
                if (fmt->sampleType == stFloat) {
                    float fv = (float)(v + offset);
                    if (fmt->bytesPerSample == 4) ((float *)row)[x] = fv;
                    else ((uint16_t *)row)[x] = to_half(fv);
                } else {
                    uint32_t iv = (uint32_t)(v * peak + 0.5);
                    if (fmt->bytesPerSample == 1) row[x] = (uint8_t)iv;
                    else ((uint16_t *)row)[x] = (uint16_t)iv;
                }
            }
        }
    }
    VSMap *props = vsapi->getFramePropertiesRW(f);
    vsapi->mapSetInt(props, "_DurationNum", d->vi.fpsDen, maReplace);
    vsapi->mapSetInt(props, "_DurationDen", d->vi.fpsNum, maReplace);
    vsapi->mapSetInt(props, "VsvkFrame", n, maReplace);
    vsapi->mapSetFloat(props, "VsvkLevel", 0.25 * n + (double)(d->seed % 1000) / 7.0, maReplace);
    int64_t list[3] = {n, (int64_t)n * n, -(int64_t)n - 1};
    vsapi->mapSetIntArray(props, "VsvkList", list, 3);
    char tag[64];
    snprintf(tag, sizeof tag, "vsvknoise frame %d", n);
    vsapi->mapSetData(props, "VsvkTag", tag, -1, dtUtf8, maReplace);
    unsigned char blob[8];
    uint64_t bits = scramble(d->seed + (uint64_t)n);
    for (int i = 0; i < 8; i++) blob[i] = (unsigned char)(bits >> (8 * i));
    vsapi->mapSetData(props, "VsvkBlob", (const char *)blob, (int)sizeof blob, dtBinary, maReplace);
    return f;
}

static void VS_CC free_instance(void *instance, VSCore *core, const VSAPI *vsapi) {
    (void)core;
    (void)vsapi;
    free(instance);
}

static void VS_CC noise_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    int64_t width, height, format, length, seed, fpsnum, fpsden;
    get_int(vsapi, in, "width", 640, &width);
    get_int(vsapi, in, "height", 480, &height);
    get_int(vsapi, in, "format", pfYUV420P8, &format);
    get_int(vsapi, in, "length", 100, &length);
    get_int(vsapi, in, "seed", 0, &seed);
    get_int(vsapi, in, "fpsnum", 24000, &fpsnum);
    get_int(vsapi, in, "fpsden", 1001, &fpsden);

    NoiseData *d = calloc(1, sizeof *d);
    if (!d) { vsapi->mapSetError(out, "Noise: out of memory"); return; }
    if (format < 0 || format > UINT32_MAX || !vsapi->getVideoFormatByID(&d->vi.format, (uint32_t)format, core) ||
        d->vi.format.colorFamily == cfUndefined) {
        vsapi->mapSetError(out, "Noise: unknown format");
        free(d);
        return;
    }
    const VSVideoFormat *fmt = &d->vi.format;
    if (width <= 0 || height <= 0 || width > 65536 || height > 65536 ||
        width % (1 << fmt->subSamplingW) || height % (1 << fmt->subSamplingH)) {
        vsapi->mapSetError(out, "Noise: width and height must be positive and fit the subsampling");
        free(d);
        return;
    }
    if (length <= 0 || length > INT32_MAX) { vsapi->mapSetError(out, "Noise: bad length"); free(d); return; }
    if (fpsnum < 0 || fpsden <= 0) { vsapi->mapSetError(out, "Noise: bad frame rate"); free(d); return; }
    d->vi.width = (int)width;
    d->vi.height = (int)height;
    d->vi.numFrames = (int)length;
    d->vi.fpsNum = fpsnum;
    d->vi.fpsDen = fpsden;
    d->seed = (uint64_t)seed;
    vsapi->createVideoFilter(out, "Noise", &d->vi, noise_get_frame, free_instance, fmParallel, NULL, 0, d, core);
}

/* ---- audio -------------------------------------------------------------------------------------- */

typedef struct {
    VSAudioInfo ai;
    uint64_t seed;
} AudioData;

static const VSFrame *VS_CC audio_get_frame(int n, int activation, void *instance, void **frame_data,
                                            VSFrameContext *ctx, VSCore *core, const VSAPI *vsapi) {
    (void)frame_data;
    (void)ctx;
    if (activation != arInitial) return NULL;
    const AudioData *d = instance;
    const VSAudioFormat *fmt = &d->ai.format;
    int64_t first = (int64_t)n * VS_AUDIO_FRAME_SAMPLES;
    int64_t left = d->ai.numSamples - first;
    int count = left < VS_AUDIO_FRAME_SAMPLES ? (int)left : VS_AUDIO_FRAME_SAMPLES;
    VSFrame *f = vsapi->newAudioFrame(fmt, count, NULL, core);
    for (int c = 0; c < fmt->numChannels; c++) {
        uint8_t *dst = vsapi->getWritePtr(f, c);
        for (int i = 0; i < count; i++) {
            int64_t s = first + i;
            double tone = 2.0 * triangle(s * (c + 2), 181 + 29 * c) - 1.0;
            double noise = 2.0 * unit(scramble(d->seed ^ scramble(((uint64_t)c << 48) ^ (uint64_t)s))) - 1.0;
            double v = 0.7 * tone + 0.25 * noise; /* stays inside (-1, 1) */
            if (fmt->sampleType == stFloat) {
                ((float *)dst)[i] = (float)v;
            } else if (fmt->bitsPerSample == 16) {
                ((int16_t *)dst)[i] = (int16_t)(v * 32767.0);
            } else if (fmt->bitsPerSample == 24) {
                ((int32_t *)dst)[i] = (int32_t)(v * 8388607.0);
            } else {
                ((int32_t *)dst)[i] = (int32_t)(v * 2147483647.0);
            }
        }
    }
    VSMap *props = vsapi->getFramePropertiesRW(f);
    vsapi->mapSetInt(props, "VsvkFrame", n, maReplace);
    vsapi->mapSetFloat(props, "VsvkLevel", (double)count / (double)d->ai.sampleRate, maReplace);
    vsapi->mapSetData(props, "VsvkTag", "vsvknoise audio", -1, dtUtf8, maReplace);
    return f;
}

static void VS_CC audio_create(const VSMap *in, VSMap *out, void *user, VSCore *core, const VSAPI *vsapi) {
    (void)user;
    int64_t rate, length, layout, bits, is_float, seed;
    get_int(vsapi, in, "samplerate", 48000, &rate);
    get_int(vsapi, in, "length", 48000 * 10, &length);
    get_int(vsapi, in, "channels", (1 << acFrontLeft) | (1 << acFrontRight), &layout);
    get_int(vsapi, in, "float", 0, &is_float);
    get_int(vsapi, in, "bits", is_float ? 32 : 16, &bits);
    get_int(vsapi, in, "seed", 0, &seed);

    if (rate <= 0 || rate > INT32_MAX) { vsapi->mapSetError(out, "NoiseAudio: bad samplerate"); return; }
    if (length <= 0) { vsapi->mapSetError(out, "NoiseAudio: bad length"); return; }
    if (is_float ? bits != 32 : (bits != 16 && bits != 24 && bits != 32)) {
        vsapi->mapSetError(out, "NoiseAudio: bits must be 16, 24 or 32 for integer and 32 for float");
        return;
    }
    AudioData *d = calloc(1, sizeof *d);
    if (!d) { vsapi->mapSetError(out, "NoiseAudio: out of memory"); return; }
    if (layout <= 0 || !vsapi->queryAudioFormat(&d->ai.format, is_float ? stFloat : stInteger, (int)bits,
                                                 (uint64_t)layout, core)) {
        vsapi->mapSetError(out, "NoiseAudio: bad channel layout or sample format");
        free(d);
        return;
    }
    d->ai.sampleRate = (int)rate;
    d->ai.numSamples = length;
    d->seed = (uint64_t)seed;
    vsapi->createAudioFilter(out, "NoiseAudio", &d->ai, audio_get_frame, free_instance, fmParallel, NULL, 0, d, core);
}

/* ---- registration ------------------------------------------------------------------------------- */

VS_EXTERNAL_API(void) VapourSynthPluginInit2(VSPlugin *plugin, const VSPLUGINAPI *vspapi) {
    vspapi->configPlugin("org.vsvk.noise", "vsvknoise", "vsvk deterministic test sources", VS_MAKE_VERSION(1, 0),
                         VAPOURSYNTH_API_VERSION, 0, plugin);
    vspapi->registerFunction("Noise",
                             "width:int:opt;height:int:opt;format:int:opt;length:int:opt;seed:int:opt;"
                             "fpsnum:int:opt;fpsden:int:opt;",
                             "clip:vnode;", noise_create, NULL, plugin);
    vspapi->registerFunction("NoiseAudio",
                             "samplerate:int:opt;length:int:opt;channels:int:opt;bits:int:opt;float:int:opt;"
                             "seed:int:opt;",
                             "clip:anode;", audio_create, NULL, plugin);
}
