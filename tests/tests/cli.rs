//! The vsvk command (cli/ over the Python module in python/): `vsvk pipe` writes exactly the frames
//! the core returns (checked against frames fetched through the C API of target/release/libvsvk.so),
//! in raw and y4m form, for many formats; ffmpeg reads the y4m; frame ranges, timecodes, progress,
//! filter times and --info; script errors, a closed pipe, Ctrl-C and an endless script all end the
//! run promptly. The Python module's own tests (tests/python/test_module.py) run from here too.
//!
//! Needs `cargo build --release` (target/release/vsvk, libvsvk_python.so and libvsvk.so), Python 3.11+
//! with NumPy, gcc, and ffmpeg (scripts/setup.sh installs what is missing).

mod common;

use std::ffi::{c_char, c_int, CStr, CString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use vsvk_plugin_api::abi::*;
use vsvk_tests::reference;

const LIMIT: Duration = Duration::from_secs(120);

fn vsvk() -> PathBuf {
    let p = reference::target_dir().join("release/vsvk");
    assert!(p.is_file(), "{} is missing: build it with `cargo build --release` (scripts/test.sh does)", p.display());
    p
}

fn noise() -> PathBuf {
    common::program(common::NOISE)
}

/// A scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let d = reference::target_dir().join("vsvk-cli-tests").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("creating a scratch folder");
    d
}

struct Run {
    status: Option<ExitStatus>,
    stdout: Vec<u8>,
    stderr: String,
    secs: f64,
}

impl Run {
    fn ok(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
    fn code(&self) -> Option<i32> {
        self.status.and_then(|s| s.code())
    }
    fn describe(&self) -> String {
        format!("status {:?} after {:.1} s\nstderr:\n{}", self.status, self.secs, self.stderr)
    }
}

fn spawn(mut cmd: Command) -> Child {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"))
}

/// Waits for `child` (killing it after `limit`), collecting its output.
fn finish(mut child: Child, limit: Duration) -> Run {
    let mut out = child.stdout.take();
    let mut err = child.stderr.take().expect("piped");
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(o) = out.as_mut() {
            let _ = o.read_to_end(&mut v);
        }
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting") {
            break Some(s);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let secs = start.elapsed().as_secs_f64();
    Run { status, stdout: out_t.join().unwrap_or_default(), stderr: err_t.join().unwrap_or_default(), secs }
}

fn run(args: &[&str], dir: &Path) -> Run {
    let mut cmd = Command::new(vsvk());
    cmd.args(args).current_dir(dir);
    finish(spawn(cmd), LIMIT)
}

/// Waits (up to a minute) until a script has created `marker`, so that it is surely running.
fn wait_for(marker: &Path) {
    let start = Instant::now();
    while !marker.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "the script never started ({} is missing)", marker.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

extern "C" {
    fn kill(pid: c_int, sig: c_int) -> c_int;
}

/// Ctrl-C: SIGINT to the child.
fn interrupt(child: &Child) {
    const SIGINT: c_int = 2;
    // SAFETY: a plain system call on our own child's pid.
    let rc = unsafe { kill(child.id() as c_int, SIGINT) };
    assert_eq!(rc, 0, "kill(SIGINT) failed");
}

/// A script over vsvknoise.Noise: globals `noise` (the plugin), `fmt` (a format id), `frames`.
const NOISE_SCRIPT: &str = "\
import vapoursynth as vs
core = vs.core
core.std.LoadPlugin(noise)
clip = core.vsvknoise.Noise(width=48, height=32, format=int(fmt), length=int(frames), seed=5, fpsnum=30000, fpsden=1001)
clip.set_output()
";

fn write_script(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("writing a script");
    p.display().to_string()
}

/// Frames `frames` of vsvknoise.Noise(width=48, height=32, format, seed=5) fetched through our core's
/// C API: each frame's planes, row after row.
fn core_frames(format: u32, count: i32) -> Vec<Vec<u8>> {
    let lib_path = reference::our_core().unwrap_or_else(|e| panic!("{e}"));
    let noise = CString::new(noise().display().to_string()).expect("no NULs");
    // SAFETY: the VapourSynth API as documented; every object is freed before the library is.
    unsafe {
        let lib = libloading::Library::new(&lib_path).expect("loading libvsvk.so");
        let get: libloading::Symbol<unsafe extern "C" fn(c_int) -> *const VSAPI> = lib.get(b"getVapourSynthAPI\0").expect("entry point");
        let api = &*get(VAPOURSYNTH_API_VERSION);
        let core = (api.createCore)(ccfDisableAutoLoading);
        let check = |m: *mut VSMap| {
            let e = (api.mapGetError)(m);
            assert!(e.is_null(), "{}", CStr::from_ptr(e).to_string_lossy());
        };
        let args = (api.createMap)();
        (api.mapSetData)(args, c"path".as_ptr(), noise.as_ptr(), -1, dtUtf8, maReplace);
        let r = (api.invoke)((api.getPluginByNamespace)(c"std".as_ptr(), core), c"LoadPlugin".as_ptr(), args);
        check(r);
        (api.freeMap)(r);
        (api.clearMap)(args);
        for (k, v) in [(c"width", 48i64), (c"height", 32), (c"format", format as i64), (c"length", count as i64), (c"seed", 5), (c"fpsnum", 30000), (c"fpsden", 1001)] {
            (api.mapSetInt)(args, k.as_ptr(), v, maReplace);
        }
        let r = (api.invoke)((api.getPluginByNamespace)(c"vsvknoise".as_ptr(), core), c"Noise".as_ptr(), args);
        check(r);
        let mut err = 0;
        let node = (api.mapGetNode)(r, c"clip".as_ptr(), 0, &mut err);
        assert_eq!(err, 0);
        let mut frames = Vec::new();
        for n in 0..count {
            let mut msg = [0 as c_char; 1024];
            let f = (api.getFrame)(n, node, msg.as_mut_ptr(), msg.len() as c_int);
            assert!(!f.is_null(), "frame {n}: {}", CStr::from_ptr(msg.as_ptr()).to_string_lossy());
            let vf = &*(api.getVideoFrameFormat)(f);
            let mut bytes = Vec::new();
            for p in 0..vf.numPlanes {
                let (w, h, stride, ptr) = ((api.getFrameWidth)(f, p), (api.getFrameHeight)(f, p), (api.getStride)(f, p), (api.getReadPtr)(f, p));
                for y in 0..h as isize {
                    bytes.extend_from_slice(std::slice::from_raw_parts(ptr.offset(y * stride), w as usize * vf.bytesPerSample as usize));
                }
            }
            (api.freeFrame)(f);
            frames.push(bytes);
        }
        (api.freeNode)(node);
        (api.freeMap)(r);
        (api.freeMap)(args);
        (api.freeCore)(core);
        drop(lib);
        frames
    }
}

/// A y4m stream's header line and its frames' payloads, cut by the expected frame size.
fn y4m_frames(data: &[u8], size: usize) -> (String, Vec<Vec<u8>>) {
    let nl = data.iter().position(|b| *b == b'\n').expect("a y4m header line");
    let header = String::from_utf8_lossy(&data[..nl]).into_owned();
    let mut rest = &data[nl + 1..];
    let mut all = Vec::new();
    while !rest.is_empty() {
        assert!(rest.starts_with(b"FRAME\n"), "a FRAME marker expected after {} frames", all.len());
        assert!(rest.len() >= 6 + size, "a truncated frame after {} frames", all.len());
        all.push(rest[6..6 + size].to_vec());
        rest = &rest[6 + size..];
    }
    (header, all)
}

/// (preset, y4m colour space or "" where y4m cannot carry it, ffmpeg's pix_fmt or "" where ffmpeg
/// cannot read it)
const FORMATS: [(&str, u32, &str, &str); 12] = [
    ("YUV420P8", make_video_id(3, 0, 8, 1, 1), "420", "yuv420p"),
    ("YUV420P10", make_video_id(3, 0, 10, 1, 1), "420p10", "yuv420p10le"),
    ("YUV422P10", make_video_id(3, 0, 10, 1, 0), "422p10", "yuv422p10le"),
    ("YUV444P16", make_video_id(3, 0, 16, 0, 0), "444p16", "yuv444p16le"),
    ("YUV444P8", make_video_id(3, 0, 8, 0, 0), "444", "yuv444p"),
    ("YUV411P8", make_video_id(3, 0, 8, 2, 0), "411", "yuv411p"),
    ("GRAY8", make_video_id(1, 0, 8, 0, 0), "mono", "gray"),
    ("GRAY16", make_video_id(1, 0, 16, 0, 0), "mono16", "gray16le"),
    ("GRAY10", make_video_id(1, 0, 10, 0, 0), "mono10", "gray10le"),
    ("RGB24", make_video_id(2, 0, 8, 0, 0), "", ""),
    ("YUV444PS", make_video_id(3, 1, 32, 0, 0), "", ""),
    // R81's vspipe writes C440, which ffmpeg's y4m reader does not know
    ("YUV440P8", make_video_id(3, 0, 8, 0, 1), "440", ""),
];

#[test]
fn pipe_writes_the_frames_the_core_returns() {
    let dir = scratch("frames");
    let script = write_script(&dir, "noise.vpy", NOISE_SCRIPT);
    let noise = format!("noise={}", noise().display());
    for (name, id, cs, _) in FORMATS {
        let expected = core_frames(id, 6);
        let size = expected[0].len();
        let fmt = format!("fmt={id}");
        let raw = run(&["pipe", "-a", &noise, "-a", &fmt, "-a", "frames=6", &script, "-"], &dir);
        assert!(raw.ok(), "{name} raw: {}", raw.describe());
        assert_eq!(raw.stdout.len(), size * 6, "{name}: raw output size");
        for (n, e) in expected.iter().enumerate() {
            assert!(raw.stdout[n * size..(n + 1) * size] == e[..], "{name}: raw frame {n} differs from the core's");
        }
        let y4m = run(&["pipe", "-c", "y4m", "-a", &noise, "-a", &fmt, "-a", "frames=6", &script, "-"], &dir);
        if cs.is_empty() {
            assert!(!y4m.ok() && y4m.stderr.contains("y4m cannot carry"), "{name} y4m should be refused: {}", y4m.describe());
            continue;
        }
        assert!(y4m.ok(), "{name} y4m: {}", y4m.describe());
        let (header, frames) = y4m_frames(&y4m.stdout, size);
        assert_eq!(header, format!("YUV4MPEG2 C{cs} W48 H32 F30000:1001 Ip A0:0 XLENGTH=6"), "{name}: y4m header");
        assert_eq!(frames, expected, "{name}: y4m frames differ from the core's");
    }
}

fn have_ffmpeg() -> bool {
    let ok = Command::new("ffmpeg").arg("-version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    assert!(ok, "ffmpeg is missing: {}", reference::RUN_SETUP);
    ok
}

#[test]
fn ffmpeg_reads_the_y4m() {
    have_ffmpeg();
    let dir = scratch("ffmpeg");
    let script = write_script(&dir, "noise.vpy", NOISE_SCRIPT);
    let noise = format!("noise={}", noise().display());
    for (name, id, cs, pix) in FORMATS {
        if cs.is_empty() || pix.is_empty() {
            continue;
        }
        let fmt = format!("fmt={id}");
        let y4m = dir.join(format!("{name}.y4m"));
        let r = run(&["pipe", "--container", "y4m", "-a", &noise, "-a", &fmt, "-a", "frames=9", &script, &y4m.display().to_string()], &dir);
        assert!(r.ok(), "{name}: {}", r.describe());
        let probe = Command::new("ffprobe")
            .args(["-v", "error", "-count_frames", "-show_entries", "stream=pix_fmt,nb_read_frames,width,height", "-of", "csv=p=0"])
            .arg(&y4m)
            .output()
            .expect("running ffprobe");
        let text = String::from_utf8_lossy(&probe.stdout).trim().to_string();
        assert!(probe.status.success(), "{name}: ffprobe failed: {}", String::from_utf8_lossy(&probe.stderr));
        assert_eq!(text, format!("48,32,{pix},9"), "{name}: what ffprobe sees");
        // ffmpeg's decoded planes are our raw planes
        let decoded = Command::new("ffmpeg")
            .args(["-v", "error", "-i"])
            .arg(&y4m)
            .args(["-f", "rawvideo", "-"])
            .output()
            .expect("running ffmpeg");
        assert!(decoded.status.success(), "{name}: ffmpeg failed: {}", String::from_utf8_lossy(&decoded.stderr));
        let expected: Vec<u8> = core_frames(id, 9).concat();
        assert!(decoded.stdout == expected, "{name}: ffmpeg decoded other pixels ({} bytes, expected {})", decoded.stdout.len(), expected.len());
    }
}

#[test]
fn start_and_end_select_frames() {
    let dir = scratch("range");
    let script = write_script(&dir, "noise.vpy", NOISE_SCRIPT);
    let noise = format!("noise={}", noise().display());
    let id = FORMATS[1].1;
    let fmt = format!("fmt={id}");
    let expected = core_frames(id, 10);
    let r = run(&["pipe", "-a", &noise, "-a", &fmt, "-a", "frames=10", "--start", "3", "--end", "6", &script, "-"], &dir);
    assert!(r.ok(), "{}", r.describe());
    assert!(r.stdout == expected[3..=6].concat(), "frames 3 to 6 expected");
    let r = run(&["pipe", "-a", &noise, "-a", &fmt, "-a", "frames=10", "-s", "8", &script, "-"], &dir);
    assert!(r.ok() && r.stdout == expected[8..].concat(), "frames 8 to the end expected: {}", r.describe());
    let r = run(&["pipe", "-a", &noise, "-a", &fmt, "-a", "frames=10", "-e", "0", "-c", "y4m", &script, "-"], &dir);
    assert!(r.ok(), "{}", r.describe());
    assert_eq!(y4m_frames(&r.stdout, expected[0].len()).1, expected[..1]);
    for bad in [["-s", "10"], ["-e", "10"], ["-s", "-1"]] {
        let r = run(&["pipe", "-a", &noise, "-a", &fmt, "-a", "frames=10", bad[0], bad[1], &script, "-"], &dir);
        assert!(!r.ok() && r.stdout.is_empty() && r.stderr.contains("invalid frame range"), "{bad:?}: {}", r.describe());
    }
    let r = run(&["pipe", "-a", &noise, "-a", &fmt, "-a", "frames=10", "-s", "5", "-e", "4", &script, "-"], &dir);
    assert!(!r.ok(), "an empty range must fail");
}

/// R81's vspipe writes the y4m header from the clip alone: the frames' field order, sample aspect
/// ratio and chroma siting are not in it, a variable frame rate is F0:0, and XLENGTH counts the
/// frames written (measured by running R81's vspipe on these scripts).
#[test]
fn y4m_header_is_r81s() {
    let dir = scratch("header");
    let script = write_script(
        &dir,
        "props.vpy",
        "import vapoursynth as vs\n\
         c = vs.core.std.BlankClip(width=64, height=48, format=vs.YUV420P8, length=5, fpsnum=int(fps), fpsden=1)\n\
         c = vs.core.std.SetFrameProps(c, _FieldBased=int(fb), _SARNum=int(sn), _SARDen=int(sd), _ChromaLocation=int(loc))\n\
         c.set_output()\n",
    );
    for (fps, fb, sn, sd, loc, range, want) in [
        ("25", "2", "4", "3", "1", None, "YUV4MPEG2 C420 W64 H48 F25:1 Ip A0:0 XLENGTH=5"),
        ("25", "1", "16", "15", "0", Some(("1", "3")), "YUV4MPEG2 C420 W64 H48 F25:1 Ip A0:0 XLENGTH=3"),
        ("0", "0", "0", "0", "2", Some(("4", "4")), "YUV4MPEG2 C420 W64 H48 F0:0 Ip A0:0 XLENGTH=1"),
    ] {
        let args = [format!("fps={fps}"), format!("fb={fb}"), format!("sn={sn}"), format!("sd={sd}"), format!("loc={loc}")];
        let mut argv = vec!["pipe", "-c", "y4m"];
        for a in &args {
            argv.extend(["-a", a.as_str()]);
        }
        if let Some((s, e)) = range {
            argv.extend(["-s", s, "-e", e]);
        }
        argv.extend([script.as_str(), "-"]);
        let r = run(&argv, &dir);
        assert!(r.ok(), "{}", r.describe());
        let header = String::from_utf8_lossy(&r.stdout[..r.stdout.iter().position(|b| *b == b'\n').expect("header")]).into_owned();
        assert_eq!(header, want);
    }
}

#[test]
fn script_errors_print_the_traceback() {
    let dir = scratch("error");
    let script = write_script(&dir, "broken.vpy", "import vapoursynth as vs\n\ndef make():\n    raise ValueError('no clip today')\n\nmake()\n");
    let r = run(&["pipe", &script, "-"], &dir);
    assert!(r.code().is_some_and(|c| c != 0), "{}", r.describe());
    for part in ["Traceback (most recent call last)", "broken.vpy\", line 6", "broken.vpy\", line 4, in make", "ValueError: no clip today"] {
        assert!(r.stderr.contains(part), "stderr lacks {part:?}:\n{}", r.stderr);
    }
    assert!(r.stdout.is_empty());
    // a frame that fails while frames are written
    let script = write_script(
        &dir,
        "framefail.vpy",
        "import vapoursynth as vs\n\
         c = vs.core.std.BlankClip(length=10)\n\
         def f(n):\n    if n == 4:\n        raise RuntimeError('frame four is cursed')\n    return c\n\
         vs.core.std.FrameEval(c, f).set_output()\n",
    );
    let r = run(&["pipe", "-r", "1", &script, "--"], &dir);
    assert!(r.code().is_some_and(|c| c != 0), "{}", r.describe());
    assert!(r.stderr.contains("frame four is cursed") && r.stderr.contains("frame 4"), "{}", r.describe());
    // no output set, or not at the index asked for
    let script = write_script(&dir, "nooutput.vpy", "import vsvk as vs\nvs.core.std.BlankClip()\n");
    let r = run(&["pipe", &script, "-"], &dir);
    assert!(!r.ok() && r.stderr.contains("no output"), "{}", r.describe());
}

/// A script whose clip never ends in practice: a million frames.
const LONG: &str = "import vapoursynth as vs\nvs.core.std.BlankClip(width=320, height=240, format=vs.YUV420P8, length=1000000).set_output()\n";

#[test]
fn a_closed_pipe_ends_the_run_at_once() {
    let dir = scratch("closed");
    let script = write_script(&dir, "long.vpy", LONG);
    let mut cmd = Command::new(vsvk());
    cmd.args(["pipe", "-c", "y4m", &script, "-"]).current_dir(&dir);
    let mut child = spawn(cmd);
    let mut out = child.stdout.take().expect("piped");
    let mut first = vec![0u8; 1000];
    out.read_exact(&mut first).expect("the first 1000 bytes");
    assert!(first.starts_with(b"YUV4MPEG2 "));
    drop(out); // as `| head -c 1000` does
    let r = finish(child, Duration::from_secs(20));
    assert!(r.status.is_some(), "still running 20 s after its output was closed: {}", r.describe());
    assert!(r.secs < 10.0, "took {:.1} s to notice the closed output", r.secs);
    assert!(r.code().is_some_and(|c| c != 0), "{}", r.describe());
    assert!(r.stderr.contains("output was closed"), "{}", r.describe());
    assert!(!r.stderr.contains("Traceback") && !r.stderr.contains("panicked"), "{}", r.describe());
}

#[test]
fn ctrl_c_stops_a_run() {
    let dir = scratch("sigint");
    // slow frames: each waits in Python, on the core's threads
    let script = write_script(
        &dir,
        "slow.vpy",
        "import time\nimport vapoursynth as vs\n\
         c = vs.core.std.BlankClip(width=64, height=48, length=100000)\n\
         def slow(n):\n    open('started', 'w').close()\n    time.sleep(0.05)\n    return c\n\
         vs.core.std.FrameEval(c, slow).set_output()\n",
    );
    let mut cmd = Command::new(vsvk());
    cmd.args(["pipe", "--progress", &script, "--"]).current_dir(&dir);
    let child = spawn(cmd);
    wait_for(&dir.join("started"));
    std::thread::sleep(Duration::from_millis(500));
    interrupt(&child);
    let r = finish(child, Duration::from_secs(20));
    assert!(r.status.is_some(), "Ctrl-C did not stop it: {}", r.describe());
    assert!(r.secs < 10.0, "took {:.1} s to stop after Ctrl-C", r.secs);
    assert_eq!(r.code(), Some(130), "{}", r.describe());
    assert!(r.stderr.contains("interrupted after"), "{}", r.describe());
    assert!(!r.stderr.contains("panicked"), "{}", r.describe());
}

#[test]
fn an_endless_script_can_be_interrupted() {
    let dir = scratch("endless");
    let script = write_script(&dir, "endless.vpy", "import vapoursynth as vs\nopen('started', 'w').close()\nn = 0\nwhile True:\n    n += 1\n");
    let mut cmd = Command::new(vsvk());
    cmd.args(["pipe", &script, "-"]).current_dir(&dir);
    let child = spawn(cmd);
    wait_for(&dir.join("started"));
    std::thread::sleep(Duration::from_millis(500));
    interrupt(&child);
    let r = finish(child, Duration::from_secs(20));
    assert!(r.status.is_some(), "Ctrl-C did not stop the endless script: {}", r.describe());
    assert!(r.code().is_some_and(|c| c != 0), "{}", r.describe());
    assert!(r.stderr.contains("KeyboardInterrupt") && r.stderr.contains("endless.vpy"), "{}", r.describe());
}

#[test]
fn timecodes_progress_filter_time_and_info() {
    let dir = scratch("extras");
    let script = write_script(&dir, "noise.vpy", NOISE_SCRIPT);
    let noise = format!("noise={}", noise().display());
    let fmt = format!("fmt={}", FORMATS[0].1);
    let tc = dir.join("tc.txt");
    let r = run(
        &["pipe", "-a", &noise, "-a", &fmt, "-a", "frames=4", "--progress", "--filter-time", "--timecodes", &tc.display().to_string(), &script, "--"],
        &dir,
    );
    assert!(r.ok(), "{}", r.describe());
    assert_eq!(std::fs::read_to_string(&tc).expect("timecodes"), "# timecode format v2\n0.000000\n33.366667\n66.733333\n100.100000\n");
    assert!(r.stderr.contains("Frame 4/4") && r.stderr.contains("fps") && r.stderr.contains("Output 4 frames"), "{}", r.stderr);
    assert!(r.stderr.contains("Filter time") && r.stderr.contains("Noise"), "{}", r.stderr);
    let r = run(&["pipe", "--info", "-a", &noise, "-a", &fmt, "-a", "frames=4", &script, "-"], &dir);
    assert!(r.ok(), "{}", r.describe());
    let info = String::from_utf8_lossy(&r.stdout);
    for line in ["Width: 48", "Height: 32", "Frames: 4", "FPS: 30000/1001", "Format Name: YUV420P8", "Bits: 8"] {
        assert!(info.contains(line), "--info lacks {line:?}:\n{info}");
    }
    // audio: interleaved samples
    let script = write_script(&dir, "audio.vpy", "import vapoursynth as vs\nvs.core.std.BlankAudio(length=5000, channels=[0, 1, 2]).set_output()\n");
    let r = run(&["pipe", &script, "-"], &dir);
    assert!(r.ok(), "{}", r.describe());
    assert_eq!(r.stdout.len(), 5000 * 3 * 2);
    let r = run(&["pipe", "-c", "y4m", &script, "-"], &dir);
    assert!(!r.ok() && r.stderr.contains("video only"), "{}", r.describe());
    // outputs other than 0
    let script = write_script(&dir, "two.vpy", "import vsvk as vs\nvs.core.std.BlankClip(length=1).set_output()\nvs.core.std.BlankClip(length=7, width=8, height=8).set_output(2)\n");
    let r = run(&["pipe", "--info", "-o", "2", &script, "-"], &dir);
    assert!(r.ok() && String::from_utf8_lossy(&r.stdout).contains("Frames: 7"), "{}", r.describe());
}

#[test]
fn devices_plugins_and_version() {
    let dir = scratch("commands");
    let r = run(&["version"], &dir);
    assert!(r.ok() && String::from_utf8_lossy(&r.stdout).contains("Core R81"), "{}", r.describe());
    let noise = noise().display().to_string();
    let r = run(&["plugins", "-v", "--load", &noise], &dir);
    assert!(r.ok(), "{}", r.describe());
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(text.contains("com.vapoursynth.std") && text.contains("org.vsvk.noise"), "{text}");
    assert!(text.contains("Noise(width:int:opt;"), "{text}");
    // with or without a usable GPU, devices answers without crashing
    let r = run(&["devices"], &dir);
    assert!(r.code().is_some(), "{}", r.describe());
    assert!(!r.stderr.contains("panicked"), "{}", r.describe());
    if r.ok() {
        assert!(!r.stdout.is_empty());
    } else {
        assert!(r.stderr.starts_with("vsvk devices: "), "{}", r.describe());
    }
    let r = run(&["nosuchcommand"], &dir);
    assert_eq!(r.code(), Some(2));
}

/// Runs one of the module's test files (tests/python, through the vsvk command); every test passes.
fn python_tests(file: &str, envs: &[(&str, &str)]) {
    python_tests_within(file, envs, LIMIT)
}

fn python_tests_within(file: &str, envs: &[(&str, &str)], limit: Duration) {
    let root = reference::workspace_root();
    let mut cmd = Command::new(vsvk());
    cmd.args(["python", file]).current_dir(&root).envs(envs.iter().copied());
    let r = finish(spawn(cmd), limit);
    let out = String::from_utf8_lossy(&r.stdout);
    assert!(r.ok(), "{out}\n{}", r.describe());
    let last = out.lines().last().unwrap_or("");
    assert!(last.ends_with("passed, 0 failed"), "{out}");
}

#[test]
fn python_module_tests() {
    // where the core finds a device (CI: lavapipe), the GPU parts of the module tests must run
    let expect = if vulkan_usable(&reference::workspace_root()) { "1" } else { "0" };
    python_tests("tests/python/test_module.py", &[("VSVK_EXPECT_VULKAN", expect)]);
}

#[test]
fn python_environment_tests() {
    python_tests("tests/python/test_environment.py", &[]);
}

#[test]
fn python_object_model_tests() {
    python_tests("tests/python/test_object_model.py", &[]);
}

#[test]
fn render_on_ray_tests() {
    // vsvk render on a local Ray instance of two workers (Ray from scripts/setup.sh); about a
    // minute and a half alone, more beside the other tests on a small machine
    let expect = if vulkan_usable(&reference::workspace_root()) { "1" } else { "0" };
    python_tests_within("tests/python/test_render.py", &[("VSVK_EXPECT_VULKAN", expect)], Duration::from_secs(600));
}

/// Whether the core finds a Vulkan device it can use.
fn vulkan_usable(dir: &Path) -> bool {
    let r = run(&["devices"], dir);
    r.ok() && String::from_utf8_lossy(&r.stdout).contains("the core uses:")
}

#[test]
fn examples_run() {
    let root = reference::workspace_root();
    let dir = scratch("examples");
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("examples")).expect("examples/") {
        let p = entry.expect("entry").path();
        if p.extension().is_none_or(|e| e != "vpy") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("reading an example");
        // examples that need more say so on a `# needs:` line: the reference plugins or a Vulkan
        // device (both run when there: scripts/setup.sh installs the plugins and lavapipe)
        let needs: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("# needs:")).collect();
        if needs.iter().any(|n| n.contains("Vulkan device")) && !vulkan_usable(&root) {
            eprintln!("{}: skipped, no usable Vulkan device", p.display());
            continue;
        }
        if needs.iter().any(|n| n.contains("reference plugins")) && !reference::ref_dir().join("plugins/cas.so").is_file() {
            continue;
        }
        let out = dir.join("out.y4m");
        let r = run(&["pipe", "-c", "y4m", "-e", "2", &p.display().to_string(), &out.display().to_string()], &root);
        assert!(r.ok(), "{}: {}", p.display(), r.describe());
        assert!(std::fs::read(&out).expect("output").starts_with(b"YUV4MPEG2 "));
        seen += 1;
    }
    assert!(seen >= 2, "too few examples ran");
}

#[test]
fn wav_w64_and_raw_audio_carry_the_cores_samples() {
    have_ffmpeg();
    let dir = scratch("wave");
    let check = reference::workspace_root().join("tests/python/check_wave.py");
    let r = run(&["python", &check.display().to_string(), &noise().display().to_string(), &vsvk().display().to_string(), &dir.display().to_string()], &dir);
    assert!(r.ok(), "{}\nstdout:\n{}", r.describe(), String::from_utf8_lossy(&r.stdout));
    let out = String::from_utf8_lossy(&r.stdout);
    assert_eq!(out.matches("ok ").count(), 5, "{out}");
}

#[test]
fn raw_output_carries_alpha_after_each_frame_and_y4m_refuses_it() {
    let dir = scratch("alpha");
    let script = write_script(
        &dir,
        "alpha.vpy",
        "import vapoursynth as vs\ncore = vs.core\n\
         c = core.std.BlankClip(width=6, height=4, format=vs.YUV420P8, length=3, color=[10, 20, 30])\n\
         a = core.std.BlankClip(width=6, height=4, format=vs.GRAY8, length=3, color=[200])\n\
         c.set_output(alpha=a)\n",
    );
    let r = run(&["pipe", &script, "-"], &dir);
    assert!(r.ok(), "{}", r.describe());
    let frame: Vec<u8> = [vec![10u8; 24], vec![20u8; 6], vec![30u8; 6], vec![200u8; 24]].concat();
    assert_eq!(r.stdout, frame.repeat(3));
    let r = run(&["pipe", "-c", "y4m", &script, "-"], &dir);
    assert_eq!(r.code(), Some(1), "{}", r.describe());
    assert!(r.stderr.contains("alpha"), "{}", r.stderr);
}
