//! Audio: AudioGain, AudioMix, AudioSplice, AudioTrim, AudioLoop, AudioReverse, AudioResample,
//! ShuffleChannels, SplitChannels, AssumeSampleRate, SetAudioCache and BlankAudio.
//!
//! Samples as R81 treats them: 16-bit and 32-bit integers as they are, 24-bit integers in the high
//! 24 bits of 32-bit words (the value is the word divided by 256), float as it is. Integer results
//! are rounded half away from zero and clamped; a clamped sample is "clipping", an error with
//! overflow_error=1 and otherwise a warning logged once per filter.
use std::sync::atomic::{AtomicBool, Ordering};

use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, AudioSpec, Filter};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::invoke::PluginRef;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::node::Node;
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::values::{MapRead, MapWrite, OwnedMap};
use vsvk_plugin_api::{Error, Result};

mod blank;
mod resample;

pub const FRAME: i64 = VS_AUDIO_FRAME_SAMPLES as i64;
/// The longest clip: as many full frames as an int can count.
const MAX_SAMPLES: i64 = i32::MAX as i64 * FRAME;

pub fn register(r: &Registrar) {
    r.function("AudioGain", "clip:anode;gain:float[];overflow_error:int:opt;", "clip:anode;", audio_gain);
    r.function("AudioMix", "clips:anode[];matrix:float[];channels_out:int[];overflow_error:int:opt;", "clip:anode;", audio_mix);
    r.function("AudioSplice", "clips:anode[];", "clip:anode;", audio_splice);
    r.function("AudioTrim", "clip:anode;first:int:opt;last:int:opt;length:int:opt;", "clip:anode;", audio_trim);
    r.function("AudioLoop", "clip:anode;times:int:opt;", "clip:anode;", audio_loop);
    r.function("AudioReverse", "clip:anode;", "clip:anode;", audio_reverse);
    r.function(
        "AudioResample",
        "clip:anode;samplerate:int:opt;sampletype:int:opt;bits:int:opt;channels:int[]:opt;dither_type:data:opt;normalize:int:opt;overflow_error:int:opt;",
        "clip:anode;",
        resample::audio_resample,
    );
    r.function("ShuffleChannels", "clips:anode[];channels_in:int[];channels_out:int[];", "clip:anode;", shuffle_channels);
    r.function("SplitChannels", "clip:anode;", "clip:anode[];", split_channels);
    r.function("AssumeSampleRate", "clip:anode;src:anode:opt;samplerate:int:opt;", "clip:anode;", assume_sample_rate);
    r.function("SetAudioCache", "clip:anode;mode:int:opt;fixedsize:int:opt;maxsize:int:opt;maxhistory:int:opt;", "", set_audio_cache);
    r.function(
        "BlankAudio",
        "clip:anode:opt;channels:int[]:opt;bits:int:opt;sampletype:int:opt;samplerate:int:opt;length:int:opt;keep:int:opt;waveform:data:opt;amplitude:float:opt;frequency:float:opt;",
        "clip:anode;",
        blank::blank_audio,
    );
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

/// The audio description of a clip, or the message R81 gives for a video clip.
pub fn audio_info(node: &Node) -> Result<VSAudioInfo> {
    node.audio_info().map_err(|_| Error::invalid("only audio clips are supported"))
}

fn format_of(f: &Frame) -> VSAudioFormat {
    f.audio_format().expect("audio frame")
}

/// Channel `c` of `f` as values (24-bit ones divided by 256, so they are in 24-bit units).
pub fn read_channel(f: &Frame, c: usize, out: &mut Vec<f64>) {
    out.clear();
    let b = f.channel_bytes(c as i32);
    match sample_kind(&format_of(f)) {
        SampleKind::I16 => out.extend(b.chunks_exact(2).map(|s| i16::from_ne_bytes([s[0], s[1]]) as f64)),
        SampleKind::I24 => out.extend(b.chunks_exact(4).map(|s| i32::from_ne_bytes([s[0], s[1], s[2], s[3]]) as f64 / 256.0)),
        SampleKind::I32 => out.extend(b.chunks_exact(4).map(|s| i32::from_ne_bytes([s[0], s[1], s[2], s[3]]) as f64)),
        SampleKind::F32 => out.extend(b.chunks_exact(4).map(|s| f32::from_ne_bytes([s[0], s[1], s[2], s[3]]) as f64)),
    }
}

pub fn read_f32(f: &Frame, c: usize) -> Vec<f32> {
    f.channel_bytes(c as i32).chunks_exact(4).map(|s| f32::from_ne_bytes([s[0], s[1], s[2], s[3]])).collect()
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
pub fn write_channel(f: &mut FrameMut, c: usize, values: &[f64]) -> bool {
    let kind = sample_kind(&f.audio_format().expect("audio frame"));
    let out = f.channel_bytes_mut(c as i32);
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

pub fn new_audio(core: Core, fmt: &VSAudioFormat, len: usize, props: Option<&Frame>) -> Result<FrameMut> {
    FrameMut::new_audio(core, fmt, len as i32, props)
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
    pub fn report(&self, core: Core, n: i32, len: usize) -> Result<()> {
        let first = n as i64 * FRAME;
        let last = first + len as i64 - 1;
        if self.error {
            return Err(Error::invalid(format!("clipping detected in the sample interval {first} to {last}")));
        }
        if !self.warned.swap(true, Ordering::Relaxed) {
            core.log(
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

/// The distinct clips among `clips` (the same clip passed twice is one dependency, as R81
/// declares it) and, per clip, the index of its entry among them.
fn distinct(clips: &[Node]) -> (Vec<Node>, Vec<usize>) {
    let mut unique: Vec<Node> = Vec::new();
    let slots = clips
        .iter()
        .map(|c| match unique.iter().position(|u| u.as_ptr() == c.as_ptr()) {
            Some(i) => i,
            None => {
                unique.push(c.clone());
                unique.len() - 1
            }
        })
        .collect();
    (unique, slots)
}

fn first_frame(frames: Vec<Frame>) -> Result<Frame> {
    frames.into_iter().next().ok_or_else(|| Error::invalid("internal error: a requested frame is missing"))
}

// ---- AudioGain, AudioMix ------------------------------------------------------------------------------

struct Gain {
    fmt: VSAudioFormat,
    gains: Vec<f64>,
    clipping: Clipping,
}

impl Filter for Gain {
    const SPATIAL: bool = true;

    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let src = first_frame(frames)?;
        let fmt = self.fmt;
        let len = src.length() as usize;
        let mut f = new_audio(core, &fmt, len, Some(&src))?;
        let mut clipped = false;
        let mut buf = Vec::with_capacity(len);
        for (c, &g) in self.gains.iter().enumerate() {
            if fmt.sampleType == stFloat {
                let g = g as f32;
                let v: Vec<f64> = read_f32(&src, c).iter().map(|&x| (x * g) as f64).collect();
                write_channel(&mut f, c, &v);
            } else {
                read_channel(&src, c, &mut buf);
                for v in buf.iter_mut() {
                    *v *= g;
                }
                clipped |= write_channel(&mut f, c, &buf);
            }
        }
        if clipped {
            self.clipping.report(core, n, len)?;
        }
        Ok(f.freeze())
    }
}

fn audio_gain(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let gain = a.floats("gain")?.unwrap_or_default();
    let nch = ai.format.numChannels as usize;
    if gain.len() != 1 && gain.len() != nch {
        return Err(Error::invalid("must provide one gain value per channel or a single value used for all channels"));
    }
    let gains: Vec<f64> = (0..nch).map(|c| if gain.len() == 1 { gain[0] } else { gain[c] }).collect();
    let clipping = Clipping::new("AudioGain", a.bool("overflow_error", false)?);
    let spec = AudioSpec { name: "AudioGain".into(), info: ai, inputs: vec![clip] };
    filter::create_audio(out, core, spec, Some(&[rpStrictSpatial]), Gain { fmt: ai.format, gains, clipping });
    Ok(())
}

fn check_channel(c: i64) -> Result<u64> {
    if (0..64).contains(&c) {
        Ok(1u64 << c)
    } else {
        Err(Error::invalid("channel number out of range (0-63)"))
    }
}

struct Mix {
    fmt: VSAudioFormat,
    /// Per clip argument, its frame among the distinct inputs'.
    slots: Vec<usize>,
    nin: usize,
    rows: Vec<Vec<f64>>,
    clipping: Clipping,
}

impl Filter for Mix {
    // every input is as long as the output
    const SPATIAL: bool = true;

    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let lead = &frames[self.slots[0]];
        let len = lead.length() as usize;
        let mut ins: Vec<Vec<f64>> = Vec::with_capacity(self.nin);
        for &s in &self.slots {
            let f = &frames[s];
            for c in 0..format_of(f).numChannels as usize {
                let mut v = Vec::with_capacity(len);
                read_channel(f, c, &mut v);
                ins.push(v);
            }
        }
        let mut f = new_audio(core, &self.fmt, len, Some(lead))?;
        let mut clipped = false;
        let mut acc = vec![0.0f64; len];
        for (k, row) in self.rows.iter().enumerate() {
            acc.iter_mut().for_each(|v| *v = 0.0);
            for (src, &w) in ins.iter().zip(row) {
                for (d, &s) in acc.iter_mut().zip(src) {
                    *d += s * w;
                }
            }
            clipped |= write_channel(&mut f, k, &acc);
        }
        if clipped {
            self.clipping.report(core, n, len)?;
        }
        Ok(f.freeze())
    }
}

fn audio_mix(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clips = a.nodes("clips")?;
    let matrix = a.floats("matrix")?.unwrap_or_default();
    let channels_out = a.ints("channels_out")?.unwrap_or_default();
    let first = audio_info(&clips[0])?;
    let mut nin = 0usize;
    for c in &clips {
        let ai = audio_info(c)?;
        if ai.numSamples != first.numSamples
            || ai.sampleRate != first.sampleRate
            || ai.format.bitsPerSample != first.format.bitsPerSample
            || ai.format.sampleType != first.format.sampleType
        {
            return Err(Error::invalid("all inputs must have the same length, samplerate, bits per sample and sample type"));
        }
        nin += ai.format.numChannels as usize;
    }
    let mut layout = 0u64;
    for &c in &channels_out {
        let bit = check_channel(c)?;
        if layout & bit != 0 {
            return Err(Error::invalid("output channel specified twice"));
        }
        layout |= bit;
    }
    let nout = channels_out.len();
    if matrix.len() != nin * nout {
        return Err(Error::invalid("the number of matrix weights must equal (input channels * output channels)"));
    }
    let fmt = core.query_audio_format(first.format.sampleType, first.format.bitsPerSample, layout).ok_or_else(|| Error::invalid("invalid output format"))?;
    let mut ai = first;
    ai.format = fmt;
    // Output channel k (in layout order) is row j of the matrix, where channels_out[j] is that channel.
    let rows: Vec<Vec<f64>> = {
        let mut sorted: Vec<(i64, usize)> = channels_out.iter().enumerate().map(|(j, &c)| (c, j)).collect();
        sorted.sort();
        sorted.iter().map(|&(_, j)| matrix[j * nin..(j + 1) * nin].to_vec()).collect()
    };
    let clipping = Clipping::new("AudioMix", a.bool("overflow_error", false)?);
    let (inputs, slots) = distinct(&clips);
    let patterns = vec![rpStrictSpatial; inputs.len()];
    let spec = AudioSpec { name: "AudioMix".into(), info: ai, inputs };
    filter::create_audio(out, core, spec, Some(&patterns), Mix { fmt, slots, nin, rows, clipping });
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
/// Inputs are the clip arguments; `slots` maps each to the distinct node frames are asked of.
struct Gather {
    slots: Vec<usize>,
    ai: VSAudioInfo,
    plan: Plan,
    channels: Option<Vec<(usize, usize)>>,
}

impl Gather {
    /// The frames the runs read and the properties' source, as (distinct input, frame number),
    /// each once, in the order they are requested and handed back.
    fn frames_of(&self, runs: &[Run], props: (usize, i64)) -> Vec<(usize, i32)> {
        let mut out: Vec<(usize, i32)> = Vec::new();
        let mut add = |i: usize, m: i32| {
            let key = (self.slots[i], m);
            if !out.contains(&key) {
                out.push(key);
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
    fn requests(&self, n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        let (runs, props) = (self.plan)(n);
        self.frames_of(&runs, props)
    }

    fn get_frame(&self, n: i32, frames: Vec<Frame>, core: Core) -> Result<Frame> {
        let (runs, props) = (self.plan)(n);
        let wanted = self.frames_of(&runs, props);
        let get = |i: usize, m: i32| -> Result<&Frame> {
            let key = (self.slots[i], m);
            wanted.iter().position(|&w| w == key).and_then(|p| frames.get(p)).ok_or_else(|| Error::invalid("internal error: a requested frame is missing"))
        };
        let len = frame_len(self.ai.numSamples, n);
        let props_frame = get(props.0, (props.1 / FRAME) as i32)?;
        let mut f = new_audio(core, &self.ai.format, len, Some(props_frame))?;
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
                let avail = src.length() as usize;
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
                    let from = src.channel_bytes(ch as i32);
                    let to = f.channel_bytes_mut(k as i32);
                    for j in 0..take {
                        let si = if r.reversed { off - j } else { off + j };
                        let di = r.dst + done + j;
                        to[di * bps..(di + 1) * bps].copy_from_slice(&from[si * bps..(si + 1) * bps]);
                    }
                }
                done += take;
            }
        }
        Ok(f.freeze())
    }
}

fn gather_filter(name: &str, clips: Vec<Node>, ai: VSAudioInfo, plan: Plan, channels: Option<Vec<(usize, usize)>>) -> (AudioSpec, Vec<i32>, Gather) {
    let (inputs, slots) = distinct(&clips);
    let patterns = vec![rpGeneral; inputs.len()];
    (AudioSpec { name: name.into(), info: ai, inputs }, patterns, Gather { slots, ai, plan, channels })
}

/// Returns under `clip` the filter that copies runs of samples.
fn gather(out: &mut Out, core: Core, name: &str, clips: Vec<Node>, ai: VSAudioInfo, plan: Plan, channels: Option<Vec<(usize, usize)>>) {
    let (spec, patterns, g) = gather_filter(name, clips, ai, plan, channels);
    filter::create_audio(out, core, spec, Some(&patterns), g);
}

fn with_length(mut ai: VSAudioInfo, samples: i64) -> VSAudioInfo {
    ai.numSamples = samples;
    ai.numFrames = frames_for(samples);
    ai
}

fn audio_splice(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clips = a.nodes("clips")?;
    if clips.len() == 1 {
        out.set_node("clip", clips.into_iter().next().expect("one clip"));
        return Ok(());
    }
    let first = audio_info(&clips[0])?;
    let mut starts = Vec::with_capacity(clips.len());
    let mut lengths = Vec::with_capacity(clips.len());
    let mut total = 0i64;
    for c in &clips {
        let ai = audio_info(c)?;
        if ai.format != first.format || ai.sampleRate != first.sampleRate {
            return Err(Error::invalid("format mismatch"));
        }
        starts.push(total);
        lengths.push(ai.numSamples);
        total += ai.numSamples;
        if total > MAX_SAMPLES {
            return Err(Error::invalid("the resulting clip is too long"));
        }
    }
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
    // R81 declares every clip, repeats included, the first as read without reuse
    let patterns: Vec<i32> = (0..clips.len()).map(|i| if i == 0 { rpNoFrameReuse } else { rpGeneral }).collect();
    let slots = (0..clips.len()).collect();
    let spec = AudioSpec { name: "AudioSplice".into(), info: ai, inputs: clips };
    filter::create_audio(out, core, spec, Some(&patterns), Gather { slots, ai, plan, channels: None });
    Ok(())
}

fn audio_trim(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let first = a.int("first")?.unwrap_or(0);
    let last = a.int("last")?;
    let length = a.int("length")?;
    if last.is_some() && length.is_some() {
        return Err(Error::invalid("both last sample and length specified"));
    }
    if first < 0 {
        return Err(Error::invalid("invalid first sample specified (less than 0)"));
    }
    if first >= ai.numSamples {
        return Err(Error::invalid("invalid first sample specified (beyond clip end)"));
    }
    let count = if let Some(l) = last {
        if l < first {
            return Err(Error::invalid("invalid last sample specified (last is less than first)"));
        }
        l - first + 1
    } else if let Some(l) = length {
        if l < 1 {
            return Err(Error::invalid("invalid length specified (less than 1)"));
        }
        l
    } else {
        ai.numSamples - first
    };
    if first + count > ai.numSamples {
        return Err(Error::invalid("last sample beyond clip end"));
    }
    if first == 0 && count == ai.numSamples {
        out.set_node("clip", clip);
        return Ok(());
    }
    let oai = with_length(ai, count);
    let plan: Plan = Box::new(move |n| {
        let begin = n as i64 * FRAME;
        let len = (count - begin).min(FRAME) as usize;
        (vec![Run { input: 0, start: first + begin, len, dst: 0, reversed: false }], (0, first + begin))
    });
    gather(out, core, "AudioTrim", vec![clip], oai, plan, None);
    Ok(())
}

fn audio_loop(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let times = a.int("times")?.unwrap_or(0);
    if times < 0 {
        return Err(Error::invalid("cannot repeat clip a negative number of times"));
    }
    if times == 1 {
        out.set_node("clip", clip);
        return Ok(());
    }
    let src_len = ai.numSamples;
    let total = if times == 0 {
        MAX_SAMPLES
    } else {
        match src_len.checked_mul(times) {
            Some(t) if t <= MAX_SAMPLES => t,
            _ => return Err(Error::invalid("resulting clip is too long")),
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
    gather(out, core, "AudioLoop", vec![clip], oai, plan, None);
    Ok(())
}

fn audio_reverse(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let total = ai.numSamples;
    let plan: Plan = Box::new(move |n| {
        let begin = n as i64 * FRAME;
        let len = (total - begin).min(FRAME);
        // output samples begin..begin+len are input samples total-1-begin down to total-begin-len
        let start = total - begin - len;
        (vec![Run { input: 0, start, len: len as usize, dst: 0, reversed: true }], (0, total - 1 - begin))
    });
    gather(out, core, "AudioReverse", vec![clip], ai, plan, None);
    Ok(())
}

fn shuffle_channels(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clips = a.nodes("clips")?;
    let chin = a.ints("channels_in")?.unwrap_or_default();
    let chout = a.ints("channels_out")?.unwrap_or_default();
    if chin.len() != chout.len() {
        return Err(Error::invalid("must have the same number of channels_in and channels_out"));
    }
    if clips.len() > chin.len() {
        return Err(Error::invalid("cannot have more input nodes than selected input channels"));
    }
    let first = audio_info(&clips[0])?;
    let mut longest = 0i64;
    for c in &clips {
        let ai = audio_info(c)?;
        if ai.sampleRate != first.sampleRate || ai.format.bitsPerSample != first.format.bitsPerSample || ai.format.sampleType != first.format.sampleType {
            return Err(Error::invalid("all inputs must have the same samplerate, bits per sample and sample type"));
        }
        longest = longest.max(ai.numSamples);
    }
    // (channel constant out, input index, channel index within that input)
    let mut picks: Vec<(i64, usize, usize)> = Vec::new();
    let mut layout = 0u64;
    for (j, (&ci, &co)) in chin.iter().zip(&chout).enumerate() {
        let input = j.min(clips.len() - 1);
        let in_layout = audio_info(&clips[input])?.format.channelLayout;
        if !(-64..64).contains(&ci) || !(0..64).contains(&co) {
            return Err(Error::invalid("channel number out of range"));
        }
        let index = if ci < 0 {
            let k = (-ci - 1) as u32;
            if k >= in_layout.count_ones() {
                return Err(Error::invalid("specified channel is not present in input"));
            }
            k as usize
        } else {
            if in_layout & (1u64 << ci) == 0 {
                return Err(Error::invalid("specified channel is not present in input"));
            }
            (in_layout & ((1u64 << ci) - 1)).count_ones() as usize
        };
        if layout & (1u64 << co) != 0 {
            return Err(Error::invalid("output channel specified twice"));
        }
        layout |= 1u64 << co;
        picks.push((co, input, index));
    }
    picks.sort();
    let fmt = core.query_audio_format(first.format.sampleType, first.format.bitsPerSample, layout).ok_or_else(|| Error::invalid("invalid output format"))?;
    let mut ai = with_length(first, longest);
    ai.format = fmt;
    let (spec, patterns, g) = shuffle_filter(clips, ai, picks.iter().map(|&(_, i, c)| (i, c)).collect());
    filter::create_audio(out, core, spec, Some(&patterns), g);
    Ok(())
}

/// Output channel k is channel `channels[k].1` of input `channels[k].0`; shorter inputs are silent
/// past their end; properties come from the first input.
fn shuffle_filter(clips: Vec<Node>, ai: VSAudioInfo, channels: Vec<(usize, usize)>) -> (AudioSpec, Vec<i32>, Gather) {
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
    let (spec, _, g) = gather_filter("ShuffleChannels", clips, ai, plan, Some(channels));
    // an input as long as the output gives frame n to frame n alone
    let patterns = spec.inputs.iter().map(|c| if c.num_frames() == ai.numFrames { rpStrictSpatial } else { rpGeneral }).collect();
    (spec, patterns, g)
}

fn split_channels(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let ai = audio_info(&clip)?;
    let nch = ai.format.numChannels as usize;
    if nch == 1 {
        out.put_node("clip", clip, true)?;
        return Ok(());
    }
    // each channel through std.ShuffleChannels, as R81 does, so that graph inspection shows
    // SplitChannels as the creator of ShuffleChannels nodes
    let std = PluginRef::by_id(core, "com.vapoursynth.std").ok_or_else(|| Error::invalid("the std plugin is missing"))?;
    let layout = ai.format.channelLayout;
    for bit in (0..64).filter(|b| layout & (1u64 << b) != 0) {
        let mut args = OwnedMap::new();
        args.put_node("clips", clip.clone(), false)?;
        args.put_int("channels_in", bit, false)?;
        args.put_int("channels_out", bit, false)?;
        let r = std.invoke("ShuffleChannels", &args)?;
        out.put_node("clip", r.get_node("clip", 0)?, true)?;
    }
    Ok(())
}

// ---- AssumeSampleRate, SetAudioCache ----------------------------------------------------------------

/// Frame n of the input as it is: only the clip's description changes.
struct Same;

impl Filter for Same {
    const SPATIAL: bool = true;

    fn get_frame(&self, _n: i32, frames: Vec<Frame>, _core: Core) -> Result<Frame> {
        first_frame(frames)
    }
}

fn assume_sample_rate(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    let mut ai = audio_info(&clip)?;
    let src = a.nodes("src")?.into_iter().next();
    let rate = a.int("samplerate")?;
    if src.is_some() == rate.is_some() {
        return Err(Error::invalid("need to specify source clip or samplerate"));
    }
    if let Some(s) = src {
        ai.sampleRate = audio_info(&s)?.sampleRate;
    }
    if let Some(r) = rate {
        if r <= 0 || r > i32::MAX as i64 {
            return Err(Error::invalid("invalid samplerate specified"));
        }
        ai.sampleRate = r as i32;
    }
    let spec = AudioSpec { name: "AssumeSampleRate".into(), info: ai, inputs: vec![clip] };
    filter::create_audio(out, core, spec, Some(&[rpStrictSpatial]), Same);
    Ok(())
}

fn set_audio_cache(a: &Args, _out: &mut Out, _core: Core) -> Result<()> {
    let clip = a.node("clip")?;
    if let Some(m) = a.int("mode")? {
        clip.set_cache_mode(m.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
    }
    let opt = |k: &str| a.int(k).map(|v| v.map_or(-1, |v| v.clamp(-1, i32::MAX as i64) as i32));
    clip.set_cache_options(opt("fixedsize")?, opt("maxsize")?, opt("maxhistory")?);
    Ok(())
}
