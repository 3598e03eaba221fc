//! vkdec.Source (plugins/vkdecode) on the CPU path, on lavapipe: streams made here with Debian's
//! ffmpeg (x264, x265 and SVT-AV1 over a noise source, several formats, GOP structures and
//! containers) must give exactly the frames Debian's ffmpeg decodes from them, in any request
//! order; damaged and unsupported files must fail clearly, without hanging, and keep every frame
//! before the damage.
//!
//! Needs `scripts/setup.sh` (ffmpeg, lavapipe, the static FFmpeg the plugin links) and the release
//! build of our core and the plugin (target/release/libvsvk_vkdecode.so, or $VSVK_VKDEC_PLUGIN).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use vsvk_tests::{oracle, process, reference, vk};

const LIMIT: Duration = Duration::from_secs(120);

fn plugin() -> PathBuf {
    let p = std::env::var_os("VSVK_VKDEC_PLUGIN").map(PathBuf::from).unwrap_or_else(|| reference::target_dir().join("release/libvsvk_vkdecode.so"));
    assert!(p.is_file(), "the vkdecode plugin {} is missing: build it with `cargo build --release -p vsvk-vkdecode`", p.display());
    p
}

fn dir() -> PathBuf {
    let d = reference::target_dir().join("vsvk-vkdecode");
    std::fs::create_dir_all(&d).expect("test folder");
    d
}

/// A test stream: what ffmpeg encodes, and what the clip must say about it.
struct Stream {
    name: &'static str,
    /// ffmpeg's output options (encoder and its settings).
    encode: &'static str,
    pix_fmt: &'static str,
    size: (u32, u32),
    rate: &'static str,
    frames: u32,
    /// The clip's format name and frame rate.
    format: &'static str,
    fps: &'static str,
}

const STREAMS: [Stream; 7] = [
    // B-frames (pyramid), short closed GOPs, colour tags, NTSC rate in mp4
    Stream {
        name: "h264-bframes.mp4",
        encode: "-c:v libx264 -preset veryfast -bf 3 -g 12 -keyint_min 12 -sc_threshold 0 -colorspace bt709 -color_primaries bt709 -color_trc bt709 -color_range tv",
        pix_fmt: "yuv420p",
        size: (64, 48),
        rate: "24000/1001",
        frames: 60,
        format: "YUV420P8",
        fps: "24000/1001",
    },
    // open GOPs: B-frames before each keyframe on screen reference the previous GOP
    Stream {
        name: "h264-opengop.mkv",
        encode: "-c:v libx264 -preset veryfast -bf 3 -g 16 -keyint_min 16 -sc_threshold 0 -x264-params open-gop=1",
        pix_fmt: "yuv420p",
        size: (64, 48),
        rate: "25",
        frames: 64,
        format: "YUV420P8",
        fps: "25/1",
    },
    // HEVC 10-bit, x265's open GOPs (CRA keyframes with leading pictures), in MPEG-TS
    Stream {
        name: "hevc10-opengop.ts",
        encode: "-c:v libx265 -preset veryfast -x265-params log-level=error:keyint=16:min-keyint=16:bframes=4:open-gop=1:scenecut=0",
        pix_fmt: "yuv420p10le",
        size: (64, 48),
        rate: "25",
        frames: 64,
        format: "YUV420P10",
        fps: "25/1",
    },
    // one long GOP: every frame's keyframe is frame 0
    Stream {
        name: "h264-longgop.mkv",
        encode: "-c:v libx264 -preset veryfast -bf 2 -g 300 -sc_threshold 0",
        pix_fmt: "yuv420p",
        size: (64, 48),
        rate: "25",
        frames: 120,
        format: "YUV420P8",
        fps: "25/1",
    },
    Stream { name: "h264-422p10.mp4", encode: "-c:v libx264 -preset veryfast -bf 2 -g 10", pix_fmt: "yuv422p10le", size: (64, 48), rate: "25", frames: 24, format: "YUV422P10", fps: "25/1" },
    Stream {
        name: "hevc-444.mkv",
        encode: "-c:v libx265 -preset veryfast -x265-params log-level=error:keyint=10",
        pix_fmt: "yuv444p",
        size: (64, 48),
        rate: "25",
        frames: 24,
        format: "YUV444P8",
        fps: "25/1",
    },
    Stream { name: "av1.mkv", encode: "-c:v libsvtav1 -preset 12 -g 12", pix_fmt: "yuv420p", size: (64, 64), rate: "25", frames: 36, format: "YUV420P8", fps: "25/1" },
];

fn stream(name: &str) -> &'static Stream {
    STREAMS.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no stream {name}"))
}

fn ffmpeg(args: &str) {
    let out = process::run(
        {
            let mut c = Command::new("ffmpeg");
            c.args(["-hide_banner", "-loglevel", "error", "-y"]).args(args.split(' ').filter(|a| !a.is_empty()));
            c
        },
        LIMIT,
    );
    assert!(out.success(), "ffmpeg {args}: {}", out.describe());
}

/// The stream's file and ffmpeg's own decode of it (raw frames), made once per test process.
fn made(s: &Stream) -> (PathBuf, Vec<u8>) {
    static MADE: OnceLock<Mutex<std::collections::HashMap<&'static str, (PathBuf, Vec<u8>)>>> = OnceLock::new();
    let mut m = MADE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner());
    m.entry(s.name)
        .or_insert_with(|| {
            let file = dir().join(s.name);
            let (w, h) = s.size;
            // a different noise per plane and frame: nothing for the encoder to predict cheaply
            let src = format!("-f lavfi -i nullsrc=s={w}x{h}:r={},geq=lum=random(1)*255:cb=random(2)*255:cr=random(3)*255,format={}", s.rate, s.pix_fmt);
            ffmpeg(&format!("{src} -frames:v {} {} {}", s.frames, s.encode, file.display()));
            (file.clone(), reference_decode(&file, s.pix_fmt))
        })
        .clone()
}

/// Debian's ffmpeg decoding every frame, one after the other, without frame rate conversion.
fn reference_decode(file: &Path, pix_fmt: &str) -> Vec<u8> {
    let raw = file.with_extension(format!("{}.raw", file.extension().and_then(|e| e.to_str()).unwrap_or("")));
    ffmpeg(&format!("-i {} -fps_mode passthrough -f rawvideo -pix_fmt {pix_fmt} {}", file.display(), raw.display()));
    std::fs::read(&raw).expect("ffmpeg's frames")
}

/// A driver run of `chain` after vkdec.Source of `file` (with `args`): its result line, and the
/// frames it made when it succeeded.
fn run(core: &Path, file: &Path, args: &str, chain: &str) -> (String, Vec<u8>, String) {
    let dump = dir().join(format!("dump-{}-{}", std::process::id(), unique()));
    let mut cmd = Command::new(oracle::driver());
    cmd.env("VK_ICD_FILENAMES", vk::lavapipe());
    cmd.arg(core).arg("--plugin").arg(oracle::noise_plugin()).arg("--plugin").arg(plugin()).arg("--props").arg("--dump").arg(&dump);
    cmd.arg(format!("vkdec.Source:@:source='{}{args}{chain}", file.display()));
    let out = process::run(cmd, LIMIT);
    assert!(!out.timed_out(), "{} {args}{chain}: hung\n{}", file.display(), out.describe());
    let line = out.stdout.lines().rev().find(|l| l.starts_with("ok ") || l.starts_with("error:")).unwrap_or_else(|| panic!("no result: {}", out.describe())).to_string();
    let bytes = std::fs::read(&dump).unwrap_or_default();
    let _ = std::fs::remove_file(&dump);
    (line, bytes, out.stderr)
}

fn unique() -> u64 {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn frame_bytes(s: &Stream) -> usize {
    let (w, h) = (s.size.0 as usize, s.size.1 as usize);
    let sample = if s.pix_fmt.contains("10") { 2 } else { 1 };
    let chroma = match &s.pix_fmt[..7] {
        "yuv420p" => w * h / 4,
        "yuv422p" => w * h / 2,
        _ => w * h,
    };
    (w * h + 2 * chroma) * sample
}

/// `got` must be ffmpeg's frames `order`, in that order; the first differing frame is named.
fn same_frames(what: &str, s: &Stream, got: &[u8], want: &[u8], order: &[usize]) {
    let fb = frame_bytes(s);
    assert_eq!(got.len(), order.len() * fb, "{what}: {} bytes, {} frames of {fb} expected", got.len(), order.len());
    for (i, &n) in order.iter().enumerate() {
        assert!(got[i * fb..(i + 1) * fb] == want[n * fb..(n + 1) * fb], "{what}: output frame {i} is not ffmpeg's frame {n}");
    }
}

fn ok(line: &str, what: &str) {
    assert!(line.starts_with("ok "), "{what}: {line}");
}

#[test]
fn every_stream_frame_exact_on_the_gpu_and_host_paths() {
    for s in &STREAMS {
        let (file, want) = made(s);
        let n = want.len() / frame_bytes(s);
        assert_eq!(n, s.frames as usize, "{}: ffmpeg decoded {n} frames", s.name);
        let all: Vec<usize> = (0..n).collect();
        // default: GPU frames on lavapipe (downloaded to compare); gpu=0: host frames
        for (args, chain) in [("", ",std.GPUDownload"), (":gpu=0", "")] {
            let (line, got, _) = run(&oracle::our_core(), &file, args, chain);
            ok(&line, s.name);
            assert!(line.contains(&format!("frames={n} clip=video:{}:{}x{}:{} ", s.format, s.size.0, s.size.1, s.fps)), "{} {args}: {line}", s.name);
            same_frames(&format!("{} {args}", s.name), s, &got, &want, &all);
        }
    }
}

/// A fixed shuffle of 0..n (an LCG: the test needs no random crate).
fn shuffle(n: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut x = seed;
    for i in (1..n).rev() {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        v.swap(i, (x >> 33) as usize % (i + 1));
    }
    v
}

#[test]
fn random_reverse_trimmed_and_looped_access() {
    for name in ["h264-opengop.mkv", "hevc10-opengop.ts", "h264-longgop.mkv", "h264-bframes.mp4", "av1.mkv"] {
        let s = stream(name);
        let (file, want) = made(s);
        let n = s.frames as usize;
        let order = shuffle(n, 7);
        let offsets: String = order.iter().map(|o| format!(":offsets={o}")).collect();
        let cases: Vec<(String, Vec<usize>)> = vec![
            (format!(",std.SelectEvery:cycle={n}{offsets}"), order.clone()),
            (",std.Reverse".into(), (0..n).rev().collect()),
            (",std.Trim:first=5:last=20,std.Loop:times=3".into(), (0..3).flat_map(|_| 5..=20).collect()),
            // two pieces out of order, then the middle frame alone (a seek backwards into a GOP)
            (format!(",std.Trim:first={}:last={},std.Splice:@:clips=$2:clips=$1", n / 2, n - 1), (n / 2..n).chain(0..n).collect()),
        ];
        for (chain, expect) in cases {
            // a small cache makes every backwards step a real seek
            let (line, got, _) = run(&oracle::our_core(), &file, ":gpu=0:cache=2", &chain);
            ok(&line, &format!("{name}{chain}"));
            same_frames(&format!("{name} {}", &chain[..chain.len().min(60)]), s, &got, &want, &expect);
        }
    }
}

#[test]
fn frame_properties_and_rate() {
    let s = stream("h264-bframes.mp4");
    let (file, _) = made(s);
    let (line, _, props) = run(&oracle::our_core(), &file, ":gpu=0", "");
    ok(&line, s.name);
    for p in ["_Matrix type=1: 1", "_Primaries type=1: 1", "_Transfer type=1: 1", "_Range type=1: 0", "_PictType type=3: 'I'", "_FieldBased type=1: 0", "_DurationNum type=1: 1001", "_DurationDen type=1: 24000", "_AbsoluteTime type=2: 0"] {
        assert!(props.contains(p), "{}: no '{p}' in the first frame's properties:\n{props}", s.name);
    }
    // frame 1 is a B-frame (3 B-frames after each keyframe, shown before the P-frame)
    let (line, _, props) = run(&oracle::our_core(), &file, ":gpu=0", ",std.Trim:first=1");
    ok(&line, s.name);
    assert!(props.contains("_PictType type=3: 'B'"), "frame 1's properties:\n{props}");
    assert!(props.contains("_AbsoluteTime type=2: 0.0417"), "frame 1's time (1001/24000 s):\n{props}");
}

#[test]
fn the_plugin_runs_on_r81_too() {
    let s = stream("hevc10-opengop.ts");
    let (file, want) = made(s);
    let all: Vec<usize> = (0..s.frames as usize).collect();
    for (args, chain) in [("", ",std.GPUDownload"), (":gpu=0", "")] {
        let (line, got, _) = run(&oracle::reference_core(), &file, args, chain);
        ok(&line, &format!("R81 {args}"));
        same_frames(&format!("R81 {} {args}", s.name), s, &got, &want, &all);
    }
}

fn expect_error(file: &Path, args: &str, words: &[&str]) {
    let (line, _, _) = run(&oracle::our_core(), file, args, "");
    assert!(line.starts_with("error:"), "{}: {line}", file.display());
    for w in words {
        assert!(line.contains(w), "{}: '{w}' not in: {line}", file.display());
    }
}

#[test]
fn missing_unsupported_and_foreign_files_fail_clearly() {
    expect_error(&dir().join("no-such-file.mkv"), "", &["Source:", "cannot open", "No such file"]);
    let mpeg4 = dir().join("mpeg4.mkv");
    ffmpeg(&format!("-f lavfi -i testsrc=s=64x48:r=25 -frames:v 5 -c:v mpeg4 {}", mpeg4.display()));
    expect_error(&mpeg4, "", &["codec mpeg4 is not supported", "H.264, HEVC and AV1"]);
    let text = dir().join("not-video.mp4");
    std::fs::write(&text, "this is not a video file\n".repeat(100)).expect("write");
    expect_error(&text, "", &["is not a file this plugin reads"]);
    let (file, _) = made(stream("av1.mkv"));
    expect_error(&file, ":cache=0", &["cache must be"]);
}

#[test]
fn truncated_files_keep_every_whole_frame() {
    for name in ["h264-opengop.mkv", "hevc10-opengop.ts"] {
        let s = stream(name);
        let (file, _) = made(s);
        let bytes = std::fs::read(&file).expect("stream");
        let cut = dir().join(format!("cut-{name}"));
        std::fs::write(&cut, &bytes[..bytes.len() * 6 / 10]).expect("write");
        // the oracle is ffmpeg's decode of the cut file: a cut open GOP also loses B-frames shown
        // before the last whole packet, so the clip is not simply a prefix of the original
        let want = reference_decode(&cut, s.pix_fmt);
        let (line, got, _) = run(&oracle::our_core(), &cut, ":gpu=0", "");
        ok(&line, &format!("truncated {name}"));
        let fb = frame_bytes(s);
        let n = got.len() / fb;
        assert!(n > s.frames as usize / 3 && n < s.frames as usize, "truncated {name}: {n} frames of {}", s.frames);
        assert_eq!(n, want.len() / fb, "truncated {name}: frames against ffmpeg's decode of the cut file");
        same_frames(&format!("truncated {name}"), s, &got, &want, &(0..n).collect::<Vec<_>>());
        // random access within what is left
        let (line, got, _) = run(&oracle::our_core(), &cut, ":gpu=0:cache=2", ",std.Reverse");
        ok(&line, &format!("truncated {name} reversed"));
        same_frames(&format!("truncated {name} reversed"), s, &got, &want, &(0..n).rev().collect::<Vec<_>>());
    }
    // an mp4 whose index (moov) sits at the end loses it: a clear error at open
    let s = stream("h264-bframes.mp4");
    let (file, _) = made(s);
    let bytes = std::fs::read(&file).expect("stream");
    let cut = dir().join("cut-h264-bframes.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("write");
    expect_error(&cut, "", &["Source:"]);
}

/// (pts, byte position, size, keyframe) of every video packet, from ffprobe.
fn packets(file: &Path) -> Vec<(i64, u64, usize, bool)> {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts,pos,size,flags", "-of", "compact=p=0:nk=0"])
        .arg(file)
        .output()
        .expect("ffprobe");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .map(|l| {
            let get = |k: &str| l.split('|').find_map(|f| f.strip_prefix(&format!("{k}="))).unwrap_or_else(|| panic!("no {k} in {l}")).to_string();
            (get("pts").parse().expect("pts"), get("pos").parse().expect("pos"), get("size").parse().expect("size"), get("flags").starts_with('K'))
        })
        .collect()
}

#[test]
fn a_corrupt_packet_damages_its_gop_only() {
    let s = stream("h264-bframes.mp4");
    let (file, want) = made(s);
    let pk = packets(&file);
    // the P-frame decoded right after the second keyframe (frame 16 on screen, GOP 12..23)
    let k2 = pk.iter().enumerate().filter(|(_, p)| p.3).nth(1).expect("two keyframes").0;
    let (_, pos, size, _) = pk[k2 + 1];
    // Zeros over its slice header (after the 4-byte NAL length and the NAL header): a damage the
    // decoder detects. Random bytes in the middle of CABAC data often decode to plausible garbage
    // without any error (Debian's ffmpeg says nothing either); no decoder can report that.
    assert!(size > 32, "packet of {size} bytes");
    let mut bytes = std::fs::read(&file).expect("stream");
    bytes[pos as usize + 5..pos as usize + 21].fill(0);
    let bad = dir().join("corrupt-h264-bframes.mp4");
    std::fs::write(&bad, &bytes).expect("write");
    let fb = frame_bytes(s);
    let n = s.frames as usize;
    // every frame before the damaged GOP, and every frame after it, is intact (frames of the damaged
    // GOP decoded before the bad packet may be reported damaged too: frame threads report late)
    for (first, last) in [(0, 11), (24, n - 1), (8, 11)] {
        let (line, got, _) = run(&oracle::our_core(), &bad, ":gpu=0:cache=2", &format!(",std.Trim:first={first}:last={last}"));
        ok(&line, &format!("corrupt, frames {first}..{last}"));
        same_frames(&format!("corrupt, frames {first}..{last}"), s, &got, &want, &(first..=last).collect::<Vec<_>>());
    }
    // the damaged frame fails with a frame error, asked for alone or on the way through
    for chain in [",std.Trim:first=16:last=16", ""] {
        let (line, got, _) = run(&oracle::our_core(), &bad, ":gpu=0", chain);
        assert!(line.starts_with("error:") && line.contains("is damaged"), "corrupt{chain}: {line}");
        assert!(got.len() <= 16 * fb, "corrupt{chain}: {} frames came before the error", got.len() / fb);
    }
}
