//! Lut and Lut2: per-plane lookup tables given as integers, floats or a function.
use std::sync::Arc;

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::function::Value;

use super::*;

pub fn register(r: &Registrar) {
    r.function(
        "Lut",
        "clip:vnode:all;planes:int[]:opt;lut:int[]:opt;lutf:float[]:opt;function:func:opt;bits:int:opt;floatout:int:opt;",
        "clip:vnode:all;",
        |i, o, c| run(i, o, c, false),
    );
    r.function(
        "Lut2",
        "clipa:vnode:all;clipb:vnode:all;planes:int[]:opt;lut:int[]:opt;lutf:float[]:opt;function:func:opt;bits:int:opt;floatout:int:opt;",
        "clip:vnode:all;",
        |i, o, c| run(i, o, c, true),
    );
}

/// A finished table: integer samples or floats.
enum Table {
    Int(Vec<u16>),
    Float(Vec<f32>),
}

/// Outcome of argument checking: an error with the usual "Name: " prefix, or one the reference
/// words without it (the plane errors).
enum Fail {
    Prefixed(String),
    Raw(String),
}

impl From<String> for Fail {
    fn from(s: String) -> Fail {
        Fail::Prefixed(s)
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        match e {
            Error::Whole(m) => Fail::Raw(m),
            e => Fail::Prefixed(e.to_string()),
        }
    }
}

fn run(args: &Args, out: &mut Out, core: Core, two: bool) -> Result<()> {
    match build(args, out, core, two) {
        Ok(()) => Ok(()),
        Err(Fail::Prefixed(e)) => Err(Error::invalid(e)),
        Err(Fail::Raw(e)) => Err(Error::whole(e)),
    }
}

fn build(args: &Args, out: &mut Out, core: Core, two: bool) -> std::result::Result<(), Fail> {
    let name = if two { "Lut2" } else { "Lut" };
    let (a, b) = if two { (args.node("clipa")?, Some(args.node("clipb")?)) } else { (args.node("clip")?, None) };
    let va = util::video_info(&a)?;
    let vb = match &b {
        Some(b) => Some(util::video_info(b)?),
        None => None,
    };
    if !util::is_constant(&va) || vb.as_ref().is_some_and(|v| !util::is_constant(v)) {
        return Err("only clips with constant format and dimensions supported".to_string().into());
    }
    let int16 = |f: &VSVideoFormat| f.sampleType == stInteger && f.bitsPerSample <= 16;
    match &vb {
        None => {
            if !int16(&va.format) {
                return Err("only clips with integer samples and up to 16 bits per channel precision supported".to_string().into());
            }
        }
        Some(vb) => {
            let ok = int16(&va.format)
                && int16(&vb.format)
                && va.width == vb.width
                && va.height == vb.height
                && va.format.subSamplingW == vb.format.subSamplingW
                && va.format.subSamplingH == vb.format.subSamplingH
                && va.format.bitsPerSample + vb.format.bitsPerSample <= 20;
            if !ok {
                return Err("only clips with integer samples, same dimensions, same subsampling and up to a total of 20 indexing bits supported"
                    .to_string()
                    .into());
            }
        }
    }
    let fmt = va.format;
    let floatout = args.bool("floatout", false)?;
    let bits = args.int("bits")?.unwrap_or(if floatout { 32 } else { fmt.bitsPerSample as i64 });
    let ofmt = match (floatout, bits) {
        (true, 32) => core.query_video_format(fmt.colorFamily, stFloat, 32, fmt.subSamplingW, fmt.subSamplingH),
        (false, 8..=16) => core.query_video_format(fmt.colorFamily, stInteger, bits as i32, fmt.subSamplingW, fmt.subSamplingH),
        _ => None,
    }
    .ok_or_else(|| "only 8-16 bit integer and 32 bit float output supported".to_string())?;
    let planes = planes_list(args, "planes")?.map_err(|e| {
        Fail::Raw(match e {
            PlanesError::Range => format!("{name} plane index out of range"),
            PlanesError::Twice => format!("{name} plane specified twice"),
        })
    })?;
    // an empty list is a list given (and of the wrong length)
    let lut = if args.contains("lut") { Some(args.get_ints("lut")?) } else { None };
    let lutf = if args.contains("lutf") { Some(args.get_floats("lutf")?) } else { None };
    let func = args.function("function")?;
    let given = lut.is_some() as u32 + lutf.is_some() as u32 + func.is_some() as u32;
    if given > 1 {
        return Err("more than one of lut, lutf and function are set".to_string().into());
    }
    if given == 0 {
        return Err("none of lut, lutf and function are set".to_string().into());
    }
    if lut.is_some() && floatout {
        return Err("lut set but float output specified".to_string().into());
    }
    if lutf.is_some() && !floatout {
        return Err("lutf set but float output not specified".to_string().into());
    }
    let bits_a = fmt.bitsPerSample;
    let bits_b = vb.map_or(0, |v| v.format.bitsPerSample);
    let entries = 1usize << (bits_a + bits_b);
    let limit = 1i64 << ofmt.bitsPerSample;
    let table = if let Some(l) = &lut {
        if l.len() != entries {
            return Err(format!("bad lut length. Expected {entries} elements, got {} instead", l.len()).into());
        }
        if let Some(&v) = l.iter().find(|&&v| v < 0 || v >= limit) {
            return Err(format!("lut value {v} out of valid range [0,{limit}]").into());
        }
        Table::Int(l.iter().map(|&v| v as u16).collect())
    } else if let Some(l) = &lutf {
        if l.len() != entries {
            return Err(format!("bad lut length. Expected {entries} elements, got {} instead", l.len()).into());
        }
        Table::Float(l.iter().map(|&v| v as f32).collect())
    } else {
        let func = func.expect("one of the three is set");
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        for i in 0..entries {
            let (x, y) = (i & ((1 << bits_a) - 1), i >> bits_a);
            let got = func.call_xy(x as i64, two.then_some(y as i64));
            let call = if two { format!("function({x}, {y})") } else { format!("function({x})") };
            let got = match got {
                Ok(v) => v,
                // Lut passes the function's message on as it is; Lut2 says where it came from
                Err(e) => return Err(if two { Fail::Prefixed(format!("{call} returned an error: {e}")) } else { Fail::Raw(e) }),
            };
            if floatout {
                let v = match got {
                    Value::Float(v) => Some(v),
                    _ => None,
                };
                match (v, two) {
                    (Some(v), _) => floats.push(v as f32),
                    (None, true) => return Err(format!("{call} didn't return a float value").into()),
                    (None, false) => return Err(format!("{call} returned invalid value: {:.6}", 0.0).into()),
                }
            } else {
                let v = match got {
                    Value::Int(v) => Some(v),
                    _ => None,
                };
                match (v, two) {
                    (Some(v), _) if v >= 0 && v < limit => ints.push(v as u16),
                    (Some(v), true) => return Err(format!("{call} returned invalid value: {v}, max allowed: {limit}").into()),
                    (Some(v), false) => return Err(format!("{call} returned invalid value: {v}").into()),
                    (None, true) => return Err(format!("{call} didn't return an integer value").into()),
                    (None, false) => return Err(format!("{call} returned invalid value: 0").into()),
                }
            }
        }
        if floatout {
            Table::Float(floats)
        } else {
            Table::Int(ints)
        }
    };
    let np = fmt.numPlanes as usize;
    if ofmt != fmt && (0..np).any(|p| !planes[p]) {
        return Err("every plane must be processed when bits or floatout changes the sample storage, since an unprocessed plane cannot be passed through unchanged"
            .to_string()
            .into());
    }
    let mut ovi = va;
    ovi.format = ofmt;
    let table = Arc::new(table);
    let mut inputs = vec![a];
    if let Some(b) = b {
        inputs.push(b);
    }
    let fmt_b = vb.map(|v| v.format);
    let node = pointwise_node(core, name, ovi, inputs, Patterns::Strict, move |frames, core| {
        let fa = &frames[0];
        let mut dst = new_frame_like(core, &ofmt, fa, &planes)?;
        for p in 0..np {
            if !planes[p] {
                continue;
            }
            let sa = PlaneRef::new(fa, p)?;
            let mut d = PlaneMut::output(&mut dst, p, false)?;
            let (w, h) = (d.width, d.height);
            // the common cases straight from the samples, the rest through an index row
            match (&*table, fmt_b.is_none(), fmt.bytesPerSample, ofmt.bytesPerSample, ofmt.sampleType) {
                (Table::Int(t), true, 1, 1, stInteger) => {
                    let t: [u8; 256] = std::array::from_fn(|i| t[i] as u8);
                    for y in 0..h {
                        table8::apply(&t, sa.row::<u8>(y), d.row::<u8>(y));
                    }
                    continue;
                }
                (Table::Int(t), true, 2, 2, stInteger) => {
                    let mut full = vec![0u16; 65536];
                    for (i, v) in full.iter_mut().enumerate() {
                        *v = t[i & (t.len() - 1)];
                    }
                    let full: &[u16; 65536] = full[..].try_into().expect("full table");
                    for y in 0..h {
                        for (o, &x) in d.row::<u16>(y).iter_mut().zip(sa.row::<u16>(y)) {
                            *o = full[x as usize];
                        }
                    }
                    continue;
                }
                _ => {}
            }
            let mut idx = vec![0u32; w];
            let mut ib = vec![0u32; w];
            let amask = (1u32 << bits_a) - 1;
            for y in 0..h {
                read_index(&sa, fmt.bytesPerSample, y, &mut idx, amask);
                if let Some(fb_fmt) = &fmt_b {
                    let sb = PlaneRef::new(&frames[1], p)?;
                    let bmask = (1u32 << bits_b) - 1;
                    read_index(&sb, fb_fmt.bytesPerSample, y, &mut ib, bmask);
                    for (i, &b) in idx.iter_mut().zip(&ib) {
                        *i |= b << bits_a;
                    }
                }
                match &*table {
                    Table::Float(t) => {
                        for (o, &i) in d.row::<f32>(y).iter_mut().zip(&idx) {
                            *o = t[i as usize];
                        }
                    }
                    Table::Int(t) if ofmt.bytesPerSample == 1 => {
                        for (o, &i) in d.row::<u8>(y).iter_mut().zip(&idx) {
                            *o = t[i as usize] as u8;
                        }
                    }
                    Table::Int(t) => {
                        for (o, &i) in d.row::<u16>(y).iter_mut().zip(&idx) {
                            *o = t[i as usize];
                        }
                    }
                }
            }
        }
        Ok(dst.freeze())
    })?;
    out.set_node("clip", node);
    Ok(())
}

/// Sample values of a row as table indices (values above the format's range wrap into it).
fn read_index(s: &PlaneRef, bytes: i32, y: usize, out: &mut [u32], mask: u32) {
    if bytes == 1 {
        for (o, &v) in out.iter_mut().zip(s.row::<u8>(y)) {
            *o = v as u32 & mask;
        }
    } else {
        for (o, &v) in out.iter_mut().zip(s.row::<u16>(y)) {
            *o = v as u32 & mask;
        }
    }
}
