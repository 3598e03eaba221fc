//! std.AudioResample: sample type and bit depth conversion, channel layout conversion (a downmix /
//! upmix matrix) and sample rate conversion, as R81 does them.
//!
//! Integer samples are handled as 32-bit words (16-bit ones shifted up), so a conversion that keeps
//! or adds precision copies the word and one that drops precision rounds half away from zero (after
//! adding dither, when asked) and clamps. Float is the sample scaled to [-1, 1).
//!
//! Rate conversion is polyphase: the ratio reduces to L/M, output sample j sits at input position
//! j*M/L, and its taps are a Kaiser windowed sinc (beta 9, cutoff 0.91 of the lower Nyquist, 64 zero
//! crossings each side at the lower rate) normalised per phase to unit gain and stored as single
//! precision; the inputs, converted to single precision, are summed in double precision in input
//! order, with silence beyond both ends of the clip.
//!
//! Dither noise is R81's: one SplitMix64 step per output sample, keyed by the channel index and the
//! absolute output position (see `dither_noise`), so it is the same whatever the thread count or
//! frame order. An output channel that no input channel feeds is left silent, without noise.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, AudioSpec, Filter};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::values::MapRead;
use vsvk_plugin_api::{Error, Result};

use super::{audio_info, frame_len, frames_for, new_audio, sample_kind, Clipping, SampleKind, FRAME, MAX_SAMPLES};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dither {
    None,
    Rectangular,
    Triangular,
}

/// The polyphase filter for a ratio L/M (output rate / input rate, reduced).
struct Poly {
    l: i64,
    m: i64,
    /// Half width in input samples: taps k from -(nin-1) to nin around the input position.
    nin: i64,
    /// Per phase, the taps for k = -(nin-1) ..= nin (2*nin values, zero where outside the window).
    taps: Vec<Vec<f32>>,
}

const MAX_PHASES: i64 = 65536;
const MAX_HALF_WIDTH: i64 = 4096;

fn bessel_i0(x: f64) -> f64 {
    let (mut s, mut t, mut k) = (1.0f64, 1.0f64, 1.0f64);
    loop {
        let q = x / (2.0 * k);
        t *= q * q;
        s += t;
        k += 1.0;
        if t < 1e-17 * s {
            return s;
        }
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Poly {
    fn new(rin: i64, rout: i64) -> Result<Poly> {
        let g = gcd(rin, rout);
        let (l, m) = (rout / g, rin / g);
        if l > MAX_PHASES {
            return Err(Error::invalid("the sample rate ratio reduces to a fraction with too many phases to build a filter for"));
        }
        // 64 zero crossings each side at the lower of the two rates, in input samples
        let nin = if m > l { (64 * m + l - 1) / l } else { 64 };
        if nin > MAX_HALF_WIDTH {
            return Err(Error::invalid("the sample rate ratio requires an impractically long filter, convert in several steps instead"));
        }
        let scale = if m > l { l as f64 / m as f64 } else { 1.0 };
        let fc = 0.91f64;
        let ib = bessel_i0(9.0);
        let nf = nin as f64;
        let mut taps = Vec::with_capacity(l as usize);
        for phase in 0..l {
            let mut v = Vec::with_capacity(2 * nin as usize);
            for k in -(nin - 1)..=nin {
                let t = (k * l - phase) as f64 / l as f64;
                if t.abs() >= nf {
                    v.push(0.0f64);
                    continue;
                }
                let u = t * scale;
                let s = if u != 0.0 { fc * (std::f64::consts::PI * fc * u).sin() / (std::f64::consts::PI * fc * u) } else { fc };
                let r = t / nf;
                v.push(s * bessel_i0(9.0 * (1.0 - r * r).sqrt()) / ib);
            }
            let sum: f64 = v.iter().sum();
            taps.push(v.iter().map(|&x| (x / sum) as f32).collect());
        }
        Ok(Poly { l, m, nin, taps })
    }
    /// The input range output samples [j0, j1) read: [first, last] (may reach outside the clip).
    fn input_range(&self, j0: i64, j1: i64) -> (i64, i64) {
        let first = (j0 * self.m) / self.l - (self.nin - 1);
        let last = ((j1 - 1) * self.m) / self.l + self.nin;
        (first, last)
    }
}

// ---- the channel matrix -----------------------------------------------------------------------------

const FL: u32 = 0;
const FR: u32 = 1;
const FC: u32 = 2;
const LFE: u32 = 3;
const BL: u32 = 4;
const BR: u32 = 5;
const FLC: u32 = 6;
const FRC: u32 = 7;
const BC: u32 = 8;
const SL: u32 = 9;
const SR: u32 = 10;
const TC: u32 = 11;
const TFL: u32 = 12;
const TFC: u32 = 13;
const TFR: u32 = 14;
const TBL: u32 = 15;
const TBC: u32 = 16;
const TBR: u32 = 17;
const LFE2: u32 = 35;

const SQRT1_2: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// The coefficients of input channel `c` in the output layout `out` (channel, weight).
fn spread(c: u32, out: u64) -> Vec<(u32, f64)> {
    let has = |ch: u32| out & (1u64 << ch) != 0;
    if has(c) {
        return vec![(c, 1.0)];
    }
    // Height channels count as the channel below them.
    let c = match c {
        TFL => FL,
        TFR => FR,
        TFC | TC => FC,
        TBL => BL,
        TBR => BR,
        TBC => BC,
        other => other,
    };
    if has(c) {
        return vec![(c, 1.0)];
    }
    let stereo = has(FL) && has(FR);
    match c {
        FC if has(FL) || has(FR) => [FL, FR].into_iter().filter(|&x| has(x)).map(|x| (x, SQRT1_2)).collect(),
        FL | FR if has(FC) => vec![(FC, SQRT1_2)],
        // a front channel whose side is missing goes to the other side
        FL if has(FR) => vec![(FR, SQRT1_2)],
        FR if has(FL) => vec![(FL, SQRT1_2)],
        LFE if has(LFE2) => vec![(LFE2, 1.0)],
        LFE2 if has(LFE) => vec![(LFE, 1.0)],
        FLC if has(FL) => vec![(FL, 1.0)],
        FRC if has(FR) => vec![(FR, 1.0)],
        FLC | FRC if has(FC) => vec![(FC, 1.0)],
        BL | BR | SL | SR => {
            let left = c == BL || c == SL;
            let (side, back, front) = if left { (SL, BL, FL) } else { (SR, BR, FR) };
            if c == back && has(side) {
                vec![(side, 1.0)]
            } else if c == side && has(back) {
                vec![(back, 1.0)]
            } else if has(front) {
                vec![(front, SQRT1_2)]
            } else if has(FC) {
                vec![(FC, 0.5)]
            } else {
                Vec::new()
            }
        }
        BC => {
            if has(BL) && has(BR) {
                vec![(BL, SQRT1_2), (BR, SQRT1_2)]
            } else if has(SL) && has(SR) {
                vec![(SL, SQRT1_2), (SR, SQRT1_2)]
            } else if stereo {
                vec![(FL, 0.5), (FR, 0.5)]
            } else if has(FC) {
                vec![(FC, SQRT1_2)]
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// Rows (output channels, in layout order) of weights over the input channels (in layout order).
fn mix_matrix(inl: u64, outl: u64, normalize: bool) -> Vec<Vec<f64>> {
    let ins: Vec<u32> = (0..64).filter(|c| inl & (1u64 << c) != 0).collect();
    let outs: Vec<u32> = (0..64).filter(|c| outl & (1u64 << c) != 0).collect();
    let mut rows = vec![vec![0.0f64; ins.len()]; outs.len()];
    for (i, &c) in ins.iter().enumerate() {
        for (o, w) in spread(c, outl) {
            let oi = outs.iter().position(|&x| x == o).expect("spread targets output channels");
            rows[oi][i] += w;
        }
    }
    if normalize {
        let max = rows.iter().map(|r| r.iter().map(|w| w.abs()).sum::<f64>()).fold(0.0f64, f64::max);
        if max > 1.0 {
            for r in rows.iter_mut() {
                for w in r.iter_mut() {
                    *w /= max;
                }
            }
        }
    }
    rows
}

// ---- sample conversion ------------------------------------------------------------------------------

/// Integer samples as 32-bit words (16-bit ones shifted up 16).
fn read_words(f: &Frame, c: usize, out: &mut Vec<i64>) {
    let b = f.channel_bytes(c as i32);
    match sample_kind(&f.audio_format().expect("audio frame")) {
        SampleKind::I16 => out.extend(b.chunks_exact(2).map(|s| (i16::from_ne_bytes([s[0], s[1]]) as i64) << 16)),
        _ => out.extend(b.chunks_exact(4).map(|s| i32::from_ne_bytes([s[0], s[1], s[2], s[3]]) as i64)),
    }
}

/// Samples as single precision in [-1, 1).
fn read_float(f: &Frame, c: usize, out: &mut Vec<f32>) {
    let fmt = f.audio_format().expect("audio frame");
    if fmt.sampleType == stFloat {
        out.extend(super::read_f32(f, c));
    } else {
        let mut w = Vec::new();
        read_words(f, c, &mut w);
        out.extend(w.iter().map(|&x| (x as f64 / 2147483648.0) as f32));
    }
}

/// SplitMix64's output function (the finaliser applied to its state).
fn splitmix_finish(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The noise added before rounding to the output's lowest bit, in units of that bit. R81 draws it,
/// per output channel index and absolute output sample position, from one SplitMix64 step: the state
/// is the position plus the channel's count of steps (one more than its index) of the golden gamma,
/// so any frame can be made independently. Rectangular noise is the low 32 bits as a fraction less
/// one half; triangular is the low fraction less the high one, which spans (-1, 1).
fn dither_noise(d: Dither, channel: usize, pos: i64) -> f64 {
    if d == Dither::None {
        return 0.0;
    }
    let state = (pos as u64).wrapping_add(GOLDEN_GAMMA.wrapping_mul(channel as u64 + 1));
    let h = splitmix_finish(state);
    let lo = (h & 0xffff_ffff) as f64 * (1.0 / 4294967296.0);
    match d {
        Dither::Rectangular => lo - 0.5,
        _ => lo - (h >> 32) as f64 * (1.0 / 4294967296.0),
    }
}

/// Writes one output channel. `value(i)` gives sample i either as a 32-bit word (integer input kept
/// as integers) or as a float in [-1, 1). Returns whether anything was clamped.
enum Source<'a> {
    Words(&'a [i64], i32),
    Float(&'a [f32]),
}

fn write_output(f: &mut FrameMut, c: usize, src: Source, dither: Dither, first: i64) -> bool {
    let fmt = f.audio_format().expect("audio frame");
    let out = f.channel_bytes_mut(c as i32);
    let bits = fmt.bitsPerSample;
    let mut clipped = false;
    if fmt.sampleType == stFloat {
        for (i, d) in out.chunks_exact_mut(4).enumerate() {
            let v = match &src {
                Source::Words(w, _) => (w[i] as f64 / 2147483648.0) as f32,
                Source::Float(x) => x[i],
            };
            d.copy_from_slice(&v.to_ne_bytes());
        }
        return false;
    }
    let max = (1i64 << (bits - 1)) - 1;
    let min = -(1i64 << (bits - 1));
    for i in 0..fmt_len(out.len(), &fmt) {
        let s: i64 = match &src {
            Source::Words(w, in_bits) if *in_bits <= bits => {
                // no precision is lost: the word as it is
                let word = w[i];
                if bits == 16 {
                    word >> 16
                } else {
                    word >> (32 - bits)
                }
            }
            Source::Words(w, _) => {
                let v = w[i] as f64 / (1u64 << (32 - bits)) as f64 + dither_noise(dither, c, first + i as i64);
                let r = v.round();
                if r > max as f64 {
                    clipped = true;
                    max
                } else if r < min as f64 {
                    clipped = true;
                    min
                } else {
                    r as i64
                }
            }
            Source::Float(x) => {
                let v = x[i] as f64 * (1u64 << (bits - 1)) as f64 + dither_noise(dither, c, first + i as i64);
                let r = v.round();
                if r > max as f64 {
                    clipped = true;
                    max
                } else if r < min as f64 {
                    clipped = true;
                    min
                } else if r.is_nan() {
                    0
                } else {
                    r as i64
                }
            }
        };
        if fmt.bytesPerSample == 2 {
            out[i * 2..i * 2 + 2].copy_from_slice(&(s as i16).to_ne_bytes());
        } else {
            let word = if bits == 32 { s as i32 } else { (s << (32 - bits)) as i32 };
            out[i * 4..i * 4 + 4].copy_from_slice(&word.to_ne_bytes());
        }
    }
    clipped
}

fn fmt_len(bytes: usize, fmt: &VSAudioFormat) -> usize {
    bytes / fmt.bytesPerSample as usize
}

// ---- the filter ---------------------------------------------------------------------------------------

struct Resample {
    in_ai: VSAudioInfo,
    out_ai: VSAudioInfo,
    matrix: Option<Vec<Vec<f32>>>,
    poly: Option<Poly>,
    dither: Dither,
    clipping: Clipping,
}

impl Resample {
    /// Input frames to request for output frame n, and the frame whose properties the output takes.
    fn plan(&self, n: i32) -> (Vec<i32>, i32) {
        let j0 = n as i64 * FRAME;
        let j1 = j0 + frame_len(self.out_ai.numSamples, n) as i64;
        let last_frame = self.in_ai.numFrames - 1;
        match &self.poly {
            None => (vec![n], n),
            Some(p) => {
                let (a, b) = p.input_range(j0, j1);
                let a = a.clamp(0, self.in_ai.numSamples - 1);
                let b = b.min(self.in_ai.numSamples - 1);
                // the frame holding the first input sample the filter reads
                let props = ((a / FRAME).min(last_frame as i64)) as i32;
                let frames: Vec<i32> = if a > b { vec![props] } else { ((a / FRAME) as i32..=(b / FRAME) as i32).collect() };
                (frames, props)
            }
        }
    }
}

impl Resample {
    /// The frames requested for output frame n: those the filter reads, then the properties'
    /// source where it is not among them.
    fn wanted(&self, n: i32) -> (Vec<i32>, i32) {
        let (mut frames, props) = self.plan(n);
        if !frames.contains(&props) {
            frames.push(props);
        }
        (frames, props)
    }
}

impl Filter for Resample {
    fn requests(&self, n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        self.wanted(n).0.into_iter().map(|m| (0, m)).collect()
    }

    fn get_frame(&self, n: i32, got: Vec<Frame>, core: Core) -> Result<Frame> {
        let (frames, props) = self.wanted(n);
        let get = |m: i32| -> Result<&Frame> {
            frames.iter().position(|&w| w == m).and_then(|p| got.get(p)).ok_or_else(|| Error::invalid("internal error: a requested frame is missing"))
        };
        let len = frame_len(self.out_ai.numSamples, n);
        let j0 = n as i64 * FRAME;
        let props_frame = get(props)?;
        let mut out = new_audio(core, &self.out_ai.format, len, Some(props_frame))?;
        let nin = self.in_ai.format.numChannels as usize;
        let nout = self.out_ai.format.numChannels as usize;
        let mut clipped = false;
        if self.poly.is_none() && self.matrix.is_none() {
            // one to one: convert each channel directly
            let src = get(n)?;
            let in_float = self.in_ai.format.sampleType == stFloat;
            for c in 0..nout {
                if in_float {
                    let mut x = Vec::with_capacity(len);
                    read_float(src, c, &mut x);
                    clipped |= write_output(&mut out, c, Source::Float(&x), self.dither, j0);
                } else {
                    let mut w = Vec::with_capacity(len);
                    read_words(src, c, &mut w);
                    clipped |= write_output(&mut out, c, Source::Words(&w, self.in_ai.format.bitsPerSample), self.dither, j0);
                }
            }
        } else {
            // through single precision: input samples (over the range the filter needs) per channel
            let (start, count) = match &self.poly {
                None => (j0, len as i64),
                Some(p) => {
                    let (a, b) = p.input_range(j0, j0 + len as i64);
                    (a, b - a + 1)
                }
            };
            let mut ins: Vec<Vec<f32>> = vec![vec![0.0f32; count as usize]; nin];
            for &m in &frames {
                let f = get(m)?;
                let fstart = m as i64 * FRAME;
                let flen = f.length() as i64;
                let a = start.max(fstart);
                let b = (start + count).min(fstart + flen);
                if a >= b {
                    continue;
                }
                for (c, dst) in ins.iter_mut().enumerate() {
                    let mut x = Vec::with_capacity(flen as usize);
                    read_float(f, c, &mut x);
                    dst[(a - start) as usize..(b - start) as usize].copy_from_slice(&x[(a - fstart) as usize..(b - fstart) as usize]);
                }
            }
            // channel matrix
            let chans: Vec<Vec<f32>> = match &self.matrix {
                None => ins,
                Some(rows) => rows
                    .iter()
                    .map(|row| {
                        (0..count as usize)
                            .map(|i| {
                                // fused multiply-adds in single precision, in input channel order
                                let mut acc = 0.0f32;
                                for (src, &w) in ins.iter().zip(row) {
                                    acc = src[i].mul_add(w, acc);
                                }
                                acc
                            })
                            .collect()
                    })
                    .collect(),
            };
            for (c, x) in chans.iter().enumerate() {
                let y: Vec<f32> = match &self.poly {
                    None => x.clone(),
                    Some(p) => (0..len as i64)
                        .map(|i| {
                            let j = j0 + i;
                            let base = (j * p.m) / p.l;
                            let phase = ((j * p.m) % p.l) as usize;
                            let taps = &p.taps[phase];
                            let from = (base - (p.nin - 1) - start) as usize;
                            let mut acc = 0.0f64;
                            for (k, &t) in taps.iter().enumerate() {
                                acc += x[from + k] as f64 * t as f64;
                            }
                            acc as f32
                        })
                        .collect(),
                };
                // R81 leaves an output channel that no input channel feeds silent, undithered
                let silent = self.matrix.as_ref().is_some_and(|rows| rows[c].iter().all(|&w| w == 0.0));
                let dither = if silent { Dither::None } else { self.dither };
                clipped |= write_output(&mut out, c, Source::Float(&y), dither, j0);
            }
        }
        if clipped {
            self.clipping.report(core, n, len)?;
        }
        Ok(out.freeze())
    }
}

pub fn audio_resample(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let rate = a.int("samplerate")?.unwrap_or(ai.sampleRate as i64);
    if rate <= 0 {
        return Err(Error::invalid("samplerate must be positive"));
    }
    let st = match a.int("sampletype")? {
        Some(0) => stInteger,
        Some(_) => stFloat,
        None => ai.format.sampleType,
    };
    let bits = match a.int("bits")? {
        Some(b) => b,
        None if st == stFloat => 32,
        None => ai.format.bitsPerSample as i64,
    };
    let mut layout = ai.format.channelLayout;
    if let Some(chs) = a.ints("channels")? {
        layout = 0;
        for c in chs {
            if !(0..64).contains(&c) {
                return Err(Error::invalid("channel number out of range (0-63)"));
            }
            if layout & (1u64 << c) != 0 {
                return Err(Error::invalid("channel specified twice"));
            }
            layout |= 1u64 << c;
        }
    }
    let dither_type = a.get_data("dither_type", 0).ok().map(|d| d.to_str_lossy());
    let dither = match dither_type.as_deref() {
        None | Some("triangular") => Dither::Triangular,
        Some("none") => Dither::None,
        Some("rectangular") => Dither::Rectangular,
        Some(_) => return Err(Error::invalid("invalid dither_type, must be none, rectangular or triangular")),
    };
    let fmt = i32::try_from(bits).ok().and_then(|b| core.query_audio_format(st, b, layout)).ok_or_else(|| Error::invalid("invalid output format specified"))?;
    if rate > i32::MAX as i64 {
        // R81 keeps the rate in an int; one that does not fit never makes a usable ratio
        return Err(Error::invalid("the sample rate ratio reduces to a fraction with too many phases to build a filter for"));
    }
    // R81 scales a matrix down to avoid clipping by default only for integer output
    let normalize = a.int("normalize")?.map_or(st == stInteger, |v| v != 0);
    let overflow_error = a.bool("overflow_error", false)?;
    let poly = if rate != ai.sampleRate as i64 { Some(Poly::new(ai.sampleRate as i64, rate)?) } else { None };
    let matrix = if layout != ai.format.channelLayout {
        Some(mix_matrix(ai.format.channelLayout, layout, normalize).into_iter().map(|r| r.into_iter().map(|w| w as f32).collect()).collect())
    } else {
        None
    };
    let mut out_ai = ai;
    out_ai.format = fmt;
    out_ai.sampleRate = rate as i32;
    if let Some(p) = &poly {
        let total = (ai.numSamples as i128 * p.l as i128 + p.m as i128 - 1) / p.m as i128;
        if total > MAX_SAMPLES as i128 || total <= 0 {
            return Err(Error::invalid("the resampled clip length is out of range"));
        }
        out_ai.numSamples = total as i64;
        out_ai.numFrames = frames_for(out_ai.numSamples);
    }
    if poly.is_none() && matrix.is_none() && fmt == ai.format {
        out.set_node("clip", clip);
        return Ok(());
    }
    let filter = Resample { in_ai: ai, out_ai, matrix, poly, dither, clipping: Clipping::new("AudioResample", overflow_error) };
    let spec = AudioSpec { name: "AudioResample".into(), info: out_ai, inputs: vec![clip] };
    // without a rate change output frame n is made from input frame n alone
    let pattern = if filter.poly.is_none() { rpStrictSpatial } else { rpGeneral };
    filter::create_audio(out, core, spec, Some(&[pattern]), filter);
    Ok(())
}
