//! The `text` namespace (plugin com.vapoursynth.text, created by the core): Text, FrameNum,
//! FrameProps, ClipInfo and CoreInfo draw text into frames with an 8x16 bitmap font (`font`).
//! Built on vsvk-plugin-api alone; the core calls [`init`] at start-up to register the functions
//! into the plugin it made.
//!
//! Layout, colours, wording and checks follow what the reference core (VapourSynth R81) was seen
//! to produce: a 16-pixel margin, text wrapped at the frame's width one character at a time, lines
//! that do not fit dropped, every character cell painted (white on black in limited range for
//! integer formats, 1.0 on 0.0 for float), chroma painted neutral.
// the ABI's constants keep their C names (stInteger, cfYUV) and are matched on
#![allow(non_upper_case_globals)]
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut, PlaneRowsMut};
use vsvk_plugin_api::invoke::PluginRef;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::residency::on_host;
use vsvk_plugin_api::values::{MapRead, OwnedMap, Values};
use vsvk_plugin_api::{Error, Result};

mod font;

pub const TEXT_ID: &str = "com.vapoursynth.text";
pub const NAMESPACE: &str = "text";
/// The plugin's full name, as the core configures it.
pub const NAME: &str = "VapourSynth Text";
const MARGIN: i64 = 16;

/// Registers the functions into the plugin the core made (`VapourSynthPluginInit2`'s shape; the
/// plugin is already configured).
///
/// # Safety
/// `plugin` and `papi` are the core's, valid for the call.
pub unsafe extern "C" fn init(plugin: *mut VSPlugin, papi: *const VSPLUGINAPI) {
    // SAFETY: forwarded unchanged from the core.
    unsafe { vsvk_plugin_api::plugin::init(plugin, papi, register) }
}

fn register(r: &Registrar) {
    const RET: &str = "clip:vnode:all;";
    r.function("Text", "clip:vnode:all;text:data;alignment:int:opt;scale:int:opt;", RET, |a, o, c| create("Text", a, o, c));
    r.function("FrameNum", "clip:vnode:all;alignment:int:opt;scale:int:opt;", RET, |a, o, c| create("FrameNum", a, o, c));
    r.function("FrameProps", "clip:vnode:all;props:data[]:opt;alignment:int:opt;scale:int:opt;", RET, |a, o, c| create("FrameProps", a, o, c));
    r.function("ClipInfo", "clip:vnode:all;alignment:int:opt;scale:int:opt;", RET, |a, o, c| create("ClipInfo", a, o, c));
    r.function("CoreInfo", "clip:vnode:all:opt;alignment:int:opt;scale:int:opt;", RET, |a, o, c| create("CoreInfo", a, o, c));
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
    vi: VSVideoInfo,
    kind: Kind,
    alignment: i64,
    scale: i64,
}

/// 8..16-bit integer or 16/32-bit float: the formats text can be drawn into.
fn check_format(f: &VSVideoFormat) -> Result<()> {
    let ok = match f.sampleType {
        stInteger => (8..=16).contains(&f.bitsPerSample),
        _ => f.bitsPerSample == 16 || f.bitsPerSample == 32,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::invalid(format!("Input clip must be 8..16 bit integer or 16-32 bit float, passed {}.", Core::format_name(f))))
    }
}

fn create(name: &'static str, args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let node = match args.get_node("clip", 0) {
        Ok(n) => n,
        // CoreInfo without a clip draws on std.BlankClip's default clip
        Err(_) => {
            let std = PluginRef::by_id(core, "com.vapoursynth.std").ok_or_else(|| Error::invalid("std is missing"))?;
            let r = std.invoke("BlankClip", &OwnedMap::new())?;
            r.get_node("clip", 0).map_err(|_| Error::invalid("BlankClip returned no clip"))?
        }
    };
    let vi = node.video_info().map_err(|_| Error::invalid("only video clips are supported"))?;
    let alignment = args.get_int("alignment", 0).unwrap_or(7);
    if !(1..=9).contains(&alignment) {
        return Err(Error::invalid("alignment must be between 1 and 9 (think numpad)"));
    }
    let scale = args.get_int("scale", 0).unwrap_or(1);
    if !(1..=65536).contains(&scale) {
        return Err(Error::invalid("scale must be a positive integer no larger than 65536"));
    }
    if vi.format.colorFamily != cfUndefined {
        check_format(&vi.format)?;
    }
    let kind = match name {
        "Text" => Kind::Text(args.get_data("text", 0).map(|d| d.bytes).unwrap_or_default()),
        "FrameNum" => Kind::FrameNum,
        "FrameProps" => Kind::FrameProps(match args.values("props") {
            Some(Values::Data(v)) => Some(v.into_iter().map(|d| d.bytes).collect()),
            _ => None,
        }),
        "ClipInfo" => Kind::ClipInfo,
        _ => Kind::CoreInfo,
    };
    // drawn in host memory: a GPU clip is downloaded for it and the result uploaded again
    let n = on_host(core, vec![node], |inputs| {
        let spec = Spec { name: name.into(), info: vi, inputs, gpu_output: false };
        filter::create_node(core, spec, TextFilter { vi, kind, alignment, scale }, fmParallel)
    })?;
    out.set_node("clip", n);
    Ok(())
}

// ---- the texts ----------------------------------------------------------------------------------------

fn int_prop(props: &impl MapRead, key: &str) -> Option<i64> {
    props.get_int(key, 0).ok()
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
    let ff = f.video_format().unwrap_or_default();
    let vary = |constant: bool| if constant { "" } else { " (may vary)" };
    let mut s = String::from("Clip info:\n");
    s += &format!("Width: {} px{}\n", f.width(0), vary(vi.width > 0));
    s += &format!("Height: {} px{}\n", f.height(0), vary(vi.height > 0));
    match (int_prop(&props, "_SARNum"), int_prop(&props, "_SARDen")) {
        (Some(n), Some(d)) => s += &format!("Sample aspect ratio: {n}:{d}\n"),
        _ => s += "Sample aspect ratio: Unknown\n",
    }
    s += &format!("Length: {} frames\n", vi.numFrames);
    let vname = if vi.format.colorFamily == cfUndefined { "Undefined".to_string() } else { Core::format_name(&vi.format) };
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
    s += &format!("Matrix: {}\n", matrix_name(int_prop(&props, "_Matrix")));
    s += &format!("Primaries: {}\n", primaries_name(int_prop(&props, "_Primaries")));
    s += &format!("Transfer: {}\n", transfer_name(int_prop(&props, "_Transfer")));
    s += &format!("Range: {}\n", range_name(int_prop(&props, "_Range")));
    s += &format!("Chroma Location: {}\n", chromaloc_name(int_prop(&props, "_ChromaLocation")));
    s += &format!("Field handling: {}\n", field_name(int_prop(&props, "_FieldBased")));
    let mut out = s.into_bytes();
    out.extend_from_slice(b"Picture type: ");
    match props.get_data("_PictType", 0) {
        Ok(d) => out.extend_from_slice(&d.bytes),
        Err(_) => out.extend_from_slice(b"Unknown"),
    }
    out.push(b'\n');
    let mut s = String::new();
    if vi.fpsNum > 0 && vi.fpsDen > 0 {
        s += &format!("Fps: {}/{} ({})\n", vi.fpsNum, vi.fpsDen, fixed(vi.fpsNum as f64 / vi.fpsDen as f64));
    } else {
        s += "Fps: Unknown\n";
    }
    match (int_prop(&props, "_DurationNum"), int_prop(&props, "_DurationDen")) {
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
        None => props.keys().into_iter().map(String::into_bytes).collect(),
    };
    for key in keys {
        out.extend_from_slice(&key);
        out.push(b':');
        match std::str::from_utf8(&key).ok().and_then(|k| props.values(k)) {
            None => out.extend_from_slice(b" <no such property>"),
            Some(v) => {
                let items: Vec<Vec<u8>> = match v {
                    Values::Int(a) => a.iter().map(|i| i.to_string().into_bytes()).collect(),
                    Values::Float(a) => a.iter().map(|x| fixed(*x).into_bytes()).collect(),
                    Values::Data(a) => a
                        .iter()
                        .map(|d| if d.hint == dtBinary { format!("<binary data ({} bytes)>", d.bytes.len()).into_bytes() } else { d.bytes.clone() })
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
fn core_info(core: Core) -> Vec<u8> {
    let info = core.info();
    let mut out = info.version.into_bytes();
    let figures = format!(
        "\nThreads: {}\nMaximum framebuffer cache size: {} bytes\nUsed framebuffer cache size: {} bytes",
        info.threads, info.max_cache, info.used_cache
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

/// Foreground, background and chroma values for a format, as samples of T.
fn colours<T: FromBits>(f: &VSVideoFormat) -> (T, T, T) {
    match (f.sampleType, f.bytesPerSample) {
        (stInteger, _) => {
            let s = f.bitsPerSample - 8;
            (T::from_bits(235 << s), T::from_bits(16 << s), T::from_bits(128 << s))
        }
        // half: 1.0 and 0.0
        (_, 2) => (T::from_bits(0x3C00), T::from_bits(0), T::from_bits(0)),
        _ => (T::from_bits(1.0f32.to_bits()), T::from_bits(0), T::from_bits(0)),
    }
}

/// A sample type made from its bit pattern.
trait FromBits: Copy {
    fn from_bits(b: u32) -> Self;
}
impl FromBits for u8 {
    fn from_bits(b: u32) -> u8 {
        b as u8
    }
}
impl FromBits for u16 {
    fn from_bits(b: u32) -> u16 {
        b as u16
    }
}
impl FromBits for f32 {
    fn from_bits(b: u32) -> f32 {
        f32::from_bits(b)
    }
}

/// Where the lines go.
struct Layout<'a> {
    lines: Vec<&'a [u8]>,
    w: i64,
    top: i64,
    alignment: i64,
    scale: i64,
}

impl Layout<'_> {
    /// Each non-empty line with its left edge, top edge and width in pixels.
    fn boxes(&self) -> impl Iterator<Item = (&[u8], i64, i64, i64)> + '_ {
        let (cw, ch) = (8 * self.scale, 16 * self.scale);
        self.lines.iter().enumerate().filter(|(_, l)| !l.is_empty()).map(move |(li, line)| {
            let len = line.len() as i64 * cw;
            let left = match self.alignment {
                1 | 4 | 7 => MARGIN,
                2 | 5 | 8 => (self.w - len) / 2,
                _ => self.w - MARGIN - len,
            };
            (*line, left, self.top + li as i64 * ch, len)
        })
    }
}

/// Paints one plane: glyphs, or for YUV chroma (`chroma` gives its subsampling) the neutral value
/// over each line's box.
fn paint<T: FromBits>(rows: &mut PlaneRowsMut<'_, T>, l: &Layout, chroma: Option<(i32, i32)>, fmt: &VSVideoFormat) {
    let (fg, bg, neutral) = colours::<T>(fmt);
    let ch = 16 * l.scale;
    let scale = l.scale;
    for (line, left, y0, len) in l.boxes() {
        if let Some((ssw, ssh)) = chroma {
            let (x_a, x_b) = ((left >> ssw) as usize, ((left + len) >> ssw) as usize);
            let (y_a, y_b) = ((y0 >> ssh) as usize, ((y0 + ch) >> ssh) as usize);
            let (pw, ph) = (rows.width, rows.height);
            for y in y_a..y_b.min(ph) {
                let row = rows.row_mut(y);
                for x in x_a..x_b.min(pw) {
                    row[x] = neutral;
                }
            }
            continue;
        }
        for (ci, &c) in line.iter().enumerate() {
            let glyph = &font::GLYPHS[c as usize];
            let x0 = left + ci as i64 * 8 * scale;
            for (gy, &bits) in glyph.iter().enumerate() {
                for sy in 0..scale {
                    // the text box lies inside the frame (checked by `draw`)
                    let row = rows.row_mut((y0 + gy as i64 * scale + sy) as usize);
                    for gx in 0..8 {
                        let v = if bits & (0x80 >> gx) != 0 { fg } else { bg };
                        let x = (x0 + gx * scale) as usize;
                        row[x..x + scale as usize].fill(v);
                    }
                }
            }
        }
    }
}

fn draw(f: &mut FrameMut, text: &[u8], alignment: i64, scale: i64) -> Result<()> {
    let (w, h) = (f.width(0) as i64, f.height(0) as i64);
    let (cw, ch) = (8 * scale, 16 * scale);
    if w < 2 * MARGIN + cw || h < 2 * MARGIN + ch {
        return Err(Error::invalid(format!("frame size must be at least {}x{} pixels.", 2 * MARGIN + cw, 2 * MARGIN + ch)));
    }
    let fmt = f.format();
    check_format(&fmt)?;
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
    let layout = Layout { lines, w, top, alignment, scale };
    for p in 0..fmt.numPlanes {
        let chroma = (p > 0 && fmt.colorFamily == cfYUV).then_some((fmt.subSamplingW, fmt.subSamplingH));
        let host = || Error::invalid("internal error: the frame is not in host memory");
        match (fmt.sampleType, fmt.bytesPerSample) {
            (stInteger, 1) => paint::<u8>(&mut f.plane_mut(p).ok_or_else(host)?, &layout, chroma, &fmt),
            (_, 2) => paint::<u16>(&mut f.plane_mut(p).ok_or_else(host)?, &layout, chroma, &fmt),
            _ => paint::<f32>(&mut f.plane_mut(p).ok_or_else(host)?, &layout, chroma, &fmt),
        }
    }
    Ok(())
}

impl Filter for TextFilter {
    const SPATIAL: bool = true;

    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = frames.into_iter().next().ok_or_else(|| Error::invalid("internal error: a requested frame is missing"))?;
        let text: Vec<u8> = match &self.kind {
            Kind::Text(t) => t.clone(),
            Kind::FrameNum => n.to_string().into_bytes(),
            Kind::FrameProps(only) => frame_props(&src, only),
            Kind::ClipInfo => clip_info(&self.vi, &src),
            Kind::CoreInfo => core_info(core),
        };
        let mut f = FrameMut::copy_of(core, &src);
        draw(&mut f, &text, self.alignment, self.scale)?;
        Ok(f.freeze())
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
