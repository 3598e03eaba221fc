//! std.BlankAudio: silence or a test waveform.
use vsvk_plugin_api::abi::*;
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::filter::{self, AudioSpec, Filter};
use vsvk_plugin_api::frame::{Frame, FrameMut};
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::values::MapRead;
use vsvk_plugin_api::{Error, Result};

use super::{FRAME, MAX_SAMPLES};

#[derive(Clone, Copy, PartialEq)]
enum Waveform {
    None,
    Slope,
    Sine,
    Square,
    Triangle,
}

/// The fractional part of t * inc, correctly rounded. The product rounded to double decides the
/// whole part; the fused multiply-add then gives the exact remainder rounded once. Where the product
/// rounded up to a whole number the remainder is negative and, spanning fewer bits than a double
/// holds (t < 2^53), exact, so adding one rounds only once too.
fn phase(t: i64, inc: f64) -> f64 {
    let t = t as f64;
    let whole = (t * inc).floor();
    let r = t.mul_add(inc, -whole);
    if r < 0.0 {
        r + 1.0
    } else {
        r
    }
}

struct BlankAudio {
    info: VSAudioInfo,
    waveform: Waveform,
    amplitude: f64,
    frequency: f64,
    keep: Option<Frame>,
}

impl BlankAudio {
    fn sample(&self, t: i64) -> f64 {
        // The position within a period is the fractional part of t * (frequency / rate), taken
        // exactly and rounded once, which is what R81's samples follow to the last bit: a fraction
        // of the rounded product loses the bits that matter where a period ends, and fmod by the
        // period length (rate / frequency, itself rounded) lands on different values there.
        let p = phase(t, self.frequency / self.info.sampleRate as f64);
        let v = match self.waveform {
            Waveform::None => 0.0,
            Waveform::Sine => (2.0 * std::f64::consts::PI * p).sin(),
            Waveform::Square => {
                if p < 0.5 {
                    1.0
                } else {
                    -1.0
                }
            }
            Waveform::Triangle => {
                if p < 0.25 {
                    4.0 * p
                } else if p < 0.75 {
                    2.0 - 4.0 * p
                } else {
                    4.0 * p - 4.0
                }
            }
            Waveform::Slope => 2.0 * p - 1.0,
        };
        v * self.amplitude
    }

    fn make(&self, core: Core, n: i32) -> Result<Frame> {
        let first = n as i64 * FRAME;
        let len = (self.info.numSamples - first).min(FRAME) as i32;
        let fmt = self.info.format;
        let mut f = FrameMut::new_audio(core, &fmt, len, None)?;
        if self.waveform == Waveform::None {
            // new frames are not cleared
            for c in 0..fmt.numChannels {
                f.channel_bytes_mut(c).fill(0);
            }
        } else {
            let values: Vec<f64> = (0..len as i64).map(|i| self.sample(first + i)).collect();
            for c in 0..fmt.numChannels {
                if fmt.sampleType == stFloat {
                    for (d, &v) in f.channel_mut::<f32>(c).iter_mut().zip(&values) {
                        *d = v as f32;
                    }
                    continue;
                }
                let scale = (1i64 << (fmt.bitsPerSample - 1)) as f64;
                let max = (1i64 << (fmt.bitsPerSample - 1)) - 1;
                let int = |v: f64| ((v * scale).round() as i64).clamp(-max - 1, max);
                if fmt.bytesPerSample == 2 {
                    for (d, &v) in f.channel_mut::<i16>(c).iter_mut().zip(&values) {
                        *d = int(v) as i16;
                    }
                } else {
                    // 24-bit samples sit in the high bits of 32-bit words.
                    for (d, &v) in f.channel_mut::<i32>(c).iter_mut().zip(&values) {
                        *d = (int(v) << (32 - fmt.bitsPerSample)) as i32;
                    }
                }
            }
        }
        Ok(f.freeze())
    }
}

impl Filter for BlankAudio {
    fn requests(&self, _n: i32, _lengths: &[i32]) -> Vec<(usize, i32)> {
        Vec::new()
    }

    fn get_frame(&self, n: i32, _frames: Vec<Frame>, core: Core) -> Result<Frame> {
        if let Some(f) = &self.keep {
            // A kept frame has full length; the last frame of the clip may be shorter.
            let last = self.info.numFrames - 1;
            let short = n == last && self.info.numSamples % FRAME != 0;
            if !short {
                return Ok(f.clone());
            }
        }
        self.make(core, n)
    }
}

pub fn blank_audio(a: &Args, out: &mut Out, core: Core) -> Result<()> {
    let src = a.nodes("clip")?.into_iter().next();
    let mut ai = src.as_ref().and_then(|n| n.audio_info().ok()).unwrap_or(VSAudioInfo {
        format: core.query_audio_format(stInteger, 16, 3).expect("stereo 16-bit"),
        sampleRate: 44100,
        numSamples: 44100 * 10,
        numFrames: 0,
    });
    let mut layout = ai.format.channelLayout;
    if let Some(chs) = a.ints("channels")? {
        layout = 0;
        for c in chs {
            if !(0..64).contains(&c) {
                return Err(Error::invalid("channel number out of range (0-63)"));
            }
            if layout & (1 << c) != 0 {
                return Err(Error::invalid("channel specified twice"));
            }
            layout |= 1 << c;
        }
    }
    let bits = a.int("bits")?.unwrap_or(ai.format.bitsPerSample as i64);
    let st = a.int("sampletype")?.unwrap_or(ai.format.sampleType as i64);
    ai.format = i32::try_from(bits)
        .ok()
        .zip(i32::try_from(st).ok())
        .and_then(|(b, s)| core.query_audio_format(s, b, layout))
        .ok_or_else(|| Error::invalid("invalid format"))?;
    if let Some(r) = a.int("samplerate")? {
        ai.sampleRate = i32::try_from(r).map_err(|_| Error::invalid("invalid sample rate"))?;
        if src.is_none() {
            // Without a clip to copy, the default length is ten seconds at the chosen rate.
            ai.numSamples = ai.sampleRate as i64 * 10;
        }
    }
    if ai.sampleRate <= 0 {
        return Err(Error::invalid("invalid sample rate"));
    }
    if let Some(l) = a.int("length")? {
        ai.numSamples = l;
    }
    if ai.numSamples <= 0 {
        return Err(Error::invalid("invalid length"));
    }
    if ai.numSamples > MAX_SAMPLES {
        // the core's creation check, made here so that it comes before the waveform's; its
        // message carries no function prefix
        return Err(Error::whole(format!("Filter BlankAudio specified {} output samples but {MAX_SAMPLES} samples is the upper limit", ai.numSamples)));
    }
    ai.numFrames = ((ai.numSamples + FRAME - 1) / FRAME).min(i32::MAX as i64) as i32;
    let waveform = match a.get_data("waveform", 0).map(|d| d.to_str_lossy()) {
        Err(_) => Waveform::None,
        Ok(w) => match w.as_str() {
            "none" => Waveform::None,
            "slope" => Waveform::Slope,
            "sine" => Waveform::Sine,
            "square" => Waveform::Square,
            "triangle" => Waveform::Triangle,
            _ => return Err(Error::invalid("invalid waveform, must be none, slope, sine, square or triangle")),
        },
    };
    let amplitude = a.float("amplitude")?.unwrap_or(1.0);
    let frequency = a.float("frequency")?.unwrap_or(440.0);
    // keep reuses one frame only for silence: R81 generates a waveform frame by frame whatever
    // keep says (its keep=1 square wave is its keep=0 one), and a reused first frame would repeat
    // the first 3072 samples' phase.
    let keep = a.int("keep")?.unwrap_or(0) != 0 && waveform == Waveform::None;
    let mut filter = BlankAudio { info: ai, waveform, amplitude, frequency, keep: None };
    if keep {
        filter.keep = Some(filter.make(core, 0)?);
    }
    let mode = if keep { fmUnordered } else { fmParallel };
    let spec = AudioSpec { name: "BlankAudio".into(), info: ai, inputs: Vec::new() };
    let node = filter::create_audio_node(core, spec, None, filter, mode)?;
    out.set_node("clip", node);
    Ok(())
}
