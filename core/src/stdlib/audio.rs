//! Audio: AudioGain, AudioMix, AudioSplice, AudioTrim, AudioLoop, AudioReverse, AudioResample, ShuffleChannels, SplitChannels, AssumeSampleRate, SetAudioCache.

pub fn register(_r: &super::Registrar) {}
