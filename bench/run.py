#!/usr/bin/env python3
"""Benchmark runner: the same chains on VapourSynth R81 (libvapoursynth.so.4) and on vsvk
(libvsvk.so) in one run, the two cores alternating, several repetitions; prints medians, spreads
and vsvk/R81 ratios as a Markdown table, and saves every sample as JSON.

usage: bench/run.py [--cases PATTERNS] [--reps N] [--quick] [--seconds S] [--device]
                    [--out FILE] [--quiet PCT] [--budget S] [--list]
       bench/run.py --compare A.json B.json     do two runs agree within their spread?

Every case is one tests/oracle/driver.c run per core and repetition: the driver builds the chain,
fetches every frame with 2 x threads requests in flight and prints fps for the fetch loop (setup,
device creation and the first --warmup frames are not timed). Frames are not read (--no-hash), so
the numbers are the chain's, not the driver's. Before the repetitions every case is calibrated
once: a short run on vsvk sets the frame count so that a run takes about --seconds.

Groups (--cases takes comma separated fnmatch patterns over the case ids, or group names):
  host   long chains of cheap filters on tiny frames (bench/plugins/vsvkcheap.c), 1 and all threads
  std    std and resize filters at 1080p (a cached noise frame, looped)
  bw     std.GPUUpload -> std.GPUDownload, upload only and download only, 1080p and 2160p, 8 and
         16 bit; GB/s counts the frame's bytes once per direction
  gpu    R81's GPU plugins (knlmvk.KNLMeans, bm3dvk2.BM3D, vsfeel.GaussBlur) and our vk plugin
         (libvsvk_vk.so, namespace vk; its cases are skipped when the library or the function is
         absent) between upload and download, 1080p and 2160p
  chain  KNLMeans -> NNEDI3 -> BM3D (R81's GPU plugins in a row) and a mixed chain (CPU Median,
         GPU KNLMeans, CPU Levels), 1080p and 2160p
  vram   a long temporal GPU chain with VS_VULKAN_MAX_VRAM_MB low (the setMaxVRAMUse knob both
         cores read) against the same chain unlimited: fps and peak VRAM (getVulkanCoreInfo)

Paths (the defaults are the development machine's, as scripts/setup.sh lays it out):
  VSVK_REF    the reference folder (~/.cache/vsvk-ref): R81, its GPU plugins, the 1.4 loader
  CORE_OURS   our core (default: a private copy of target/release/libvsvk.so)
  CORE_REF    R81 (default $VSVK_REF/x/vapoursynth/libvapoursynth.so.4)
  DRIVER      the driver; default target/vsvk-bench/driver, built here with the Vulkan headers
              (for --vram) together with vsvknoise.so and vsvkcheap.so
  PLUGINS     R81's GPU plugins (default $VSVK_REF/plugins)
  OURS        where libvsvk_vk.so is (default target/release)
--device takes KIT, CORE_OURS, CORE_REF, DRIVER, PLUGINS, OURS from scripts/device/run.sh, uses
the NVIDIA driver instead of lavapipe, prints the JSON on stdout (a line starting BENCH-JSON) for
bench/fill_h200.py, and builds nothing.
"""
import argparse
import fnmatch
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "target", "vsvk-bench")
LAVAPIPE = "/usr/share/vulkan/icd.d/lvp_icd.json"

# ---- formats -----------------------------------------------------------------------------------

CF = {"Gray": 1, "RGB": 2, "YUV": 3}
FORMATS = {  # name: (family, float, bits, ssw, ssh)
    "Gray8": ("Gray", 0, 8, 0, 0), "Gray16": ("Gray", 0, 16, 0, 0), "GrayS": ("Gray", 1, 32, 0, 0),
    "YUV420P8": ("YUV", 0, 8, 1, 1), "YUV420P16": ("YUV", 0, 16, 1, 1), "YUV444PS": ("YUV", 1, 32, 0, 0),
    "RGB24": ("RGB", 0, 8, 0, 0),
}


def format_id(name):
    fam, flt, bits, ssw, ssh = FORMATS[name]
    return (CF[fam] << 28) | (flt << 24) | (bits << 16) | (ssw << 8) | ssh


def frame_bytes(name, w, h):
    fam, _, bits, ssw, ssh = FORMATS[name]
    bps = (bits + 7) // 8
    luma = w * h
    if fam == "Gray":
        return luma * bps
    chroma = (w >> ssw) * (h >> ssh)
    return (luma + 2 * chroma) * bps


RES = {"1080p": (1920, 1080), "2160p": (3840, 2160)}

# ---- cases -------------------------------------------------------------------------------------


class Case:
    def __init__(self, cid, what, chain, args=(), env=None, threads=0, plugins=(), frames=100, warmup=5,
                 bytes_per_frame=0, directions=0, vram=False, needs_vk=None, note=""):
        self.id, self.what, self.chain, self.args = cid, what, chain, list(args)
        self.env = env or {}
        self.threads, self.plugins, self.frames, self.warmup = threads, list(plugins), frames, warmup
        self.bytes_per_frame, self.directions, self.vram = bytes_per_frame, directions, vram
        self.needs_vk, self.note = needs_vk, note

    @property
    def group(self):
        return self.id.split("/")[0]


def noise_source(fmt, res, frames):
    """A noise frame made once (the source's cache holds it) and looped: the filter's cost only."""
    w, h = RES[res]
    return ["--width", str(w), "--height", str(h), "--format", fmt, "--frames", "1"], f"std.Loop:times={frames}"


def blank(fmt, res, frames, gpu=False, keep=True):
    w, h = RES[res]
    s = f"std.BlankClip:@:width={w}:height={h}:format={format_id(fmt)}:length={frames}:keep={int(keep)}"
    return s + (":gpu=1" if gpu else "")


# Frames let in before the clock starts: more than the driver keeps requested at once (2 x 16
# threads on the H200), so that first-touch allocations of host and VRAM buffers, which each core
# makes once per frame in flight, are not timed as the chain's speed.
WARMUP = 40

TINY = ["--width", "16", "--height", "16", "--format", "Gray8", "--frames", "1"]

STD_FILTERS = [  # (short name, format, steps)
    ("Expr", "YUV420P8", "std.Expr:@clips:expr='x 3 * 2 /"),
    ("Expr16", "YUV420P16", "std.Expr:@clips:expr='x 3 * 2 /"),
    ("Merge", "YUV420P8", "std.Merge:@clipa:clipb=$1:weight=0.3"),
    ("MaskedMerge", "YUV420P8", "std.MaskedMerge:@clipa:clipb=$1:mask=$1"),
    ("Levels", "YUV420P8", "std.Levels:min_in=16.0:max_in=235.0:gamma=1.4"),
    ("Invert", "YUV420P8", "std.Invert"),
    ("Convolution3x3", "YUV420P8", "std.Convolution" + ":matrix=1.0" * 9),
    ("Convolution3x3-16", "YUV420P16", "std.Convolution" + ":matrix=1.0" * 9),
    ("BoxBlur r2", "YUV420P8", "std.BoxBlur:hradius=2:vradius=2"),
    ("Median", "YUV420P8", "std.Median"),
    ("Maximum", "YUV420P8", "std.Maximum"),
    ("Sobel", "YUV420P8", "std.Sobel"),
    ("Transpose", "YUV420P8", "std.Transpose"),
    ("AverageFrames 3", "YUV420P8", "std.AverageFrames:@clips" + ":weights=1.0" * 3),
    ("Bicubic 720p", "YUV420P8", "resize.Bicubic:width=1280:height=720"),
    ("Spline36 2160p", "YUV420P8", "resize.Spline36:width=3840:height=2160"),
    ("Bicubic to RGB24", "YUV420P8", f"resize.Bicubic:format={format_id('RGB24')}:matrix_in_s='709"),
]

GPU_FILTERS = [  # (short name, format, plugin file under PLUGINS, steps)
    ("knlmvk.KNLMeans", "YUV420P8", "libknlmvulkan.so", "knlmvk.KNLMeans:h=1.2"),
    ("bm3dvk2.BM3D", "GrayS", "bm3dvk2.so", "bm3dvk2.BM3D"),
    ("vsfeel.GaussBlur", "GrayS", "vsfeel/libvsfeel.so", "vsfeel.GaussBlur"),
]

# Our vk plugin (plugins/, target/release/libvsvk_vk.so): candidates, each run only where the
# library registers the function (driver --list vk).
VK_FILTERS = [  # (short name, format, function, steps)
    ("vk.Expr", "YUV420P8", "Expr", "vk.Expr:@clips:expr='x 3 * 2 /"),
    ("vk.Convolution", "YUV420P8", "Convolution", "vk.Convolution" + ":matrix=1.0" * 9),
    ("vk.BoxBlur", "YUV420P8", "BoxBlur", "vk.BoxBlur:hradius=2:vradius=2"),
    ("vk.Bicubic 720p", "YUV420P8", "Bicubic", "vk.Bicubic:width=1280:height=720"),
]


def all_cases():
    cases = []
    # host overhead: as bench/scheduler.sh, frames from calibration
    for flt, chain in (("Copy", 50), ("Pass", 100), ("Temporal", 50)):
        for threads in (1, 0):
            steps = f"vsvkcheap.Source:@:width=64:height=64:format={format_id('Gray8')}:length={{frames}}"
            steps += f",vsvkcheap.{flt}" * chain
            t = "1" if threads == 1 else "all"
            cases.append(Case(f"host/{flt.lower()}{chain}-t{t}", f"{flt} x{chain}, Gray8 64x64, {t} thread{'s' if t == 'all' else ''}",
                              steps, TINY, threads=threads, plugins=["@cheap"], frames=2000, warmup=50))
    for name, fmt, steps in STD_FILTERS:
        args, loop = noise_source(fmt, "1080p", "{frames}")
        cases.append(Case(f"std/{name.replace(' ', '-').lower()}", f"{name}, {fmt} 1080p", loop + "," + steps, args,
                          frames=60, warmup=WARMUP))
    for res in ("1080p", "2160p"):
        for fmt in ("YUV420P8", "YUV420P16"):
            w, h = RES[res]
            b = frame_bytes(fmt, w, h)
            bits = FORMATS[fmt][2]
            cases.append(Case(f"bw/updown-{res}-{bits}", f"upload+download, {fmt} {res}", blank(fmt, res, "{frames}") + ",std.GPUUpload,std.GPUDownload",
                              TINY, frames=200, warmup=WARMUP, bytes_per_frame=b, directions=2))
            cases.append(Case(f"bw/up-{res}-{bits}", f"upload only, {fmt} {res}", blank(fmt, res, "{frames}") + ",std.GPUUpload",
                              TINY, frames=200, warmup=WARMUP, bytes_per_frame=b, directions=1))
            cases.append(Case(f"bw/down-{res}-{bits}", f"download only, {fmt} {res}", blank(fmt, res, "{frames}", gpu=True) + ",std.GPUDownload",
                              TINY, frames=200, warmup=WARMUP, bytes_per_frame=b, directions=1))
            if res == "2160p" and bits == 16:
                # a new source frame per request, filled by the CPU on both cores: uploads that read
                # the host frame with the GPU cannot meet the same bytes twice
                for kind, tail, dirs in (("updown", ",std.GPUUpload,std.GPUDownload", 2), ("up", ",std.GPUUpload", 1)):
                    cases.append(Case(f"bw/{kind}-{res}-{bits}-fresh", f"{'upload+download' if dirs == 2 else 'upload only'}, {fmt} {res}, a new frame each",
                                      blank(fmt, res, "{frames}", keep=False) + tail, TINY, frames=200, warmup=WARMUP, bytes_per_frame=b, directions=dirs))
    for res in ("1080p", "2160p"):
        for name, fmt, plugin, steps in GPU_FILTERS:
            args, loop = noise_source(fmt, res, "{frames}")
            w, h = RES[res]
            cases.append(Case(f"gpu/{name.split('.')[1].lower()}-{res}", f"{name}, {fmt} {res}",
                              f"{loop},std.GPUUpload,{steps},std.GPUDownload", args, plugins=["@gpu/" + plugin],
                              frames=20, warmup=WARMUP, bytes_per_frame=frame_bytes(fmt, w, h), directions=2))
        for name, fmt, fn, steps in VK_FILTERS:
            args, loop = noise_source(fmt, res, "{frames}")
            w, h = RES[res]
            cases.append(Case(f"gpu/{name.replace(' ', '-').replace('.', '-').lower()}-{res}", f"{name}, {fmt} {res}",
                              f"{loop},std.GPUUpload,{steps},std.GPUDownload", args, plugins=["@vk"], needs_vk=fn,
                              frames=20, warmup=WARMUP, bytes_per_frame=frame_bytes(fmt, w, h), directions=2))
    # chains of several GPU plugins (temporal denoise -> doubling -> BM3D, on float gray since
    # BM3D needs it) and a mixed chain whose CPU and GPU halves run beside each other
    gpu3 = ["@gpu/libknlmvulkan.so", "@gpu/nnedi3vk/nnedi3vk.so", "@gpu/bm3dvk2.so"]
    for res in ("1080p", "2160p"):
        w, h = RES[res]
        args, loop = noise_source("GrayS", res, "{frames}")
        cases.append(Case(f"chain/knlm-nnedi3-bm3d-{res}", f"KNLMeans -> NNEDI3 -> BM3D, GrayS {res}",
                          f"{loop},std.GPUUpload,knlmvk.KNLMeans:d=1:h=1.2,nnedi3vk.NNEDI3:field=1,bm3dvk2.BM3D,std.GPUDownload",
                          args, plugins=gpu3, frames=20, warmup=WARMUP, bytes_per_frame=frame_bytes("GrayS", w, h), directions=2))
        args, loop = noise_source("YUV420P8", res, "{frames}")
        cases.append(Case(f"chain/mixed-{res}", f"Median (CPU) -> KNLMeans (GPU) -> Levels (CPU), YUV420P8 {res}",
                          f"{loop},std.Median,std.GPUUpload,knlmvk.KNLMeans:h=1.2,std.GPUDownload,std.Levels:min_in=16.0:max_in=235.0:gamma=1.4",
                          args, plugins=["@gpu/libknlmvulkan.so"], frames=20, warmup=WARMUP, bytes_per_frame=frame_bytes("YUV420P8", w, h), directions=2))
    # VRAM: four temporal KNLMeans (d=1 reads n-1, n, n+1) in a row; 256 MB is both cores' floor
    chain = "std.GPUUpload" + ",knlmvk.KNLMeans:d=1:a=1:s=1:h=1.2" * 4 + ",std.GPUDownload"
    for res in ("1080p",):
        args, loop = noise_source("YUV420P8", res, "{frames}")
        for lim in (256, 0):
            env = {"VS_VULKAN_MAX_VRAM_MB": str(lim)} if lim else {}
            cases.append(Case(f"vram/knlm4-{res}-{'256mb' if lim else 'default'}",
                              f"4 x KNLMeans d=1, YUV420P8 {res}, VRAM limit {str(lim) + ' MB' if lim else 'default'}",
                              f"{loop},{chain}", args, env=env, plugins=["@gpu/libknlmvulkan.so"], frames=20, warmup=WARMUP,
                              vram=True))
    return cases


# ---- machine -----------------------------------------------------------------------------------


def busy_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[0] + v[1] + v[2] + v[5] + v[6] + v[7], sum(v[:8])


def idle_percent(span=0.5):
    b0, t0 = busy_ticks()
    time.sleep(span)
    b1, t1 = busy_ticks()
    return 100 * (1 - (b1 - b0) / max(1, t1 - t0))


def wait_quiet(pct, longest):
    if pct <= 0:
        return True
    start = time.time()
    while idle_percent() < pct:
        if time.time() - start > longest:
            return False
        time.sleep(2)
    return True


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(next(l.split()[1] for l in f if l.startswith("MemTotal"))) >> 20
    except (OSError, StopIteration):
        pass
    gpu = None
    try:  # the card, so that a result says which one gave it (H100 and H200 machines both serve)
        r = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        gpu = r.stdout.strip().splitlines()[0] if r.returncode == 0 and r.stdout.strip() else None
    except (OSError, subprocess.TimeoutExpired):
        pass
    return {"host": platform.node(), "cpus": os.cpu_count(), "cpu": cpu, "mem_gib": mem, "kernel": platform.release(),
            "loadavg": open("/proc/loadavg").read().split()[:3], "gpu": gpu}


# ---- running -----------------------------------------------------------------------------------


class Setup:
    def __init__(self, a):
        ref = os.environ.get("VSVK_REF", os.path.expanduser("~/.cache/vsvk-ref"))
        self.device = a.device
        os.makedirs(OUT, exist_ok=True) if not a.device else None
        if a.device:
            kit = os.environ["KIT"]
            extra = os.path.join(kit, "extra", "target", "vsvk-bench")
            self.ours = os.environ["CORE_OURS"]
            self.ref = os.environ["CORE_REF"]
            self.driver = os.path.join(extra, "driver") if os.path.exists(os.path.join(extra, "driver")) else os.environ["DRIVER"]
            self.noise = first([os.path.join(extra, "vsvknoise.so"), os.path.join(os.environ.get("OURS", ""), "vsvknoise.so"), "/tmp/vsvk-bench/vsvknoise.so"])
            self.cheap = first([os.path.join(extra, "vsvkcheap.so"), "/tmp/vsvk-bench/vsvkcheap.so"])
            self.gpu_plugins = os.environ["PLUGINS"]
            self.vk = os.path.join(os.environ.get("OURS", ""), "libvsvk_vk.so")
            self.env = dict(os.environ)
        else:
            self.ref = os.environ.get("CORE_REF", os.path.join(ref, "x", "vapoursynth", "libvapoursynth.so.4"))
            if not os.path.exists(self.ref):
                sys.exit(f"no reference core at {self.ref}: run scripts/setup.sh first")
            src = os.environ.get("CORE_OURS", os.path.join(ROOT, "target", "release", "libvsvk.so"))
            # a private copy, so that a concurrent cargo build cannot swap the library mid-run
            self.ours = os.path.join(OUT, "libvsvk.so")
            shutil.copyfile(src, self.ours)
            self.driver = os.environ.get("DRIVER", os.path.join(OUT, "driver"))
            self.noise = os.path.join(OUT, "vsvknoise.so")
            self.cheap = os.path.join(OUT, "vsvkcheap.so")
            if not a.no_cc:
                build_c(ref)
            self.gpu_plugins = os.environ.get("PLUGINS", os.path.join(ref, "plugins"))
            self.vk = os.path.join(os.environ.get("OURS", os.path.join(ROOT, "target", "release")), "libvsvk_vk.so")
            self.env = dict(os.environ)
            self.env["LD_LIBRARY_PATH"] = os.path.join(ref, "loader", "lib") + (":" + self.env["LD_LIBRARY_PATH"] if self.env.get("LD_LIBRARY_PATH") else "")
            if "VK_ICD_FILENAMES" not in self.env and "VK_DRIVER_FILES" not in self.env:
                self.env["VK_ICD_FILENAMES"] = LAVAPIPE
        self.vk_functions = self.list_vk() if os.path.exists(self.vk) else set()

    def plugin(self, p):
        if p == "@cheap":
            return self.cheap
        if p == "@vk":
            return self.vk
        if p.startswith("@gpu/"):
            return os.path.join(self.gpu_plugins, p[5:])
        return p

    def list_vk(self):
        try:
            r = subprocess.run([self.driver, self.ours, "--plugin", self.noise, "--plugin", self.vk, "--list", "vk"],
                               env=self.env, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            return set()
        return set(re.findall(r"^\s*(?:vk\.)?([A-Z]\w*)", r.stdout, re.M))

    def skip_reason(self, c):
        for p in c.plugins:
            if not os.path.exists(self.plugin(p)):
                return f"{self.plugin(p)} is absent"
        if c.needs_vk and c.needs_vk not in self.vk_functions:
            return f"vk.{c.needs_vk} is not registered by {self.vk}"
        return None


def first(paths):
    for p in paths:
        if p and os.path.exists(p):
            return p
    return paths[-1]


def build_c(ref):
    hdr = os.path.join(ref, "src", "hdr", "usr", "include")
    cflags = ["-O2", "-Wall", "-Wextra", "-Werror", "-I" + os.path.join(ROOT, "include")]
    jobs = [
        (["-shared", "-fPIC", "bench/plugins/vsvkcheap.c"], "vsvkcheap.so", []),
        (["-shared", "-fPIC", "tests/plugins/vsvknoise.c"], "vsvknoise.so", []),
        (["-I" + hdr, "tests/oracle/driver.c", "-ldl", "-lpthread"], "driver", []),
    ]
    for extra, out, _ in jobs:
        subprocess.run(["gcc", *cflags, *extra, "-o", os.path.join(OUT, out)], cwd=ROOT, check=True)


def run_once(s, c, core, frames, timeout):
    """One driver run: (fps, vram_peak or None, others' CPU seconds) or an error string."""
    chain = c.chain.replace("{frames}", str(frames))
    cmd = [s.driver, core, "--plugin", s.noise]
    for p in c.plugins:
        cmd += ["--plugin", s.plugin(p)]
    cmd += c.args + ["--no-hash", "--warmup", str(c.warmup), "--threads", str(c.threads)]
    if c.vram:
        cmd.append("--vram")
    cmd.append(chain)
    env = dict(s.env)
    env.update(c.env)
    b0, _ = busy_ticks()
    ch0 = os.times()
    t0 = time.time()
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        # The core's stall report (a warning after VSVK_GPU_STALL_SECONDS) says what the run
        # waited on: kept in this script's log.
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        lines = err.splitlines()
        first = next((i for i, l in enumerate(lines) if "GPU stall" in l), None)
        if first is None:
            return f"timed out after {timeout}s"
        print(f"{c.id} on {os.path.basename(core)}: timed out; the core's stall report:", *lines[first:first + 60], sep="\n", file=sys.stderr, flush=True)
        return f"timed out after {timeout}s (GPU stall report in the log)"
    wall = time.time() - t0
    ch1 = os.times()
    b1, _ = busy_ticks()
    own = (ch1.children_user - ch0.children_user) + (ch1.children_system - ch0.children_system)
    others = max(0.0, (b1 - b0) / os.sysconf("SC_CLK_TCK") - own)
    line = next((l for l in reversed(r.stdout.splitlines()) if l.startswith(("ok ", "error:"))), None)
    if not line or line.startswith("error:"):
        tail = (line or r.stderr.strip().splitlines()[-1:] or ["no result"])
        return (line or " ".join(tail))[:300]
    fps = float(re.search(r"fps=([\d.]+)", line).group(1))
    m = re.search(r"vram_peak=(\d+)", line)
    return fps, (int(m.group(1)) if m else None), others / max(wall, 1e-3), wall


def median(v):
    return statistics.median(v) if v else None


def spread(v):
    """Half the range, relative to the median, in percent."""
    if len(v) < 2:
        return 0.0
    m = statistics.median(v)
    return 100 * (max(v) - min(v)) / 2 / m if m else 0.0


def fmt_fps(x):
    if x is None:
        return "-"
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def stats(a):
    """Where our core's host time goes on each case (VSVK_STATS counters, printed at exit)."""
    s = Setup(a)
    for c in select(all_cases(), a.cases):
        why = s.skip_reason(c)
        print(f"--- {c.id}: {c.what}" + (f" (skipped: {why})" if why else ""), flush=True)
        if why:
            continue
        chain = c.chain.replace("{frames}", str(a.stats + c.warmup))
        cmd = [s.driver, s.ours, "--plugin", s.noise] + sum((["--plugin", s.plugin(p)] for p in c.plugins), [])
        cmd += c.args + ["--no-hash", "--warmup", str(c.warmup), "--threads", str(c.threads), chain]
        env = dict(s.env, VSVK_STATS="1")
        env.update(c.env)
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout)
        except subprocess.TimeoutExpired:
            print(f"timed out after {a.timeout} s", flush=True)
            continue
        for line in (r.stdout + r.stderr).splitlines():
            if line.startswith(("ok ", "error", "vsvk stats")):
                print(line, flush=True)
    return 0


def run(a):
    s = Setup(a)
    cases = select(all_cases(), a.cases)
    if a.quick:
        a.reps = min(a.reps, 2)
        a.seconds = min(a.seconds, 0.5)
    res = {"machine": machine(), "command": " ".join(sys.argv), "reps": a.reps, "seconds": a.seconds, "device": a.device,
           "cores": {"R81": s.ref, "vsvk": s.ours}, "cases": {}, "started": time.strftime("%Y-%m-%d %H:%M:%S")}
    cores = [("R81", s.ref), ("vsvk", s.ours)]
    start = time.time()
    out = a.out or (None if a.device else os.path.join(OUT, time.strftime("results-%Y%m%d-%H%M%S.json")))

    def save(final):
        # after every case too, so that a run stopped from outside (a device part's time limit)
        # leaves the samples it took, marked partial
        if not out:
            return
        res["partial"] = not final
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(res, f, indent=1)
        os.replace(tmp, out)

    live = []
    for c in cases:
        why = s.skip_reason(c)
        entry = {"what": c.what, "group": c.group, "bytes_per_frame": c.bytes_per_frame, "directions": c.directions,
                 "R81": [], "vsvk": [], "vram": {"R81": [], "vsvk": []}, "errors": {}, "others": []}
        res["cases"][c.id] = entry
        if why:
            entry["skipped"] = why
            log(f"skip {c.id}: {why}")
            continue
        # calibration: a short run on vsvk sets the frame count for about --seconds a run
        probe = max(c.warmup * 2, c.frames // (4 if a.quick else 1))
        r = run_once(s, c, s.ours, probe + c.warmup, a.timeout)
        if isinstance(r, str):
            r2 = run_once(s, c, s.ref, probe + c.warmup, a.timeout)
            if isinstance(r2, str):
                entry["errors"] = {"vsvk": r, "R81": r2}
                log(f"error {c.id}: vsvk: {r}; R81: {r2}")
                continue
            r = r2
        fps = r[0]
        frames = int(min(max(fps * a.seconds, c.warmup * 2, 10), 200000)) + c.warmup
        entry["frames"] = frames
        log(f"calibrated {c.id}: {fps:.1f} fps -> {frames} frames")
        live.append((c, frames))
    noisy = 0
    for rep in range(a.reps):
        if a.budget and time.time() - start > a.budget:
            log(f"time budget of {a.budget}s spent: stopping after {rep} repetitions")
            break
        order = cores if rep % 2 == 0 else cores[::-1]
        log(f"repetition {rep + 1}/{a.reps}")
        for c, frames in live:
            entry = res["cases"][c.id]
            if not wait_quiet(a.quiet, a.quiet_wait):
                noisy += 1
            for name, lib in order:
                if name in entry["errors"]:
                    continue
                r = run_once(s, c, lib, frames, a.timeout)
                if isinstance(r, str):
                    entry["errors"][name] = r
                    log(f"error {c.id} {name}: {r}")
                    continue
                entry[name].append(r[0])
                entry["others"].append(round(r[2], 3))
                if r[1] is not None:
                    entry["vram"][name].append(r[1])
            save(False)
    res["elapsed_s"] = round(time.time() - start, 1)
    res["noisy_pairs"] = noisy
    res["loadavg_after"] = open("/proc/loadavg").read().split()[:3]
    table = render(res)
    print(table)
    if a.device:
        print("BENCH-JSON " + json.dumps(res, separators=(",", ":")))
    if out:
        save(True)
        log(f"samples in {out}")
    return 0


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def select(cases, patterns):
    if not patterns:
        return cases
    pats = [p.strip() for p in patterns.split(",") if p.strip()]
    out = []
    for c in cases:
        for p in pats:
            if "/" not in p and not any(ch in p for ch in "*?["):
                p = p + "/*"
            if fnmatch.fnmatch(c.id, p):
                out.append(c)
                break
    if not out:
        sys.exit(f"no case matches {patterns!r}; --list shows them")
    return out


def render(res):
    lines = []
    groups = []
    for cid, e in res["cases"].items():
        if e["group"] not in groups:
            groups.append(e["group"])
    for g in groups:
        rows = [(cid, e) for cid, e in res["cases"].items() if e["group"] == g]
        bw = any(e["bytes_per_frame"] for _, e in rows)
        vram = g == "vram"
        head = "| case | what | frames | R81 fps | ± | vsvk fps | ± | vsvk/R81 |"
        sep = "|---|---|--:|--:|--:|--:|--:|--:|"
        if bw:
            head += " R81 GB/s | vsvk GB/s |"
            sep += "--:|--:|"
        if vram:
            head += " R81 peak VRAM MB | vsvk peak VRAM MB |"
            sep += "--:|--:|"
        lines += ["", f"**{g}**", "", head, sep]
        for cid, e in rows:
            if e.get("skipped"):
                lines.append(f"| {cid} | {e['what']} | | skipped: {e['skipped']} | | | | |" + (" | |" if bw else "") + (" | |" if vram else ""))
                continue
            r, o = median(e["R81"]), median(e["vsvk"])
            ratio = f"{o / r:.2f}" if r and o else "-"
            row = (f"| {cid} | {e['what']} | {e.get('frames', '-')} | {fmt_fps(r)} | {spread(e['R81']):.0f}% | {fmt_fps(o)} |"
                   f" {spread(e['vsvk']):.0f}% | {ratio} |")
            if bw:
                gb = lambda x: f"{x * e['bytes_per_frame'] / 1e9:.2f}" if x and e["bytes_per_frame"] else "-"
                row += f" {gb(r)} | {gb(o)} |"
            if vram:
                mb = lambda v: f"{max(v) / 2**20:.0f}" if v else "-"
                row += f" {mb(e['vram']['R81'])} | {mb(e['vram']['vsvk'])} |"
            for who, err in e["errors"].items():
                row += f" {who}: {err}"
            lines.append(row)
    m = res["machine"]
    others = [x for e in res["cases"].values() for x in e["others"]]
    lines += ["", f"{res['reps']} repetitions per core and case, cores alternating, medians; ± is half the range over the median. "
              f"{m['cpus']} CPUs ({m['cpu']}), load average before {' '.join(m['loadavg'])}, after {' '.join(res['loadavg_after'])}; "
              f"other processes used {statistics.median(others) if others else 0:.2f} CPUs (median over runs, "
              f"max {max(others) if others else 0:.2f}); {res['elapsed_s']} s."]
    return "\n".join(lines)


def compare(a_path, b_path):
    """Two runs agree on a case when each run's median lies within the other's range (or both
    ratios do), printed per case and core."""
    A, B = (json.load(open(p)) for p in (a_path, b_path))
    print("| case | core | run A median | run A range | run B median | run B range | agree |")
    print("|---|---|--:|--:|--:|--:|---|")
    n = ok = 0
    for cid, ea in A["cases"].items():
        eb = B["cases"].get(cid)
        if not eb:
            continue
        for core in ("R81", "vsvk"):
            va, vb = ea[core], eb[core]
            if not va or not vb:
                continue
            ma, mb = median(va), median(vb)
            agree = min(va) <= mb <= max(va) or min(vb) <= ma <= max(vb)
            n += 1
            ok += agree
            print(f"| {cid} | {core} | {fmt_fps(ma)} | {fmt_fps(min(va))}–{fmt_fps(max(va))} | {fmt_fps(mb)} |"
                  f" {fmt_fps(min(vb))}–{fmt_fps(max(vb))} | {'yes' if agree else 'NO'} |")
    print(f"\n{ok} of {n} (case, core) medians lie within the other run's range.")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", help="comma separated patterns over case ids, or group names")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="at most 2 repetitions of about 0.5 s")
    p.add_argument("--seconds", type=float, default=1.5, help="about how long one run takes (calibrated per case)")
    p.add_argument("--device", action="store_true", help="on the device machine (scripts/device/run.sh's environment)")
    p.add_argument("--out", help="the JSON file of every sample (default target/vsvk-bench/results-TIME.json)")
    p.add_argument("--quiet", type=float, default=0, help="before each case, wait until the machine is this percent idle")
    p.add_argument("--quiet-wait", type=float, default=120, help="the longest such wait, seconds")
    p.add_argument("--budget", type=float, default=0, help="stop starting repetitions after this many seconds")
    p.add_argument("--timeout", type=int, default=300, help="one run's limit, seconds")
    p.add_argument("--no-cc", action="store_true", help="use the C programs already in target/vsvk-bench")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--stats", type=int, metavar="FRAMES", help="instead of timing: one run of our core a case, FRAMES frames after the warm-up, "
                   "with VSVK_STATS=1, printing its fps and the core's host step counters")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two results files")
    a = p.parse_args()
    if a.compare:
        return compare(*a.compare)
    if a.list:
        for c in select(all_cases(), a.cases):
            print(f"{c.id:34} {c.what}")
        return 0
    if a.stats:
        return stats(a)
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
