//! The built-in `resize` namespace (plugin com.vapoursynth.resize): Point, Bilinear, Bicubic,
//! Lanczos, Spline16, Spline36, Spline64 and Bob, on top of zimg (see `zimg_sys`). Built on
//! vsvk-plugin-api alone; the core calls [`init`] at start-up to register the functions into the
//! plugin it made. [`chroma_mask`] brings a mask down to chroma size for std's MaskedMerge and
//! PreMultiply.
//!
//! What the reference core (VapourSynth R81) does was learned by running it: argument checks and
//! their messages, which frame properties are read and written, field handling. The arithmetic is
//! zimg's own: the same development snapshot R81 bundles, built from source (third_party/zimg, see
//! README's dependency section), so the same code paths give the same results. R81's resize
//! messages name what failed themselves, so every error here is an [`Error::Whole`].
// the ABI's constants keep their C names (stInteger, cfYUV) and are matched on
#![allow(non_upper_case_globals)]
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex};

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, Filter, Spec};
use vsvk_plugin_api::frame::{Frame, FrameMut, PropsRef};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::residency::on_host;
use vsvk_plugin_api::values::{MapRead, MapWrite};
use vsvk_plugin_api::{Error, Result};

pub mod chroma_mask;
mod chroma_down;
pub mod zimg_sys;
use zimg_sys::*;

pub const RESIZE_ID: &str = "com.vapoursynth.resize";
pub const NAMESPACE: &str = "resize";
/// The plugin's full name, as the core configures it.
pub const NAME: &str = "VapourSynth Resize";

/// The arguments every resizer shares after its own leading ones, as R81 spells them.
const COMMON_ARGS: &str = "matrix:int:opt;matrix_s:data:opt;transfer:int:opt;transfer_s:data:opt;primaries:int:opt;primaries_s:data:opt;range:int:opt;range_s:data:opt;chromaloc:int:opt;chromaloc_s:data:opt;matrix_in:int:opt;matrix_in_s:data:opt;transfer_in:int:opt;transfer_in_s:data:opt;primaries_in:int:opt;primaries_in_s:data:opt;range_in:int:opt;range_in_s:data:opt;chromaloc_in:int:opt;chromaloc_in_s:data:opt;filter_param_a:float:opt;filter_param_b:float:opt;resample_filter_uv:data:opt;filter_param_a_uv:float:opt;filter_param_b_uv:float:opt;dither_type:data:opt;cpu_type:data:opt;src_left:float:opt;src_top:float:opt;src_width:float:opt;src_height:float:opt;nominal_luminance:float:opt;approximate_gamma:int:opt;chromatic_adaptation:int:opt;";
const RETURN: &str = "clip:vnode:all;";

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
    let scaler = format!("clip:vnode:all;width:int:opt;height:int:opt;format:int:opt;{COMMON_ARGS}");
    r.function("Bicubic", &scaler, RETURN, |a, o, c| create_resize("Bicubic", ZIMG_RESIZE_BICUBIC, a, o, c).map_err(whole));
    r.function("Bilinear", &scaler, RETURN, |a, o, c| create_resize("Bilinear", ZIMG_RESIZE_BILINEAR, a, o, c).map_err(whole));
    r.function("Lanczos", &scaler, RETURN, |a, o, c| create_resize("Lanczos", ZIMG_RESIZE_LANCZOS, a, o, c).map_err(whole));
    r.function("Point", &scaler, RETURN, |a, o, c| create_resize("Point", ZIMG_RESIZE_POINT, a, o, c).map_err(whole));
    r.function("Spline16", &scaler, RETURN, |a, o, c| create_resize("Spline16", ZIMG_RESIZE_SPLINE16, a, o, c).map_err(whole));
    r.function("Spline36", &scaler, RETURN, |a, o, c| create_resize("Spline36", ZIMG_RESIZE_SPLINE36, a, o, c).map_err(whole));
    r.function("Spline64", &scaler, RETURN, |a, o, c| create_resize("Spline64", ZIMG_RESIZE_SPLINE64, a, o, c).map_err(whole));
    let bob = format!("clip:vnode:all;filter:data:opt;tff:int:opt;format:int:opt;{COMMON_ARGS}");
    r.function("Bob", &bob, RETURN, |a, o, c| create_bob(a, o, c).map_err(whole));
}

/// Any error as R81's resize shows it: its message alone.
fn whole(e: Error) -> Error {
    match e {
        Error::Whole(_) => e,
        e => Error::whole(e.to_string()),
    }
}

// ---- arguments -------------------------------------------------------------------------------------

fn int_arg(m: &Args, key: &str) -> Option<i64> {
    m.get_int(key, 0).ok()
}
fn float_arg(m: &Args, key: &str) -> Option<f64> {
    m.get_float(key, 0).ok()
}
fn str_arg(m: &Args, key: &str) -> Option<String> {
    m.get_data(key, 0).ok().map(|d| d.to_str_lossy())
}

const MATRIX_NAMES: &[(&str, c_int)] = &[
    ("rgb", 0),
    ("709", 1),
    ("unspec", 2),
    ("fcc", 4),
    ("470bg", 5),
    ("170m", 6),
    ("240m", 7),
    ("ycgco", 8),
    ("2020ncl", 9),
    ("2020cl", 10),
    ("chromancl", 12),
    ("chromacl", 13),
    ("ictcp", 14),
];
const TRANSFER_NAMES: &[(&str, c_int)] = &[
    ("709", 1),
    ("unspec", 2),
    ("470m", 4),
    ("470bg", 5),
    ("601", 6),
    ("240m", 7),
    ("linear", 8),
    ("log100", 9),
    ("log316", 10),
    ("xvycc", 11),
    ("srgb", 13),
    ("2020_10", 14),
    ("2020_12", 15),
    ("st2084", 16),
    ("st428", 17),
    ("std-b67", 18),
];
const PRIMARIES_NAMES: &[(&str, c_int)] = &[
    ("709", 1),
    ("unspec", 2),
    ("470m", 4),
    ("470bg", 5),
    ("170m", 6),
    ("240m", 7),
    ("film", 8),
    ("2020", 9),
    ("st428", 10),
    ("xyz", 10),
    ("st431-2", 11),
    ("st432-1", 12),
    ("ebu3213-e", 22),
];
const RANGE_NAMES: &[(&str, c_int)] = &[("limited", 0), ("full", 1)];
const CHROMALOC_NAMES: &[(&str, c_int)] =
    &[("left", 0), ("center", 1), ("top_left", 2), ("top", 3), ("bottom_left", 4), ("bottom", 5)];
const FILTER_NAMES: &[(&str, c_int)] = &[
    ("point", ZIMG_RESIZE_POINT),
    ("bilinear", ZIMG_RESIZE_BILINEAR),
    ("bicubic", ZIMG_RESIZE_BICUBIC),
    ("spline16", ZIMG_RESIZE_SPLINE16),
    ("spline36", ZIMG_RESIZE_SPLINE36),
    ("spline64", ZIMG_RESIZE_SPLINE64),
    ("lanczos", ZIMG_RESIZE_LANCZOS),
];
const DITHER_NAMES: &[(&str, c_int)] = &[
    ("none", ZIMG_DITHER_NONE),
    ("ordered", ZIMG_DITHER_ORDERED),
    ("random", ZIMG_DITHER_RANDOM),
    ("error_diffusion", ZIMG_DITHER_ERROR_DIFFUSION),
];

/// R81's cpu_type names and the zimg code paths they select; without the argument R81 takes
/// "auto64" (AVX-512 where the CPU has it).
const CPU_NAMES: &[(&str, c_int)] = &[
    ("none", ZIMG_CPU_NONE),
    ("auto", ZIMG_CPU_AUTO),
    ("auto64", ZIMG_CPU_AUTO_64B),
    ("mmx", ZIMG_CPU_X86_MMX),
    ("sse", ZIMG_CPU_X86_SSE),
    ("sse2", ZIMG_CPU_X86_SSE2),
    ("sse3", ZIMG_CPU_X86_SSE3),
    ("ssse3", ZIMG_CPU_X86_SSSE3),
    ("sse41", ZIMG_CPU_X86_SSE41),
    ("sse42", ZIMG_CPU_X86_SSE42),
    ("avx", ZIMG_CPU_X86_AVX),
    ("f16c", ZIMG_CPU_X86_F16C),
    ("avx2", ZIMG_CPU_X86_AVX2),
    ("avx512f", ZIMG_CPU_X86_AVX512F),
    ("avx512skx", ZIMG_CPU_X86_AVX512_SKX),
    ("avx512clx", ZIMG_CPU_X86_AVX512_CLX),
    ("avx512snc", ZIMG_CPU_X86_AVX512_SNC),
];

fn lookup<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// An enum argument given as a number (`key`) or a name (`key_s`); the number wins.
fn enum_arg(m: &Args, key: &str, names: &[(&str, c_int)]) -> Result<Option<c_int>> {
    if let Some(v) = int_arg(m, key) {
        return Ok(Some(v as c_int));
    }
    let skey = format!("{key}_s");
    match str_arg(m, &skey) {
        None => Ok(None),
        Some(s) => lookup(names, &s).map(Some).ok_or_else(|| Error::whole(format!("Resize error: bad value: {skey}"))),
    }
}

/// Colour description of one side of a conversion; `None` means "not given".
#[derive(Clone, Copy, Default, Debug)]
struct Colorspace {
    matrix: Option<c_int>,
    transfer: Option<c_int>,
    primaries: Option<c_int>,
    range: Option<c_int>,
    chromaloc: Option<c_int>,
}

/// Everything a resizer was called with, checked.
#[derive(Clone, Debug)]
struct Params {
    filter: c_int,
    filter_a: f64,
    filter_b: f64,
    filter_uv: c_int,
    filter_a_uv: f64,
    filter_b_uv: f64,
    dither: c_int,
    cpu: c_int,
    src_left: f64,
    src_top: f64,
    src_width: f64,
    src_height: f64,
    nominal_luminance: f64,
    approximate_gamma: bool,
    out: Colorspace,
    inp: Colorspace,
}

fn parse_params(m: &Args, filter: c_int) -> Result<Params> {
    let out = Colorspace {
        matrix: enum_arg(m, "matrix", MATRIX_NAMES)?,
        transfer: enum_arg(m, "transfer", TRANSFER_NAMES)?,
        primaries: enum_arg(m, "primaries", PRIMARIES_NAMES)?,
        range: enum_arg(m, "range", RANGE_NAMES)?,
        chromaloc: enum_arg(m, "chromaloc", CHROMALOC_NAMES)?,
    };
    let inp = Colorspace {
        matrix: enum_arg(m, "matrix_in", MATRIX_NAMES)?,
        transfer: enum_arg(m, "transfer_in", TRANSFER_NAMES)?,
        primaries: enum_arg(m, "primaries_in", PRIMARIES_NAMES)?,
        range: enum_arg(m, "range_in", RANGE_NAMES)?,
        chromaloc: enum_arg(m, "chromaloc_in", CHROMALOC_NAMES)?,
    };
    let filter_a = float_arg(m, "filter_param_a").unwrap_or(f64::NAN);
    let filter_b = float_arg(m, "filter_param_b").unwrap_or(f64::NAN);
    // Without resample_filter_uv chroma uses the luma filter and its parameters (filter_param_a_uv
    // and _b_uv are then ignored); with it, only the _uv parameters count.
    let (filter_uv, filter_a_uv, filter_b_uv) = match str_arg(m, "resample_filter_uv") {
        None => (filter, filter_a, filter_b),
        Some(s) => (
            lookup(FILTER_NAMES, &s).ok_or_else(|| Error::whole("Resize error: bad value: resample_filter_uv"))?,
            float_arg(m, "filter_param_a_uv").unwrap_or(f64::NAN),
            float_arg(m, "filter_param_b_uv").unwrap_or(f64::NAN),
        ),
    };
    let dither = match str_arg(m, "dither_type") {
        None => ZIMG_DITHER_NONE,
        Some(s) => lookup(DITHER_NAMES, &s).ok_or_else(|| Error::whole("Resize error: bad value: dither_type"))?,
    };
    let cpu = match str_arg(m, "cpu_type") {
        None => ZIMG_CPU_AUTO_64B,
        Some(s) => lookup(CPU_NAMES, &s).ok_or_else(|| Error::whole("Resize error: bad value: cpu_type"))?,
    };
    Ok(Params {
        filter,
        filter_a,
        filter_b,
        filter_uv,
        filter_a_uv,
        filter_b_uv,
        dither,
        cpu,
        src_left: float_arg(m, "src_left").unwrap_or(f64::NAN),
        src_top: float_arg(m, "src_top").unwrap_or(f64::NAN),
        src_width: float_arg(m, "src_width").unwrap_or(f64::NAN),
        src_height: float_arg(m, "src_height").unwrap_or(f64::NAN),
        nominal_luminance: float_arg(m, "nominal_luminance").unwrap_or(f64::NAN),
        // R81 allows the faster approximations unless told otherwise
        approximate_gamma: int_arg(m, "approximate_gamma").unwrap_or(1) != 0,
        out,
        inp,
    })
}

/// The output description a resizer (or Bob) promises, with R81's checks and messages.
fn output_info(name: &str, m: &Args, vi_in: &VSVideoInfo, params: &Params, core: Core) -> Result<VSVideoInfo> {
    let mut vi = *vi_in;
    if let Some(f) = int_arg(m, "format") {
        if f != 0 {
            vi.format = u32::try_from(f)
                .ok()
                .and_then(|id| core.video_format_by_id(id))
                .ok_or_else(|| Error::whole("Resize error: Invalid format id."))?;
        }
    }
    for key in ["width", "height"] {
        if let Some(v) = int_arg(m, key) {
            if v < 0 {
                return Err(Error::whole(format!("Resize error: value for key \"{key}\" out of range")));
            }
            // the reference keeps only the low 32 bits
            if key == "width" {
                vi.width = v as i32;
            } else {
                vi.height = v as i32;
            }
        }
    }
    if vi.format.colorFamily != cfUndefined {
        pixel_type(&vi.format)?;
        if vi.width % (1 << vi.format.subSamplingW) != 0 || vi.height % (1 << vi.format.subSamplingH) != 0 {
            return Err(Error::whole("Resize error 1027: image dimensions must be divisible by subsampling factor"));
        }
    }
    if vi_in.format.colorFamily == cfRGB
        && (vi.format.colorFamily == cfYUV || vi.format.colorFamily == cfGray)
        && params.out.matrix.is_none()
    {
        return Err(Error::whole("Resize error: Matrix must be specified when converting to YUV or GRAY from RGB"));
    }
    if vi.width < 0 || vi.height < 0 || (vi.width == 0) != (vi.height == 0) {
        return Err(Error::whole(format!("The VSVideoInfo structure passed by {name} is invalid.")));
    }
    Ok(vi)
}

/// zimg's pixel type for a format, or R81's message naming the format.
fn pixel_type(f: &VSVideoFormat) -> Result<c_int> {
    match (f.sampleType, f.bytesPerSample) {
        (stInteger, 1) => Ok(ZIMG_PIXEL_BYTE),
        (stInteger, 2) => Ok(ZIMG_PIXEL_WORD),
        (stFloat, 2) => Ok(ZIMG_PIXEL_HALF),
        (stFloat, 4) => Ok(ZIMG_PIXEL_FLOAT),
        _ => Err(Error::whole(format!("Resize error: no matching pixel type for format: {}", Core::format_name(f)))),
    }
}

fn create_resize(name: &'static str, filter: c_int, args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let node = args.get_node("clip", 0).map_err(whole)?;
    let vi_in = node.video_info().map_err(whole)?;
    let params = parse_params(args, filter)?;
    let vi = output_info(name, args, &vi_in, &params, core)?;
    // zimg works in host memory: a GPU clip is downloaded for it and the result uploaded again
    let n = on_host(core, vec![node], |inputs| {
        let node = inputs.into_iter().next().expect("one input");
        let filter = Resizer { bob: false, vi, params: Arc::new(params), graphs: Mutex::new(Vec::new()) };
        filter::create_node(core, Spec { name: name.into(), info: vi, inputs: vec![node], gpu_output: false }, filter, fmParallel)
    })
    .map_err(whole)?;
    out.set_node("clip", n);
    Ok(())
}

fn create_bob(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let node = args.get_node("clip", 0)?;
    let vi_in = node.video_info()?;
    let filter = match str_arg(args, "filter") {
        None => ZIMG_RESIZE_BICUBIC,
        Some(s) => lookup(FILTER_NAMES, &s).ok_or_else(|| Error::whole("Bob: invalid filter specified"))?,
    };
    let tff = int_arg(args, "tff").map(|v| v != 0);
    // std.SeparateFields' own check, with its wording
    if vi_in.format.colorFamily != cfUndefined && vi_in.height > 0 && (vi_in.height >> vi_in.format.subSamplingH) % 2 != 0 {
        return Err(Error::whole("SeparateFields: clip height must be mod 2 in the smallest subsampled plane"));
    }
    let params = parse_params(args, filter)?;
    let mut vi = output_info("Bob", args, &vi_in, &params, core)?;
    vi.numFrames = vi_in.numFrames.saturating_mul(2);
    if vi.fpsNum > 0 {
        (vi.fpsNum, vi.fpsDen) = reduce(vi.fpsNum.saturating_mul(2), vi.fpsDen);
    }
    let n = on_host(core, vec![node], |inputs| {
        let node = inputs.into_iter().next().expect("one input");
        let filter = BobFilter { resizer: Resizer { bob: true, vi, params: Arc::new(params), graphs: Mutex::new(Vec::new()) }, tff };
        filter::create_node(core, Spec { name: "Bob".into(), info: vi, inputs: vec![node], gpu_output: false }, filter, fmParallel)
    })?;
    out.set_node("clip", n);
    Ok(())
}

fn reduce(num: i64, den: i64) -> (i64, i64) {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    let g = gcd(num, den).max(1);
    (num / g, den / g)
}

// ---- per frame ----------------------------------------------------------------------------------------

/// One of an input frame's fields, or the whole frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Layout {
    Progressive,
    /// A frame holding both fields, resized field by field.
    Interlaced,
    /// A frame that is a single field of this parity (zimg's ZIMG_FIELD_TOP/BOTTOM).
    Field(c_int),
}

/// An integer frame property, ignoring other types as R81 does.
fn int_prop(props: &impl MapRead, key: &str) -> Option<i64> {
    props.get_int(key, 0).ok()
}

struct Resizer {
    bob: bool,
    vi: VSVideoInfo,
    params: Arc<Params>,
    graphs: Mutex<Vec<(GraphKey, Arc<Graph>)>>,
}

#[derive(Clone, Copy, PartialEq, Debug)]
struct GraphKey {
    src: zimg_image_format,
    dst: zimg_image_format,
    cpu: c_int,
}

struct Graph {
    ptr: *mut zimg_filter_graph,
    tmp_size: usize,
}

// SAFETY: a built graph is immutable; zimg_filter_graph_process only reads it, with a temporary
// buffer per call, so it may be used from several threads at once.
unsafe impl Send for Graph {}
unsafe impl Sync for Graph {}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: built by zimg_filter_graph_build and freed once.
        unsafe { zimg_filter_graph_free(self.ptr) };
    }
}

/// How the frame's colour was described, resolved for both sides.
#[derive(Clone, Copy, Debug)]
struct Resolved {
    matrix: c_int,
    transfer: c_int,
    primaries: c_int,
    range: c_int,
    chromaloc: c_int,
}

/// zimg's description of frames of `f` at `w`x`h` with the colours `c`, one field of them or whole.
fn zimg_format(f: &VSVideoFormat, w: u32, h: u32, c: &Resolved, parity: c_int) -> Result<zimg_image_format> {
    let mut z = default_format();
    z.width = w;
    z.height = h;
    z.pixel_type = pixel_type(f)?;
    z.subsample_w = f.subSamplingW as u32;
    z.subsample_h = f.subSamplingH as u32;
    z.color_family = family(f);
    z.matrix_coefficients = c.matrix;
    z.transfer_characteristics = c.transfer;
    z.color_primaries = c.primaries;
    z.depth = f.bitsPerSample as u32;
    z.pixel_range = c.range;
    z.field_parity = parity;
    z.chroma_location = c.chromaloc;
    Ok(z)
}

fn family(f: &VSVideoFormat) -> c_int {
    match f.colorFamily {
        cfRGB => ZIMG_COLOR_RGB,
        cfYUV => ZIMG_COLOR_YUV,
        _ => ZIMG_COLOR_GREY,
    }
}

impl Resizer {
    /// The source's colour description: frame properties first, then the `_in` arguments, then
    /// the defaults for its colour family.
    fn source_colour(&self, props: &PropsRef, f: &VSVideoFormat) -> Result<Resolved> {
        let p = &self.params.inp;
        let rgb = f.colorFamily == cfRGB;
        let range = match int_prop(props, "_Range") {
            Some(v) if v == 0 || v == 1 => Some(v as c_int),
            Some(v) => return Err(Error::whole(format!("Resize error: bad _Range value: {v}"))),
            // an older plugin may still have written the pre-API-4.2 property, whose values are swapped
            None => match int_prop(props, "_ColorRange") {
                Some(0) => Some(1),
                Some(1) => Some(0),
                _ => None,
            },
        };
        // a property saying "unspecified" (2) gives way to the argument
        let given = |key: &str| int_prop(props, key).map(|v| v as c_int).filter(|&v| v != 2);
        Ok(Resolved {
            matrix: given("_Matrix").or(p.matrix).unwrap_or(if rgb { 0 } else { 2 }),
            transfer: given("_Transfer").or(p.transfer).unwrap_or(2),
            primaries: given("_Primaries").or(p.primaries).unwrap_or(2),
            range: range.or(p.range).unwrap_or(if rgb { 1 } else { 0 }),
            chromaloc: int_prop(props, "_ChromaLocation").map(|v| v as c_int).or(p.chromaloc).unwrap_or(0),
        })
    }

    fn target_colour(&self, src: &Resolved, sf: &VSVideoFormat, df: &VSVideoFormat) -> Resolved {
        let p = &self.params.out;
        let rgb = df.colorFamily == cfRGB;
        let same_family = sf.colorFamily == df.colorFamily;
        Resolved {
            matrix: p.matrix.unwrap_or(if rgb { 0 } else { src.matrix }),
            transfer: p.transfer.unwrap_or(src.transfer),
            primaries: p.primaries.unwrap_or(src.primaries),
            range: p.range.unwrap_or(if same_family { src.range } else if rgb { 1 } else { 0 }),
            chromaloc: p.chromaloc.unwrap_or(src.chromaloc),
        }
    }

    fn graph(&self, key: GraphKey) -> Result<Arc<Graph>> {
        if let Some((_, g)) = self.graphs.lock().expect("never poisoned").iter().find(|(k, _)| *k == key) {
            return Ok(g.clone());
        }
        let p = &self.params;
        let mut gp = default_params();
        // R81 never resamples a frame whose format, size and colours stay as they are, so an
        // unusable filter (Lanczos with 16 taps or more) only fails where it would be used; zimg
        // makes the filter before it knows, and a same-format graph is a copy whatever the filter.
        if !same_format(&key.src, &key.dst) {
            gp.resample_filter = p.filter;
            gp.filter_param_a = p.filter_a;
            gp.filter_param_b = p.filter_b;
            gp.resample_filter_uv = p.filter_uv;
            gp.filter_param_a_uv = p.filter_a_uv;
            gp.filter_param_b_uv = p.filter_b_uv;
        }
        gp.dither_type = p.dither;
        gp.cpu_type = key.cpu;
        gp.nominal_peak_luminance = p.nominal_luminance;
        gp.allow_approximate_gamma = p.approximate_gamma as _;
        // SAFETY: valid formats and parameters of this API version.
        let ptr = unsafe { zimg_filter_graph_build(&key.src, &key.dst, &gp) };
        if ptr.is_null() {
            let (code, msg) = last_error();
            if code == ZIMG_ERROR_NO_COLORSPACE_CONVERSION {
                let (s, d) = (&key.src, &key.dst);
                return Err(Error::whole(format!(
                    "Resize error: Resize error {code}: {msg} ({}/{}/{} => {}/{}/{}). May need to specify additional colorspace parameters.",
                    s.matrix_coefficients,
                    s.transfer_characteristics,
                    s.color_primaries,
                    d.matrix_coefficients,
                    d.transfer_characteristics,
                    d.color_primaries
                )));
            }
            return Err(Error::whole(format!("Resize error {code}: {msg}")));
        }
        let mut tmp_size = 0usize;
        // SAFETY: `ptr` is a graph just built.
        unsafe { zimg_filter_graph_get_tmp_size(ptr, &mut tmp_size) };
        let g = Arc::new(Graph { ptr, tmp_size });
        let mut cache = self.graphs.lock().expect("never poisoned");
        if cache.len() >= 16 {
            cache.remove(0);
        }
        cache.push((key, g.clone()));
        Ok(g)
    }

    /// Converts `src` (the whole of `frame` or one of its fields, for Bob) into a new frame with
    /// `frame`'s properties and the colour ones of the result.
    fn process(&self, frame: &Frame, src: &Source, layout: Layout, core: Core) -> Result<FrameMut> {
        let sf = frame.video_format().ok_or_else(|| Error::whole("Resize error: only video frames are supported"))?;
        let df = if self.vi.format.colorFamily != cfUndefined { self.vi.format } else { sf };
        let (sw, sh) = (src.width, src.height);
        let (dw, dh) = if self.vi.width > 0 { (self.vi.width, self.vi.height) } else { (sw, sh) };
        let src_c = self.source_colour(&frame.props(), &sf)?;
        let dst_c = self.target_colour(&src_c, &sf, &df);

        let (src_h, dst_h, parities): (u32, u32, Vec<c_int>) = match layout {
            Layout::Progressive => (sh as u32, dh as u32, vec![ZIMG_FIELD_PROGRESSIVE]),
            Layout::Interlaced => ((sh / 2) as u32, (dh / 2) as u32, vec![ZIMG_FIELD_TOP, ZIMG_FIELD_BOTTOM]),
            Layout::Field(p) => (sh as u32, dh as u32, vec![p]),
        };
        let mut sfz = zimg_format(&sf, sw as u32, src_h, &src_c, parities[0])?;
        let mut dfz = zimg_format(&df, dw as u32, dst_h, &dst_c, parities[0])?;
        let p = &self.params;
        // a frame of two fields: the window is given in frame rows, each field has half of them
        let vscale = if layout == Layout::Interlaced { 0.5 } else { 1.0 };
        sfz.active_region = ActiveRegion { left: p.src_left, top: p.src_top * vscale, width: p.src_width, height: p.src_height * vscale };
        let cpu = p.cpu;
        let mut dst = FrameMut::new_video(core, &df, dw, dh, Some(frame)).map_err(|e| Error::whole(format!("Resize error: {e}")))?;
        let dst_planes = write_planes(&mut dst, df.numPlanes);
        for (i, &parity) in parities.iter().enumerate() {
            sfz.field_parity = parity;
            // Bob turns a field into a progressive frame; otherwise fields stay fields
            dfz.field_parity = if self.bob { ZIMG_FIELD_PROGRESSIVE } else { parity };
            // Interlaced frames: field i is every other row, starting at row i.
            let (row0, step) = if layout == Layout::Interlaced { (i as isize, 2) } else { (0, 1) };
            // SAFETY: row `row0` lies inside every plane (a frame of two fields has both).
            let from = src.planes.map(|(ptr, stride)| (unsafe { ptr.offset(row0 * stride) }, stride * step));
            // SAFETY: as above.
            let to = dst_planes.map(|(ptr, stride)| (unsafe { ptr.offset(row0 * stride) }, stride * step));
            let graph = self.graph(GraphKey { src: sfz, dst: dfz, cpu })?;
            run_graph(&graph, &from, &to)?;
        }
        let mut props = dst.props_mut();
        // a `_ColorRange` of another type than int (the literal key) stays, as in R81
        props.set_int("_Matrix", dst_c.matrix as i64);
        props.set_int("_Transfer", dst_c.transfer as i64);
        props.set_int("_Primaries", dst_c.primaries as i64);
        props.set_int("_Range", dst_c.range as i64);
        if df.colorFamily == cfYUV && (df.subSamplingW != 0 || df.subSamplingH != 0) {
            props.set_int("_ChromaLocation", dst_c.chromaloc as i64);
        } else {
            props.delete("_ChromaLocation");
        }
        Ok(dst)
    }
}

/// Planes for zimg: where row 0 starts and the distance between rows, for up to 3 planes.
type Planes<P> = [(P, isize); 3];

/// What zimg reads: the planes of a frame or of one of its fields, and the luma plane's size.
struct Source {
    planes: Planes<*const u8>,
    width: i32,
    height: i32,
}

impl Source {
    /// The whole frame, or (`field` true for the top one) every other row of it.
    fn of(f: &Frame, field: Option<bool>) -> Result<Source> {
        let fmt = f.video_format().ok_or_else(|| Error::whole("Resize error: only video frames are supported"))?;
        let mut planes = [(std::ptr::null(), 0); 3];
        for (p, out) in planes.iter_mut().enumerate().take(fmt.numPlanes as usize) {
            let pl = f.plane::<u8>(p as i32).ok_or_else(|| Error::whole("Resize error: the frame is not in host memory"))?;
            let (base, stride) = (pl.row(0).as_ptr(), pl.stride());
            *out = match field {
                None => (base, stride),
                // SAFETY: a frame of two fields has a second row.
                Some(top) => (if top { base } else { unsafe { base.offset(stride) } }, stride * 2),
            };
        }
        let (width, height) = (f.width(0), f.height(0));
        Ok(Source { planes, width, height: if field.is_some() { height / 2 } else { height } })
    }
}

/// Every plane of a frame this filter is making, for zimg to write.
fn write_planes(f: &mut FrameMut, planes: i32) -> Planes<*mut u8> {
    let mut out = [(std::ptr::null_mut(), 0); 3];
    for (p, o) in out.iter_mut().enumerate().take(planes as usize) {
        let stride = f.stride(p as i32);
        *o = (f.row_bytes_mut(p as i32, 0).expect("a new CPU frame").as_mut_ptr(), stride);
    }
    out
}

/// A 64-byte aligned scratch allocation.
struct Scratch {
    ptr: *mut u8,
    layout: std::alloc::Layout,
}

// SAFETY: an allocation of its own, used by one holder at a time.
unsafe impl Send for Scratch {}

impl Scratch {
    fn new(size: usize) -> Scratch {
        Scratch::alloc(size, false)
    }
    /// As `new`, its bytes zero (masks whose row padding is never written).
    fn zeroed(size: usize) -> Scratch {
        Scratch::alloc(size, true)
    }
    fn alloc(size: usize, zero: bool) -> Scratch {
        let layout = std::alloc::Layout::from_size_align(size.max(1), 64).expect("bounded size");
        // SAFETY: non-zero size.
        let ptr = unsafe { if zero { std::alloc::alloc_zeroed(layout) } else { std::alloc::alloc(layout) } };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Scratch { ptr, layout }
    }
    fn size(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) };
    }
}

/// Runs a graph from `src` planes into `dst` planes.
fn run_graph(g: &Graph, src: &Planes<*const u8>, dst: &Planes<*mut u8>) -> Result<()> {
    let empty_c = zimg_plane_const { data: std::ptr::null(), stride: 0, mask: 0 };
    let empty = zimg_plane { data: std::ptr::null_mut(), stride: 0, mask: 0 };
    let mut sb = zimg_image_buffer_const { version: ZIMG_API_VERSION, plane: [empty_c; 4] };
    let mut db = zimg_image_buffer { version: ZIMG_API_VERSION, plane: [empty; 4] };
    for p in 0..3 {
        sb.plane[p] = zimg_plane_const { data: src[p].0.cast(), stride: src[p].1, mask: ZIMG_BUFFER_MAX };
        db.plane[p] = zimg_plane { data: dst[p].0.cast(), stride: dst[p].1, mask: ZIMG_BUFFER_MAX };
    }
    let tmp = Scratch::new(g.tmp_size);
    // SAFETY: the buffers describe whole planes that outlive the call (null for planes the graph's
    // formats do not have); `tmp` is as large as zimg asked for and 64-byte aligned.
    let rc = unsafe { zimg_filter_graph_process(g.ptr, &sb, &db, tmp.ptr.cast::<c_void>(), None, std::ptr::null_mut(), None, std::ptr::null_mut()) };
    if rc != 0 {
        let (code, msg) = last_error();
        return Err(Error::whole(format!("Resize error {code}: {msg}")));
    }
    Ok(())
}

/// Equal descriptions, the unset (NaN) parts of the active region included.
fn same_format(a: &zimg_image_format, b: &zimg_image_format) -> bool {
    let region = |f: &zimg_image_format| [f.active_region.left, f.active_region.top, f.active_region.width, f.active_region.height].map(f64::to_bits);
    let plain = |f: &zimg_image_format| zimg_image_format { active_region: ActiveRegion { left: 0.0, top: 0.0, width: 0.0, height: 0.0 }, ..*f };
    plain(a) == plain(b) && region(a) == region(b)
}

/// Reads how a frame is laid out in fields from `_Field` and `_FieldBased`.
fn frame_layout(props: &impl MapRead) -> Result<Layout> {
    if let Some(f) = int_prop(props, "_Field") {
        return match f {
            0 => Ok(Layout::Field(ZIMG_FIELD_BOTTOM)),
            1 => Ok(Layout::Field(ZIMG_FIELD_TOP)),
            v => Err(Error::whole(format!("Resize error: bad _Field value: {v}"))),
        };
    }
    match int_prop(props, "_FieldBased") {
        None | Some(0) => Ok(Layout::Progressive),
        Some(1) | Some(2) => Ok(Layout::Interlaced),
        Some(v) => Err(Error::whole(format!("Resize error: bad _FieldBased value: {v}"))),
    }
}

impl Filter for Resizer {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = &frames[0];
        let layout = frame_layout(&src.props())?;
        Ok(self.process(src, &Source::of(src, None)?, layout, core)?.freeze())
    }
}

/// resize.Bob: std.SeparateFields followed by a resizer back to the clip's height.
struct BobFilter {
    resizer: Resizer,
    tff: Option<bool>,
}

impl Filter for BobFilter {
    fn requests(&self, n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        vec![(0, n / 2)]
    }

    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = &frames[0];
        let sprops = src.props();
        let tff = match int_prop(&sprops, "_FieldBased") {
            Some(1) => Some(false),
            Some(2) => Some(true),
            _ => self.tff,
        };
        let tff = tff.ok_or_else(|| Error::whole("SeparateFields: no field order provided"))?;
        let second = n % 2 == 1;
        let top = tff != second;
        let parity = if top { ZIMG_FIELD_TOP } else { ZIMG_FIELD_BOTTOM };
        let mut out = self.resizer.process(src, &Source::of(src, Some(top))?, Layout::Field(parity), core)?;
        // the field's properties as std.SeparateFields hands them on (none of them a colour one)
        let mut props = out.props_mut();
        props.delete_key("_FieldBased");
        props.set_int("_Field", top as i64);
        if let (Some(num), Some(den)) = (int_prop(&sprops, "_DurationNum"), int_prop(&sprops, "_DurationDen")) {
            let (num, den) = reduce(num, den.saturating_mul(2));
            props.set_int("_DurationNum", num);
            props.set_int("_DurationDen", den);
        }
        drop(props);
        Ok(out.freeze())
    }
}
