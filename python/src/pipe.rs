//! `vsvk pipe`: runs a script, takes the clip it set as output and writes its frames in order (raw
//! planes or y4m for video, interleaved samples for audio), with a bounded number of frame requests
//! in flight. Ctrl-C, a closed output and script errors all end it promptly with a message.
use std::ffi::CString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::mem::ManuallyDrop;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use pyo3::exceptions::{PyKeyboardInterrupt, PySystemExit};
use pyo3::prelude::*;
use pyo3::types::code::PyCodeInput;
use pyo3::types::{PyCode, PyCodeMethods, PyDict, PyList};
use vsvk::frame::Frame;
use vsvk::node::Node;
use vsvk_plugin_api::abi::*;

use crate::node::Prefetcher;
use crate::wave::{self, Wave};

/// Samples in every audio frame but the last (VS_AUDIO_FRAME_SAMPLES).
const AUDIO_FRAME_SAMPLES: i64 = 3072;

const USAGE: &str = "\
usage: vsvk pipe [options] SCRIPT OUT

Runs SCRIPT (Python; `import vsvk as vs` or `import vapoursynth as vs`) and writes the frames of
the clip it set as output to OUT: a file, - for standard output, or -- for nowhere (frames are
still made).

options:
  -c, --container y4m|wav|w64|none
                            y4m (video), WAVE or Wave64 (audio), or raw planes/samples
                            (default: none); raw video is followed by the alpha planes
                            when the output has alpha
  -s, --start N             first frame to write (default 0)
  -e, --end N               last frame to write, inclusive (default: the clip's last)
  -r, --requests N          frames requested ahead, at most (default: the core's threads)
  -o, --outputindex N       which output to write (default 0)
  -a, --arg KEY=VALUE       set the global KEY to the string VALUE in the script (repeatable)
  -p, --progress            show frames done, speed and time left on standard error
  -t, --timecodes FILE      write the frames' timestamps to FILE (timecode format v2)
      --filter-time         after the run, print the time spent in each filter
  -i, --info                print the output clip's properties instead of its frames
  -h, --help                show this
";

#[derive(Default)]
struct Options {
    script: Option<String>,
    out: Option<String>,
    y4m: bool,
    wave: Option<Wave>,
    start: Option<i64>,
    end: Option<i64>,
    requests: Option<i64>,
    index: i32,
    args: Vec<(String, String)>,
    progress: bool,
    timecodes: Option<String>,
    filter_time: bool,
    info: bool,
}

fn parse(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options::default();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        // --name=value and -n value alike
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            let v = args.get(i).cloned().ok_or_else(|| format!("{what} needs a value"))?;
            i += 1;
            Ok(v)
        };
        let int = |s: String, what: &str| s.trim().parse::<i64>().map_err(|_| format!("{what}: {s} is not a whole number"));
        match name.as_str() {
            "-h" | "--help" => return Ok(None),
            "-c" | "--container" => match value("--container")?.as_str() {
                "y4m" => (o.y4m, o.wave) = (true, None),
                "wav" => (o.y4m, o.wave) = (false, Some(Wave::Riff)),
                "w64" => (o.y4m, o.wave) = (false, Some(Wave::W64)),
                "none" | "raw" => (o.y4m, o.wave) = (false, None),
                other => return Err(format!("unknown container {other} (y4m, wav, w64 or none)")),
            },
            "-s" | "--start" => o.start = Some(int(value("--start")?, "--start")?),
            "-e" | "--end" => o.end = Some(int(value("--end")?, "--end")?),
            "-r" | "--requests" => o.requests = Some(int(value("--requests")?, "--requests")?),
            "-o" | "--outputindex" => o.index = int(value("--outputindex")?, "--outputindex")? as i32,
            "-a" | "--arg" => {
                let kv = value("--arg")?;
                let (k, v) = kv.split_once('=').ok_or_else(|| format!("--arg {kv}: expected KEY=VALUE"))?;
                o.args.push((k.to_string(), v.to_string()));
            }
            "-p" | "--progress" => o.progress = true,
            "-t" | "--timecodes" => o.timecodes = Some(value("--timecodes")?),
            "--filter-time" => o.filter_time = true,
            "-i" | "--info" => o.info = true,
            s if s.starts_with('-') && s.len() > 1 && s != "--" => return Err(format!("unknown option {s}")),
            _ => positional.push(a.clone()),
        }
    }
    let mut pos = positional.into_iter();
    o.script = pos.next();
    o.out = pos.next();
    if let Some(extra) = pos.next() {
        return Err(format!("unexpected argument {extra}"));
    }
    if o.script.is_none() {
        return Err("no script given".into());
    }
    if o.out.is_none() && !o.info {
        return Err("no output given (a file, - for standard output, or -- for none)".into());
    }
    Ok(Some(o))
}

pub fn main(py: Python<'_>, args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{USAGE}");
            return 0;
        }
        Err(e) => {
            eprintln!("vsvk pipe: {e}\n");
            eprint!("{USAGE}");
            return 2;
        }
    };
    match run(py, &o) {
        Ok(code) => code,
        Err(e) => {
            if e.is_instance_of::<PyKeyboardInterrupt>(py) {
                eprintln!("vsvk pipe: interrupted");
                130
            } else {
                eprintln!("vsvk pipe: {}", crate::convert::exception_text(py, &e));
                1
            }
        }
    }
}

/// Runs the script as the main program VapourSynth's tools run: `__name__` is "__vapoursynth__".
fn run_script(py: Python<'_>, o: &Options) -> PyResult<Result<(), i32>> {
    let script = o.script.as_deref().expect("checked");
    let source = match std::fs::read(script) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vsvk pipe: cannot read {script}: {e}");
            return Ok(Err(1));
        }
    };
    let sys = py.import("sys")?;
    sys.setattr("argv", PyList::new(py, [script])?)?;
    let dir = std::path::Path::new(script).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    let dir = if dir.is_empty() { ".".to_string() } else { dir };
    sys.getattr("path")?.call_method1("insert", (0, dir))?;
    if o.out.as_deref() == Some("-") {
        // frames go to standard output: what the script prints goes to standard error instead
        sys.getattr("stdout")?.call_method0("flush")?;
        sys.setattr("stdout", sys.getattr("stderr")?)?;
    }
    // `import vapoursynth` in the script (and in what it imports, vs-jetpack included) is vsvk,
    // whatever else this Python has installed under that name: R81's package always is.
    sys.getattr("modules")?.set_item("vapoursynth", py.import("vsvk")?)?;
    let globals = PyDict::new(py);
    globals.set_item("__name__", "__vapoursynth__")?;
    globals.set_item("__file__", script)?;
    globals.set_item("__builtins__", py.import("builtins")?)?;
    for (k, v) in &o.args {
        globals.set_item(k, v)?;
    }
    let source = CString::new(source).map_err(|_| pyo3::exceptions::PyValueError::new_err("the script contains a NUL byte"))?;
    let name = CString::new(script).unwrap_or_else(|_| c"<script>".to_owned());
    let result = PyCode::compile(py, &source, &name, PyCodeInput::File).and_then(|code| code.run(Some(&globals), None));
    match result {
        Ok(_) => Ok(Ok(())),
        Err(e) => {
            let code = if e.is_instance_of::<PyKeyboardInterrupt>(py) { 130 } else { 1 };
            if e.is_instance_of::<PySystemExit>(py) {
                eprintln!("vsvk pipe: the script called exit()");
            } else {
                eprintln!("vsvk pipe: the script failed:\n{}", crate::convert::exception_text(py, &e));
            }
            Ok(Err(code))
        }
    }
}

enum Sink {
    Stdout(ManuallyDrop<File>),
    File(File),
    Null,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(f) => f.write(buf),
            Sink::File(f) => f.write(buf),
            Sink::Null => Ok(buf.len()),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(f) => f.flush(),
            Sink::File(f) => f.flush(),
            Sink::Null => Ok(()),
        }
    }
}

/// The process's standard output as a File, unbuffered; ManuallyDrop around it keeps it open.
#[cfg(unix)]
fn stdout_file() -> File {
    use std::os::fd::FromRawFd;
    // SAFETY: fd 1 is the process's standard output; the caller never closes this File.
    unsafe { File::from_raw_fd(1) }
}

#[cfg(windows)]
fn stdout_file() -> File {
    use std::os::windows::io::{AsRawHandle, FromRawHandle};
    // SAFETY: the process's standard output handle; the caller never closes this File.
    unsafe { File::from_raw_handle(std::io::stdout().as_raw_handle()) }
}

fn open_sink(out: Option<&str>) -> std::io::Result<Sink> {
    Ok(match out {
        None | Some("--") => Sink::Null,
        Some("-") => Sink::Stdout(ManuallyDrop::new(stdout_file())),
        Some(path) => Sink::File(File::create(path)?),
    })
}

fn run(py: Python<'_>, o: &Options) -> PyResult<i32> {
    if let Err(code) = run_script(py, o)? {
        return Ok(code);
    }
    let Some(output) = crate::output(py, o.index)? else {
        eprintln!("vsvk pipe: the script set no output at index {}", o.index);
        return Ok(1);
    };
    let (node, alpha) = match &output {
        crate::Output::Video { clip, alpha, .. } => (clip.clone(), alpha.clone()),
        crate::Output::Audio(n) => (n.clone(), None),
    };
    if o.info {
        let text = info_text(py, &node, alpha.as_ref())?;
        return Ok(match o.out.as_deref() {
            None | Some("-") => {
                print!("{text}");
                0
            }
            Some("--") => 0,
            Some(path) => match std::fs::write(path, text) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("vsvk pipe: cannot write {path}: {e}");
                    1
                }
            },
        });
    }
    if node.residency() == nrGPU {
        eprintln!("vsvk pipe: the output clip is GPU resident; end the script's chain with std.GPUDownload");
        return Ok(1);
    }
    let total = node.num_frames() as i64;
    let start = o.start.unwrap_or(0);
    let end = o.end.unwrap_or(total - 1);
    if start < 0 || start >= total || end < start || end >= total {
        eprintln!("vsvk pipe: invalid frame range {start} to {end}: the clip has frames 0 to {}", total - 1);
        return Ok(1);
    }
    if node.is_audio() && o.y4m {
        eprintln!("vsvk pipe: y4m carries video only; use --container none for audio");
        return Ok(1);
    }
    if o.wave.is_some() && !node.is_audio() {
        eprintln!("vsvk pipe: wav and w64 carry audio only; use --container y4m or none for video");
        return Ok(1);
    }
    if o.y4m {
        // fail before any frame is made when the format can't be carried
        if let Err(e) = y4m_colorspace(node.video_info().expect("video")) {
            eprintln!("vsvk pipe: {e}");
            return Ok(1);
        }
        if alpha.is_some() {
            eprintln!("vsvk pipe: y4m cannot carry the output's alpha; use --container none (alpha planes follow each frame)");
            return Ok(1);
        }
    }
    let mut wave_header = None;
    if let Some(kind) = o.wave {
        let ai = node.audio_info().expect("audio");
        let first = start * AUDIO_FRAME_SAMPLES;
        let samples = ((end + 1) * AUDIO_FRAME_SAMPLES).min(ai.numSamples) - first;
        match wave::header(kind, &ai.format, ai.sampleRate, samples) {
            Ok(h) => wave_header = Some(h),
            Err(e) => {
                eprintln!("vsvk pipe: {e}");
                return Ok(1);
            }
        }
    }
    let mut sink = match open_sink(o.out.as_deref()) {
        Ok(s) => BufWriter::with_capacity(1 << 20, s),
        Err(e) => {
            eprintln!("vsvk pipe: cannot open {}: {e}", o.out.as_deref().unwrap_or(""));
            return Ok(1);
        }
    };
    let mut timecodes = match &o.timecodes {
        None => None,
        Some(path) => match File::create(path) {
            Ok(f) => {
                let mut w = BufWriter::new(f);
                let _ = writeln!(w, "# timecode format v2");
                Some(w)
            }
            Err(e) => {
                eprintln!("vsvk pipe: cannot open {path}: {e}");
                return Ok(1);
            }
        },
    };
    let core = crate::core()?;
    if o.filter_time {
        core.node_timing.store(true, Ordering::Relaxed);
    }
    let window = o.requests.filter(|r| *r > 0).unwrap_or(core.threads() as i64) as usize;
    let mut pre = Prefetcher::new(node.clone(), start as i32, end as i32 + 1, window);
    let mut pre_alpha = alpha.as_ref().map(|a| Prefetcher::new(a.clone(), start as i32, end as i32 + 1, window));
    let count = end - start + 1;
    let t0 = Instant::now();
    let mut last_progress = t0;
    let mut done: i64 = 0;
    let mut time = (0i64, 1i64); // the next frame's timestamp, as a fraction of seconds
    let mut buf = Vec::new();
    let mut status = 0;
    if o.progress {
        eprint!("Frame {done}/{count}");
    }
    while let Some(r) = pre.next(py) {
        let (n, f) = match r {
            Ok(x) => x,
            Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => {
                if o.progress {
                    eprintln!();
                }
                eprintln!("vsvk pipe: interrupted after {done} frames");
                status = 130;
                break;
            }
            Err(e) => {
                if o.progress {
                    eprintln!();
                }
                eprintln!("vsvk pipe: frame {} failed: {}", start + done, e.value(py));
                status = 1;
                break;
            }
        };
        let alpha_frame = match pre_alpha.as_mut().and_then(|p| p.next(py)) {
            None => None,
            Some(Ok((_, a))) => Some(a),
            Some(Err(e)) => {
                if o.progress {
                    eprintln!();
                }
                eprintln!("vsvk pipe: alpha of frame {n} failed: {}", e.value(py));
                status = if e.is_instance_of::<PyKeyboardInterrupt>(py) { 130 } else { 1 };
                break;
            }
        };
        buf.clear();
        if let Some(h) = wave_header.take() {
            buf.extend_from_slice(&h);
        }
        if o.y4m {
            if n == start as i32 {
                match y4m_header(&node, end - start + 1) {
                    Ok(h) => buf.extend_from_slice(h.as_bytes()),
                    Err(e) => {
                        eprintln!("vsvk pipe: {e}");
                        status = 1;
                        break;
                    }
                }
            }
            buf.extend_from_slice(b"FRAME\n");
        }
        if node.is_audio() {
            append_samples(&f, &mut buf);
        } else {
            append_planes(&f, &mut buf);
            if let Some(a) = &alpha_frame {
                append_planes(a, &mut buf);
            }
        }
        let sink_ref = &mut sink;
        let data = std::mem::take(&mut buf);
        let (res, data) = py.detach(move || (sink_ref.write_all(&data), data));
        buf = data;
        if let Err(e) = res {
            if o.progress {
                eprintln!();
            }
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                eprintln!("vsvk pipe: the output was closed after {done} frames");
            } else {
                eprintln!("vsvk pipe: writing frame {n} failed: {e}");
            }
            status = 1;
            break;
        }
        if let Some(tc) = timecodes.as_mut() {
            let _ = writeln!(tc, "{}", millis(time));
            match frame_duration(&node, &f) {
                Some(d) => time = add_fraction(time, d),
                None => {
                    eprintln!("vsvk pipe: frame {n} has no duration (_DurationNum/_DurationDen) and the clip no frame rate: no timecodes");
                    timecodes = None;
                }
            }
        }
        done += 1;
        if o.progress && (last_progress.elapsed().as_millis() >= 250 || done == count) {
            last_progress = Instant::now();
            let secs = t0.elapsed().as_secs_f64();
            let fps = done as f64 / secs.max(1e-9);
            let eta = ((count - done) as f64 / fps.max(1e-9)) as u64;
            eprint!("\rFrame {done}/{count} ({fps:.2} fps, ETA {}:{:02}:{:02})   ", eta / 3600, eta / 60 % 60, eta % 60);
        }
    }
    if let Err(e) = py.detach(|| sink.flush()) {
        if status == 0 {
            if o.progress {
                eprintln!();
            }
            eprintln!("vsvk pipe: writing the output failed: {e}");
            status = 1;
        }
    }
    if let Some(mut tc) = timecodes {
        if let Err(e) = tc.flush() {
            eprintln!("vsvk pipe: writing the timecodes failed: {e}");
            status = status.max(1);
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    if o.progress && status == 0 {
        eprintln!("\nOutput {done} frames in {secs:.2} seconds ({:.2} fps)", done as f64 / secs.max(1e-9));
    }
    if o.filter_time {
        eprint!("{}", filter_times(&core));
    }
    Ok(status)
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs().max(1)
    } else {
        gcd(b, a % b)
    }
}

fn add_fraction(a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    let num = a.0 as i128 * b.1 as i128 + b.0 as i128 * a.1 as i128;
    let den = a.1 as i128 * b.1 as i128;
    let g = gcd(num as i64, den as i64) as i128;
    ((num / g) as i64, (den / g) as i64)
}

fn millis(t: (i64, i64)) -> String {
    format!("{:.6}", t.0 as f64 * 1000.0 / t.1 as f64)
}

/// A frame's duration in seconds: its _DurationNum/_DurationDen, else the clip's frame rate.
fn frame_duration(node: &Node, f: &Frame) -> Option<(i64, i64)> {
    let p = f.props();
    if let (Ok(num), Ok(den)) = (p.get_int(b"_DurationNum", 0), p.get_int(b"_DurationDen", 0)) {
        if num > 0 && den > 0 {
            return Some((num, den));
        }
    }
    let vi = node.video_info()?;
    (vi.fpsNum > 0 && vi.fpsDen > 0).then_some((vi.fpsDen, vi.fpsNum))
}

/// The y4m colour space name of a format, as R81's vspipe writes it (the subsampling, and the bit
/// depth above 8; no chroma siting).
fn y4m_colorspace(vi: &VSVideoInfo) -> Result<String, String> {
    let f = &vi.format;
    let name = vsvk::format::video_name(f).unwrap_or_else(|| "this format".into());
    if f.colorFamily == cfUndefined || vi.width == 0 || vi.height == 0 {
        return Err("y4m needs a clip of constant format and dimensions; use --container none".into());
    }
    if f.sampleType != stInteger || f.bitsPerSample > 16 || f.colorFamily == cfRGB {
        return Err(format!("y4m cannot carry {name}; use --container none"));
    }
    let bits = f.bitsPerSample;
    let depth = if bits > 8 { format!("p{bits}") } else { String::new() };
    if f.colorFamily == cfGray {
        return Ok(if bits > 8 { format!("mono{bits}") } else { "mono".into() });
    }
    let sub = match (f.subSamplingW, f.subSamplingH) {
        (1, 1) => "420",
        (1, 0) => "422",
        (0, 0) => "444",
        (2, 0) => "411",
        (0, 1) => "440",
        (2, 2) => "410",
        _ => return Err(format!("y4m cannot carry {name}; use --container none")),
    };
    Ok(format!("{sub}{depth}"))
}

/// The y4m stream header as R81's vspipe writes it: from the clip alone (progressive, no sample
/// aspect ratio, whatever the frames say; F0:0 for a variable frame rate), with the number of
/// frames that follow.
pub fn y4m_header(node: &Node, frames: i64) -> Result<String, String> {
    let vi = node.video_info().ok_or("y4m carries video only")?;
    let cs = y4m_colorspace(vi)?;
    let (num, den) = if vi.fpsNum > 0 && vi.fpsDen > 0 { (vi.fpsNum, vi.fpsDen) } else { (0, 0) };
    Ok(format!("YUV4MPEG2 C{cs} W{} H{} F{num}:{den} Ip A0:0 XLENGTH={frames}\n", vi.width, vi.height))
}

/// A video frame's planes, row after row, without the rows' padding.
pub fn append_planes(f: &Frame, buf: &mut Vec<u8>) {
    let bps = f.video_format().map(|v| v.bytesPerSample).unwrap_or(1) as usize;
    for p in 0..f.num_planes() as i32 {
        let pl = f.plane(p).expect("in range");
        let row = pl.width as usize * bps;
        let base = f.read_ptr(p).expect("in range");
        buf.reserve(row * pl.height as usize);
        for y in 0..pl.height as isize {
            // SAFETY: each row lies inside the plane's buffer (stride * height bytes).
            let line = unsafe { std::slice::from_raw_parts(base.offset(y * pl.stride), row) };
            buf.extend_from_slice(line);
        }
    }
}

/// An audio frame's samples, interleaved by channel; 24-bit samples packed in 3 bytes.
pub fn append_samples(f: &Frame, buf: &mut Vec<u8>) {
    let Some(af) = f.audio_format() else { return };
    let bps = af.bytesPerSample as usize;
    let out_bytes = if af.sampleType == stInteger && af.bitsPerSample == 24 { 3 } else { bps };
    let channels: Vec<*const u8> = (0..af.numChannels).map(|c| f.read_ptr(c).expect("in range")).collect();
    buf.reserve(f.width as usize * channels.len() * out_bytes);
    for s in 0..f.width as usize {
        for ch in &channels {
            // SAFETY: sample s of a channel lies inside its buffer (width samples of bps bytes).
            let sample = unsafe { std::slice::from_raw_parts(ch.add(s * bps), bps) };
            // 24-bit samples are stored right-aligned in 4 bytes (R81's plugins and filters agree:
            // std.AudioGain there reads them so); little endian, their low 3 bytes are the sample
            buf.extend_from_slice(&sample[..out_bytes]);
        }
    }
}

fn info_text(py: Python<'_>, node: &Arc<Node>, alpha: Option<&Arc<Node>>) -> PyResult<String> {
    let _ = py;
    let mut s = String::new();
    if let Some(vi) = node.video_info() {
        let f = &vi.format;
        let dims = |v: i32| if v == 0 { "variable".to_string() } else { v.to_string() };
        s += &format!("Width: {}\nHeight: {}\nFrames: {}\n", dims(vi.width), dims(vi.height), vi.numFrames);
        if vi.fpsNum > 0 && vi.fpsDen > 0 {
            s += &format!("FPS: {}/{} ({:.3} fps)\n", vi.fpsNum, vi.fpsDen, vi.fpsNum as f64 / vi.fpsDen as f64);
        } else {
            s += "FPS: variable\n";
        }
        if f.colorFamily == cfUndefined {
            s += "Format Name: variable\n";
        } else {
            s += &format!("Format Name: {}\n", vsvk::format::video_name(f).unwrap_or_default());
            s += &format!("Color Family: {}\n", ["Undefined", "Gray", "RGB", "YUV"].get(f.colorFamily as usize).copied().unwrap_or("?"));
            s += &format!("Alpha: {}\n", if alpha.is_some() { "Yes" } else { "No" });
            s += &format!("Sample Type: {}\n", if f.sampleType == stFloat { "Float" } else { "Integer" });
            s += &format!("Bits: {}\n", f.bitsPerSample);
            s += &format!("SubSampling W: {}\nSubSampling H: {}\n", f.subSamplingW, f.subSamplingH);
        }
        s += &format!("GPU Resident: {}\n", if node.residency() == nrGPU { "Yes" } else { "No" });
    } else if let Some(ai) = node.audio_info() {
        let f = &ai.format;
        s += &format!("Samples: {}\nSample Rate: {}\n", ai.numSamples, ai.sampleRate);
        s += &format!("Format Name: {}\n", vsvk::format::audio_name(f).unwrap_or_default());
        s += &format!("Sample Type: {}\nBits: {}\nChannels: {}\n", if f.sampleType == stFloat { "Float" } else { "Integer" }, f.bitsPerSample, f.numChannels);
        let names: Vec<String> = AUDIO_CHANNELS
            .iter()
            .filter(|(_, pos)| f.channelLayout & (1u64 << pos) != 0)
            .map(|(n, _)| n.trim_start_matches("ac").to_string())
            .collect();
        s += &format!("Layout: {}\n", names.join(", "));
    }
    Ok(s)
}

/// Time spent in each live filter (core.node_timing), largest first.
fn filter_times(core: &Arc<vsvk::core::Core>) -> String {
    let nodes: Vec<Arc<Node>> = core.nodes.lock().iter().filter_map(|w| w.upgrade()).collect();
    let mut rows: Vec<(i64, String)> = nodes.iter().map(|n| (n.processing_ns.load(Ordering::Relaxed), n.name_str())).collect();
    let freed = core.freed_node_ns.load(Ordering::Relaxed);
    if freed > 0 {
        rows.push((freed, "(freed filters)".into()));
    }
    rows.sort_by(|a, b| b.0.cmp(&a.0));
    let total: i64 = rows.iter().map(|r| r.0).sum::<i64>().max(1);
    let mut s = String::from("Filter time (processing time in each filter, all threads together):\n");
    for (ns, name) in rows {
        s += &format!("  {:>10.3} s  {:>6.2} %  {name}\n", ns as f64 / 1e9, ns as f64 * 100.0 / total as f64);
    }
    s
}
