//! Audio: AudioGain, AudioMix, AudioSplice, AudioTrim, AudioLoop, AudioReverse, AudioResample,
//! ShuffleChannels, SplitChannels, AssumeSampleRate, SetAudioCache.
//!
//! Samples as R81 treats them: 16-bit and 32-bit integers as they are, 24-bit integers in the high
//! 24 bits of 32-bit words (the value is the word divided by 256), float as it is. Integer results
//! are rounded half away from zero and clamped; a clamped sample is "clipping", an error with
//! overflow_error=1 and otherwise a warning logged once per filter.
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::util::{audio_info, make_node, set_clip, Args};
use crate::core::Core;
use crate::frame::Frame;
use crate::map::{Map, Value};
use crate::node::{Filter, MediaInfo, Node};
use crate::scheduler::FrameCall;

mod resample;

pub const FRAME: i64 = VS_AUDIO_FRAME_SAMPLES as i64;
/// The longest clip: as many full frames as an int can count.
const MAX_SAMPLES: i64 = i32::MAX as i64 * FRAME;

pub fn register(r: &super::Registrar) {
    r.add("AudioGain", "clip:anode;gain:float[];overflow_error:int:opt;", "clip:anode;", audio_gain);
    r.add("AudioMix", "clips:anode[];matrix:float[];channels_out:int[];overflow_error:int:opt;", "clip:anode;", audio_mix);
    r.add("AudioSplice", "clips:anode[];", "clip:anode;", audio_splice);
    r.add("AudioTrim", "clip:anode;first:int:opt;last:int:opt;length:int:opt;", "clip:anode;", audio_trim);
    r.add("AudioLoop", "clip:anode;times:int:opt;", "clip:anode;", audio_loop);
    r.add("AudioReverse", "clip:anode;", "clip:anode;", audio_reverse);
    r.add(
        "AudioResample",
        "clip:anode;samplerate:int:opt;sampletype:int:opt;bits:int:opt;channels:int[]:opt;dither_type:data:opt;normalize:int:opt;overflow_error:int:opt;",
        "clip:anode;",
        resample::audio_resample,
    );
    r.add("ShuffleChannels", "clips:anode[];channels_in:int[];channels_out:int[];", "clip:anode;", shuffle_channels);
    r.add("SplitChannels", "clip:anode;", "clip:anode[];", split_channels);
    r.add("AssumeSampleRate", "clip:anode;src:anode:opt;samplerate:int:opt;", "clip:anode;", assume_sample_rate);
    r.add("SetAudioCache", "clip:anode;mode:int:opt;fixedsize:int:opt;maxsize:int:opt;maxhistory:int:opt;", "", set_audio_cache);
}

// ---- samples ------------------------------------------------------------------------------------

/// How a format's samples are stored.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SampleKind {
    I16,
    I24,
    I32,
    F32,
}

pub fn sample_kind(f: &VSAudioFormat) -> SampleKind {
    match (f.sampleType, f.bitsPerSample) {
        (stFloat, _) => SampleKind::F32,
        (_, 16) => SampleKind::I16,
        (_, 24) => SampleKind::I24,
        _ => SampleKind::I32,
    }
}

pub fn frames_for(samples: i64) -> i32 {
    ((samples + FRAME - 1) / FRAME) as i32
}

/// Samples in frame `n` of a clip of `total` samples.
pub fn frame_len(total: i64, n: i32) -> usize {
    (total - n as i64 * FRAME).clamp(0, FRAME) as usize
}

pub fn channel_bytes(f: &Frame, c: usize) -> &[u8] {
    let bps = f.audio_format().expect("audio frame").bytesPerSample as usize;
    let p = f.read_ptr(c as i32).expect("channel exists");
    // SAFETY: the channel holds `width` samples of `bps` bytes.
    unsafe { std::slice::from_raw_parts(p, f.width as usize * bps) }
}

pub fn channel_bytes_mut(f: &mut Frame, c: usize) -> &mut [u8] {
    let bps = f.audio_format().expect("audio frame").bytesPerSample as usize;
    let len = f.width as usize * bps;
    // SAFETY: `&mut Frame` is a frame this filter owns; the channel holds `len` bytes.
    unsafe { std::slice::from_raw_parts_mut(f.write_ptr(c as i32).expect("channel exists"), len) }
}

/// Channel `c` of `f` as values (24-bit ones divided by 256, so they are in 24-bit units).
pub fn read_channel(f: &Frame, c: usize, out: &mut Vec<f64>) {
    out.clear();
    let b = channel_bytes(f, c);
    match sample_kind(f.audio_format().expect("audio frame")) {
        SampleKind::I16 => out.extend(b.chunks_exact(2).map(|s| i16::from_ne_bytes([s[0], s[1]]) as f64)),
        SampleKind::I24 => out.extend(b.chunks_exact(4).map(|s| i32::from_ne_bytes([s[0], s[1], s[2], s[3]]) as f64 / 256.0)),
        SampleKind::I32 => out.extend(b.chunks_exact(4).map(|s| i32::from_ne_bytes([s[0], s[1], s[2], s[3]]) as f64)),
        SampleKind::F32 => out.extend(b.chunks_exact(4).map(|s| f32::from_ne_bytes([s[0], s[1], s[2], s[3]]) as f64)),
    }
}

pub fn read_f32(f: &Frame, c: usize) -> Vec<f32> {
    channel_bytes(f, c).chunks_exact(4).map(|s| f32::from_ne_bytes([s[0], s[1], s[2], s[3]])).collect()
}

/// Rounds (half away from zero) and clamps to an integer format; true when the value was clamped.
pub fn to_int(v: f64, bits: i32) -> (i64, bool) {
    let r = v.round();
    let max = ((1i64 << (bits - 1)) - 1) as f64;
    let min = -((1i64 << (bits - 1)) as f64);
    if r > max {
        (max as i64, true)
    } else if r < min {
        (min as i64, true)
    } else if r.is_nan() {
        (0, false)
    } else {
        (r as i64, false)
    }
}

/// Writes values into channel `c` of a new frame: integers rounded and clamped (reporting whether any
/// was clamped), float converted to single precision.
pub fn write_channel(f: &mut Frame, c: usize, values: &[f64]) -> bool {
    let kind = sample_kind(f.audio_format().expect("audio frame"));
    let out = channel_bytes_mut(f, c);
    let mut clipped = false;
    match kind {
        SampleKind::I16 => {
            for (d, &v) in out.chunks_exact_mut(2).zip(values) {
                let (s, cl) = to_int(v, 16);
                clipped |= cl;
                d.copy_from_slice(&(s as i16).to_ne_bytes());
            }
        }
        SampleKind::I24 => {
            for (d, &v) in out.chunks_exact_mut(4).zip(values) {
                let (s, cl) = to_int(v, 24);
                clipped |= cl;
                d.copy_from_slice(&((s as i32) << 8).to_ne_bytes());
            }
        }
        SampleKind::I32 => {
            for (d, &v) in out.chunks_exact_mut(4).zip(values) {
                let (s, cl) = to_int(v, 32);
                clipped |= cl;
                d.copy_from_slice(&(s as i32).to_ne_bytes());
            }
        }
        SampleKind::F32 => {
            for (d, &v) in out.chunks_exact_mut(4).zip(values) {
                d.copy_from_slice(&(v as f32).to_ne_bytes());
            }
        }
    }
    clipped
}

pub fn new_audio(core: &Core, fmt: &VSAudioFormat, len: usize, props: Option<&Frame>) -> Result<Frame, String> {
    let f = Frame::new_audio(fmt, len as i32, &core.mem).map_err(|e| e.to_string())?;
    if let Some(src) = props {
        // SAFETY: `f` is new and unshared.
        unsafe { *f.props_mut() = src.props().clone() };
    }
    Ok(f)
}

/// The clipping report: an error with overflow_error, else a warning logged the first time.
pub struct Clipping {
    pub name: &'static str,
    pub error: bool,
    pub warned: AtomicBool,
}

impl Clipping {
    pub fn new(name: &'static str, error: bool) -> Clipping {
        Clipping { name, error, warned: AtomicBool::new(false) }
    }
    pub fn report(&self, core: &Core, n: i32, len: usize) -> Result<(), String> {
        let first = n as i64 * FRAME;
        let last = first + len as i64 - 1;
        if self.error {
            return Err(format!("clipping detected in the sample interval {first} to {last}"));
        }
        if !self.warned.swap(true, Ordering::Relaxed) {
            core.log_message(
                mtWarning,
                &format!(
                    "{}: clipping detected in the sample interval {first} to {last}, only the first encountered clipped segment has a warning printed",
                    self.name
                ),
            );
        }
        Ok(())
    }
}

/// A simple audio filter: output frame n is made from the frames `requests(n)` names.
struct AudioFn {
    inputs: Vec<Arc<Node>>,
    requests: Box<dyn Fn(i32) -> Vec<(usize, i32)> + Send + Sync>,
    make: Box<dyn Fn(i32, &[Arc<Frame>], &Arc<Core>) -> Result<Arc<Frame>, String> + Send + Sync>,
}

impl Filter for AudioFn {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        let wanted = (self.requests)(n);
        if reason == arInitial {
            for &(i, m) in &wanted {
                call.request(&self.inputs[i], m);
            }
            return Ok(None);
        }
        if reason != arAllFramesReady {
            return Ok(None);
        }
        let frames: Vec<Arc<Frame>> = wanted
            .iter()
            .map(|&(i, m)| call.get(&self.inputs[i], m).ok_or_else(|| "internal error: a requested frame is missing".to_string()))
            .collect::<Result<_, _>>()?;
        let core = call.core().clone();
        (self.make)(n, &frames, &core).map(Some)
    }
}

fn audio_node(core: &Arc<Core>, name: &str, ai: VSAudioInfo, filter: AudioFn, deps: Vec<(Arc<Node>, i32)>) -> Arc<Node> {
    make_node(core, name, MediaInfo::Audio(ai), Box::new(filter), fmParallel, deps)
}

// ---- AudioGain, AudioMix ------------------------------------------------------------------------------

fn audio_gain(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let gain = a.floats("gain").unwrap_or_default();
    let nch = ai.format.numChannels as usize;
    if gain.len() != 1 && gain.len() != nch {
        return Err("must provide one gain value per channel or a single value used for all channels".into());
    }
    let gains: Vec<f64> = (0..nch).map(|c| if gain.len() == 1 { gain[0] } else { gain[c] }).collect();
    let clipping = Clipping::new("AudioGain", a.bool("overflow_error", false));
    let fmt = ai.format;
    let filter = AudioFn {
        inputs: vec![clip.clone()],
        requests: Box::new(|n| vec![(0, n)]),
        make: Box::new(move |n, frames, core| {
            let src = &frames[0];
            let len = src.width as usize;
            let mut f = new_audio(core, &fmt, len, Some(src))?;
            let mut clipped = false;
            let mut buf = Vec::with_capacity(len);
            for (c, &g) in gains.iter().enumerate() {
                if fmt.sampleType == stFloat {
                    let g = g as f32;
                    let v: Vec<f64> = read_f32(src, c).iter().map(|&x| (x * g) as f64).collect();
                    write_channel(&mut f, c, &v);
                } else {
                    read_channel(src, c, &mut buf);
                    for v in buf.iter_mut() {
                        *v *= g;
                    }
                    clipped |= write_channel(&mut f, c, &buf);
                }
            }
            if clipped {
                clipping.report(core, n, len)?;
            }
            Ok(Arc::new(f))
        }),
    };
    set_clip(out, audio_node(core, "AudioGain", ai, filter, vec![(clip, rpStrictSpatial)]));
    Ok(())
}

fn check_channel(c: i64) -> Result<u64, String> {
    if (0..64).contains(&c) {
        Ok(1u64 << c)
    } else {
        Err("channel number out of range (0-63)".into())
    }
}

fn audio_mix(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clips = a.nodes("clips");
    let matrix = a.floats("matrix").unwrap_or_default();
    let channels_out = a.ints("channels_out").unwrap_or_default();
    let first = audio_info(&clips[0])?;
    let mut nin = 0usize;
    for c in &clips {
        let ai = audio_info(c)?;
        if ai.numSamples != first.numSamples
            || ai.sampleRate != first.sampleRate
            || ai.format.bitsPerSample != first.format.bitsPerSample
            || ai.format.sampleType != first.format.sampleType
        {
            return Err("all inputs must have the same length, samplerate, bits per sample and sample type".into());
        }
        nin += ai.format.numChannels as usize;
    }
    let mut layout = 0u64;
    for &c in &channels_out {
        let bit = check_channel(c)?;
        if layout & bit != 0 {
            return Err("output channel specified twice".into());
        }
        layout |= bit;
    }
    let nout = channels_out.len();
    if matrix.len() != nin * nout {
        return Err("the number of matrix weights must equal (input channels * output channels)".into());
    }
    let fmt = crate::format::query_audio(first.format.sampleType, first.format.bitsPerSample, layout).ok_or("invalid output format")?;
    let mut ai = first;
    ai.format = fmt;
    // Output channel k (in layout order) is row j of the matrix, where channels_out[j] is that channel.
    let rows: Vec<Vec<f64>> = {
        let mut sorted: Vec<(i64, usize)> = channels_out.iter().enumerate().map(|(j, &c)| (c, j)).collect();
        sorted.sort();
        sorted.iter().map(|&(_, j)| matrix[j * nin..(j + 1) * nin].to_vec()).collect()
    };
    let clipping = Clipping::new("AudioMix", a.bool("overflow_error", false));
    let count = clips.len();
    let mut deps: Vec<(Arc<Node>, i32)> = Vec::new();
    for c in &clips {
        if !deps.iter().any(|(d, _)| Arc::ptr_eq(d, c)) {
            deps.push((c.clone(), rpStrictSpatial));
        }
    }
    let filter = AudioFn {
        inputs: clips,
        requests: Box::new(move |n| (0..count).map(|i| (i, n)).collect()),
        make: Box::new(move |n, frames, core| {
            let len = frames[0].width as usize;
            let mut ins: Vec<Vec<f64>> = Vec::with_capacity(nin);
            for f in frames {
                for c in 0..f.num_planes() {
                    let mut v = Vec::with_capacity(len);
                    read_channel(f, c, &mut v);
                    ins.push(v);
                }
            }
            let mut f = new_audio(core, &fmt, len, Some(&frames[0]))?;
            let mut clipped = false;
            let mut acc = vec![0.0f64; len];
            for (k, row) in rows.iter().enumerate() {
                acc.iter_mut().for_each(|v| *v = 0.0);
                for (src, &w) in ins.iter().zip(row) {
                    for (d, &s) in acc.iter_mut().zip(src) {
                        *d += s * w;
                    }
                }
                clipped |= write_channel(&mut f, k, &acc);
            }
            if clipped {
                clipping.report(core, n, len)?;
            }
            Ok(Arc::new(f))
        }),
    };
    set_clip(out, audio_node(core, "AudioMix", ai, filter, deps));
    Ok(())
}

// ---- gathering samples: splice, trim, loop, reverse, shuffle --------------------------------------

/// A run of output samples taken from one input: `len` samples starting at input sample `start`
/// (read backwards from `start + len - 1` when `reversed`), written at `dst` in the output frame.
#[derive(Clone, Copy)]
struct Run {
    input: usize,
    start: i64,
    len: usize,
    dst: usize,
    reversed: bool,
}

type Plan = Box<dyn Fn(i32) -> (Vec<Run>, (usize, i64)) + Send + Sync>;

/// Output frames made by copying runs of samples; `channels[k]` is the (input, input channel) for
/// output channel k, or None when every output channel k is input channel k of each run's input.
struct Gather {
    inputs: Vec<Arc<Node>>,
    ai: VSAudioInfo,
    plan: Plan,
    channels: Option<Vec<(usize, usize)>>,
}

impl Gather {
    /// The frames a run reads: (input, frame number).
    fn frames_of(&self, runs: &[Run], props: (usize, i64)) -> Vec<(usize, i32)> {
        let mut out: Vec<(usize, i32)> = Vec::new();
        let mut add = |i: usize, m: i32| {
            if !out.contains(&(i, m)) {
                out.push((i, m));
            }
        };
        add(props.0, (props.1 / FRAME) as i32);
        for r in runs {
            if r.len == 0 {
                continue;
            }
            let a = r.start / FRAME;
            let b = (r.start + r.len as i64 - 1) / FRAME;
            for m in a..=b {
                add(r.input, m as i32);
            }
        }
        out
    }
}

impl Filter for Gather {
    fn get_frame(&self, n: i32, reason: i32, _fd: &mut *mut c_void, call: &mut FrameCall) -> Result<Option<Arc<Frame>>, String> {
        let (runs, props) = (self.plan)(n);
        let wanted = self.frames_of(&runs, props);
        if reason == arInitial {
            for &(i, m) in &wanted {
                call.request(&self.inputs[i], m);
            }
            return Ok(None);
        }
        if reason != arAllFramesReady {
            return Ok(None);
        }
        let get = |i: usize, m: i32| call.get(&self.inputs[i], m).ok_or_else(|| "internal error: a requested frame is missing".to_string());
        let len = frame_len(self.ai.numSamples, n);
        let props_frame = get(props.0, (props.1 / FRAME) as i32)?;
        let core = call.core().clone();
        let mut f = new_audio(&core, &self.ai.format, len, Some(&props_frame))?;
        let bps = self.ai.format.bytesPerSample as usize;
        let nch = self.ai.format.numChannels as usize;
        for r in &runs {
            let mut done = 0usize;
            while done < r.len {
                // input sample for output position r.dst + done
                let s = if r.reversed { r.start + (r.len - 1 - done) as i64 } else { r.start + done as i64 };
                let m = (s / FRAME) as i32;
                let off = (s % FRAME) as usize;
                let src = get(r.input, m)?;
                let avail = src.width as usize;
                // how many samples can be copied from this input frame in one go
                let take = if r.reversed { (off + 1).min(r.len - done) } else { (avail - off).min(r.len - done) };
                for k in 0..nch {
                    let (input, ch) = match &self.channels {
                        Some(map) => map[k],
                        None => (r.input, k),
                    };
                    if input != r.input {
                        continue;
                    }
                    let from = channel_bytes(&src, ch);
                    let to = channel_bytes_mut(&mut f, k);
                    for j in 0..take {
                        let si = if r.reversed { off - j } else { off + j };
                        let di = r.dst + done + j;
                        to[di * bps..(di + 1) * bps].copy_from_slice(&from[si * bps..(si + 1) * bps]);
                    }
                }
                done += take;
            }
        }
        Ok(Some(Arc::new(f)))
    }
}

fn gather_node(core: &Arc<Core>, name: &str, inputs: Vec<Arc<Node>>, ai: VSAudioInfo, plan: Plan, channels: Option<Vec<(usize, usize)>>) -> Arc<Node> {
    let mut deps: Vec<(Arc<Node>, i32)> = Vec::new();
    for c in &inputs {
        if !deps.iter().any(|(d, _)| Arc::ptr_eq(d, c)) {
            deps.push((c.clone(), rpGeneral));
        }
    }
    let filter = Gather { inputs, ai, plan, channels };
    make_node(core, name, MediaInfo::Audio(ai), Box::new(filter), fmParallel, deps)
}

fn with_length(mut ai: VSAudioInfo, samples: i64) -> VSAudioInfo {
    ai.numSamples = samples;
    ai.numFrames = frames_for(samples);
    ai
}

fn audio_splice(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let clips = Args(input).nodes("clips");
    if clips.len() == 1 {
        set_clip(out, clips[0].clone());
        return Ok(());
    }
    let first = audio_info(&clips[0])?;
    let mut starts = Vec::with_capacity(clips.len());
    let mut total = 0i64;
    for c in &clips {
        let ai = audio_info(c)?;
        if ai.format != first.format || ai.sampleRate != first.sampleRate {
            return Err("format mismatch".into());
        }
        starts.push(total);
        total += ai.numSamples;
        if total > MAX_SAMPLES {
            return Err("the resulting clip is too long".into());
        }
    }
    let lengths: Vec<i64> = clips.iter().map(|c| c.audio_info().expect("audio").numSamples).collect();
    let ai = with_length(first, total);
    let plan: Plan = Box::new(move |n| {
        let begin = n as i64 * FRAME;
        let end = (begin + FRAME).min(total);
        let mut runs = Vec::new();
        let mut props = (0usize, 0i64);
        for (i, (&s, &l)) in starts.iter().zip(&lengths).enumerate() {
            let (a, b) = (begin.max(s), end.min(s + l));
            if a < b {
                if runs.is_empty() {
                    props = (i, a - s);
                }
                runs.push(Run { input: i, start: a - s, len: (b - a) as usize, dst: (a - begin) as usize, reversed: false });
            }
        }
        (runs, props)
    });
    set_clip(out, gather_node(core, "AudioSplice", clips, ai, plan, None));
    Ok(())
}

fn audio_trim(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let first = a.int("first").unwrap_or(0);
    let last = a.int("last");
    let length = a.int("length");
    if last.is_some() && length.is_some() {
        return Err("both last sample and length specified".into());
    }
    if first < 0 {
        return Err("invalid first sample specified (less than 0)".into());
    }
    if first >= ai.numSamples {
        return Err("invalid first sample specified (beyond clip end)".into());
    }
    let count = if let Some(l) = last {
        if l < first {
            return Err("invalid last sample specified (last is less than first)".into());
        }
        l - first + 1
    } else if let Some(l) = length {
        if l < 1 {
            return Err("invalid length specified (less than 1)".into());
        }
        l
    } else {
        ai.numSamples - first
    };
    if first + count > ai.numSamples {
        return Err("last sample beyond clip end".into());
    }
    if first == 0 && count == ai.numSamples {
        set_clip(out, clip);
        return Ok(());
    }
    let oai = with_length(ai, count);
    let plan: Plan = Box::new(move |n| {
        let begin = n as i64 * FRAME;
        let len = (count - begin).min(FRAME) as usize;
        (vec![Run { input: 0, start: first + begin, len, dst: 0, reversed: false }], (0, first + begin))
    });
    set_clip(out, gather_node(core, "AudioTrim", vec![clip], oai, plan, None));
    Ok(())
}

fn audio_loop(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let times = a.int("times").unwrap_or(0);
    if times < 0 {
        return Err("cannot repeat clip a negative number of times".into());
    }
    if times == 1 {
        set_clip(out, clip);
        return Ok(());
    }
    let src_len = ai.numSamples;
    let total = if times == 0 {
        MAX_SAMPLES
    } else {
        match src_len.checked_mul(times) {
            Some(t) if t <= MAX_SAMPLES => t,
            _ => return Err("resulting clip is too long".into()),
        }
    };
    let oai = with_length(ai, total);
    let plan: Plan = Box::new(move |n| {
        let begin = n as i64 * FRAME;
        let end = (begin + FRAME).min(total);
        let mut runs = Vec::new();
        let mut pos = begin;
        while pos < end {
            let s = pos % src_len;
            let len = (src_len - s).min(end - pos);
            runs.push(Run { input: 0, start: s, len: len as usize, dst: (pos - begin) as usize, reversed: false });
            pos += len;
        }
        (runs, (0, begin % src_len))
    });
    set_clip(out, gather_node(core, "AudioLoop", vec![clip], oai, plan, None));
    Ok(())
}

fn audio_reverse(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let clip = Args(input).node("clip")?;
    let ai = audio_info(&clip)?;
    let total = ai.numSamples;
    let plan: Plan = Box::new(move |n| {
        let begin = n as i64 * FRAME;
        let len = (total - begin).min(FRAME);
        // output samples begin..begin+len are input samples total-1-begin down to total-begin-len
        let start = total - begin - len;
        (vec![Run { input: 0, start, len: len as usize, dst: 0, reversed: true }], (0, total - 1 - begin))
    });
    set_clip(out, gather_node(core, "AudioReverse", vec![clip], ai, plan, None));
    Ok(())
}

fn shuffle_channels(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clips = a.nodes("clips");
    let chin = a.ints("channels_in").unwrap_or_default();
    let chout = a.ints("channels_out").unwrap_or_default();
    if chin.len() != chout.len() {
        return Err("must have the same number of channels_in and channels_out".into());
    }
    if clips.len() > chin.len() {
        return Err("cannot have more input nodes than selected input channels".into());
    }
    let first = audio_info(&clips[0])?;
    let mut longest = 0i64;
    for c in &clips {
        let ai = audio_info(c)?;
        if ai.sampleRate != first.sampleRate || ai.format.bitsPerSample != first.format.bitsPerSample || ai.format.sampleType != first.format.sampleType {
            return Err("all inputs must have the same samplerate, bits per sample and sample type".into());
        }
        longest = longest.max(ai.numSamples);
    }
    // (channel constant out, input index, channel index within that input)
    let mut picks: Vec<(i64, usize, usize)> = Vec::new();
    let mut layout = 0u64;
    for (j, (&ci, &co)) in chin.iter().zip(&chout).enumerate() {
        let input = j.min(clips.len() - 1);
        let in_layout = clips[input].audio_info().expect("audio").format.channelLayout;
        if !(-64..64).contains(&ci) || !(0..64).contains(&co) {
            return Err("channel number out of range".into());
        }
        let index = if ci < 0 {
            let k = (-ci - 1) as u32;
            if k >= in_layout.count_ones() {
                return Err("specified channel is not present in input".into());
            }
            k as usize
        } else {
            if in_layout & (1u64 << ci) == 0 {
                return Err("specified channel is not present in input".into());
            }
            (in_layout & ((1u64 << ci) - 1)).count_ones() as usize
        };
        if layout & (1u64 << co) != 0 {
            return Err("output channel specified twice".into());
        }
        layout |= 1u64 << co;
        picks.push((co, input, index));
    }
    picks.sort();
    let fmt = crate::format::query_audio(first.format.sampleType, first.format.bitsPerSample, layout).ok_or("invalid output format")?;
    let mut ai = with_length(first, longest);
    ai.format = fmt;
    set_clip(out, shuffle_node(core, clips, ai, picks.iter().map(|&(_, i, c)| (i, c)).collect()));
    Ok(())
}

/// Output channel k is channel `channels[k].1` of input `channels[k].0`; shorter inputs are silent
/// past their end; properties come from the first input.
fn shuffle_node(core: &Arc<Core>, clips: Vec<Arc<Node>>, ai: VSAudioInfo, channels: Vec<(usize, usize)>) -> Arc<Node> {
    let lengths: Vec<i64> = clips.iter().map(|c| c.audio_info().expect("audio").numSamples).collect();
    let used: Vec<usize> = {
        let mut u: Vec<usize> = channels.iter().map(|&(i, _)| i).collect();
        u.sort();
        u.dedup();
        u
    };
    let plan: Plan = Box::new(move |n| {
        let begin = n as i64 * FRAME;
        let mut runs = Vec::new();
        for &i in &used {
            let len = (lengths[i] - begin).clamp(0, FRAME);
            if len > 0 {
                runs.push(Run { input: i, start: begin, len: len as usize, dst: 0, reversed: false });
            }
        }
        let props_frame = (n as i64).min(frames_for(lengths[0]) as i64 - 1);
        (runs, (0, props_frame * FRAME))
    });
    gather_node(core, "ShuffleChannels", clips, ai, plan, Some(channels))
}

fn split_channels(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let clip = Args(input).node("clip")?;
    let ai = audio_info(&clip)?;
    let nch = ai.format.numChannels as usize;
    if nch == 1 {
        out.set(b"clip", Value::Node(clip), true).expect("clip is a valid key");
        return Ok(());
    }
    let layout = ai.format.channelLayout;
    let mut k = 0usize;
    for bit in 0..64 {
        if layout & (1u64 << bit) == 0 {
            continue;
        }
        let mut cai = ai;
        cai.format = crate::format::query_audio(ai.format.sampleType, ai.format.bitsPerSample, 1u64 << bit).ok_or("invalid output format")?;
        let node = shuffle_node(core, vec![clip.clone()], cai, vec![(0, k)]);
        out.set(b"clip", Value::Node(node), true).expect("clip is a valid key");
        k += 1;
    }
    Ok(())
}

// ---- AssumeSampleRate, SetAudioCache ----------------------------------------------------------------

fn assume_sample_rate(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let mut ai = audio_info(&clip)?;
    let src = a.opt_node("src");
    let rate = a.int("samplerate");
    if src.is_some() == rate.is_some() {
        return Err("need to specify source clip or samplerate".into());
    }
    if let Some(s) = src {
        ai.sampleRate = audio_info(&s)?.sampleRate;
    }
    if let Some(r) = rate {
        if r <= 0 || r > i32::MAX as i64 {
            return Err("invalid samplerate specified".into());
        }
        ai.sampleRate = r as i32;
    }
    let filter = AudioFn { inputs: vec![clip.clone()], requests: Box::new(|n| vec![(0, n)]), make: Box::new(|_, frames, _| Ok(frames[0].clone())) };
    set_clip(out, audio_node(core, "AssumeSampleRate", ai, filter, vec![(clip, rpStrictSpatial)]));
    Ok(())
}

fn set_audio_cache(input: &Map, _out: &mut Map, _core: &Arc<Core>) -> Result<(), String> {
    let a = Args(input);
    let clip = a.node("clip")?;
    let mut cache = clip.cache.lock();
    if let Some(m) = a.int("mode") {
        cache.set_mode(m.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
    }
    let opt = |k: &str| a.int(k).map_or(-1, |v| v.clamp(-1, i32::MAX as i64) as i32);
    cache.set_options(opt("fixedsize"), opt("maxsize"), opt("maxhistory"));
    Ok(())
}
