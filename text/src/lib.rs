//! The built-in `text` namespace (plugin com.vapoursynth.text): Text, FrameNum, FrameProps,
//! ClipInfo and CoreInfo draw text into frames with an 8x16 bitmap font (`font`).
//!
//! Layout, colours, wording and checks follow what the reference core (VapourSynth R81) was seen
//! to produce: a 16-pixel margin, text wrapped at the frame's width one character at a time, lines
//! that do not fit dropped, every character cell painted (white on black in limited range for
//! integer formats, 1.0 on 0.0 for float), chroma painted neutral.
use std::ffi::c_void;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use crate::core::Core;
use crate::format;
use crate::frame::Frame;
use crate::map::{Map, Value, Values};
use crate::node::{Filter, FilterImpl, MediaInfo, Node};
use crate::plugin::{FuncImpl, Plugin};
use crate::scheduler::FrameCall;

mod font;

pub const TEXT_ID: &str = "com.vapoursynth.text";
const MARGIN: i64 = 16;

type Create = fn(&str, &Map, &mut Map, &Arc<Core>) -> Result<(), String>;

/// Registers `text` on a new core.
pub fn register(core: &Arc<Core>) {
    let p = Plugin::new_builtin(core, TEXT_ID, "text", "VapourSynth Text", make_version(crate::core::CORE_VERSION, 0));
    let functions: [(&'static str, &str, Create); 5] = [
        ("Text", "clip:vnode:all;text:data;alignment:int:opt;scale:int:opt;", create),
        ("FrameNum", "clip:vnode:all;alignment:int:opt;scale:int:opt;", create),
        ("FrameProps", "clip:vnode:all;props:data[]:opt;alignment:int:opt;scale:int:opt;", create),
        ("ClipInfo", "clip:vnode:all;alignment:int:opt;scale:int:opt;", create),
        ("CoreInfo", "clip:vnode:all:opt;alignment:int:opt;scale:int:opt;", create),
    ];
    for (name, args, f) in functions {
        let imp = FuncImpl::Rust(Box::new(move |input: &Map, out: &mut Map, core: &Arc<Core>| {
            if let Err(e) = f(name, input, out, core) {
                out.set_error(&format!("{name}: {e}"));
            }
        }));
        p.register(name, args, "clip:vnode:all;", imp).expect("built-in signatures are valid");
    }
    p.lock();
    core.plugins.write().push(p);
}

/// What a filter writes.
enum Kind {
    Text(Vec<u8>),
    FrameNum,
    FrameProps(Option<Vec<Vec<u8>>>),
    ClipInfo,
    CoreInfo,
}

struct TextFilter {
    input: Arc<Node>,
    vi: VSVideoInfo,
    kind: Kind,
    alignment: i64,
    scale: i64,
    name: &'static str,
}

/// 8..16-bit integer or 16/32-bit float: the formats text can be drawn into.
fn check_format(f: &VSVideoFormat) -> Result<(), String> {
    let ok = match f.sampleType {
        stInteger => (8..=16).contains(&f.bitsPerSample),
        _ => f.bitsPerSample == 16 || f.bitsPerSample == 32,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("Input clip must be 8..16 bit integer or 16-32 bit float, passed {}.", format::video_name(f).unwrap_or_default()))
    }
}

fn create(name: &str, input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let name: &'static str = match name {
        "Text" => "Text",
        "FrameNum" => "FrameNum",
        "FrameProps" => "FrameProps",
        "ClipInfo" => "ClipInfo",
        _ => "CoreInfo",
    };
    let node = match input.get_node(b"clip", 0) {
        Ok(n) => n.clone(),
        // CoreInfo without a clip draws on std.BlankClip's default clip
        Err(_) => {
            let std = core.plugin_by_ns("std").ok_or("std is missing")?;
            let r = crate::plugin::invoke(&std, "BlankClip", &Map::new());
            if let Some(e) = r.error() {
                return Err(e.to_string_lossy().into_owned());
            }
            r.get_node(b"clip", 0).map_err(|_| "BlankClip returned no clip".to_string())?.clone()
        }
    };
    let vi = *node.video_info().ok_or("only video clips are supported")?;
    let alignment = input.get_int(b"alignment", 0).unwrap_or(7);
    if !(1..=9).contains(&alignment) {
        return Err("alignment must be between 1 and 9 (think numpad)".into());
    }
    let scale = input.get_int(b"scale", 0).unwrap_or(1);
    if !(1..=65536).contains(&scale) {
        return Err("scale must be a positive integer no larger than 65536".into());
    }
    if vi.format.colorFamily != cfUndefined {
        check_format(&vi.format)?;
    }
    let kind = match name {
        "Text" => Kind::Text(input.get_data(b"text", 0).map(|d| d.as_bytes().to_vec()).unwrap_or_default()),
        "FrameNum" => Kind::FrameNum,
        "FrameProps" => Kind::FrameProps(match input.get(b"props") {
            Ok(Values::Data(v)) => Some(v.iter().map(|d| d.as_bytes().to_vec()).collect()),
            _ => None,
        }),
        "ClipInfo" => Kind::ClipInfo,
        _ => Kind::CoreInfo,
    };
    // drawn in host memory: a GPU clip is downloaded for it and the result uploaded again
    let n = crate::stdlib::util::on_host(core, vec![node], |inputs| {
        let node = inputs.into_iter().next().expect("one input");
        let filter = TextFilter { input: node.clone(), vi, kind, alignment, scale, name };
        let creation = crate::plugin::creation_stack(core);
        Node::new(core.clone(), name, MediaInfo::Video(vi), FilterImpl::Rust(Box::new(filter)), fmParallel, 0, vec![(node, rpStrictSpatial)], creation)
    })?;
    out.set(b"clip", Value::Node(n), false).expect("clip is a valid key");
    Ok(())
}

// ---- the texts ----------------------------------------------------------------------------------------

fn int_prop(props: &Map, key: &str) -> Option<i64> {
    props.get_int(key.as_bytes(), 0).ok()
}

/// C's "%f".
fn fixed(v: f64) -> String {
    if v.is_nan() {
        if v.is_sign_negative() { "-nan".into() } else { "nan".into() }
    } else {
        format!("{v:.6}")
    }
}

fn matrix_name(v: Option<i64>) -> &'static str {
    match v {
        Some(0) => "sRGB",
        Some(1) => "BT.709",
        Some(4) => "FCC",
        Some(5) | Some(6) => "BT.601",
        Some(7) => "SMPTE 240M",
        Some(8) => "YCoCg",
        Some(9) => "BT.2020 NCL",
        Some(10) => "BT.2020 CL",
        Some(11) => "SMPTE 2085",
        Some(12) => "Chromaticity derived NCL",
        Some(13) => "Chromaticity derived CL",
        Some(14) => "ICtCp",
        _ => "Unknown",
    }
}

fn primaries_name(v: Option<i64>) -> &'static str {
    match v {
        Some(1) => "BT.709",
        Some(4) => "BT.470M",
        Some(5) => "BT.470BG",
        Some(6) => "SMPTE ST 170",
        Some(7) => "SMPTE ST 240",
        Some(8) => "FILM",
        Some(9) => "BT.2020",
        Some(10) => "SMPTE ST 428-1",
        Some(11) => "SMPTE RP 431-2",
        Some(12) => "SMPTE EG 432-1",
        Some(22) => "JEDEC P22",
        _ => "Unknown",
    }
}

fn transfer_name(v: Option<i64>) -> &'static str {
    match v {
        Some(1) => "BT.709",
        Some(4) => "Gamma 2.2",
        Some(5) => "Gamma 2.8",
        Some(6) => "SMPTE ST 170",
        Some(7) => "SMPTE ST 240",
        Some(8) => "Linear",
        Some(9) => "Logarithmic (100:1 range)",
        Some(10) => "Logarithmic (100 * Sqrt(10) : 1 range)",
        Some(11) => "IEC 61966-2-4",
        Some(12) => "BT.1361 Extended Colour Gamut",
        Some(13) => "IEC 61966-2-1",
        Some(14) => "BT.2020 for 10 bit system",
        Some(15) => "BT.2020 for 12 bit system",
        Some(16) => "SMPTE ST 2084",
        Some(17) => "SMPTE ST 428-1",
        Some(18) => "ARIB STD-B67",
        _ => "Unknown",
    }
}

fn range_name(v: Option<i64>) -> &'static str {
    match v {
        Some(0) => "Limited range",
        Some(1) => "Full range",
        _ => "Unknown",
    }
}

fn chromaloc_name(v: Option<i64>) -> &'static str {
    match v {
        Some(0) => "Left",
        Some(1) => "Center",
        Some(2) => "Top left",
        Some(3) => "Top",
        Some(4) => "Bottom left",
        Some(5) => "Bottom",
        _ => "Unknown",
    }
}

fn field_name(v: Option<i64>) -> &'static str {
    match v {
        Some(0) => "Frame based",
        Some(1) => "Bottom field first",
        Some(2) => "Top field first",
        _ => "Unknown",
    }
}

fn clip_info(vi: &VSVideoInfo, f: &Frame) -> Vec<u8> {
    let props = f.props();
    let ff = f.video_format().copied().unwrap_or_default();
    let vary = |constant: bool| if constant { "" } else { " (may vary)" };
    let mut s = String::from("Clip info:\n");
    s += &format!("Width: {} px{}\n", f.width, vary(vi.width > 0));
    s += &format!("Height: {} px{}\n", f.height, vary(vi.height > 0));
    match (int_prop(props, "_SARNum"), int_prop(props, "_SARDen")) {
        (Some(n), Some(d)) => s += &format!("Sample aspect ratio: {n}:{d}\n"),
        _ => s += "Sample aspect ratio: Unknown\n",
    }
    s += &format!("Length: {} frames\n", vi.numFrames);
    let vname = if vi.format.colorFamily == cfUndefined { "Undefined".to_string() } else { format::video_name(&vi.format).unwrap_or_default() };
    s += &format!("Format name: {vname}{}\n", vary(vi.format.colorFamily != cfUndefined));
    let family = match ff.colorFamily {
        cfGray => "Gray",
        cfRGB => "RGB",
        cfYUV => "YUV",
        _ => "Undefined",
    };
    s += &format!("Color family: {family}\n");
    s += &format!("Sample type: {}\n", if ff.sampleType == stInteger { "Integer" } else { "Float" });
    s += &format!("Bits per sample: {}\n", ff.bitsPerSample);
    s += &format!("Subsampling Height/Width: {}x/{}x\n", 1 << ff.subSamplingH, 1 << ff.subSamplingW);
    s += &format!("Matrix: {}\n", matrix_name(int_prop(props, "_Matrix")));
    s += &format!("Primaries: {}\n", primaries_name(int_prop(props, "_Primaries")));
    s += &format!("Transfer: {}\n", transfer_name(int_prop(props, "_Transfer")));
    s += &format!("Range: {}\n", range_name(int_prop(props, "_Range")));
    s += &format!("Chroma Location: {}\n", chromaloc_name(int_prop(props, "_ChromaLocation")));
    s += &format!("Field handling: {}\n", field_name(int_prop(props, "_FieldBased")));
    let mut out = s.into_bytes();
    out.extend_from_slice(b"Picture type: ");
    match props.get_data(b"_PictType", 0) {
        Ok(d) => out.extend_from_slice(d.as_bytes()),
        Err(_) => out.extend_from_slice(b"Unknown"),
    }
    out.push(b'\n');
    let mut s = String::new();
    if vi.fpsNum > 0 && vi.fpsDen > 0 {
        s += &format!("Fps: {}/{} ({})\n", vi.fpsNum, vi.fpsDen, fixed(vi.fpsNum as f64 / vi.fpsDen as f64));
    } else {
        s += "Fps: Unknown\n";
    }
    match (int_prop(props, "_DurationNum"), int_prop(props, "_DurationDen")) {
        (Some(n), Some(d)) => s += &format!("Frame duration: {n}/{d} ({})\n", fixed(n as f64 / d as f64)),
        _ => s += "Frame duration: Unknown\n",
    }
    out.extend_from_slice(s.as_bytes());
    out
}

fn frame_props(f: &Frame, only: &Option<Vec<Vec<u8>>>) -> Vec<u8> {
    let props = f.props();
    let mut out = b"Frame properties:\n".to_vec();
    let keys: Vec<Vec<u8>> = match only {
        Some(list) => list.clone(),
        None => props.keys().map(|k| k.to_bytes().to_vec()).collect(),
    };
    for key in keys {
        out.extend_from_slice(&key);
        out.push(b':');
        match props.get(&key) {
            Err(_) => out.extend_from_slice(b" <no such property>"),
            Ok(v) => {
                let items: Vec<Vec<u8>> = match v {
                    Values::Int(a) => a.iter().map(|i| i.to_string().into_bytes()).collect(),
                    Values::Float(a) => a.iter().map(|x| fixed(*x).into_bytes()).collect(),
                    Values::Data(a) => a
                        .iter()
                        .map(|d| if d.hint == dtBinary { format!("<binary data ({} bytes)>", d.len()).into_bytes() } else { d.as_bytes().to_vec() })
                        .collect(),
                    Values::VideoFrame(a) | Values::AudioFrame(a) => a.iter().map(|_| b"<frame>".to_vec()).collect(),
                    Values::VideoNode(a) | Values::AudioNode(a) => a.iter().map(|_| b"<node>".to_vec()).collect(),
                    Values::Function(a) => a.iter().map(|_| b"<function>".to_vec()).collect(),
                };
                for item in items {
                    out.push(b' ');
                    out.extend_from_slice(&item);
                }
            }
        }
        out.push(b'\n');
    }
    out
}

/// getCoreInfo's version text, then the figures that change as the core runs.
fn core_info(core: &Core) -> Vec<u8> {
    let mut out = core.version_string.as_bytes().to_vec();
    let figures = format!(
        "\nThreads: {}\nMaximum framebuffer cache size: {} bytes\nUsed framebuffer cache size: {} bytes",
        core.threads(),
        core.max_cache.load(std::sync::atomic::Ordering::Relaxed),
        core.mem.used.load(std::sync::atomic::Ordering::Relaxed)
    );
    out.extend_from_slice(figures.as_bytes());
    out
}

// ---- drawing -------------------------------------------------------------------------------------------

/// Splits at CR LF, CR or LF (a final empty line counts), then wraps every line at `per_line`
/// characters.
fn layout_lines(text: &[u8], per_line: usize) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut raw = Vec::new();
    while i < text.len() {
        match text[i] {
            b'\r' => {
                raw.push(&text[start..i]);
                i += if text.get(i + 1) == Some(&b'\n') { 2 } else { 1 };
                start = i;
            }
            b'\n' => {
                raw.push(&text[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    raw.push(&text[start..]);
    for line in raw {
        if line.is_empty() {
            lines.push(line);
        } else {
            lines.extend(line.chunks(per_line));
        }
    }
    lines
}

#[derive(Clone, Copy)]
enum Sample {
    U8(u8),
    U16(u16),
    F32(f32),
}

/// Foreground, background and chroma values for a format.
fn colours(f: &VSVideoFormat) -> (Sample, Sample, Sample) {
    match (f.sampleType, f.bytesPerSample) {
        (stInteger, 1) => (Sample::U8(235), Sample::U8(16), Sample::U8(128)),
        (stInteger, _) => {
            let s = f.bitsPerSample - 8;
            (Sample::U16(235 << s), Sample::U16(16 << s), Sample::U16(128 << s))
        }
        (_, 2) => (Sample::U16(0x3C00), Sample::U16(0), Sample::U16(0)),
        _ => (Sample::F32(1.0), Sample::F32(0.0), Sample::F32(0.0)),
    }
}

/// Writes one sample. Safety: `row` points into a writable row holding at least `x + 1` samples of
/// the sample's type.
unsafe fn put(row: *mut u8, x: usize, v: Sample) {
    match v {
        Sample::U8(v) => *row.add(x) = v,
        Sample::U16(v) => *row.cast::<u16>().add(x) = v,
        Sample::F32(v) => *row.cast::<f32>().add(x) = v,
    }
}

fn draw(name: &str, f: &mut Frame, text: &[u8], alignment: i64, scale: i64) -> Result<(), String> {
    let (w, h) = (f.width as i64, f.height as i64);
    let (cw, ch) = (8 * scale, 16 * scale);
    if w < 2 * MARGIN + cw || h < 2 * MARGIN + ch {
        return Err(format!("{name}: frame size must be at least {}x{} pixels.", 2 * MARGIN + cw, 2 * MARGIN + ch));
    }
    let fmt = *f.video_format().expect("video frame");
    check_format(&fmt).map_err(|e| format!("{name}: {e}"))?;
    let per_line = ((w - 2 * MARGIN) / cw) as usize;
    let max_lines = ((h - 2 * MARGIN) / ch) as usize;
    let mut lines = layout_lines(text, per_line);
    lines.truncate(max_lines);
    let block = lines.len() as i64 * ch;
    let top = match alignment {
        7..=9 => MARGIN,
        4..=6 => (h - block) / 2,
        _ => h - MARGIN - block,
    };
    let (fg, bg, neutral) = colours(&fmt);
    let chroma_planes = fmt.colorFamily == cfYUV;
    for (li, line) in lines.iter().enumerate() {
        if line.is_empty() {
            continue;
        }
        let len = line.len() as i64 * cw;
        let left = match alignment {
            1 | 4 | 7 => MARGIN,
            2 | 5 | 8 => (w - len) / 2,
            _ => w - MARGIN - len,
        };
        let y0 = top + li as i64 * ch;
        for p in 0..fmt.numPlanes as usize {
            let pl = f.planes()[p].clone();
            // SAFETY: the frame is a fresh copy owned by this filter.
            let base = unsafe { f.write_ptr(p as i32) }.expect("plane exists");
            let (ssw, ssh) = if p > 0 { (fmt.subSamplingW, fmt.subSamplingH) } else { (0, 0) };
            if p > 0 && chroma_planes {
                let (x_a, x_b) = ((left >> ssw) as usize, ((left + len) >> ssw) as usize);
                let (y_a, y_b) = ((y0 >> ssh) as usize, ((y0 + ch) >> ssh) as usize);
                for y in y_a..y_b.min(pl.height as usize) {
                    // SAFETY: row y lies inside the plane.
                    let row = unsafe { base.offset(y as isize * pl.stride) };
                    for x in x_a..x_b.min(pl.width as usize) {
                        // SAFETY: x is inside the row.
                        unsafe { put(row, x, neutral) };
                    }
                }
                continue;
            }
            for (ci, &c) in line.iter().enumerate() {
                let glyph = &font::GLYPHS[c as usize];
                let x0 = left + ci as i64 * cw;
                for gy in 0..16 {
                    let bits = glyph[gy];
                    for sy in 0..scale {
                        let y = (y0 + gy as i64 * scale + sy) as isize;
                        // SAFETY: the text box lies inside the frame (checked above).
                        let row = unsafe { base.offset(y * pl.stride) };
                        for gx in 0..8 {
                            let v = if bits & (0x80 >> gx) != 0 { fg } else { bg };
                            for sx in 0..scale {
                                // SAFETY: as above.
                                unsafe { put(row, (x0 + gx * scale + sx) as usize, v) };
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

impl TextFilter {
    fn make(&self, n: i32, src: &Frame, core: &Arc<Core>) -> Result<Frame, String> {
        let text: Vec<u8> = match &self.kind {
            Kind::Text(t) => t.clone(),
            Kind::FrameNum => n.to_string().into_bytes(),
            Kind::FrameProps(only) => frame_props(src, only),
            Kind::ClipInfo => clip_info(&self.vi, src),
            Kind::CoreInfo => core_info(core),
        };
        let mut f = src.shallow_copy();
        draw(self.name, &mut f, &text, self.alignment, self.scale)?;
        Ok(f)
    }
}

impl Filter for TextFilter {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        if reason == arInitial {
            call.request(&self.input, n);
            return Ok(None);
        }
        if reason != arAllFramesReady {
            return Ok(None);
        }
        let src = call.get(&self.input, n).ok_or("internal error: a requested frame is missing")?;
        let core = call.core().clone();
        match self.make(n, &src, &core) {
            Ok(f) => Ok(Some(Arc::new(f))),
            Err(e) => {
                call.set_error(e);
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_like_the_reference() {
        assert_eq!(layout_lines(b"abc\n", 10), vec![&b"abc"[..], b""]);
        assert_eq!(layout_lines(b"a\r\nb\n\rc", 10), vec![&b"a"[..], b"b", b"", b"c"]);
        assert_eq!(layout_lines(b"abcdefgh\nij", 4), vec![&b"abcd"[..], b"efgh", b"ij"]);
        assert_eq!(layout_lines(b"", 4), vec![&b""[..]]);
    }

    #[test]
    fn font_covers_windows_1252() {
        let underscore = font::GLYPHS[b'_' as usize];
        assert_eq!(font::GLYPHS[0x01], underscore);
        assert_eq!(font::GLYPHS[0x81], underscore);
        assert_ne!(font::GLYPHS[0x80], underscore); // the euro sign
        assert_eq!(font::GLYPHS[b' ' as usize], [0; 16]);
    }
}
