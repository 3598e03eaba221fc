//! Video and audio formats: validation, preset ids and names, as the API's query functions see them.
use vsvk_plugin_api::abi::*;

/// Builds and validates a video format the way queryVideoFormat does; `None` when it is not legal.
pub fn query_video(cf: i32, st: i32, bits: i32, ssw: i32, ssh: i32) -> Option<VSVideoFormat> {
    if !(cfGray..=cfYUV).contains(&cf) || !(stInteger..=stFloat).contains(&st) {
        return None;
    }
    if !(0..=4).contains(&ssw) || !(0..=4).contains(&ssh) {
        return None;
    }
    if cf != cfYUV && (ssw != 0 || ssh != 0) {
        return None;
    }
    match st {
        stInteger if !(8..=32).contains(&bits) => return None,
        stFloat if bits != 16 && bits != 32 => return None,
        _ => {}
    }
    let bytes = if bits <= 8 { 1 } else if bits <= 16 { 2 } else { 4 };
    Some(VSVideoFormat {
        colorFamily: cf,
        sampleType: st,
        bitsPerSample: bits,
        bytesPerSample: bytes,
        subSamplingW: ssw,
        subSamplingH: ssh,
        numPlanes: if cf == cfGray { 1 } else { 3 },
    })
}

/// The id packs the same five fields as VS_MAKE_VIDEO_ID; 0 for an undefined or invalid format.
pub fn video_id(f: &VSVideoFormat) -> u32 {
    if f.colorFamily == cfUndefined || !is_valid_video(f) {
        return 0;
    }
    make_video_id(f.colorFamily as u32, f.sampleType as u32, f.bitsPerSample as u32, f.subSamplingW as u32, f.subSamplingH as u32)
}

pub fn video_by_id(id: u32) -> Option<VSVideoFormat> {
    let cf = ((id >> 28) & 0xf) as i32;
    let st = ((id >> 24) & 0xf) as i32;
    let bits = ((id >> 16) & 0xff) as i32;
    let ssw = ((id >> 8) & 0xff) as i32;
    let ssh = (id & 0xff) as i32;
    query_video(cf, st, bits, ssw, ssh)
}

/// True for a fully specified, legal format (what query_video would rebuild).
pub fn is_valid_video(f: &VSVideoFormat) -> bool {
    query_video(f.colorFamily, f.sampleType, f.bitsPerSample, f.subSamplingW, f.subSamplingH).as_ref() == Some(f)
}

pub fn video_name(f: &VSVideoFormat) -> Option<String> {
    if f.colorFamily == cfUndefined {
        return Some("Undefined".into());
    }
    if !is_valid_video(f) {
        return None;
    }
    let float = f.sampleType == stFloat;
    let fl = |bits: i32| match bits {
        16 => "H",
        _ => "S",
    };
    Some(match f.colorFamily {
        cfGray if float => format!("Gray{}", fl(f.bitsPerSample)),
        cfGray => format!("Gray{}", f.bitsPerSample),
        cfRGB if float => format!("RGB{}", fl(f.bitsPerSample)),
        cfRGB => format!("RGB{}", f.bitsPerSample * 3),
        _ => {
            let ss = match (f.subSamplingW, f.subSamplingH) {
                (1, 1) => "420".to_string(),
                (1, 0) => "422".to_string(),
                (0, 0) => "444".to_string(),
                (2, 2) => "410".to_string(),
                (2, 0) => "411".to_string(),
                (0, 1) => "440".to_string(),
                (w, h) => format!("ssw{w}ssh{h}"),
            };
            if float {
                format!("YUV{ss}P{}", fl(f.bitsPerSample))
            } else {
                format!("YUV{ss}P{}", f.bitsPerSample)
            }
        }
    })
}

pub fn query_audio(st: i32, bits: i32, layout: u64) -> Option<VSAudioFormat> {
    let ok = match st {
        stInteger => (16..=32).contains(&bits),
        stFloat => bits == 32,
        _ => false,
    };
    if !ok || layout == 0 {
        return None;
    }
    // Channel positions above 63 cannot be expressed in the layout mask; these are the defined ones.
    let channels = layout.count_ones() as i32;
    Some(VSAudioFormat {
        sampleType: st,
        bitsPerSample: bits,
        bytesPerSample: if bits <= 16 { 2 } else { 4 },
        numChannels: channels,
        channelLayout: layout,
    })
}

pub fn is_valid_audio(f: &VSAudioFormat) -> bool {
    query_audio(f.sampleType, f.bitsPerSample, f.channelLayout).as_ref() == Some(f)
}

pub fn audio_name(f: &VSAudioFormat) -> Option<String> {
    if !is_valid_audio(f) {
        return None;
    }
    let kind = if f.sampleType == stFloat { "F" } else { "" };
    Some(format!("Audio{}{kind} ({} CH)", f.bitsPerSample, f.numChannels))
}

/// Plane dimensions for plane `p` of a `w`x`h` frame.
pub fn plane_dims(f: &VSVideoFormat, w: i32, h: i32, p: usize) -> (i32, i32) {
    if p == 0 {
        (w, h)
    } else {
        (w >> f.subSamplingW, h >> f.subSamplingH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_round_trip_through_their_ids() {
        for &(name, id) in PRESET_VIDEO_FORMATS.iter().skip(1) {
            let f = video_by_id(id).unwrap_or_else(|| panic!("{name} rejected"));
            assert_eq!(video_id(&f), id, "{name}");
            assert_eq!(format!("pf{}", video_name(&f).unwrap()), name.replace("RGB24", "RGB24"), "{name}");
        }
    }

    #[test]
    fn illegal_formats_are_refused() {
        assert!(query_video(cfGray, stInteger, 7, 0, 0).is_none());
        assert!(query_video(cfGray, stFloat, 16, 1, 1).is_none());
        assert!(query_video(cfYUV, stInteger, 8, 5, 0).is_none());
        assert!(query_video(cfYUV, stInteger, 8, 4, 4).is_some());
        assert_eq!(video_name(&query_video(cfYUV, stInteger, 11, 1, 0).unwrap()).unwrap(), "YUV422P11");
        assert_eq!(audio_name(&query_audio(stInteger, 16, 3).unwrap()).unwrap(), "Audio16 (2 CH)");
        assert!(query_audio(stFloat, 16, 3).is_none());
    }
}
