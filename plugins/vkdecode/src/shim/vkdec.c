/* Random access over FFmpeg's demuxers and decoders; vkdec.h says what each call promises.
 *
 * Frame numbers are presentation order. At open every packet of the video stream is read once
 * (no decoding) into an index in decode order; frame n is the packet with the n-th smallest pts.
 * To make frame n the decoder starts at the latest keyframe whose pts is at or before n's and
 * decodes forward, so B-frame reordering and open GOPs (leading pictures of a later keyframe that
 * precede it on screen) come out right: every decoded frame is numbered by its pts, never by
 * counting. Frames before the stream's first keyframe are not part of the clip. */
#include "vkdec.h"
#include "hwdec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
#include <unistd.h>

typedef struct Packet {
    int64_t pts, dts, pos, duration;
    int key;
} Packet;

/* A packet's identity when it is read again after a seek: its byte position, and its pts for
 * demuxers that share positions between packets. */
typedef struct PacketId {
    int64_t pos, pts, index;
} PacketId;

/* Frames out of the decoder but not trusted yet: the decoder's reordering depth plus its
 * frame threads bound these; more means a stream this plugin cannot follow. */
#define MAX_PENDING 64

typedef struct Cached {
    int64_t n;
    AVFrame *frame;
    uint64_t used;
    int handed; /* vkd_frame returned it: the core's own cache has it now */
} Cached;

struct VkdSource {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
    int stream;
    enum AVPixelFormat pix_fmt;
    VkdHw *hw;          /* Vulkan Video: FFmpeg's device and the copy out of its pictures */
    int plane_of[3]; /* VapourSynth plane i is data[plane_of[i]] */
    VkdInfo info;

    Packet *packets; /* decode order */
    int64_t npackets;
    PacketId *ids;   /* sorted by (pos, pts) */
    int64_t *frame_packet; /* frame n -> packet index */
    int64_t *frame_key;    /* frame n -> packet index of the keyframe decoding starts from */
    int64_t *sorted_pts;   /* frame n -> pts */
    uint8_t *damaged;      /* frame n could not be decoded; damage_reason says why */
    uint8_t *done;         /* packet i's frame is settled since the last seek */
    char damage_reason[256];

    /* decoding state: packets up to next_send - 1 went to the decoder since the last seek */
    int64_t next_send, start_key, last_out, frontier;
    int64_t want; /* the frame vkd_frame is after */
    int64_t seeks;
    Cached pending[MAX_PENDING];
    int npending;
    int eof_sent, demux_eof;
    int drained; /* the decoder said AVERROR_EOF: nothing more comes out until a seek */

    Cached *cache;
    int cache_size;
    uint64_t clock;
};

static void say(char *err, int errlen, const char *fmt, ...) {
    if (!err || errlen <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
}

static const char *averr(int e, char *buf, size_t len) {
    av_strerror(e, buf, len);
    return buf;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_id(const void *a, const void *b) {
    const PacketId *x = a, *y = b;
    if (x->pos != y->pos) return (x->pos > y->pos) - (x->pos < y->pos);
    return (x->pts > y->pts) - (x->pts < y->pts);
}

/* The index of a packet read again, or -1 when it is not one of the indexed ones. */
static int64_t packet_index(const VkdSource *s, const AVPacket *p) {
    PacketId key = {p->pos, p->pts, 0};
    const PacketId *hit = bsearch(&key, s->ids, (size_t)s->npackets, sizeof *s->ids, cmp_id);
    return hit ? hit->index : -1;
}

/* Frame number of a pts, or -1. */
static int64_t frame_of_pts(const VkdSource *s, int64_t pts) {
    const int64_t *hit = bsearch(&pts, s->sorted_pts, (size_t)s->info.frames, sizeof(int64_t), cmp_i64);
    return hit ? hit - s->sorted_pts : -1;
}

static int is_ours(const VkdSource *s, const AVPacket *p) {
    return p->stream_index == s->stream && !(p->flags & AV_PKT_FLAG_DISCARD);
}

/* ---- index ------------------------------------------------------------------------------------ */

static int build_index(VkdSource *s, char *err, int errlen) {
    int64_t cap = 1024, n = 0;
    Packet *v = malloc((size_t)cap * sizeof *v);
    if (!v) return say(err, errlen, "out of memory"), VKD_INTERNAL;
    int corrupt_tail = 0;
    for (;;) {
        int r = av_read_frame(s->fmt, s->pkt);
        if (r < 0) break; /* the end, or the first unreadable byte: what came before is the clip */
        if (is_ours(s, s->pkt)) {
            if (s->pkt->pts == AV_NOPTS_VALUE) {
                av_packet_unref(s->pkt);
                free(v);
                return say(err, errlen, "the video stream has packets without timestamps (a raw elementary stream?): put it into a container first"), VKD_UNSUPPORTED;
            }
            if (n == cap) {
                Packet *w = realloc(v, (size_t)(cap *= 2) * sizeof *v);
                if (!w) return free(v), av_packet_unref(s->pkt), say(err, errlen, "out of memory"), VKD_INTERNAL;
                v = w;
            }
            v[n++] = (Packet){s->pkt->pts, s->pkt->dts, s->pkt->pos, s->pkt->duration, !!(s->pkt->flags & AV_PKT_FLAG_KEY)};
            corrupt_tail = !!(s->pkt->flags & AV_PKT_FLAG_CORRUPT);
        }
        av_packet_unref(s->pkt);
    }
    if (corrupt_tail) n--; /* a truncated file's last packet is cut short */

    /* Packets decoded before the first keyframe, and leading pictures shown before it, have
     * nothing to be decoded from. */
    int64_t first_key = -1;
    for (int64_t i = 0; i < n; i++)
        if (v[i].key) { first_key = i; break; }
    if (first_key < 0) {
        free(v);
        return say(err, errlen, n ? "the video stream has no keyframe" : "the video stream has no packets"), VKD_INVALID;
    }
    int64_t kept = 0, key_pts = v[first_key].pts;
    for (int64_t i = first_key; i < n; i++)
        if (v[i].pts >= key_pts) v[kept++] = v[i];
    s->packets = v;
    s->npackets = kept;

    s->ids = malloc((size_t)kept * sizeof *s->ids);
    s->sorted_pts = malloc((size_t)kept * sizeof(int64_t));
    s->frame_packet = malloc((size_t)kept * sizeof(int64_t));
    s->frame_key = malloc((size_t)kept * sizeof(int64_t));
    s->damaged = calloc((size_t)kept, 1);
    s->done = calloc((size_t)kept, 1);
    if (!s->ids || !s->sorted_pts || !s->frame_packet || !s->frame_key || !s->damaged || !s->done)
        return say(err, errlen, "out of memory"), VKD_INTERNAL;
    for (int64_t i = 0; i < kept; i++) {
        s->ids[i] = (PacketId){v[i].pos, v[i].pts, i};
        s->sorted_pts[i] = v[i].pts;
    }
    qsort(s->ids, (size_t)kept, sizeof *s->ids, cmp_id);
    for (int64_t i = 1; i < kept; i++)
        if (!cmp_id(&s->ids[i - 1], &s->ids[i]))
            return say(err, errlen, "two packets share a position and timestamp"), VKD_UNSUPPORTED;
    qsort(s->sorted_pts, (size_t)kept, sizeof(int64_t), cmp_i64);
    for (int64_t i = 1; i < kept; i++)
        if (s->sorted_pts[i - 1] == s->sorted_pts[i])
            return say(err, errlen, "two frames share the timestamp %lld", (long long)s->sorted_pts[i]), VKD_UNSUPPORTED;
    s->info.frames = kept;
    for (int64_t i = 0; i < kept; i++) s->frame_packet[frame_of_pts(s, v[i].pts)] = i;

    /* The keyframe for frame n: the latest in decode order whose pts is at or before n's. Keys
     * in decode order normally have increasing pts; a running maximum keeps that true. */
    int64_t key = 0;
    int64_t *best = malloc((size_t)kept * sizeof(int64_t)); /* by frame: latest key seen with pts <= */
    if (!best) return say(err, errlen, "out of memory"), VKD_INTERNAL;
    for (int64_t f = 0; f < kept; f++) best[f] = -1;
    for (int64_t i = 0; i < kept; i++)
        if (v[i].key) {
            int64_t f = frame_of_pts(s, v[i].pts);
            if (best[f] < i) best[f] = i;
        }
    for (int64_t f = 0; f < kept; f++) {
        if (best[f] > key) key = best[f];
        s->frame_key[f] = key;
    }
    free(best);
    return VKD_OK;
}

static void reduce(int64_t *num, int64_t *den) {
    int64_t a = *num < 0 ? -*num : *num, b = *den;
    while (b) { int64_t t = a % b; a = b; b = t; }
    if (a > 1) { *num /= a; *den /= a; }
}

/* An exact rate when every frame lasts the shortest frame's duration or a whole multiple of it
 * (gaps: frames lost to a cut); else the container's average when it agrees with the
 * timestamps (millisecond clocks round 1001/24000); else 0/0, VapourSynth's variable rate. */
static void frame_rate(VkdSource *s) {
    AVStream *st = s->fmt->streams[s->stream];
    int64_t n = s->info.frames, tn = st->time_base.num, td = st->time_base.den;
    s->info.fps_num = s->info.fps_den = 0;
    if (n < 2) {
        AVRational r = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
        if (r.num > 0 && r.den > 0) { s->info.fps_num = r.num; s->info.fps_den = r.den; }
        return;
    }
    int64_t d = INT64_MAX;
    for (int64_t i = 1; i < n; i++)
        if (s->sorted_pts[i] - s->sorted_pts[i - 1] < d) d = s->sorted_pts[i] - s->sorted_pts[i - 1];
    int whole = d > 0;
    for (int64_t i = 1; i < n && whole; i++) whole = (s->sorted_pts[i] - s->sorted_pts[i - 1]) % d == 0;
    if (whole) {
        s->info.fps_num = td;
        s->info.fps_den = tn * d;
        reduce(&s->info.fps_num, &s->info.fps_den);
        return;
    }
    double mean = (double)(s->sorted_pts[n - 1] - s->sorted_pts[0]) * tn / td / (double)(n - 1);
    AVRational cand[2] = {st->avg_frame_rate, st->r_frame_rate};
    for (int i = 0; i < 2; i++) {
        if (cand[i].num <= 0 || cand[i].den <= 0) continue;
        double period = (double)cand[i].den / cand[i].num;
        if (period > mean * 0.995 && period < mean * 1.005) {
            s->info.fps_num = cand[i].num;
            s->info.fps_den = cand[i].den;
            return;
        }
    }
}

/* ---- formats ---------------------------------------------------------------------------------- */

/* Planar integer formats, little endian, one component per plane: everything the software
 * decoders of these codecs produce except alpha, bit-packed and big-endian layouts. */
static int describe_hw_format(VkdSource *s, const AVFrame *f, char *err, int errlen) {
    enum AVPixelFormat sw = ((AVHWFramesContext *)f->hw_frames_ctx->data)->sw_format;
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(sw);
    if (!d || d->nb_components != 3 || d->log2_chroma_w != 1 || d->log2_chroma_h != 1 || d->comp[1].plane != 1 || d->comp[2].plane != 1)
        return say(err, errlen, "the Vulkan decoder's surface format %s is not handled (4:2:0, NV12/P010 layouts are)", d ? d->name : "?"), VKD_UNSUPPORTED;
    s->pix_fmt = AV_PIX_FMT_VULKAN;
    s->info.planes = 3;
    s->info.bits = d->comp[0].depth;
    s->info.family = VKD_YUV;
    s->info.ssw = s->info.ssh = 1;
    s->info.hw = 1;
    return VKD_OK;
}

static int describe_format(VkdSource *s, const AVFrame *frame, char *err, int errlen) {
    if (frame->format == AV_PIX_FMT_VULKAN) return describe_hw_format(s, frame, err, errlen);
    enum AVPixelFormat f = frame->format;
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    const char *name = d ? d->name : "unknown";
    if (!d || !(d->flags & AV_PIX_FMT_FLAG_PLANAR) || (d->flags & (AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_FLOAT | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM)))
        return say(err, errlen, "the decoder's pixel format %s is not supported", name), VKD_UNSUPPORTED;
    int comps = d->nb_components - !!(d->flags & AV_PIX_FMT_FLAG_ALPHA);
    if (comps != 1 && comps != 3) return say(err, errlen, "the pixel format %s is not supported", name), VKD_UNSUPPORTED;
    int bits = d->comp[0].depth, bytes = bits > 8 ? 2 : 1;
    for (int i = 0; i < comps; i++) {
        const AVComponentDescriptor *c = &d->comp[i];
        if (c->depth != bits || c->shift || c->offset || c->step != bytes)
            return say(err, errlen, "the pixel format %s is not supported (not one sample per plane element)", name), VKD_UNSUPPORTED;
        s->plane_of[i] = c->plane;
    }
    s->pix_fmt = f;
    s->info.planes = comps;
    s->info.bits = bits;
    s->info.family = comps == 1 ? VKD_GRAY : (d->flags & AV_PIX_FMT_FLAG_RGB) ? VKD_RGB : VKD_YUV;
    s->info.ssw = comps == 1 ? 0 : d->log2_chroma_w;
    s->info.ssh = comps == 1 ? 0 : d->log2_chroma_h;
    return VKD_OK;
}

/* ---- decoding --------------------------------------------------------------------------------- */

static AVFrame *cache_get(VkdSource *s, int64_t n) {
    for (int i = 0; i < s->cache_size; i++)
        if (s->cache[i].frame && s->cache[i].n == n) {
            s->cache[i].used = ++s->clock;
            return s->cache[i].frame;
        }
    return NULL;
}

/* Frames already handed out go first (least recently used of them), then the least recently
 * used of the rest: the core asks for frames in parallel and out of order, and the ones it has not
 * had yet are the ones it is about to ask for; evicting them would mean decoding them again from
 * their keyframe. Never the frame being decoded for (`want`): the cache has a slot beyond what the
 * user asked for so that one always exists. */
static void cache_put(VkdSource *s, int64_t n, AVFrame *f) {
    int slot = -1;
    for (int i = 0; i < s->cache_size; i++) {
        const Cached *c = &s->cache[i];
        if (!c->frame) { slot = i; break; }
        if (c->n == s->want) continue;
        if (slot < 0) { slot = i; continue; }
        const Cached *b = &s->cache[slot];
        if (c->handed > b->handed || (c->handed == b->handed && c->used < b->used)) slot = i;
    }
    av_frame_free(&s->cache[slot].frame);
    s->cache[slot] = (Cached){n, f, ++s->clock, 0};
}

/* Frames leave the decoder in presentation order but are trusted only once every packet before
 * theirs in decode order (their possible references) has come out clean: until then they wait
 * in `pending`. A frame that never came out although a later one did is missing. */

static void pending_drop(VkdSource *s, int64_t n) {
    for (int i = 0; i < s->npending; i++)
        if (s->pending[i].n == n) {
            av_frame_free(&s->pending[i].frame);
            s->pending[i--] = s->pending[--s->npending];
        }
}

/* Packet `i`'s frame is settled (out, missing or damaged): move the frontier and confirm. */
static void settle(VkdSource *s, int64_t i) {
    s->done[i] = 1;
    while (s->frontier < s->npackets && s->done[s->frontier]) s->frontier++;
    for (int k = 0; k < s->npending; k++)
        if (s->frame_packet[s->pending[k].n] < s->frontier) {
            cache_put(s, s->pending[k].n, s->pending[k].frame);
            s->pending[k--] = s->pending[--s->npending];
        }
}

/* Frames whose packets lie in [from, to) are damaged: dropped if waiting, settled if not out.
 * All are marked before any is settled, since settling confirms what waits. */
static void damage_packets(VkdSource *s, int64_t from, int64_t to) {
    if (from < s->frontier) from = s->frontier; /* trusted frames stay trusted */
    if (to <= from) return;
    for (int64_t i = from; i < to; i++) {
        int64_t f = frame_of_pts(s, s->packets[i].pts);
        if (!s->damaged[f]) {
            s->damaged[f] = 1;
            pending_drop(s, f);
        }
    }
    for (int64_t i = from; i < to - 1; i++) s->done[i] = 1;
    settle(s, to - 1);
}

static void damage_frame(VkdSource *s, int64_t f) {
    damage_packets(s, s->frame_packet[f], s->frame_packet[f] + 1);
}

/* Bad data at packet `at` (decode order): the frames not yet trusted whose packets lie from
 * `from` up to the next keyframe after `at` may depend on it. */
static void mark_damage(VkdSource *s, int64_t from, int64_t at, const char *why) {
    int64_t to = at + 1;
    while (to < s->npackets && !s->packets[to].key) to++;
    snprintf(s->damage_reason, sizeof s->damage_reason, "%s", why);
    damage_packets(s, from, to);
}

/* How many packets late frame threads report an error: the packet that failed may be any of
 * those still being decoded. */
static int64_t report_lag(const VkdSource *s) {
    return s->dec->thread_count > 1 ? s->dec->thread_count : 0;
}

/* Positions the demuxer and decoder at keyframe packet k: the next packet read is packet k. */
static int seek_to(VkdSource *s, int64_t k, char *err, int errlen) {
    s->seeks++;
    avcodec_flush_buffers(s->dec);
    for (int i = 0; i < s->npending; i++) av_frame_free(&s->pending[i].frame);
    s->npending = 0;
    memset(s->done, 0, (size_t)s->npackets);
    s->next_send = -1;
    s->eof_sent = s->demux_eof = s->drained = 0;
    s->start_key = s->frontier = k;
    s->last_out = frame_of_pts(s, s->packets[k].pts) - 1;
    /* nothing to wait for before the start, nor for leading pictures that cannot be decoded from it */
    for (int64_t i = 0; i < s->npackets; i++)
        if (i < k || s->packets[i].pts < s->packets[k].pts) s->done[i] = 1;
    const Packet *p = &s->packets[k];
    int is_ts = !strcmp(s->fmt->iformat->name, "mpegts");
    int is_mkv = !strncmp(s->fmt->iformat->name, "matroska", 8);
    for (int attempt = 0; attempt < 2; attempt++) {
        int r;
        if (is_ts)
            r = av_seek_frame(s->fmt, s->stream, attempt ? 0 : p->pos, AVSEEK_FLAG_BYTE);
        else {
            /* at or before the keyframe: mkv's cues hold pts, mov's index dts */
            int64_t ts = attempt ? INT64_MIN + 1 : is_mkv || p->dts == AV_NOPTS_VALUE ? p->pts : p->dts;
            r = avformat_seek_file(s->fmt, s->stream, INT64_MIN, ts, ts, 0);
            if (r < 0 && attempt) r = avformat_seek_file(s->fmt, s->stream, INT64_MIN, INT64_MIN, INT64_MIN, AVSEEK_FLAG_BACKWARD);
        }
        if (r < 0) continue;
        /* read up to the keyframe; landing past it means the seek was inexact: retry from the start */
        for (;;) {
            r = av_read_frame(s->fmt, s->pkt);
            if (r < 0) break;
            int64_t i = is_ours(s, s->pkt) ? packet_index(s, s->pkt) : -1;
            if (i < 0 || i < k) { av_packet_unref(s->pkt); continue; }
            if (i > k) { av_packet_unref(s->pkt); break; }
            s->next_send = k; /* s->pkt holds packet k, sent first by next_packet */
            return VKD_OK;
        }
    }
    return say(err, errlen, "cannot seek to the keyframe of packet %lld", (long long)k), VKD_INTERNAL;
}

/* The next indexed packet into s->pkt (already there right after a seek); 0 at the end. */
static int next_packet(VkdSource *s) {
    if (s->pkt->data || s->pkt->side_data_elems) return 1; /* the keyframe a seek left */
    while (!s->demux_eof) {
        if (av_read_frame(s->fmt, s->pkt) < 0) { s->demux_eof = 1; break; }
        if (is_ours(s, s->pkt)) {
            int64_t i = packet_index(s, s->pkt);
            if (i >= s->next_send) { s->next_send = i; return 1; }
        }
        av_packet_unref(s->pkt);
    }
    return 0;
}

static int check_geometry(VkdSource *s, const AVFrame *f, int64_t n) {
    if (f->width == s->info.width && f->height == s->info.height && f->format == s->pix_fmt) return 1;
    s->damaged[n] = 1;
    snprintf(s->damage_reason, sizeof s->damage_reason, "the stream changes to %dx%d %s here, the clip is %dx%d %s",
             f->width, f->height, av_get_pix_fmt_name(f->format), s->info.width, s->info.height, av_get_pix_fmt_name(s->pix_fmt));
    return 0;
}

/* A frame out of the decoder, numbered by its pts. Leading pictures of the start keyframe are
 * dropped; a frame the decoder flags as concealed damages what follows it up to the next key. */
static void take_frame(VkdSource *s, AVFrame *f) {
    int64_t pts = f->pts != AV_NOPTS_VALUE ? f->pts : f->best_effort_timestamp;
    int64_t n = frame_of_pts(s, pts);
    if (n < 0 || pts < s->packets[s->start_key].pts || n <= s->last_out || s->done[s->frame_packet[n]]) { av_frame_unref(f); return; }
    for (int64_t j = s->last_out + 1; j < n; j++)
        if (!s->done[s->frame_packet[j]]) {
            snprintf(s->damage_reason, sizeof s->damage_reason, "the decoder produced no picture for it");
            damage_frame(s, j);
        }
    s->last_out = n;
    if ((f->flags & AV_FRAME_FLAG_CORRUPT) || f->decode_error_flags) {
        av_frame_unref(f);
        mark_damage(s, s->frame_packet[n], s->frame_packet[n], "the decoder concealed errors in this frame or one it references");
        return;
    }
    if (s->info.width && !check_geometry(s, f, n)) { av_frame_unref(f); damage_frame(s, n); return; }
    AVFrame *keep = av_frame_alloc();
    if (!keep || s->npending == MAX_PENDING) {
        av_frame_free(&keep);
        av_frame_unref(f);
        snprintf(s->damage_reason, sizeof s->damage_reason, "the decoder holds back more than %d frames", MAX_PENDING);
        damage_frame(s, n);
        return;
    }
    av_frame_move_ref(keep, f);
    s->pending[s->npending++] = (Cached){n, keep, 0, 0};
    settle(s, s->frame_packet[n]);
}

/* Decodes forward until frame n is out (or shown to be missing). */
static int decode_to(VkdSource *s, int64_t n, char *err, int errlen) {
    char e[128];
    s->want = n;
    for (;;) {
        if (cache_get(s, n)) return VKD_OK;
        if (s->damaged[n]) break;
        int r = avcodec_receive_frame(s->dec, s->frame);
        if (r == 0) { take_frame(s, s->frame); continue; }
        if (r == AVERROR_EOF) {
            s->drained = 1;
            /* everything is out: what is missing never comes, what waits is trusted */
            snprintf(s->damage_reason, sizeof s->damage_reason, "the decoder produced no picture for it");
            for (int64_t i = s->frontier; i < s->npackets; i++)
                if (!s->done[i]) damage_frame(s, frame_of_pts(s, s->packets[i].pts));
            s->last_out = s->info.frames - 1;
            break;
        }
        if (r != AVERROR(EAGAIN)) {
            char why[200];
            snprintf(why, sizeof why, "the decoder rejected the stream near packet %lld (%s)", (long long)s->next_send, averr(r, e, sizeof e));
            mark_damage(s, s->next_send - report_lag(s), s->next_send, why);
            continue;
        }
        if (s->eof_sent) break;
        if (!next_packet(s)) {
            avcodec_send_packet(s->dec, NULL);
            s->eof_sent = 1;
            continue;
        }
        int64_t at = s->next_send++;
        r = avcodec_send_packet(s->dec, s->pkt);
        av_packet_unref(s->pkt);
        if (r < 0 && r != AVERROR(EAGAIN)) {
            char why[200];
            snprintf(why, sizeof why, "the decoder rejected packet %lld (%s)", (long long)at, averr(r, e, sizeof e));
            mark_damage(s, at - report_lag(s), at, why);
        }
    }
    if (cache_get(s, n)) return VKD_OK;
    if (!s->damaged[n]) {
        s->damaged[n] = 1;
        snprintf(s->damage_reason, sizeof s->damage_reason, "the decoder produced no picture for it");
    }
    return say(err, errlen, "frame %lld is damaged: %s", (long long)n, s->damage_reason), VKD_DAMAGED;
}

static void fill(const VkdSource *s, const AVFrame *f, int64_t n, VkdFrame *out) {
    memset(out, 0, sizeof *out);
    out->hw = f->format == AV_PIX_FMT_VULKAN;
    for (int i = 0; i < s->info.planes && !out->hw; i++) {
        out->data[i] = f->data[s->plane_of[i]];
        out->linesize[i] = f->linesize[s->plane_of[i]];
    }
    out->width = f->width;
    out->height = f->height;
    out->pts = s->sorted_pts[n];
    if (n + 1 < s->info.frames)
        out->duration = s->sorted_pts[n + 1] - s->sorted_pts[n];
    else {
        out->duration = s->packets[s->frame_packet[n]].duration;
        if (out->duration <= 0 && n > 0) out->duration = s->sorted_pts[n] - s->sorted_pts[n - 1];
    }
    out->pict_type = av_get_picture_type_char(f->pict_type);
    out->key = !!(f->flags & AV_FRAME_FLAG_KEY);
    out->matrix = f->colorspace;
    out->transfer = f->color_trc;
    out->primaries = f->color_primaries;
    out->range = f->color_range;
    out->chroma_location = f->chroma_location;
    out->interlaced = !!(f->flags & AV_FRAME_FLAG_INTERLACED);
    out->top_field_first = !!(f->flags & AV_FRAME_FLAG_TOP_FIELD_FIRST);
}

int vkd_frame(VkdSource *s, int64_t n, VkdFrame *out, char *err, int errlen) {
    if (n < 0 || n >= s->info.frames) return say(err, errlen, "frame %lld is out of range (%lld frames)", (long long)n, (long long)s->info.frames), VKD_INVALID;
    AVFrame *f = cache_get(s, n);
    if (!f) {
        if (s->damaged[n]) return say(err, errlen, "frame %lld is damaged: %s", (long long)n, s->damage_reason), VKD_DAMAGED;
        int64_t k = s->frame_key[n];
        /* Linear reads go on decoding; anything else seeks. Decoding on is right when the
         * keyframe n needs was already sent and n has not come out yet, or came out and waits to
         * be trusted (frame threads and reordering keep several waiting: seeking for one of those
         * would decode its GOP again). At the end of the file the decoder, once told, gives up to
         * a frame-thread count of pictures one after the other: going on is right until it has
         * said it is drained. */
        int waiting = 0;
        for (int i = 0; i < s->npending && !waiting; i++) waiting = s->pending[i].n == n;
        int go_on = s->next_send >= 0 && k <= s->next_send && k >= s->start_key &&
                    (waiting || (!s->drained && n > s->last_out));
        if (!go_on) {
            int r = seek_to(s, k, err, errlen);
            if (r) return r;
        }
        int r = decode_to(s, n, err, errlen);
        if (r) return r;
        f = cache_get(s, n);
    }
    for (int i = 0; i < s->cache_size; i++)
        if (s->cache[i].frame == f) s->cache[i].handed = 1;
    AVFrame *ref = av_frame_clone(f); /* the caller's own reference: the cache may drop its one */
    if (!ref) return say(err, errlen, "out of memory"), VKD_INTERNAL;
    fill(s, ref, n, out);
    out->hold = ref;
    return VKD_OK;
}

int64_t vkd_seeks(const VkdSource *s) {
    return s->seeks;
}

void vkd_release(void *hold) {
    AVFrame *f = hold;
    av_frame_free(&f);
}

/* ---- open and close --------------------------------------------------------------------------- */

static const AVCodec *pick_decoder(enum AVCodecID id, int hw) {
    /* FFmpeg's own AV1 decoder only drives hardware; dav1d decodes AV1 on the CPU */
    if (id == AV_CODEC_ID_AV1) return hw ? avcodec_find_decoder(id) : avcodec_find_decoder_by_name("libdav1d");
    if (id == AV_CODEC_ID_H264 || id == AV_CODEC_ID_HEVC) return avcodec_find_decoder(id);
    return NULL;
}

/* Vulkan when the decoder offers it; else its first software format (FFmpeg offers the list again
 * without Vulkan when the hwaccel cannot take the stream, and vkd_open then gives up on hw). */
static enum AVPixelFormat pick_format(AVCodecContext *c, const enum AVPixelFormat *fmts) {
    (void)c;
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++)
        if (*p == AV_PIX_FMT_VULKAN) return *p;
    for (const enum AVPixelFormat *p = fmts; *p != AV_PIX_FMT_NONE; p++) {
        const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(*p);
        if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
    }
    return AV_PIX_FMT_NONE;
}

int vkd_hw_set_timeline(VkdSource *s, int handle_type, int fd, char *err, int errlen) {
    if (!s->hw) { close(fd); return say(err, errlen, "not decoding with Vulkan Video"), VKD_INTERNAL; }
    return vkd_hw_import_timeline(s->hw, handle_type, fd, err, errlen);
}

int vkd_hw_copy(VkdSource *s, void *hold, const VkdHwTarget *t, char *err, int errlen) {
    if (!s->hw) { close(t->fd); return say(err, errlen, "not decoding with Vulkan Video"), VKD_INTERNAL; }
    return vkd_hw_copy_frame(s->hw, hold, t, err, errlen);
}

int vkd_open(const char *path, const VkdOptions *opt, VkdSource **out, char *err, int errlen) {
    char e[128];
    *out = NULL;
    VkdSource *s = calloc(1, sizeof *s);
    if (!s) return say(err, errlen, "out of memory"), VKD_INTERNAL;
    s->stream = -1;
    s->next_send = -1;
    s->want = -1;
    int r = avformat_open_input(&s->fmt, path, NULL, NULL);
    if (r < 0) {
        int code = r == AVERROR(ENOENT) || r == AVERROR(EACCES) || r == AVERROR(EISDIR) ? VKD_NOT_FOUND : VKD_INVALID;
        say(err, errlen, code == VKD_NOT_FOUND ? "cannot open %s: %s" : "%s is not a file this plugin reads (mp4, mkv, ts): %s", path, averr(r, e, sizeof e));
        vkd_close(s);
        return code;
    }
    if ((r = avformat_find_stream_info(s->fmt, NULL)) < 0) {
        say(err, errlen, "cannot read the streams of %s: %s", path, averr(r, e, sizeof e));
        vkd_close(s);
        return VKD_INVALID;
    }
    s->stream = av_find_best_stream(s->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (s->stream < 0) {
        say(err, errlen, "%s has no video stream", path);
        vkd_close(s);
        return VKD_INVALID;
    }
    for (unsigned i = 0; i < s->fmt->nb_streams; i++)
        s->fmt->streams[i]->discard = (int)i == s->stream ? AVDISCARD_DEFAULT : AVDISCARD_ALL;
    AVStream *st = s->fmt->streams[s->stream];
    const AVCodecDescriptor *cd = avcodec_descriptor_get(st->codecpar->codec_id);
    snprintf(s->info.codec, sizeof s->info.codec, "%s", cd ? cd->name : "unknown");
    snprintf(s->info.container, sizeof s->info.container, "%s", s->fmt->iformat->name);
    int hw = opt && opt->hw;
    const AVCodec *codec = pick_decoder(st->codecpar->codec_id, hw);
    if (!codec) {
        say(err, errlen, "%s: the video codec %s is not supported (H.264, HEVC and AV1 are)", path, s->info.codec);
        vkd_close(s);
        return VKD_UNSUPPORTED;
    }
    snprintf(s->info.decoder, sizeof s->info.decoder, "%s", codec->name);
    s->info.tb_num = st->time_base.num;
    s->info.tb_den = st->time_base.den;

    s->pkt = av_packet_alloc();
    s->frame = av_frame_alloc();
    s->dec = avcodec_alloc_context3(codec);
    s->cache_size = (opt && opt->cache > 0 ? opt->cache : 16) + 1;
    s->cache = calloc((size_t)s->cache_size, sizeof *s->cache);
    if (!s->pkt || !s->frame || !s->dec || !s->cache) {
        say(err, errlen, "out of memory");
        vkd_close(s);
        return VKD_INTERNAL;
    }
    avcodec_parameters_to_context(s->dec, st->codecpar);
    s->dec->pkt_timebase = st->time_base;
    s->dec->thread_count = opt ? opt->threads : 0;
    if (hw) {
        AVBufferRef *device = NULL;
        if ((r = vkd_hw_create(&s->hw, opt->hw_index, opt->hw_uuid, &device, err, errlen))) { vkd_close(s); return r; }
        s->dec->hw_device_ctx = device;
        s->dec->get_format = pick_format;
        s->dec->thread_count = 1; /* the GPU decodes; threads would only hold more surfaces */
        s->dec->extra_hw_frames = s->cache_size + 4; /* the cache holds decoder surfaces */
    }
    if ((r = avcodec_open2(s->dec, codec, NULL)) < 0) {
        say(err, errlen, "%s: cannot open the %s decoder: %s", path, codec->name, averr(r, e, sizeof e));
        vkd_close(s);
        return VKD_UNSUPPORTED;
    }
    s->info.threads = s->dec->thread_count;

    if ((r = build_index(s, err, errlen))) { vkd_close(s); return r; }
    frame_rate(s);

    /* The first frame settles the format: parameters in the container may be absent or wrong. */
    if ((r = seek_to(s, s->frame_key[0], err, errlen)) || (r = decode_to(s, 0, err, errlen))) {
        char first[256];
        snprintf(first, sizeof first, "%s", err);
        say(err, errlen, "%s: cannot decode the first frame: %s", path, first);
        vkd_close(s);
        return r == VKD_DAMAGED ? VKD_INVALID : r;
    }
    AVFrame *f = cache_get(s, 0);
    if (s->hw && f->format != AV_PIX_FMT_VULKAN) {
        say(err, errlen, "the GPU does not decode this stream (%s %s)", s->info.codec, av_get_pix_fmt_name(f->format));
        vkd_close(s);
        return VKD_UNSUPPORTED;
    }
    if ((r = describe_format(s, f, err, errlen))) { vkd_close(s); return r; }
    s->info.width = f->width;
    s->info.height = f->height;
    *out = s;
    return VKD_OK;
}

const VkdInfo *vkd_info(const VkdSource *s) {
    return &s->info;
}

void vkd_close(VkdSource *s) {
    if (!s) return;
    for (int i = 0; s->cache && i < s->cache_size; i++) av_frame_free(&s->cache[i].frame);
    free(s->cache);
    av_frame_free(&s->frame);
    av_packet_free(&s->pkt);
    avcodec_free_context(&s->dec);
    avformat_close_input(&s->fmt);
    vkd_hw_free(s->hw); /* after the decoder, whose frames live on its device */
    free(s->packets);
    free(s->ids);
    free(s->frame_packet);
    free(s->frame_key);
    free(s->sorted_pts);
    free(s->damaged);
    free(s->done);
    for (int i = 0; i < s->npending; i++) av_frame_free(&s->pending[i].frame);
    free(s);
}
