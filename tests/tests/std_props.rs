//! The property and callback functions of `std` against the reference: SetFrameProp, SetFrameProps,
//! RemoveFrameProps, CopyFrameProps, ClipToProp, PropToClip, PlaneStats, FrameEval, ModifyFrame and
//! PEMVerifier. Every chain runs on R81 and on our core through the oracle driver (tests/oracle/driver.c)
//! over the vsvknoise source; the fingerprints (every pixel and frame property, the clip's format) or
//! the error lines must be identical. FrameEval and ModifyFrame get their callbacks from the test plugin
//! tests/plugins/vsvkfunc.c, which builds them with createFunction and invokes the std filter.
//!
//! Needs `scripts/setup.sh` (the reference) and our core built in release mode. Environment as for
//! tests/tests/oracle.rs (VSVK_REF, VSVK_CORE, VSVK_INCLUDE).

use vsvk_tests::each_case;
use vsvk_tests::oracle::{check_error, check_few_modes as check, func_plugin, Case};

/// The noise source, with the callback plugin loaded.
fn video(format: &str, chain: &str) -> Case {
    video_sized(format, 320, 240, 10, chain)
}

fn video_sized(format: &str, width: u32, height: u32, frames: u32, chain: &str) -> Case {
    Case::sized(format, width, height, frames, chain).with_plugin(func_plugin())
}

/// A second, different source: vsvknoise with another seed, in `format` (an id), `length` frames.
fn noise(format: u32, width: u32, height: u32, length: u32) -> String {
    format!("vsvknoise.Noise:@:width={width}:height={height}:length={length}:format={format}:seed=3")
}

const GRAY8: u32 = 0x1008_0000;
const GRAY16: u32 = 0x1010_0000;
const GRAYS: u32 = 0x1120_0000;
const YUV420P8: u32 = 0x3008_0101;
const YUV420P10: u32 = 0x300a_0101;
const YUV444PH: u32 = 0x3110_0000;
const RGB24: u32 = 0x2008_0000;

// ---- SetFrameProp, SetFrameProps, RemoveFrameProps, CopyFrameProps ----------------------------------

each_case! { check;
    setframeprop_int => video("YUV420P8", "std.SetFrameProp:prop='VsvkNew:intval=3:intval=-4");
    setframeprop_float_replaces => video("YUV420P8", "std.SetFrameProp:prop='VsvkFrame:floatval=0.5:floatval=1.5");
    setframeprop_data => video("Gray16", "std.SetFrameProp:prop='VsvkTag:data='xx:data='yy");
    setframeprops_kinds => video("YUV420P8", "std.SetFrameProps:VsvkExtra=5:VsvkName='seven:VsvkList=2.5:VsvkBlob=1:VsvkBlob=2");
    setframeprops_nothing => video("RGB24", "std.SetFrameProps");
    removeframeprops_all => video("YUV420P8", "std.RemoveFrameProps");
    removeframeprops_names => video("YUV420P8", "std.RemoveFrameProps:props='VsvkTag:props='Nope:props='_DurationNum");
    removeframeprops_globs => video("YUV420P8", "std.RemoveFrameProps:props='Vsvk*:props='_Dur?tionNum");
    removeframeprops_glob_middle => video("YUV420P8", "std.RemoveFrameProps:props='V*L*");
    removeframeprops_no_classes => video("YUV420P8", "std.RemoveFrameProps:props='VsvkTa[gx]:props='VsvkBlo\\b");
    copyframeprops_all => video("YUV420P8", "std.BlankClip:@:clip=$0,std.CopyFrameProps:@:clip=$1:prop_src=$0");
    copyframeprops_some => video("YUV420P8", "std.BlankClip:@:clip=$0,std.CopyFrameProps:@:clip=$1:prop_src=$0:props='VsvkTag:props='_DurationNum:props='Nope:props='Vsvk*");
    copyframeprops_missing_removes => video("YUV420P8", "std.BlankClip:@:clip=$0,std.CopyFrameProps:@:clip=$0:prop_src=$1:props='VsvkTag:props='_DurationDen");
    copyframeprops_short_source => video("YUV420P8", "std.BlankClip:@:clip=$0:length=3,std.SetFrameProps:Short=1,std.CopyFrameProps:@:clip=$0:prop_src=$2");
    copyframeprops_other_format => video("YUV420P8", &format!("{},std.CopyFrameProps:@:clip=$1:prop_src=$0", noise(GRAY8, 64, 48, 4)));
}

each_case! { check_error;
    error_setframeprop_bad_name => video("YUV420P8", "std.SetFrameProp:prop='1x:intval=1");
    error_setframeprop_empty_name => video("YUV420P8", "std.SetFrameProp:prop=':intval=1");
    error_setframeprop_no_value => video("YUV420P8", "std.SetFrameProp:prop='x");
    error_setframeprop_two_values => video("YUV420P8", "std.SetFrameProp:prop='x:intval=1:data='d");
    error_setframeprops_node => video("YUV420P8", "std.SetFrameProps:B=$0:A=1");
    error_setframeprops_first_bad_key => video("YUV420P8", "std.SetFrameProps:B=$0:A=$0");
    error_copyframeprops_audio => video("YUV420P8", "std.BlankAudio:@,std.CopyFrameProps:@:clip=$0:prop_src=$1");
}

// ---- ClipToProp, PropToClip -------------------------------------------------------------------------

each_case! { check;
    cliptoprop_default => video("YUV420P8", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1", noise(GRAY8, 32, 16, 4)));
    cliptoprop_named_longer => video("YUV420P8", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1:prop='M", noise(GRAY8, 32, 16, 14)));
    proptoclip_round_trip => video("YUV420P10", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1:prop='M,std.PropToClip:prop='M", noise(YUV420P8, 32, 16, 14)));
    proptoclip_itself => video("RGB24", "std.ClipToProp:mclip=$0,std.PropToClip");
    proptoclip_index => video("YUV420P8", &format!("{},std.ClipToProp:@:clip=$0:mclip=$1,std.ClipToProp:mclip=$0,std.PropToClip:index=0", noise(GRAY8, 32, 16, 10)));
}

each_case! { check_error;
    error_cliptoprop_bad_name => video("YUV420P8", "std.ClipToProp:mclip=$0:prop='");
    error_cliptoprop_variable => video("YUV420P8", "std.BlankClip:@:varsize=1,std.ClipToProp:@mclip:clip=$0");
    error_proptoclip_nothing => video("YUV420P8", "std.PropToClip:prop='VsvkTag");
    error_proptoclip_index_out => video("YUV420P8", "std.ClipToProp:mclip=$0,std.PropToClip:index=1");
    error_proptoclip_negative => video("YUV420P8", "std.PropToClip:index=-1:prop='");
    error_proptoclip_empty_name => video("YUV420P8", "std.PropToClip:prop='");
    error_proptoclip_mismatch => video_sized("YUV420P8", 64, 48, 4, &format!(
        "{},{},std.ClipToProp:@:clip=$0:mclip=$1,std.ClipToProp:@:clip=$0:mclip=$2,vsvkfunc.Eval:@:clip=$3:clips=$3:clips=$4,std.PropToClip",
        noise(GRAY8, 32, 16, 4),
        noise(GRAY8, 16, 16, 4)
    ));
    error_proptoclip_missing_later => video_sized("YUV420P8", 64, 48, 4, &format!(
        "{},std.ClipToProp:@:clip=$0:mclip=$1,vsvkfunc.Eval:@:clip=$2:clips=$2:clips=$0,std.PropToClip",
        noise(GRAY8, 32, 16, 4)
    ));
}

// ---- PlaneStats -------------------------------------------------------------------------------------

/// Noise (a quarter to three quarters) with every sample at or below 0.6 scaled by 2^-40.
const ROUNDING: &str = "std.Expr:@clips:expr='x 0.6 > x x 2 -40 pow * ?";

each_case! { check;
    planestats_yuv420p8 => video("YUV420P8", "std.PlaneStats:@clipa");
    planestats_chroma => video("YUV420P8", "std.PlaneStats:@clipa:plane=1");
    planestats_odd_size => video_sized("YUV444P8", 333, 97, 5, "std.PlaneStats:@clipa:plane=2:prop='Odd");
    planestats_gray16 => video("Gray16", "std.PlaneStats:@clipa");
    planestats_yuv420p10 => video("YUV420P10", "std.PlaneStats:@clipa:plane=2");
    planestats_half => video("YUV444PH", "std.PlaneStats:@clipa:plane=1");
    planestats_float => video_sized("GrayS", 640, 480, 6, "std.PlaneStats:@clipa");
    planestats_diff_8 => video("Gray8", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(GRAY8, 320, 240, 10)));
    planestats_diff_16 => video("Gray16", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:prop='X", noise(GRAY16, 320, 240, 10)));
    planestats_diff_10 => video("YUV420P10", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:plane=1", noise(YUV420P10, 320, 240, 10)));
    // float sums that round (large samples among ones 2^40 times smaller), widths of each
    // remainder mod 4: R81 adds in four double accumulators over the plane, sample x of a row
    // going to accumulator x % 4 (its AVX2 and Zen 4 code; the portable one differs)
    planestats_float_rounding => video_sized("GrayS", 1921, 3, 2, &format!("{ROUNDING},std.PlaneStats:@clipa"));
    planestats_float_rounding_65 => video_sized("GrayS", 65, 4, 2, &format!("{ROUNDING},std.PlaneStats:@clipa"));
    planestats_float_rounding_66 => video_sized("GrayS", 66, 4, 2, &format!("{ROUNDING},std.PlaneStats:@clipa"));
    planestats_float_rounding_67 => video_sized("GrayS", 67, 4, 2, &format!("{ROUNDING},std.PlaneStats:@clipa"));
    planestats_float_rounding_64 => video_sized("GrayS", 64, 5, 2, &format!("{ROUNDING},std.PlaneStats:@clipa"));
    planestats_half_rounding => video_sized("YUV444PH", 131, 3, 2, &format!("{ROUNDING},std.PlaneStats:@clipa:plane=1"));
    planestats_diff_float_rounding => video_sized("GrayS", 131, 3, 2, &format!("{ROUNDING},std.Expr:@clips:expr='x 0.9 * 2 -40 pow +,std.PlaneStats:@:clipa=$1:clipb=$0"));
    planestats_diff_float => video_sized("GrayS", 640, 480, 6, &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(GRAYS, 640, 480, 6)));
    planestats_diff_half => video("YUV444PH", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:plane=2", noise(YUV444PH, 320, 240, 3)));
    planestats_diff_short_b => video("RGB24", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(RGB24, 320, 240, 3)));
    planestats_chained => video("YUV420P8", "std.PlaneStats:@clipa,std.PlaneStats:@clipa:plane=1:prop='U,std.PlaneStats:@clipa:plane=2:prop='V");
}

each_case! { check_error;
    error_planestats_format => video("YUV420P8", "std.BlankClip:@:format=270532608,std.PlaneStats:@clipa");
    error_planestats_variable_format => video("YUV420P8", "std.BlankClip:@:varformat=1,std.PlaneStats:@clipa");
    error_planestats_plane => video("YUV420P8", "std.PlaneStats:@clipa:plane=3");
    error_planestats_negative_plane => video("GrayS", "std.PlaneStats:@clipa:plane=-1");
    error_planestats_clipb_format => video("YUV420P8", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1:prop='", noise(GRAY8, 320, 240, 10)));
    error_planestats_clipb_size => video("YUV420P8", &format!("{},std.PlaneStats:@:clipa=$0:clipb=$1", noise(YUV420P8, 64, 48, 10)));
    error_planestats_clipb_variable => video("YUV420P8", "std.BlankClip:@:clip=$0:varsize=1,std.PlaneStats:@:clipa=$0:clipb=$1");
    error_planestats_variable_both => video("YUV420P8", "std.BlankClip:@:clip=$0:varsize=1,std.PlaneStats:@:clipa=$1:clipb=$1");
    error_planestats_prop => video("YUV420P8", "std.PlaneStats:@clipa:prop='1x");
}

// ---- FrameEval --------------------------------------------------------------------------------------

/// A second clip for the callbacks to choose from: BlankClip like the source.
const BLANK: &str = "std.BlankClip:@:clip=$0";

fn eval(args: &str) -> String {
    format!("{BLANK},vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1{args}")
}

fn modify(args: &str) -> String {
    format!("{BLANK},vsvkfunc.Modify:@:clip=$0:clips=$0:clips=$1{args}")
}

each_case! { check;
    frameeval_by_frame_number => video("YUV420P8", &eval(""));
    frameeval_first_value => video("YUV420P8", &eval(":mode=6"));
    frameeval_prop_src => video("YUV420P8", &eval(":mode=1:prop_src=$0"));
    frameeval_two_prop_src => video("YUV420P8", &eval(":mode=1:prop_src=$1:prop_src=$0"));
    frameeval_f_only_with_prop_src => video("YUV420P8", &eval(":mode=5:prop_src=$0:prop_src=$1"));
    frameeval_no_f_without_prop_src => video("YUV420P8", &eval(":mode=5"));
    frameeval_clip_src => video("Gray16", &eval(":clip_src=$1:clip_src=$0"));
    frameeval_short_clip => video("YUV420P8", "std.BlankClip:@:clip=$0:length=2,vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1");
    frameeval_variable_format => video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:format={GRAY8}:width=64:height=48:varformat=1:length=6,vsvkfunc.Eval:@:clip=$1:clips=$0:clips=$1"));
    frameeval_variable_everything => video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:format={GRAY8}:width=32:height=48:varformat=1:varsize=1:length=6,vsvkfunc.Eval:@:clip=$1:clips=$0:clips=$1"));
    frameeval_chained => video("YUV420P8", &format!("{},vsvkfunc.Eval:@:clip=$0:clips=$2:clips=$0:mode=1:prop_src=$2", eval("")));
}

each_case! { check_error;
    error_frameeval_wrong_key => video("YUV420P8", &eval(":key='clip"));
    error_frameeval_no_f => video("YUV420P8", &eval(":mode=1"));
    error_frameeval_callback_error => video("YUV420P8", &eval(":mode=2"));
    error_frameeval_int => video("YUV420P8", &eval(":mode=3"));
    error_frameeval_nothing => video("YUV420P8", &eval(":mode=4"));
    error_frameeval_dimensions => video("YUV420P8", &format!("std.BlankClip:@:format={GRAY8},vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1"));
    error_frameeval_format => video_sized("YUV420P8", 64, 48, 6, &format!("std.BlankClip:@:format={GRAY8}:width=64:height=48,vsvkfunc.Eval:@:clip=$0:clips=$0:clips=$1"));
    error_frameeval_format_variable_size => video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:format={GRAY8}:width=64:height=48:varsize=1,vsvkfunc.Eval:@:clip=$1:clips=$0:clips=$1"));
    // a frame that fails after the function chose it (the frame's data is dropped then), and a
    // prop_src frame that fails before the function is called
    error_frameeval_chosen_fails => video("Gray8", &format!("{FAILING},vsvkfunc.Eval:@:clip=$0:clips=$1"));
    error_frameeval_prop_src_fails => video("Gray8", &format!("{FAILING},vsvkfunc.Eval:@:clip=$0:clips=$0:prop_src=$1"));
}

/// A clip whose every frame fails (the noise has samples above 10).
const FAILING: &str = "std.PEMVerifier:upper=10.0";

// ---- ModifyFrame ------------------------------------------------------------------------------------

each_case! { check;
    modifyframe_copy_and_set => video("YUV420P8", &modify(""));
    modifyframe_pass_through => video("YUV420P8", &modify(":mode=1"));
    modifyframe_one_clip => video("GrayS", "vsvkfunc.Modify:clips=$0");
    modifyframe_short_clip => video("YUV420P8", "std.BlankClip:@:clip=$0:length=2,vsvkfunc.Modify:@:clip=$0:clips=$0:clips=$1");
    modifyframe_short_output => video("YUV420P8", "std.BlankClip:@:clip=$0:length=2,vsvkfunc.Modify:@:clip=$1:clips=$0:clips=$1");
    modifyframe_variable_size => video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=64:height=48:format={YUV420P8}:varsize=1:length=6,vsvkfunc.Modify:@:clip=$1:clips=$0:clips=$1:mode=1"));
    modifyframe_variable_everything => video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=64:height=48:format={YUV420P8}:varsize=1:varformat=1:length=6,vsvkfunc.Modify:@:clip=$1:clips=$0:mode=5"));
}

each_case! { check_error;
    error_modifyframe_wrong_key => video("YUV420P8", &modify(":key='clip"));
    error_modifyframe_callback_error => video("YUV420P8", &modify(":mode=2"));
    error_modifyframe_nothing => video("YUV420P8", &modify(":mode=3"));
    error_modifyframe_int => video("YUV420P8", &modify(":mode=4"));
    error_modifyframe_format => video("YUV420P8", &modify(":mode=5"));
    error_modifyframe_dimensions => video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=32:height=48:format={YUV420P8},vsvkfunc.Modify:@:clip=$0:clips=$0:clips=$1:mode=1"));
    error_modifyframe_dimensions_variable_format => video_sized("YUV420P8", 64, 48, 6,
        &format!("std.BlankClip:@:width=64:height=48:format={YUV420P8}:varformat=1,vsvkfunc.Modify:@:clip=$1:clips=$0:mode=5"));
    error_modifyframe_clip_fails => video("Gray8", &format!("{FAILING},vsvkfunc.Modify:@:clip=$0:clips=$0:clips=$1"));
}

// ---- PEMVerifier ------------------------------------------------------------------------------------

each_case! { check;
    pemverifier_defaults => video("YUV420P8", "std.PEMVerifier");
    pemverifier_float_defaults => video("YUV444PS", "std.PEMVerifier");
    pemverifier_limits_hold => video("YUV420P16", "std.PEMVerifier:lower=0.0:lower=0.0:lower=0.0:upper=65535.0:upper=65535.0:upper=65535.0");
    pemverifier_rounded_limits => video("Gray8", "std.PEMVerifier:lower=-0.4:upper=255.4");
}

each_case! { check_error;
    error_pemverifier_upper => video("YUV420P8", "std.PEMVerifier:upper=255.0:upper=255.0:upper=100.0");
    error_pemverifier_lower => video("YUV420P8", "std.PEMVerifier:lower=0.0:lower=100.0:lower=0.0");
    error_pemverifier_unscaled => video("YUV420P16", "std.PEMVerifier:upper=255.0:upper=255.0:upper=100.0");
    error_pemverifier_float => video("YUV444PS", "std.PEMVerifier:lower=0.0:lower=0.0:lower=0.0");
    error_pemverifier_half => video("GrayH", "std.PEMVerifier:lower=0.5");
    error_pemverifier_rounding => video("Gray8", "std.PEMVerifier:lower=20.5");
    error_pemverifier_count_lower => video("YUV420P8", "std.PEMVerifier:lower=300.0:lower=0.0:upper=1.0");
    error_pemverifier_count_upper => video("YUV420P8", "std.PEMVerifier:lower=0.0:lower=0.0:lower=0.0:upper=1.0");
    error_pemverifier_lower_range => video("YUV420P8", "std.PEMVerifier:lower=0.0:lower=0.0:lower=300.0:upper=1.0:upper=300.0:upper=1.0");
    error_pemverifier_upper_range => video("Gray8", "std.PEMVerifier:upper=255.6");
    error_pemverifier_upper_below_lower => video("Gray8", "std.PEMVerifier:lower=5.6:upper=5.4");
    error_pemverifier_format => video("YUV420P8", "std.BlankClip:@:format=270532608,std.PEMVerifier");
    error_pemverifier_variable_format => video("YUV420P8", "std.BlankClip:@:varformat=1,std.PEMVerifier");
}
