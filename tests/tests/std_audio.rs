//! The audio functions of `std` against the reference: AudioGain, AudioMix, AudioSplice, AudioTrim,
//! AudioLoop, AudioReverse, AudioResample, ShuffleChannels, SplitChannels, AssumeSampleRate and
//! SetAudioCache. Every chain runs on R81 and on our core through the oracle driver
//! (tests/oracle/driver.c) over the vsvknoise audio source; the fingerprints (every sample and frame
//! property, the clip's format, length and rate) or the error lines must be identical, and so must the
//! clipping warnings the filters log.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use vsvk_tests::each_case;
use vsvk_tests::oracle::{check_error, check_few_modes as check, func_plugin, our_core, reference_core, run, Case};

/// The audio noise source (see Case::audio), with the callback plugin loaded.
fn audio(bits: u32, channels: u64, chain: &str) -> Case {
    audio_sized(bits, channels, 100_000, chain)
}

fn audio_sized(bits: u32, channels: u64, samples: i64, chain: &str) -> Case {
    Case::audio(bits, channels, samples, chain).with_plugin(func_plugin())
}

/// Both cores succeed alike and log the same lines that contain `needle`.
fn check_log(case: Case, needle: &str) {
    let mode = ["--requests", "1"];
    let want = run(&reference_core(), &case, &mode);
    let got = run(&our_core(), &case, &mode);
    assert!(got.fingerprint() == want.fingerprint(), "{}\n  reference: {}\n  ours:      {}", case.describe(), want.line, got.line);
    let pick = |s: &str| -> Vec<String> { s.lines().filter(|l| l.contains(needle)).map(str::to_string).collect() };
    let (w, g) = (pick(&want.stderr), pick(&got.stderr));
    assert!(!w.is_empty(), "the reference logs nothing with {needle:?} on {}", case.describe());
    assert_eq!(g, w, "{}", case.describe());
}

/// Clipping warnings, as check_log wants them.
fn check_clipping(case: Case) {
    check_log(case, "clipping")
}

/// A second, different source: vsvknoise audio with another seed.
fn noise(bits: u32, channels: u64, length: i64) -> String {
    let (bits, float) = if bits == 0 { (32, 1) } else { (bits, 0) };
    format!("vsvknoise.NoiseAudio:@:samplerate=44100:length={length}:channels={channels}:bits={bits}:float={float}:seed=3")
}

const STEREO: u64 = 3;
const SURROUND: u64 = 0x3f;

// ---- AudioGain --------------------------------------------------------------------------------------

each_case! { check;
    gain_int16 => audio(16, STEREO, "std.AudioGain:gain=0.5");
    gain_int24 => audio(24, STEREO, "std.AudioGain:gain=0.7");
    gain_int32 => audio(32, SURROUND, "std.AudioGain:gain=0.3");
    gain_float => audio(0, SURROUND, "std.AudioGain:gain=2.5");
    gain_per_channel => audio(16, STEREO, "std.AudioGain:gain=0.25:gain=-1.0");
    gain_per_channel_float => audio(0, 7, "std.AudioGain:gain=0.1:gain=1.0:gain=-3.0");
    gain_negative => audio(32, STEREO, "std.AudioGain:gain=-1.0");
    gain_clamped_quietly => audio(24, STEREO, "std.AudioGain:gain=300.0:overflow_error=0");
}

each_case! { check_clipping;
    gain_clipping_warning => audio(16, STEREO, "std.AudioGain:gain=1.7");
    gain_clipping_warning_int32 => audio(32, STEREO, "std.AudioGain:gain=-1.5");
}

each_case! { check_error;
    error_gain_count => audio(16, STEREO, "std.AudioGain:gain=0.5:gain=0.5:gain=0.5");
    error_gain_clipping => audio(16, STEREO, "std.AudioGain:gain=1.7:overflow_error=1");
    error_gain_clipping_later => audio(16, STEREO, "std.AudioGain:gain=0.01,std.AudioTrim:@:clip=$0:length=7000,std.AudioTrim:@:clip=$1:first=7000,std.AudioSplice:@:clips=$2:clips=$3,std.AudioGain:gain=3.0:overflow_error=1");
    error_gain_video => audio(16, STEREO, "std.BlankClip:@,std.AudioGain:gain=1.0");
}

// ---- AudioMix ---------------------------------------------------------------------------------------

each_case! { check;
    mix_downmix => audio(16, STEREO, "std.AudioMix:@clips:matrix=0.5:matrix=0.5:channels_out=2");
    mix_swap_order => audio(24, STEREO, "std.AudioMix:@clips:matrix=0.0:matrix=1.0:matrix=1.0:matrix=0.0:channels_out=5:channels_out=1");
    mix_surround_to_stereo => audio(0, SURROUND, "std.AudioMix:@clips:matrix=1.0:matrix=0.0:matrix=0.7071:matrix=0.0:matrix=0.7071:matrix=0.0:matrix=0.0:matrix=1.0:matrix=0.7071:matrix=0.0:matrix=0.0:matrix=0.7071:channels_out=0:channels_out=1");
    mix_two_clips => audio(32, STEREO, &format!("{},std.AudioMix:@:clips=$0:clips=$1:matrix=0.3:matrix=0.6:matrix=0.25:matrix=-0.5:matrix=0.7:matrix=-0.2:matrix=0.1:matrix=0.45:channels_out=5:channels_out=1", noise(32, STEREO, 100_000)));
    mix_first_clip_props => audio(16, STEREO, &format!("{},std.AudioMix:@:clips=$1:clips=$0:matrix=0.5:matrix=0.5:matrix=0.5:matrix=0.5:channels_out=3", noise(16, 0x30, 100_000)));
    mix_clamped_quietly => audio(24, STEREO, "std.AudioMix:@clips:matrix=90.0:matrix=90.0:channels_out=2:overflow_error=0");
}

each_case! { check_clipping;
    mix_clipping_warning => audio(16, STEREO, "std.AudioMix:@clips:matrix=1.0:matrix=1.0:channels_out=2");
}

each_case! { check_error;
    error_mix_weights => audio(16, STEREO, "std.AudioMix:@clips:matrix=0.5:matrix=0.5:matrix=0.5:channels_out=2");
    error_mix_out_twice => audio(16, STEREO, "std.AudioMix:@clips:matrix=0.5:matrix=0.5:matrix=0.5:matrix=0.5:channels_out=2:channels_out=2");
    error_mix_out_range => audio(16, STEREO, "std.AudioMix:@clips:matrix=0.5:matrix=0.5:channels_out=64");
    error_mix_out_negative => audio(16, STEREO, "std.AudioMix:@clips:matrix=0.5:matrix=0.5:channels_out=-1");
    error_mix_length => audio(16, STEREO, &format!("{},std.AudioMix:@:clips=$0:clips=$1:matrix=0.5:matrix=0.5:matrix=0.5:matrix=0.5:channels_out=2", noise(16, STEREO, 5000)));
    error_mix_bits => audio(16, STEREO, &format!("{},std.AudioMix:@:clips=$0:clips=$1:matrix=0.5:matrix=0.5:matrix=0.5:matrix=0.5:channels_out=2", noise(24, STEREO, 100_000)));
    error_mix_rate => audio(16, STEREO, "std.AssumeSampleRate:samplerate=48000,std.AudioMix:@:clips=$0:clips=$1:matrix=0.5:matrix=0.5:matrix=0.5:matrix=0.5:channels_out=2");
    error_mix_clipping => audio(16, STEREO, "std.AudioMix:@clips:matrix=1.0:matrix=1.0:channels_out=2:overflow_error=1");
}

// ---- AudioSplice, AudioTrim, AudioLoop, AudioReverse ------------------------------------------------

each_case! { check;
    splice_self => audio(32, SURROUND, "std.AudioTrim:first=5,std.AudioSplice:@clips:clips=$0");
    splice_three_odd => audio(16, STEREO, &format!("std.AudioTrim:first=1000:last=1999,{},std.AudioSplice:@:clips=$1:clips=$2:clips=$0", noise(16, STEREO, 4097)));
    splice_tiny_pieces => audio(24, STEREO, "std.AudioTrim:length=7,std.AudioTrim:@:clip=$0:first=50:length=3,std.AudioSplice:@:clips=$1:clips=$2:clips=$1:clips=$0");
    splice_one => audio(0, STEREO, "std.AudioSplice:@clips");
    trim_first_length => audio(24, STEREO, "std.AudioTrim:first=1000:length=20000");
    trim_first_last => audio(16, STEREO, "std.AudioTrim:first=3071:last=9216");
    trim_last_only => audio(0, SURROUND, "std.AudioTrim:last=0");
    trim_tail => audio(32, STEREO, "std.AudioTrim:first=99999");
    trim_everything => audio(16, STEREO, "std.AudioTrim:first=0:last=99999");
    trim_nothing => audio(16, STEREO, "std.AudioTrim");
    loop_twice_reversed => audio(16, STEREO, "std.AudioReverse,std.AudioLoop:times=2");
    loop_once => audio(16, STEREO, "std.AudioLoop:times=1");
    loop_short_many => audio(24, STEREO, "std.AudioTrim:first=3070:last=3077,std.AudioLoop:times=1000");
    loop_forever_tail => audio(16, STEREO, "std.AudioTrim:length=1234,std.AudioLoop,std.AudioTrim:first=6597069700000");
    loop_forever_tail_long => audio(0, STEREO, "std.AudioLoop:times=0,std.AudioTrim:first=6597069700001:length=9000");
    reverse_int16 => audio(16, STEREO, "std.AudioReverse");
    reverse_float => audio(0, SURROUND, "std.AudioReverse");
    reverse_short => audio(32, STEREO, "std.AudioTrim:first=17:length=100,std.AudioReverse");
    reverse_twice => audio(24, STEREO, "std.AudioReverse,std.AudioTrim:first=1,std.AudioReverse");
}

each_case! { check_error;
    error_splice_format => audio(16, STEREO, &format!("{},std.AudioSplice:@:clips=$0:clips=$1", noise(16, 7, 100)));
    error_splice_bits => audio(16, STEREO, &format!("{},std.AudioSplice:@:clips=$0:clips=$1", noise(24, STEREO, 100)));
    error_splice_rate => audio(16, STEREO, "std.AssumeSampleRate:samplerate=8000,std.AudioSplice:@:clips=$0:clips=$1");
    error_splice_too_long => audio(16, STEREO, "std.BlankAudio:@:length=1099511627776,std.AudioSplice:@:clips=$1:clips=$1:clips=$1:clips=$1:clips=$1:clips=$1");
    error_trim_negative_first => audio(16, STEREO, "std.AudioTrim:first=-1");
    error_trim_first_beyond => audio(16, STEREO, "std.AudioTrim:first=100000");
    error_trim_last_beyond => audio(16, STEREO, "std.AudioTrim:last=100000");
    error_trim_last_before_first => audio(16, STEREO, "std.AudioTrim:first=5:last=4");
    error_trim_negative_last => audio(16, STEREO, "std.AudioTrim:last=-1");
    error_trim_zero_length => audio(16, STEREO, "std.AudioTrim:length=0");
    error_trim_length_beyond => audio(16, STEREO, "std.AudioTrim:first=2:length=99999");
    error_trim_last_and_length => audio(16, STEREO, "std.AudioTrim:last=5:length=3");
    error_loop_negative => audio(16, STEREO, "std.AudioLoop:times=-1");
    error_loop_too_long => audio(16, STEREO, "std.AudioLoop:times=65970698");
    error_loop_too_long_big => audio(16, STEREO, "std.BlankAudio:@:length=1099511627776,std.AudioLoop:times=7");
    error_reverse_video => audio(16, STEREO, "std.BlankClip:@,std.AudioReverse");
}

each_case! { check;
    loop_longest_allowed => audio(16, STEREO, "std.AudioLoop:times=65970697,std.AudioTrim:first=6597069600000");
}

// ---- ShuffleChannels, SplitChannels -----------------------------------------------------------------

each_case! { check;
    shuffle_extract => audio(16, STEREO, "std.ShuffleChannels:@clips:channels_in=1:channels_out=1");
    shuffle_swap => audio(24, STEREO, "std.ShuffleChannels:@clips:channels_in=1:channels_in=0:channels_out=0:channels_out=1");
    shuffle_nth => audio(32, 7, "std.ShuffleChannels:@clips:channels_in=-1:channels_in=-3:channels_out=0:channels_out=1");
    shuffle_duplicate_input => audio(0, STEREO, "std.ShuffleChannels:@clips:channels_in=0:channels_in=0:channels_out=4:channels_out=9");
    shuffle_two_clips => audio(16, STEREO, "std.AudioTrim:first=7,std.ShuffleChannels:@:clips=$1:clips=$0:channels_in=0:channels_in=-1:channels_out=5:channels_out=0");
    shuffle_last_clip_reused => audio(16, SURROUND, &format!("{},std.ShuffleChannels:@:clips=$1:clips=$0:channels_in=2:channels_in=3:channels_in=5:channels_out=0:channels_out=1:channels_out=2", noise(16, 4, 100_000)));
    shuffle_shorter_first => audio(16, STEREO, &format!("{},std.ShuffleChannels:@:clips=$1:clips=$0:channels_in=0:channels_in=1:channels_out=0:channels_out=1", noise(16, STEREO, 4000)));
    shuffle_shorter_second => audio(0, STEREO, &format!("{},std.ShuffleChannels:@:clips=$0:clips=$1:channels_in=0:channels_in=1:channels_out=0:channels_out=1", noise(0, STEREO, 4000)));
    split_first => audio(16, SURROUND, "std.SplitChannels");
    split_after_shuffle => audio(24, SURROUND, "std.ShuffleChannels:@clips:channels_in=4:channels_in=5:channels_out=1:channels_out=0,std.SplitChannels");
    split_mono => audio(32, 4, "std.SplitChannels");
}

each_case! { check_error;
    error_shuffle_missing => audio(16, STEREO, "std.ShuffleChannels:@clips:channels_in=2:channels_out=0");
    error_shuffle_missing_nth => audio(16, STEREO, "std.ShuffleChannels:@clips:channels_in=-3:channels_out=0");
    error_shuffle_counts => audio(16, STEREO, "std.ShuffleChannels:@clips:channels_in=0:channels_in=1:channels_out=0");
    error_shuffle_out_twice => audio(16, STEREO, "std.ShuffleChannels:@clips:channels_in=0:channels_in=1:channels_out=0:channels_out=0");
    error_shuffle_out_range => audio(16, STEREO, "std.ShuffleChannels:@clips:channels_in=0:channels_out=64");
    error_shuffle_in_range => audio(16, STEREO, "std.ShuffleChannels:@clips:channels_in=70:channels_out=0");
    error_shuffle_more_clips => audio(16, STEREO, "std.ShuffleChannels:@:clips=$0:clips=$0:channels_in=0:channels_out=0");
    error_shuffle_bits => audio(16, STEREO, &format!("{},std.ShuffleChannels:@:clips=$0:clips=$1:channels_in=0:channels_in=1:channels_out=0:channels_out=1", noise(24, STEREO, 100)));
    error_shuffle_rate => audio(16, STEREO, "std.AssumeSampleRate:samplerate=8000,std.ShuffleChannels:@:clips=$0:clips=$1:channels_in=0:channels_in=1:channels_out=0:channels_out=1");
}

// ---- AssumeSampleRate, SetAudioCache ------------------------------------------------------------------

each_case! { check;
    assumesamplerate_rate => audio(16, STEREO, "std.AssumeSampleRate:samplerate=1000");
    assumesamplerate_src => audio(0, STEREO, "std.AssumeSampleRate:samplerate=8000,std.AssumeSampleRate:@:clip=$0:src=$1");
}

each_case! { check_error;
    error_assumesamplerate_neither => audio(16, STEREO, "std.AssumeSampleRate");
    error_assumesamplerate_both => audio(16, STEREO, "std.AssumeSampleRate:src=$0:samplerate=8000");
    error_assumesamplerate_zero => audio(16, STEREO, "std.AssumeSampleRate:samplerate=0");
    error_assumesamplerate_negative => audio(16, STEREO, "std.AssumeSampleRate:samplerate=-5");
    // SetAudioCache returns nothing, which the driver reports the same way for both cores.
    setaudiocache_accepted => audio(16, STEREO, "std.SetAudioCache:mode=1:fixedsize=1:maxsize=-5:maxhistory=3");
    setaudiocache_defaults => audio(16, STEREO, "std.SetAudioCache");
}

// ---- AudioResample ----------------------------------------------------------------------------------

/// AudioResample with `args` (dither off unless `args` names one).
fn resample(args: &str) -> String {
    if args.contains("dither_type") {
        format!("std.AudioResample{args}")
    } else {
        format!("std.AudioResample:dither_type='none{args}")
    }
}

const SEVEN_ONE: u64 = 0x63f;
const SURROUND_SIDE: u64 = 0x60f;

each_case! { check;
    resample_nothing_to_do => audio(16, STEREO, &resample(""));
    resample_16_to_float => audio(16, STEREO, &resample(":sampletype=1"));
    resample_24_to_float => audio(24, STEREO, &resample(":sampletype=1"));
    resample_32_to_float => audio(32, SURROUND, &resample(":sampletype=1"));
    resample_16_to_24 => audio(16, STEREO, &resample(":bits=24"));
    resample_16_to_20 => audio(16, STEREO, &resample(":bits=20"));
    resample_16_to_32 => audio(16, STEREO, &resample(":bits=32"));
    resample_24_to_32 => audio(24, STEREO, &resample(":bits=32"));
    resample_32_to_16 => audio(32, STEREO, &resample(":bits=16"));
    resample_32_to_24 => audio(32, SURROUND, &resample(":bits=24"));
    resample_24_to_16 => audio(24, STEREO, &resample(":bits=16"));
    resample_24_to_20 => audio(24, STEREO, &resample(":bits=20"));
    resample_float_to_16 => audio(0, STEREO, &resample(":sampletype=0:bits=16"));
    resample_float_to_24 => audio(0, STEREO, &resample(":sampletype=0:bits=24"));
    resample_float_to_32 => audio(0, SURROUND, &resample(":sampletype=0"));
    resample_float_clamped => audio(0, STEREO, &format!("std.AudioGain:gain=3.0,{}", resample(":sampletype=0:bits=16")));
    resample_up_48000 => audio(16, STEREO, &resample(":samplerate=48000"));
    resample_up_48000_float => audio(0, SURROUND, &resample(":samplerate=48000"));
    resample_up_double => audio(32, STEREO, &resample(":samplerate=88200:sampletype=1"));
    resample_up_odd_ratio => audio(24, STEREO, &resample(":samplerate=44101"));
    resample_down_half => audio(16, STEREO, &resample(":samplerate=22050"));
    resample_down_32000 => audio(0, STEREO, &resample(":samplerate=32000"));
    resample_down_8000 => audio(24, SURROUND, &resample(":samplerate=8000:bits=16"));
    resample_down_far => audio(16, STEREO, &resample(":samplerate=700:sampletype=1"));
    resample_short_clip => audio_sized(16, STEREO, 10, &resample(":samplerate=48000:sampletype=1"));
    resample_short_clip_down => audio_sized(0, STEREO, 100, &resample(":samplerate=8000"));
    resample_trimmed => audio(0, STEREO, &format!("std.AudioTrim:first=3000:length=9000,{}", resample(":samplerate=96000")));
    resample_stereo_to_mono => audio(16, STEREO, &resample(":channels=2"));
    resample_stereo_to_mono_float => audio(0, STEREO, &resample(":channels=2"));
    resample_stereo_to_mono_normalized_float => audio(0, STEREO, &resample(":channels=2:normalize=1"));
    resample_stereo_to_mono_loud => audio(16, STEREO, &resample(":channels=2:normalize=0"));
    resample_stereo_up => audio(16, STEREO, &resample(":channels=0:channels=1:channels=2:channels=3:channels=4:channels=5"));
    resample_surround_to_stereo => audio(32, SURROUND, &resample(":channels=0:channels=1"));
    resample_surround_to_stereo_float => audio(0, SURROUND, &resample(":channels=0:channels=1"));
    resample_surround_to_mono => audio(24, SURROUND, &resample(":channels=2:bits=16"));
    resample_surround_to_side => audio(0, SURROUND, &resample(":channels=0:channels=1:channels=2:channels=3:channels=9:channels=10"));
    resample_seven_one_to_surround => audio(0, SEVEN_ONE, &resample(":channels=0:channels=1:channels=2:channels=3:channels=4:channels=5"));
    resample_seven_one_to_stereo => audio(16, SEVEN_ONE, &resample(":channels=0:channels=1"));
    resample_side_to_back => audio(0, SURROUND_SIDE, &resample(":channels=0:channels=1:channels=2:channels=3:channels=4:channels=5"));
    resample_back_centre => audio(0, 0x103, &resample(":channels=0:channels=1"));
    resample_back_centre_to_backs => audio(0, 0x103, &resample(":channels=0:channels=1:channels=4:channels=5"));
    resample_back_centre_to_mono => audio(0, 0x100, &resample(":channels=2"));
    resample_centre_to_stereo => audio(0, 4, &resample(":channels=0:channels=1"));
    resample_centre_pair => audio(0, 0xc0, &resample(":channels=0:channels=1"));
    resample_centre_pair_to_mono => audio(0, 0xc0, &resample(":channels=2"));
    resample_backs_to_mono => audio(0, 0x30, &resample(":channels=2"));
    resample_heights => audio(0, 0x3f803, &resample(":channels=0:channels=1:channels=2"));
    resample_lfe_only => audio(0, 8, &resample(":channels=0:channels=1"));
    resample_left_to_right => audio(0, 1, &resample(":channels=1"));
    resample_centre_to_left => audio(0, 4, &resample(":channels=0"));
    resample_lfe_to_lfe2 => audio(0, 0x21088, &resample(":channels=0:channels=35"));
    resample_height_to_other_side => audio(0, 0x4001008, &resample(":channels=1:channels=17:channels=19"));
    resample_one_sided => audio(16, 0x292, &resample(":channels=0:channels=15:channels=17:channels=8"));
    resample_reorder_same_layout => audio(16, STEREO, &resample(":channels=1:channels=0:bits=24"));
    resample_mix_and_rate => audio(32, SURROUND, &resample(":channels=0:channels=1:samplerate=48000"));
    resample_mix_and_rate_down => audio(16, SURROUND, &resample(":channels=0:channels=1:samplerate=32000:normalize=1"));
    resample_everything => audio(24, SEVEN_ONE, &resample(":channels=2:samplerate=22050:sampletype=1"));
}

each_case! { check_clipping;
    resample_clipping_warning => audio(0, STEREO, &format!("std.AudioGain:gain=3.0,{}", resample(":sampletype=0:bits=16")));
}

each_case! { check_error;
    error_resample_rate_zero => audio(16, STEREO, "std.AudioResample:samplerate=0:bits=8");
    error_resample_rate_negative => audio(16, STEREO, "std.AudioResample:samplerate=-1");
    error_resample_rate_huge => audio(16, STEREO, "std.AudioResample:samplerate=4410000000");
    error_resample_bits => audio(16, STEREO, "std.AudioResample:bits=8:samplerate=1");
    error_resample_dither_before_bits => audio(16, STEREO, "std.AudioResample:bits=8:dither_type='x");
    error_resample_float_bits => audio(16, STEREO, "std.AudioResample:sampletype=1:bits=16");
    error_resample_channel_range => audio(16, STEREO, "std.AudioResample:channels=64:dither_type='x");
    error_resample_channel_negative => audio(16, STEREO, "std.AudioResample:channels=-1");
    error_resample_channel_twice => audio(16, STEREO, "std.AudioResample:channels=0:channels=0");
    error_resample_dither => audio(16, STEREO, "std.AudioResample:dither_type='NONE:samplerate=1");
    error_resample_ratio => audio(16, STEREO, "std.AudioResample:samplerate=1");
    error_resample_ratio_just_over => audio(16, STEREO, "std.AssumeSampleRate:samplerate=12801,std.AudioResample:samplerate=200");
    error_resample_phases => audio(16, STEREO, "std.AudioResample:samplerate=2147483647");
    error_resample_phases_just_over => audio(16, STEREO, "std.AssumeSampleRate:samplerate=1000,std.AudioResample:samplerate=65537");
    error_resample_length => audio(16, STEREO, "std.BlankAudio:@:length=6597069763584,std.AudioResample:samplerate=44101");
    error_resample_clipping => audio(0, STEREO, &format!("std.AudioGain:gain=3.0,{}", resample(":sampletype=0:bits=16:overflow_error=1")));
}

each_case! { check;
    resample_ratio_just_under => audio_sized(16, STEREO, 20000, "std.AssumeSampleRate:samplerate=12799,std.AudioResample:samplerate=200:sampletype=1");
    resample_many_phases => audio_sized(0, STEREO, 2000, "std.AssumeSampleRate:samplerate=1000,std.AudioResample:samplerate=65519");
    resample_long_clip_length => audio(16, STEREO, "std.BlankAudio:@:length=6597069763584,std.AudioResample:samplerate=44099:dither_type='none,std.AudioTrim:first=6596920170000");
}

// Dither noise: R81 draws it per output channel index and absolute output position (one SplitMix64
// step each), so these cover several frames, channel indices up to 63, positions far into a clip,
// every conversion that loses precision, rate changes (output positions, not input ones) and both
// noise shapes. Silence and a constant half a step above a level show the noise itself rather than
// the signal rounding.
each_case! { check;
    resample_default_dither => audio(32, STEREO, "std.AudioResample:bits=16");
    resample_rectangular_dither => audio(0, STEREO, "std.AudioResample:sampletype=0:bits=16:dither_type='rectangular");
    resample_rate_default_dither => audio(16, STEREO, "std.AudioResample:samplerate=48000");
    resample_dither_24_to_16_surround => audio(24, SURROUND, "std.AudioResample:bits=16:dither_type='rectangular");
    resample_dither_32_to_24 => audio(32, SURROUND, "std.AudioResample:bits=24");
    resample_dither_float_to_32 => audio(0, STEREO, "std.AudioGain:gain=0.0001,std.AudioResample:sampletype=0:bits=32");
    resample_dither_float_to_24_clipping => audio(0, STEREO, "std.AudioGain:gain=1.3,std.AudioResample:sampletype=0:bits=24:dither_type='rectangular");
    resample_dither_high_channels => audio(24, STEREO, "std.AudioResample:bits=16:channels=63:channels=0:channels=40:channels=1");
    resample_dither_rate_down_mix => audio(24, SURROUND, "std.AudioResample:bits=16:channels=0:channels=1:samplerate=22050:dither_type='rectangular");
    resample_dither_rate_up_float => audio(0, STEREO, "std.AudioResample:sampletype=0:bits=16:samplerate=192000");
    resample_dither_reversed_rate_down => audio(24, STEREO, "std.AudioReverse,std.AudioResample:bits=16:samplerate=8000");
    resample_dither_silence => audio(16, STEREO, "std.BlankAudio:@:sampletype=1:bits=32:length=20000:channels=0:channels=1:channels=2:channels=3:channels=4:channels=5:channels=6:channels=7,std.AudioResample:sampletype=0:bits=16");
    resample_dither_silence_far => audio(16, STEREO, "std.BlankAudio:@:length=6597069763584:sampletype=1:bits=32:channels=0:channels=1:channels=5,std.AudioTrim:first=6597069700000,std.AudioResample:sampletype=0:bits=16");
    resample_dither_silence_far_rate => audio(16, STEREO, "std.BlankAudio:@:length=5000000000000:bits=32,std.AudioResample:bits=24:samplerate=48000,std.AudioTrim:first=5442000000000");
    resample_dither_half_step_far => audio(16, STEREO, "std.BlankAudio:@:waveform='square:frequency=0.001:amplitude=0.2500152587890625:length=6597069763584:sampletype=1:bits=32:channels=0:channels=1,std.AudioTrim:first=6597069750000,std.AudioResample:sampletype=0:bits=16:dither_type='rectangular");
    // an output channel no input feeds stays silent: R81 does not dither it
    resample_dither_unfed_channel => audio(16, STEREO, "std.BlankAudio:@:sampletype=1:bits=32:length=10000:channels=0:channels=2,std.AudioResample:sampletype=0:bits=16:channels=0:channels=1:channels=2");
    resample_dither_unfed_channel_rate => audio(24, 1, "std.AudioResample:bits=16:channels=0:channels=1:samplerate=48000");
}

each_case! { check;
    // Without precision to lose there is nothing to dither: these match whatever the dither type.
    resample_dither_unused_up => audio(16, STEREO, "std.AudioResample:bits=24:dither_type='triangular");
    resample_dither_unused_float => audio(24, STEREO, "std.AudioResample:sampletype=1:dither_type='rectangular");
}

// ---- BlankAudio waveforms, float output -------------------------------------------------------------

// The phase is the exactly taken fraction of t * (frequency / rate), rounded once; float output shows
// its last bits where a period ends exactly (440 Hz at 44100 Hz: every 2205 samples) and at positions
// far into a clip.
each_case! { check;
    blankaudio_float_triangle_period_ends => audio(16, STEREO, "std.BlankAudio:@:waveform='triangle:sampletype=1:bits=32:length=100000");
    blankaudio_float_slope_441 => audio(16, STEREO, "std.BlankAudio:@:waveform='slope:frequency=441.0:amplitude=0.7:sampletype=1:bits=32:length=50000");
    blankaudio_float_square_48k => audio(16, STEREO, "std.BlankAudio:@:waveform='square:frequency=1000.0:samplerate=48000:amplitude=0.5:sampletype=1:bits=32:length=50000");
    blankaudio_float_sine_period_ends => audio(16, STEREO, "std.BlankAudio:@:waveform='sine:sampletype=1:bits=32:length=100000");
    blankaudio_float_sine_odd_frequency => audio(16, STEREO, "std.BlankAudio:@:waveform='sine:frequency=12345.678:amplitude=0.9999:sampletype=1:bits=32:length=50000");
    blankaudio_float_triangle_far => audio(16, STEREO, "std.BlankAudio:@:waveform='triangle:sampletype=1:bits=32:length=6597069050000,std.AudioTrim:first=6597069000000");
    blankaudio_float_sine_far_48k => audio(16, STEREO, "std.BlankAudio:@:waveform='sine:frequency=1000.0:samplerate=48000:sampletype=1:bits=32:length=1234617890,std.AudioTrim:first=1234567890");
    blankaudio_int32_slope_7hz => audio(16, STEREO, "std.BlankAudio:@:waveform='slope:frequency=7.0:samplerate=22050:bits=32:length=50000");
}
