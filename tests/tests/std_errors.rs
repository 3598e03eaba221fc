//! Bad arguments and refused frame requests for the std and text functions that the per-family test
//! files leave out: the argument checking every function shares (wrong clip kinds, wrong types, a
//! value where an array is not allowed, missing and unknown arguments, unknown functions), BlankClip
//! and BlankAudio (odd sizes for subsampled formats, out of range colours, rates, lengths and
//! formats), the audio functions given video and the wrong types, the frame property functions, the
//! text namespace, SetMaxCPU, LoadPlugin and LoadAllPlugins, and the callbacks' std entry points
//! (FrameEval, ModifyFrame). Each chain runs on R81 and on our core through the oracle driver
//! (tests/oracle/driver.c); the `error: ...` lines must be identical, and R81 must refuse the chain.
//! Every family also has chains with valid arguments that both cores must run alike, so that a
//! family cannot pass by refusing everything.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use vsvk_tests::each_case;
use vsvk_tests::oracle::{self, check, check_all, check_error, check_errors, format_id, func_plugin, noise_plugin, Case};

/// The noise source, small: 4:2:0 8-bit, 64x48, three frames.
fn video(chain: &str) -> Case {
    Case::sized("YUV420P8", 64, 48, 3, chain)
}

/// The audio noise source: 16-bit stereo, 10000 samples at 44100 Hz.
fn audio(chain: &str) -> Case {
    Case::audio(16, STEREO, 10_000, chain)
}

const STEREO: u64 = 3;

/// BlankClip's format argument for a YUV integer format with this subsampling.
fn yuv8(ssw: u32, ssh: u32) -> u32 {
    format_id(3, false, 8, ssw, ssh)
}

/// A test plugin that no run loads by itself, for LoadPlugin: built once per test process.
fn modes_plugin() -> &'static Path {
    static CELL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match CELL.get_or_init(|| oracle::compile("vsvkmodes.so", "tests/plugins/vsvkmodes.c", true)) {
        Ok(p) => p,
        Err(e) => panic!("cannot build the modes plugin: {e}"),
    }
}

/// A path as a chain argument; the driver's separators cannot appear in it.
fn chain_path(p: &Path) -> String {
    let s = p.display().to_string();
    assert!(!s.contains(',') && !s.contains(':'), "the driver cannot pass the path {s}");
    s
}

// ---- the argument checking every function shares ------------------------------------------------

#[test]
fn shared_argument_errors() {
    check_errors(&[
        // unknown functions and arguments
        video("std.Nope"),
        video("text.Nope"),
        video("nope.Nope"),
        video("std.Crop:bogus=1"),
        video("text.ClipInfo:bogus=1"),
        audio("std.AudioReverse:bogus=1"),
        audio("std.AudioTrim:first=1:bogus=2"),
        // required arguments missing
        video("std.Crop:@"),
        video("std.Merge:@clipa"),
        video("std.FrameEval"),
        video("std.ModifyFrame"),
        video("std.ModifyFrame:clips=$0"),
        video("std.SetMaxCPU:@"),
        audio("std.AudioGain"),
        audio("std.AudioMix:@clips:matrix=1.0"),
        audio("std.ShuffleChannels:@clips:channels_in=0"),
        // the wrong type: strings, floats and ints are not converted into each other
        video("std.Crop:left='a"),
        video("std.Crop:left=1.5"),
        video("std.Levels:gamma=2"),
        video("std.Binarize:planes=0.0"),
        video("std.Expr:@clips:expr=1"),
        video("std.Lut:lut=1.5"),
        video("std.FrameEval:eval=1"),
        video("std.ModifyFrame:clips=$0:selector=1"),
        video("std.SetMaxCPU:@:cpu=1"),
        // one value only where the argument is not an array
        video("std.FlipVertical:@:clip=$0:clip=$0"),
        video("std.SetFieldBased:value=1:value=1"),
        video("std.Trim:first=1:first=2"),
        video("std.BlankClip:clip=$0:clip=$0"),
        video("text.Text:text='a:text='b"),
        audio("std.SplitChannels:clip=$0"),
        audio("std.AssumeSampleRate:src=$0:src=$0"),
        // video functions given audio
        audio("std.FlipVertical"),
        audio("std.Trim:first=1"),
        audio("std.AssumeFPS:fpsnum=1"),
        audio("std.SetFieldBased:value=1"),
        audio("std.SetVideoCache"),
        audio("std.SplitPlanes"),
        audio("std.Splice:@clips:clips=$0"),
        audio("std.PlaneStats:@clipa"),
        audio("std.ModifyFrame:clips=$0"),
        audio("std.BlankClip:clip=$0"),
    ]);
}

#[test]
fn shared_arguments_valid() {
    check_all(&[
        video("std.Crop:left=2:right=4,std.Levels:gamma=2.0,std.Binarize:planes=0"),
        video("std.Trim:first=1,std.SetFieldBased:value=1,std.FlipVertical"),
        audio("std.AudioReverse,std.AudioTrim:first=1:last=9000"),
        audio("std.ShuffleChannels:@clips:channels_in=1:channels_in=0:channels_out=0:channels_out=1"),
    ]);
}

// ---- BlankClip ----------------------------------------------------------------------------------

#[test]
fn blank_clip_errors() {
    let (y420, y411, y410, y440) = (yuv8(1, 1), yuv8(2, 0), yuv8(2, 2), yuv8(0, 1));
    let gray16 = format_id(1, false, 16, 0, 0);
    let gray10 = format_id(1, false, 10, 0, 0);
    check_errors(&[
        // sizes, also those that the format's subsampling does not divide (the size taken from the
        // source clip, YUV420P8, unless given)
        video("std.BlankClip:@:width=-1"),
        video("std.BlankClip:@:width=0"),
        video("std.BlankClip:@:height=0"),
        video(&format!("std.BlankClip:@:width=33:height=24:format={y420}")),
        video(&format!("std.BlankClip:@:width=32:height=23:format={y420}")),
        video(&format!("std.BlankClip:@:width=34:height=24:format={y411}")),
        video(&format!("std.BlankClip:format={y410}:height=46")),
        video(&format!("std.BlankClip:format={y440}:height=47")),
        video("std.BlankClip:width=63"),
        video("std.BlankClip:height=47"),
        video("std.BlankClip:varsize=1:width=3"),
        // formats
        video("std.BlankClip:@:format=1234"),
        video("std.BlankClip:@:format=0"),
        video(&format!("std.BlankClip:@:format={}", format_id(1, true, 9, 0, 0))),
        video(&format!("std.BlankClip:format={}", format_id(4, false, 8, 0, 0))),
        video(&format!("std.BlankClip:format={}", format_id(3, true, 8, 0, 0))),
        video(&format!("std.BlankClip:format={}", yuv8(5, 5))),
        video(&format!("std.BlankClip:format={}", format_id(3, false, 33, 0, 0))),
        // lengths and rates
        video("std.BlankClip:@:length=0"),
        video("std.BlankClip:@:length=-1"),
        video("std.BlankClip:length=0"),
        // colours: one per plane, each within the format's range
        video("std.BlankClip:@:color=1.0:color=2.0"),
        video("std.BlankClip:@:color=300.0"),
        video("std.BlankClip:@:color=1.0:color=2.0:color=3.0:color=4.0"),
        video(&format!("std.BlankClip:@:format={y420}:color=1.0")),
        video(&format!("std.BlankClip:@:format={y420}:color=256.0:color=2.0:color=3.0")),
        video(&format!("std.BlankClip:@:format={y420}:color=-1.0:color=2.0:color=3.0")),
        video(&format!("std.BlankClip:format={gray16}:color=65536.0")),
        video(&format!("std.BlankClip:format={gray10}:color=1024.0")),
        // types
        video("std.BlankClip:@:color=1"),
        video("std.BlankClip:@:width=64.0"),
        video("std.BlankClip:@:varsize=1:varsize=1"),
    ]);
}

#[test]
fn blank_clip_valid() {
    let (y420, y410) = (yuv8(1, 1), yuv8(2, 2));
    let gray8 = format_id(1, false, 8, 0, 0);
    let gray16 = format_id(1, false, 16, 0, 0);
    check_all(&[
        video("std.BlankClip:@:width=33:height=24:length=5"),
        video(&format!("std.BlankClip:width=63:height=47:format={gray8}")),
        video(&format!("std.BlankClip:format={y410}")),
        video(&format!("std.BlankClip:@:width=64:height=48:format={y420}:color=1.5:color=2.0:color=3.0:length=4")),
        video(&format!("std.BlankClip:format={gray16}:color=65535.0")),
        video(&format!("std.BlankClip:format={}:color=65505.0", format_id(1, true, 16, 0, 0))),
        video(&format!("std.BlankClip:format={}:color=1.0e30", format_id(1, true, 32, 0, 0))),
        video("std.BlankClip:fpsnum=30000:fpsden=1001"),
        video("std.BlankClip:fpsnum=0:fpsden=1"),
        video("std.BlankClip:@:keep=1:length=5:width=16:height=16"),
        video(&format!("std.BlankClip:format={y420}:varformat=1")),
    ]);
}

// ---- BlankAudio ---------------------------------------------------------------------------------

#[test]
fn blank_audio_errors() {
    check_errors(&[
        audio("std.BlankAudio:@:channels=0:channels=0"),
        audio("std.BlankAudio:@:bits=8"),
        audio("std.BlankAudio:@:bits=33"),
        audio("std.BlankAudio:bits=8"),
        audio("std.BlankAudio:@:sampletype=1"),
        audio("std.BlankAudio:@:sampletype=2"),
        audio("std.BlankAudio:@:sampletype=-1"),
        audio("std.BlankAudio:@:samplerate=0"),
        audio("std.BlankAudio:@:samplerate=-1"),
        audio("std.BlankAudio:@:length=0"),
        audio("std.BlankAudio:@:length=-1"),
        audio("std.BlankAudio:@:waveform='nope"),
        audio("std.BlankAudio:@:waveform='Sine"),
        // types, and a video clip to copy from
        audio("std.BlankAudio:@:channels=0.5"),
        audio("std.BlankAudio:@:waveform=1"),
        audio("std.BlankAudio:@:amplitude=1"),
        audio("std.BlankAudio:@:bits=16:bits=16"),
        audio("std.BlankAudio:clip=$0:keep=1"),
        audio("std.BlankClip:@,std.BlankAudio:@:clip=$1"),
    ]);
}

#[test]
fn blank_audio_valid() {
    check_all(&[
        audio("std.BlankAudio:@:bits=20:length=5000"),
        audio("std.BlankAudio:@:sampletype=1:bits=32:length=5000"),
        audio("std.BlankAudio:@:channels=0:channels=1:channels=2:channels=3:channels=4:channels=5:channels=6:channels=7:channels=8:channels=9:length=3000"),
        audio("std.BlankAudio:keep=1"),
        audio("std.BlankAudio:length=7000"),
        audio("std.BlankAudio:@:samplerate=8000:length=9000:amplitude=0.5:frequency=10.0"),
    ]);
}

// ---- audio functions --------------------------------------------------------------------------------

#[test]
fn audio_errors() {
    check_errors(&[
        // given video
        audio("std.BlankClip:@,std.SplitChannels"),
        audio("std.BlankClip:@,std.AssumeSampleRate:src=$1"),
        audio("std.BlankClip:@,std.AssumeSampleRate:samplerate=8000"),
        audio("std.BlankClip:@,std.SetAudioCache"),
        audio("std.BlankClip:@,std.AudioTrim:first=1"),
        audio("std.BlankClip:@,std.AudioLoop"),
        audio("std.BlankClip:@,std.AudioResample:samplerate=48000"),
        video("std.AudioSplice:@clips"),
        video("std.AudioMix:@clips:matrix=1.0:channels_out=0"),
        video("std.ShuffleChannels:@clips:channels_in=0:channels_out=0"),
        // the wrong types
        audio("std.AudioTrim:first=1.0"),
        audio("std.AudioLoop:times=2.0"),
        audio("std.AudioGain:gain=1"),
        audio("std.AudioResample:dither_type=1"),
        audio("std.AudioResample:channels=0.0"),
        audio("std.AssumeSampleRate:samplerate=8000.0"),
        audio("std.SetAudioCache:mode=1.0"),
    ]);
}

#[test]
fn audio_valid() {
    check_all(&[
        // SplitChannels returns an array of clips; the driver takes the first
        audio("std.SplitChannels"),
        audio("std.AssumeSampleRate:samplerate=8000,std.AudioLoop:times=2"),
        audio("std.AudioGain:gain=0.5:gain=0.25,std.AudioMix:@clips:matrix=0.5:matrix=0.5:channels_out=2"),
    ]);
}

// ---- frame properties -------------------------------------------------------------------------------

#[test]
fn frame_prop_errors() {
    check_errors(&[
        video("std.SetFrameProp:prop='a.b:intval=1"),
        video("std.SetFrameProp:prop='x:intval=1:floatval=1.0"),
        video("std.SetFrameProp:prop='x:floatval=1.0:data='d"),
        video("std.SetFrameProp:prop='x:intval=1.5"),
        video("std.SetFrameProp:prop='x:data=1"),
        video("std.SetFrameProp:prop=1:intval=1"),
        video("std.SetFrameProps:x=$0"),
        video("std.RemoveFrameProps:props=1"),
        video("std.CopyFrameProps:prop_src=$0:props=1"),
        video("std.ClipToProp:mclip=$0:prop='a b"),
        video("std.ClipToProp:mclip=$0:prop=1"),
        video("std.PlaneStats:@clipa:plane=1.0"),
        video("std.SetFieldBased:value=1.0"),
        // PropToClip looks at the first frame when it is made: properties that hold no frame
        video("std.PropToClip:prop='_ChromaLocation"),
        video("std.SetFrameProp:prop='q:intval=1,std.PropToClip:prop='q"),
        video("std.SetFrameProp:prop='q:data='x,std.PropToClip:prop='q"),
        video("std.ClipToProp:mclip=$0:prop='q,std.PropToClip:prop='q:index=1"),
        video("std.PropToClip:index=0.0"),
        // audio where video is wanted
        audio("std.SetFrameProp:prop='x:intval=1"),
        audio("std.SetFrameProps:a=1"),
        audio("std.RemoveFrameProps"),
        audio("std.CopyFrameProps:prop_src=$0"),
        audio("std.ClipToProp:mclip=$0"),
        audio("std.BlankClip:@,std.ClipToProp:@:clip=$1:mclip=$0"),
        audio("std.BlankClip:@,std.CopyFrameProps:@:clip=$1:prop_src=$0"),
    ]);
}

#[test]
fn frame_prop_valid() {
    check_all(&[
        video("std.SetFrameProp:prop='_x:intval=1"),
        video("std.SetFrameProps:_Matrix='x:Weird=2.5"),
        // unlike SetFrameProp, SetFrameProps takes any key
        video("std.SetFrameProps:1a=1"),
        video("std.RemoveFrameProps:props='1x:props='"),
        video("std.RemoveFrameProps:props='*"),
        video("std.CopyFrameProps:prop_src=$0:props='1x"),
        video("std.Trim:length=1,std.CopyFrameProps:@:clip=$0:prop_src=$1"),
        video("std.Trim:length=1,std.ClipToProp:@:clip=$0:mclip=$1"),
        video("std.ClipToProp:mclip=$0:prop='q,std.PropToClip:prop='q:index=0"),
        video("std.SetFieldBased:value=2,std.SetFrameProp:prop='_Field:intval=5"),
    ]);
}

// ---- text -----------------------------------------------------------------------------------------

#[test]
fn text_errors() {
    let y440 = yuv8(0, 1);
    check_errors(&[
        video("text.Text:text='a:alignment=10"),
        video("text.Text:text='a:alignment=-1"),
        video("text.FrameNum:scale=-5"),
        video("text.CoreInfo:@:alignment=0"),
        video("text.CoreInfo:@:scale=0"),
        // the wrong types
        video("text.Text:text=1"),
        video("text.Text:text='a:alignment=5.0"),
        video("text.Text:text='a:scale=2.0"),
        video("text.FrameProps:props=1"),
        // audio
        audio("text.Text:text='a"),
        audio("text.FrameNum"),
        audio("text.CoreInfo"),
        audio("text.ClipInfo"),
        audio("text.FrameProps"),
        // refused when a frame is asked for: the text does not fit
        video("text.Text:text='a:scale=100"),
        video(&format!("std.BlankClip:@:format={y440}:width=64:height=48,text.Text:text='a:scale=2")),
    ]);
}

#[test]
fn text_valid() {
    let y410 = yuv8(2, 2);
    let rgbs = format_id(2, true, 32, 0, 0);
    check_all(&[
        video("text.Text:text='"),
        video("text.FrameProps:props='1x"),
        video("text.Text:text='a:alignment=9:scale=1"),
        video(&format!("std.BlankClip:@:format={y410}:width=64:height=48:length=2,text.Text:text='a")),
        video(&format!("std.BlankClip:@:format={rgbs}:width=64:height=48:length=2,text.FrameNum:alignment=3")),
    ]);
}

// ---- SetMaxCPU ------------------------------------------------------------------------------------

#[test]
fn set_max_cpu_errors() {
    // levels are lower case; a bad one is refused when the driver sets it, before the source
    let cases: Vec<Case> = ["bogus", "NONE", "AVX2", "zn4", "x86", "auto"].iter().map(|l| video("-").with_mode(&["--maxcpu", l])).collect();
    check_errors(&cases);
    // a good level returns a string where the driver wants a clip, alike on both cores
    check_errors(&[video("std.SetMaxCPU:@:cpu='bogus"), video("std.SetMaxCPU:@:cpu='none")]);
}

#[test]
fn set_max_cpu_valid() {
    let cases: Vec<Case> = ["none", "sse2", "avx2", "avx512"].iter().map(|l| video("std.Invert").with_mode(&["--maxcpu", l])).collect();
    check_all(&cases);
}

// ---- LoadPlugin, LoadAllPlugins --------------------------------------------------------------------

#[test]
fn load_plugin_errors() {
    let noise = chain_path(noise_plugin());
    let modes = chain_path(modes_plugin());
    check_errors(&[
        video("std.LoadPlugin:@:path='/nonexistent/x.so"),
        video("std.LoadPlugin:@:path='/etc/passwd"),
        video("std.LoadPlugin:@"),
        video("std.LoadPlugin:@:path=1"),
        // loaded already, by path, by identifier, or into a namespace in use
        video(&format!("std.LoadPlugin:@:path='{noise}")),
        video(&format!("std.LoadPlugin:@:path='{noise}:forcens='x")),
        video(&format!("std.LoadPlugin:@:path='{modes}:forceid='org.vsvk.noise")),
        // these load (or find nothing to load) and return no clip, which the driver reports alike
        video(&format!("std.LoadPlugin:@:path='{modes}")),
    ]);
}

#[test]
fn load_plugin_valid() {
    let modes = modes_plugin();
    check_all(&[video("vsvkmodes.Parallel:radius=1").with_plugin(modes), video("vsvkfunc.Modify:@:clip=$0:clips=$0").with_plugin(func_plugin())]);
}

// ---- where our core differs from R81 --------------------------------------------------------------
// Each case below fails on our core today (the message differs, or one core refuses what the other
// takes); they are kept apart so that the families above stay meaningful, and lose their #[ignore]
// once the core matches.

const GRAYH: u32 = (1 << 28) | (1 << 24) | (16 << 16);
const GRAYS: u32 = (1 << 28) | (1 << 24) | (32 << 16);

each_case! { check_error;
    blank_clip_variable_size_source => video("std.BlankClip:@:varsize=1,std.BlankClip");
    blank_clip_variable_format_source => video("std.BlankClip:@:varformat=1,std.BlankClip");
    blank_clip_negative_fpsnum => video("std.BlankClip:@:fpsnum=-1");
    blank_clip_negative_fpsden => video("std.BlankClip:fpsnum=1:fpsden=-1");
    blank_clip_negative_fpsden_alone => video("std.BlankClip:@:fpsden=-3");
    blank_clip_half_color_range => video(&format!("std.BlankClip:format={GRAYH}:color=70000.0"));
    blank_clip_half_color_range_negative => video(&format!("std.BlankClip:format={GRAYH}:color=-70000.0"));
    blank_clip_float_color_range => video(&format!("std.BlankClip:format={GRAYS}:color=1.0e300"));
    blank_audio_channel_range => audio("std.BlankAudio:@:channels=64");
    blank_audio_channel_negative => audio("std.BlankAudio:@:channels=-1");
    blank_audio_too_long => audio("std.BlankAudio:@:length=9223372036854775807");
    load_all_plugins_no_folder => video("std.LoadAllPlugins:@:path='/nonexistent");
}

each_case! { check;
    blank_clip_fpsden_alone => video("std.BlankClip:fpsden=2");
    blank_clip_fpsden_alone_default_rate => video("std.BlankClip:@:fpsden=2:length=5:width=16:height=16");
    blank_clip_variable_size_source_overridden => video("std.BlankClip:@:varsize=1,std.BlankClip:width=16:height=16:length=4");
    blank_clip_variable_format_source_overridden => video(&format!("std.BlankClip:@:varformat=1:width=16:height=16,std.BlankClip:format={}:length=4", format_id(1, false, 8, 0, 0)));
    set_max_cpu_empty_level => video("std.Invert").with_mode(&["--maxcpu", ""]);
}

#[test]
fn load_plugin_namespace_taken() {
    check_error(video(&format!("std.LoadPlugin:@:path='{}:forcens='vsvknoise", chain_path(modes_plugin()))));
}
