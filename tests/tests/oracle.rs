//! The oracle: every chain runs on the reference core (VapourSynth R81) and on ours through the same C
//! driver (tests/oracle/driver.c) and the same source plugin (tests/plugins/vsvknoise.c), and the
//! fingerprints they print (a hash of every pixel, sample and frame property, the frame count and
//! the clip's format) must be identical.
//!
//! Needs `scripts/setup.sh` (the reference and the plugins) and our core built in release mode
//! (`scripts/test.sh` does both builds). Environment:
//!   VSVK_REF      the reference folder (default ~/.cache/vsvk-ref)
//!   VSVK_CORE     the core under test (default target/release/libvsvk.so); pointing it at the
//!                 reference core itself checks the harness
//!   VSVK_INCLUDE  the API headers the C programs are built against (default the reference's)

use vsvk_tests::each_case;
use vsvk_tests::oracle::{check, check_error, check_modes_in, reference_core, run, Case};
use vsvk_tests::reference;

// ---- cases ----------------------------------------------------------------------------------------------

/// The plugins a chain's namespaces need, loaded with the case.
fn with_namespaces(mut case: Case) -> Case {
    let chain = case.chain_text().into_owned();
    for step in chain.split(',') {
        let ns = step.split('.').next().unwrap_or("");
        if let Some(p) = reference::plugin_for_namespace(ns) {
            case = case.with_plugin(&p);
        }
    }
    case
}

fn video(format: &str, chain: &str) -> Case {
    video_sized(format, 320, 240, 10, chain)
}

fn video_sized(format: &str, width: u32, height: u32, frames: u32, chain: &str) -> Case {
    with_namespaces(Case::sized(format, width, height, frames, chain))
}

/// `bits` 16, 24 or 32 for integer samples, 0 for 32-bit float; `channels` a channel layout mask.
fn audio(bits: u32, channels: u64, chain: &str) -> Case {
    with_namespaces(Case::audio(bits, channels, 100_000, chain))
}

/// The case must give the reference's fingerprint whatever the thread count, the number of requests
/// in flight, and with the synchronous getFrame.
fn check_modes(case: Case) {
    let want = run(&reference_core(), &case, &[]);
    // the case itself must be deterministic on the reference, or comparing against it means nothing
    let again = run(&reference_core(), &case, &["--threads", "1", "--requests", "1"]);
    assert!(
        want.ok() && again.fingerprint() == want.fingerprint(),
        "the reference core fails or is not deterministic on {}:\n  {}\n  {}",
        case.describe(),
        want.fingerprint(),
        again.fingerprint()
    );
    check_modes_in(
        &case,
        &[
            &["--threads", "1"],
            &["--threads", "2"],
            &["--threads", "7"],
            &["--threads", "32"],
            &["--threads", "7", "--requests", "1"],
            &["--threads", "32", "--requests", "64"],
            &["--threads", "2", "--sync"],
            &["--threads", "7", "--sync", "--requests", "4"],
        ],
    );
}

// ---- the harness itself, on the reference alone ------------------------------------------------------------

/// The driver and the noise source give one answer on the reference core whatever the threads, the
/// requests in flight or the fetching mode, for every kind of format. Needs only the reference.
#[test]
fn harness_is_deterministic_on_the_reference() {
    let core = reference_core();
    let cases = [
        video("YUV420P8", "-"),
        video("YUV420P10", "-"),
        video("YUV444PH", "-"),
        video("RGBS", "-"),
        video("YUV420P8", "cas.CAS,bwdif.Bwdif:field=1,znedi3.nnedi3:field=0,zsmooth.RemoveGrain:mode=12"),
        audio(24, 3, "-"),
    ];
    for case in cases {
        let first = run(&core, &case, &["--threads", "1"]);
        assert!(first.ok(), "{}: {}\n{}", case.describe(), first.line, first.stderr_tail());
        for mode in [&["--threads", "7"][..], &["--threads", "32", "--requests", "3"], &["--threads", "4", "--sync", "--requests", "3"]] {
            let other = run(&core, &case, mode);
            assert_eq!(first.fingerprint(), other.fingerprint(), "{} [{}]", case.describe(), mode.join(" "));
        }
    }
    // different sources give different fingerprints
    let a = run(&core, &video("YUV420P8", "-"), &[]);
    let mut seeded = video("YUV420P8", "-");
    seeded.source.extend(["--seed".to_string(), "8".to_string()]);
    let b = run(&core, &seeded, &[]);
    assert!(a.ok() && b.ok() && a.fingerprint() != b.fingerprint(), "the seed changes nothing: {} / {}", a.line, b.line);
}

/// Errors come back as one "error:" line and exit status 1.
#[test]
fn harness_reports_errors() {
    let r = run(&reference_core(), &video("YUV420P8", "nosuch.Filter"), &[]);
    assert!(r.line.starts_with("error:") && r.line.contains("nosuch"), "{}", r.line);
    let r = run(&reference_core(), &video("YUV420P8", "std.Crop:left=-5"), &[]);
    assert!(r.line.starts_with("error:"), "{}", r.line);
}

// ---- the cases ---------------------------------------------------------------------------------------------

const FOUR: &str = "cas.CAS,bwdif.Bwdif:field=1,znedi3.nnedi3:field=0,zsmooth.RemoveGrain:mode=12";

/// dfttest2_cpu takes its window and per-frequency sigma as flat arrays: a flat window for 16x16
/// blocks (scaled so the output keeps its level) and one sigma per frequency bin (16 x 9).
fn dfttest(extra: &str) -> String {
    let mut s = String::from("dfttest2_cpu.DFTTest");
    for _ in 0..256 {
        s.push_str(":window=0.03125");
    }
    for _ in 0..16 * 9 {
        s.push_str(":sigma=8.0");
    }
    s.push_str(":sigma2=8.0:pmin=0.0:pmax=500.0:filter_type=0:radius=0:block_size=16:block_step=12:zero_mean=0");
    s.push_str(extra);
    s
}

const MV_BW_FW: &str = "mv.Super,mv.Analyse:@super:isb=1,mv.Analyse:@:super=$1:isb=0";

fn mv(tail: &str) -> String {
    format!("{MV_BW_FW},{tail}")
}

// The four named plugins, alone and chained, over formats of every kind.
each_case! { check;
    cas_yuv420p8 => video("YUV420P8", "cas.CAS");
    cas_yuv420p16 => video("YUV420P16", "cas.CAS:sharpness=0.8");
    cas_grays => video("GrayS", "cas.CAS");
    cas_rgb24 => video("RGB24", "cas.CAS");
    cas_yuv444ps => video("YUV444PS", "cas.CAS:planes=0:planes=1:planes=2");
    cas_yuv422p10 => video("YUV422P10", "cas.CAS");
    bwdif_yuv420p8 => video("YUV420P8", "bwdif.Bwdif:field=1");
    bwdif_yuv420p16 => video("YUV420P16", "bwdif.Bwdif:field=1");
    bwdif_grays => video("GrayS", "bwdif.Bwdif:field=1");
    bwdif_rgb24 => video("RGB24", "bwdif.Bwdif:field=0");
    bwdif_double_rate => video("YUV420P8", "bwdif.Bwdif:field=3");
    znedi3_yuv420p8 => video("YUV420P8", "znedi3.nnedi3:field=0");
    znedi3_yuv420p16 => video("YUV420P16", "znedi3.nnedi3:field=0");
    znedi3_grays => video("GrayS", "znedi3.nnedi3:field=0");
    znedi3_rgb24 => video("RGB24", "znedi3.nnedi3:field=0");
    znedi3_yuv420ph => video("YUV420PH", "znedi3.nnedi3:field=0");
    znedi3_dh => video("YUV420P8", "znedi3.nnedi3:field=1:dh=1");
    removegrain_yuv420p8 => video("YUV420P8", "zsmooth.RemoveGrain:mode=12");
    removegrain_yuv420p16 => video("YUV420P16", "zsmooth.RemoveGrain:mode=12");
    removegrain_grays => video("GrayS", "zsmooth.RemoveGrain:mode=12");
    removegrain_rgb24 => video("RGB24", "zsmooth.RemoveGrain:mode=12");
    removegrain_yuv420ph => video("YUV420PH", "zsmooth.RemoveGrain:mode=12");
    four_yuv420p8 => video("YUV420P8", FOUR);
    four_yuv420p16 => video("YUV420P16", FOUR);
    four_grays => video("GrayS", FOUR);
    four_rgb24 => video("RGB24", FOUR);
    four_yuv444ps => video("YUV444PS", FOUR);
    four_yuv422p10 => video("YUV422P10", FOUR);
}

// The same output whatever the threads, requests in flight and fetching mode.
each_case! { check_modes;
    modes_four_yuv420p8 => video("YUV420P8", FOUR);
    modes_four_grays => video("GrayS", FOUR);
    modes_temporal => video("YUV420P16", "zsmooth.TemporalMedian:radius=2,zsmooth.FluxSmoothT");
    modes_mvtools => video("YUV420P8", &mv("mv.FlowFPS:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:num=48000:den=1001"));
    modes_tivtc => video("YUV420P8", "tivtc.TFM:order=1,tivtc.TDecimate");
    modes_std => video("YUV420P8", "std.SelectEvery:cycle=3:offsets=2:offsets=0,std.Reverse,std.PlaneStats:@clipa");
    modes_audio => audio(16, 3, "std.AudioGain:gain=0.5,std.AudioReverse");
}

// More CPU plugins from the wheels.
each_case! { check;
    zsmooth_temporalmedian => video("YUV420P8", "zsmooth.TemporalMedian");
    zsmooth_fluxsmootht => video("YUV420P8", "zsmooth.FluxSmoothT");
    zsmooth_degrainmedian => video("YUV420P8", "zsmooth.DegrainMedian");
    zsmooth_median => video("GrayS", "zsmooth.Median");
    zsmooth_ttempsmooth => video("YUV420P8", "zsmooth.TTempSmooth:scthresh=0.0");
    zsmooth_verticalcleaner => video("YUV420P16", "zsmooth.VerticalCleaner:mode=1");
    zsmooth_ccd => video("RGB24", "zsmooth.CCD:scale=1.0");
    vszip_boxblur => video("YUV420P8", "vszip.BoxBlur:hradius=2:vradius=2");
    vszip_bilateral => video("YUV420P16", "vszip.Bilateral");
    vszip_clahe => video("YUV420P8", "vszip.CLAHE");
    vszip_deband => video("YUV420P8", "vszip.Deband");
    vszip_combmask => video("YUV420P8", "vszip.CombMask");
    vszip_adaptivegrainmask => video("YUV420P8", "vszip.AdaptiveGrainMask");
    vszip_planeminmax => video("YUV420P16", "vszip.PlaneMinMax:@clipa");
    vszip_planeaverage => video("YUV420P8", "vszip.PlaneAverage:@clipa:exclude=0");
    vszip_mosquitonr => video("YUV420P8", "vszip.MosquitoNR");
    vszip_checkmate => video("YUV420P8", "vszip.Checkmate");
    vszip_eedi3 => video("YUV420P8", "vszip.EEDI3:field=1");
    vszip_wnnm => video("GrayS", "vszip.WNNM");
    edgemasks_sobel => video("YUV420P8", "edgemasks.Sobel");
    edgemasks_sobel_grays => video("GrayS", "edgemasks.Sobel");
    edgemasks_kirsch => video("YUV420P16", "edgemasks.Kirsch");
    edgemasks_exprewitt => video("RGB24", "edgemasks.ExPrewitt");
    edgemasks_tritical => video("YUV420P8", "edgemasks.Tritical");
    edgemasks_fdog => video("YUV420P8", "edgemasks.FDoG");
    fillborders_default => video("YUV420P8", "fb.FillBorders:left=4:right=2:top=2:bottom=6");
    fillborders_mirror => video("YUV420P16", "fb.FillBorders:left=4:right=2:top=2:bottom=6:mode='mirror");
    fillborders_gray16 => video("Gray16", "fb.FillBorders:left=3:right=5:top=1:bottom=1:mode='fillmargins");
    sangnom_default => video("YUV420P8", "sangnom.SangNom");
    sangnom_dh => video("YUV420P8", "sangnom.SangNom:order=2:dh=1");
    sangnom_yuv420p16 => video("YUV420P16", "sangnom.SangNom");
    descale_debilinear => video("GrayS", "descale.Debilinear:@src:width=160:height=120");
    descale_despline36 => video("YUV444PS", "descale.Despline36:@src:width=288:height=216");
    descale_bicubic_up => video("GrayS", "descale.Bicubic:@src:width=640:height=480");
    descale_delanczos => video("YUV444PS", "descale.Delanczos:@src:width=200:height=150:taps=3");
    eedi3_field1 => video("YUV420P8", "eedi3m.EEDI3:field=1");
    eedi3_dh => video_sized("YUV420P8", 160, 120, 6, "eedi3m.EEDI3:field=0:dh=1");
    eedi3_grays => video_sized("GrayS", 160, 120, 6, "eedi3m.EEDI3:field=1");
    dfttest_yuv420p8 => video("YUV420P8", &dfttest(""));
    dfttest_yuv420p16 => video("YUV420P16", &dfttest(""));
    dfttest_luma => video("YUV420P8", &dfttest(":planes=0"));
    adaptivegrain_yuv420p8 => video("YUV420P8", "std.PlaneStats:@clipa,adg.Mask");
    adaptivegrain_yuv420p16 => video("YUV420P16", "std.PlaneStats:@clipa,adg.Mask:luma_scaling=8.0");
    adaptivegrain_grays => video("GrayS", "std.PlaneStats:@clipa,adg.Mask");
    tivtc_tfm => video("YUV420P8", "tivtc.TFM:order=1");
    tivtc_tfm_slow => video("YUV420P16", "tivtc.TFM:order=1:slow=2");
    tivtc_tdecimate => video("YUV420P8", "tivtc.TDecimate");
    tivtc_both => video_sized("YUV420P8", 320, 240, 20, "tivtc.TFM:order=1,tivtc.TDecimate");
    mvtools_super => video("YUV420P8", "mv.Super");
    mvtools_compensate => video("YUV420P8", "mv.Super,mv.Analyse:@super,mv.Compensate:@:clip=$0:super=$1:vectors=$2");
    mvtools_degrain1 => video("YUV420P8", &mv("mv.Degrain1:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:thsad=2000:thscd1=16320:thscd2=255"));
    mvtools_degrain1_p16 => video("YUV420P16", &mv("mv.Degrain1:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:thsad=2000:thscd1=16320:thscd2=255"));
    mvtools_flowfps => video("YUV420P8", &mv("mv.FlowFPS:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:num=48000:den=1001"));
    mvtools_blockfps => video("YUV420P8", &mv("mv.BlockFPS:@:clip=$0:super=$1:mvbw=$2:mvfw=$3:num=60000:den=1001"));
    mvtools_flowinter => video("YUV420P8", &mv("mv.FlowInter:@:clip=$0:super=$1:mvbw=$2:mvfw=$3"));
    mvtools_mask => video("YUV420P8", "mv.Super,mv.Analyse:@super,mv.Mask:@:clip=$0:vectors=$2");
    mvtools_scdetection => video("YUV420P8", "mv.Super,mv.Analyse:@super,mv.SCDetection:@:clip=$0:vectors=$2");
}

// Errors raised by plugins reach the caller unchanged.
each_case! { check_error;
    error_cas_half => video("YUV420PH", "cas.CAS");
    error_descale_integer => video("YUV420P8", "descale.Debilinear:@src:width=160:height=120");
    error_tfm_without_order => video("YUV420P8", "tivtc.TFM");
    error_cas_argument => video("YUV420P8", "cas.CAS:sharpness=7.0");
}

// The core's own std filters and frame handling.
each_case! { check;
    source_gray8 => video("Gray8", "-");
    source_gray16 => video("Gray16", "-");
    source_grayh => video("GrayH", "-");
    source_grays => video("GrayS", "-");
    source_yuv410p8 => video("YUV410P8", "-");
    source_yuv411p8 => video("YUV411P8", "-");
    source_yuv440p8 => video("YUV440P8", "-");
    source_yuv420p8 => video("YUV420P8", "-");
    source_yuv422p8 => video("YUV422P8", "-");
    source_yuv444p8 => video("YUV444P8", "-");
    source_yuv420p9 => video("YUV420P9", "-");
    source_yuv420p10 => video("YUV420P10", "-");
    source_yuv422p12 => video("YUV422P12", "-");
    source_yuv444p14 => video("YUV444P14", "-");
    source_yuv420p16 => video("YUV420P16", "-");
    source_yuv420ph => video("YUV420PH", "-");
    source_yuv444ps => video("YUV444PS", "-");
    source_rgb24 => video("RGB24", "-");
    source_rgb30 => video("RGB30", "-");
    source_rgb48 => video("RGB48", "-");
    source_rgbh => video("RGBH", "-");
    source_rgbs => video("RGBS", "-");
    source_odd_size => video_sized("YUV444P8", 333, 97, 5, "-");
    std_crop => video("YUV420P8", "std.Crop:left=8:right=16:top=4:bottom=2");
    std_addborders => video("YUV420P16", "std.AddBorders:left=8:right=2:top=4:bottom=6");
    std_transpose => video("YUV444P8", "std.Transpose");
    std_flips => video("RGB24", "std.FlipHorizontal,std.FlipVertical");
    std_turn180 => video("YUV420P10", "std.Turn180");
    std_trim_reverse => video("YUV420P8", "std.Trim:first=2:last=7,std.Reverse");
    std_selectevery => video("YUV420P8", "std.SelectEvery:cycle=3:offsets=0:offsets=2");
    std_loop => video("GrayS", "std.Loop:times=3");
    std_separatefields => video("YUV420P8", "std.SeparateFields:tff=1");
    std_doubleweave => video("YUV420P8", "std.SeparateFields:tff=1,std.DoubleWeave:tff=1");
    std_interleave => video("YUV420P8", "std.Invert,std.Interleave:@clips:clips=$0");
    std_splice => video("YUV420P8", "std.Invert,std.Splice:@clips:clips=$0");
    std_stack => video("YUV420P8", "std.FlipVertical,std.StackHorizontal:@clips:clips=$0");
    std_shuffleplanes => video("YUV444P8", "std.ShufflePlanes:@clips:planes=2:planes=0:planes=1:colorfamily=3");
    std_expr => video("YUV420P8", "std.Expr:@clips:expr='x 2 * 30 -:expr='x 255 swap -");
    std_expr_float => video("GrayS", "std.Expr:@clips:expr='x x * 0.5 +");
    std_convolution => video("YUV420P8", "std.Convolution:matrix=1.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=4.0:matrix=2.0:matrix=1.0:matrix=2.0:matrix=1.0");
    std_minmax => video("YUV420P16", "std.Minimum,std.Maximum");
    std_median_inflate => video("YUV420P8", "std.Median,std.Inflate,std.Deflate");
    std_boxblur => video("GrayS", "std.BoxBlur:hradius=2:vradius=3");
    std_binarize_invert => video("YUV420P8", "std.Binarize,std.Invert");
    std_limiter_levels => video("YUV420P8", "std.Limiter:min=16.0:max=235.0,std.Levels:min_in=16.0:max_in=235.0:gamma=1.2");
    std_planestats => video("YUV420P8", "std.PlaneStats:@clipa:plane=1");
    std_merge => video("YUV420P8", "std.Invert,std.Merge:@clipa:clipb=$0:weight=0.3");
    std_makediff => video("YUV420P16", "std.BoxBlur,std.MakeDiff:@clipa:clipb=$0");
    std_maskedmerge => video("YUV420P8", "std.Invert,std.Sobel:@:clip=$0,std.MaskedMerge:@mask:clipa=$0:clipb=$1");
    std_props => video("YUV420P8", "std.SetFrameProps:VsvkExtra=5:VsvkName='seven,std.RemoveFrameProps:props='VsvkTag,std.SetFieldBased:value=2");
    std_fps => video("YUV420P8", "std.AssumeFPS:fpsnum=30:fpsden=1");
    std_frames_edit => video("YUV420P8", "std.DuplicateFrames:frames=3,std.DeleteFrames:frames=1,std.FreezeFrames:first=2:last=4:replacement=0");
    audio_int16 => audio(16, 3, "-");
    audio_int24 => audio(24, 3, "-");
    audio_int32 => audio(32, 0x3f, "-");
    audio_float => audio(0, 0x3f, "-");
    audio_gain => audio(0, 3, "std.AudioGain:gain=0.5");
    audio_trim => audio(24, 3, "std.AudioTrim:first=1000:length=20000");
    audio_reverse_loop => audio(16, 3, "std.AudioReverse,std.AudioLoop:times=2");
    audio_splice => audio(32, 0x3f, "std.AudioTrim:first=5,std.AudioSplice:@clips:clips=$0");
}

// std.BlankClip and std.BlankAudio as sources ('@' drops the noise source): every option that
// changes pixels, samples, properties or clip info.
each_case! { check;
    blankclip_default => video("YUV420P8", "std.BlankClip:@");
    blankclip_yuv_color_odd_ntsc => video("YUV420P8", "std.BlankClip:@:format=805830913:color=16.0:color=128.0:color=128.0:width=322:height=240:length=5:fpsnum=30000:fpsden=1001");
    blankclip_gray16_keep => video("YUV420P8", "std.BlankClip:@:format=269484032:keep=1:length=3:color=1000.0");
    blankclip_rgbs_color => video("YUV420P8", "std.BlankClip:@:format=555745280:color=0.25:color=-0.125:color=0.5:length=2");
    blankclip_variable => video("YUV420P8", "std.BlankClip:@:varsize=1:varformat=1:length=2");
    blankclip_from_clip_fps_reduced => video("YUV420P16", "std.BlankClip:fpsnum=50:fpsden=2:length=3");
    blankaudio_sine => video("YUV420P8", "std.BlankAudio:@:waveform='sine:frequency=1000.0:amplitude=0.5");
    blankaudio_slope_24bit => video("YUV420P8", "std.BlankAudio:@:waveform='slope:bits=24:length=10000");
    blankaudio_triangle_float_3ch => video("YUV420P8", "std.BlankAudio:@:waveform='triangle:sampletype=1:bits=32:channels=0:channels=1:channels=5");
    blankaudio_square_keep => video("YUV420P8", "std.BlankAudio:@:waveform='square:keep=1:length=7000");
    blankaudio_slope_boundaries => video("YUV420P8", "std.BlankAudio:@:waveform='slope:frequency=441.0:samplerate=44100");
    blankaudio_square_48k => video("YUV420P8", "std.BlankAudio:@:waveform='square:frequency=300.0:amplitude=0.9:bits=32:samplerate=48000");
    blankaudio_sine_clipped => video("YUV420P8", "std.BlankAudio:@:waveform='sine:amplitude=1.5:bits=16");
}
