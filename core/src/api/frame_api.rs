//! VSFrame and format entry points.
use std::ffi::{c_char, c_int};
use std::ptr;
use std::sync::Arc;

use vsvk_plugin_api::abi::*;

use super::{fatal, guard};
use crate::core::Core;
use crate::format;
use crate::frame::Frame;

fn frame<'a>(call: &str, f: *const VSFrame) -> &'a Frame {
    if f.is_null() {
        fatal(&format!("{call}: frame is NULL"));
    }
    // SAFETY: non-null frame pointers are live references by contract.
    unsafe { Frame::borrow_raw(f) }
}

fn core<'a>(call: &str, c: *mut VSCore) -> &'a Core {
    if c.is_null() {
        fatal(&format!("{call}: core is NULL"));
    }
    // SAFETY: a core pointer from createCore, alive while the caller uses it.
    unsafe { Core::borrow_raw(c) }
}

fn copy_props(dst: &Frame, src: *const VSFrame) {
    if !src.is_null() {
        // SAFETY: `dst` is new and unshared; `src` is a live frame.
        unsafe { *dst.props_mut() = Frame::borrow_raw(src).props().clone() };
    }
}

pub unsafe extern "C" fn new_video_frame(fmt: *const VSVideoFormat, w: c_int, h: c_int, prop_src: *const VSFrame, c: *mut VSCore) -> *mut VSFrame {
    guard("newVideoFrame", || {
        super::req_ptr("newVideoFrame", "format", fmt);
        let core = core("newVideoFrame", c);
        // SAFETY: checked non-null.
        let f = match Frame::new_video(unsafe { &*fmt }, w, h, &core.mem) {
            Ok(f) => f,
            Err(e) => fatal(&format!("newVideoFrame: error in frame creation: {e}")),
        };
        copy_props(&f, prop_src);
        Frame::into_raw(Arc::new(f)) as *mut VSFrame
    })
}

pub unsafe extern "C" fn new_video_frame2(
    fmt: *const VSVideoFormat,
    w: c_int,
    h: c_int,
    plane_src: *const *const VSFrame,
    planes: *const c_int,
    prop_src: *const VSFrame,
    c: *mut VSCore,
) -> *mut VSFrame {
    guard("newVideoFrame2", || {
        super::req_ptr("newVideoFrame2", "format", fmt);
        let core = core("newVideoFrame2", c);
        // SAFETY: checked non-null.
        let fmt = unsafe { &*fmt };
        let np = fmt.numPlanes as usize;
        // GPU residency propagates from the shared planes: fresh planes are then GPU planes too.
        let gpu_dev = if plane_src.is_null() {
            None
        } else {
            (0..np).find_map(|p| {
                // SAFETY: numPlanes entries by contract.
                let (src, sp) = unsafe { (*plane_src.add(p), if planes.is_null() { p as c_int } else { *planes.add(p) }) };
                // SAFETY: a live frame.
                (!src.is_null()).then(|| crate::gpu::frame::gpu_plane(unsafe { Frame::borrow_raw(src) }, sp).map(|g| g.dev.clone())).flatten()
            })
        };
        let made = match &gpu_dev {
            Some(d) => crate::gpu::frame::new_frame(d, &core.mem, fmt, w, h, true),
            None => Frame::new_video(fmt, w, h, &core.mem).map_err(|e| format!("error in frame creation: {e}")),
        };
        let f = match made {
            Ok(f) => f,
            Err(e) => fatal(&format!("newVideoFrame2: {e}")),
        };
        if !plane_src.is_null() {
            let mut residency = None;
            for p in 0..np {
                // SAFETY: both arrays have numPlanes entries by contract.
                let (src, sp) = unsafe { (*plane_src.add(p), if planes.is_null() { p as c_int } else { *planes.add(p) }) };
                if src.is_null() {
                    continue;
                }
                // SAFETY: a live frame.
                let s = unsafe { Frame::borrow_raw(src) };
                if *residency.get_or_insert(s.residency) != s.residency || s.residency != f.residency {
                    core.log_message(mtCritical, "newVideoFrame2: Error in frame creation: mixing GPU and CPU resident source planes in one frame");
                    return ptr::null_mut();
                }
                let Some(plane) = s.plane(sp) else {
                    fatal(&format!("newVideoFrame2: plane {sp} does not exist in the source frame"));
                };
                let mine = &f.planes()[p];
                let sbps = s.video_format().map_or(0, |vf| vf.bytesPerSample);
                if plane.width != mine.width || plane.height != mine.height || sbps != fmt.bytesPerSample {
                    fatal(&format!("newVideoFrame2: plane {p} has different dimensions or sample size than its source plane {sp}"));
                }
                // SAFETY: `f` is new and unshared.
                unsafe { f.set_plane(p, plane.clone()) };
            }
        }
        copy_props(&f, prop_src);
        Frame::into_raw(Arc::new(f)) as *mut VSFrame
    })
}

pub unsafe extern "C" fn new_audio_frame(fmt: *const VSAudioFormat, samples: c_int, prop_src: *const VSFrame, c: *mut VSCore) -> *mut VSFrame {
    guard("newAudioFrame", || {
        super::req_ptr("newAudioFrame", "format", fmt);
        let core = core("newAudioFrame", c);
        // SAFETY: checked non-null.
        let f = match Frame::new_audio(unsafe { &*fmt }, samples, &core.mem) {
            Ok(f) => f,
            Err(e) => fatal(&format!("newAudioFrame: error in frame creation: {e}")),
        };
        copy_props(&f, prop_src);
        Frame::into_raw(Arc::new(f)) as *mut VSFrame
    })
}

pub unsafe extern "C" fn new_audio_frame2(
    fmt: *const VSAudioFormat,
    samples: c_int,
    channel_src: *const *const VSFrame,
    channels: *const c_int,
    prop_src: *const VSFrame,
    c: *mut VSCore,
) -> *mut VSFrame {
    guard("newAudioFrame2", || {
        let f = new_audio_frame(fmt, samples, prop_src, c);
        if channel_src.is_null() {
            return f;
        }
        // SAFETY: just created, unshared.
        let fr = unsafe { Frame::borrow_raw(f) };
        // SAFETY: checked non-null by new_audio_frame.
        let fmt = unsafe { &*fmt };
        let bytes = samples as usize * fmt.bytesPerSample as usize;
        for ch in 0..fmt.numChannels as usize {
            // SAFETY: both arrays have numChannels entries by contract.
            let (src, sc) = unsafe { (*channel_src.add(ch), if channels.is_null() { ch as c_int } else { *channels.add(ch) }) };
            if src.is_null() {
                continue;
            }
            // SAFETY: a live frame.
            let s = unsafe { Frame::borrow_raw(src) };
            if s.audio_format().map(|a| a.bytesPerSample) != Some(fmt.bytesPerSample) || s.width < samples {
                fatal("newAudioFrame2: a source frame has another sample type or too few samples");
            }
            let Some(from) = s.read_ptr(sc) else {
                fatal(&format!("newAudioFrame2: channel {sc} does not exist in the source frame"));
            };
            // SAFETY: distinct buffers (the new frame owns fresh memory); `bytes` fits both.
            unsafe { ptr::copy_nonoverlapping(from, fr.write_ptr(ch as c_int).expect("channel exists"), bytes) };
        }
        f
    })
}

pub unsafe extern "C" fn free_frame(f: *const VSFrame) {
    guard("freeFrame", || {
        if !f.is_null() {
            // SAFETY: the caller gives up one reference.
            drop(unsafe { Frame::from_raw(f) });
        }
    })
}

pub unsafe extern "C" fn add_frame_ref(f: *const VSFrame) -> *const VSFrame {
    guard("addFrameRef", || {
        super::req_ptr("addFrameRef", "frame", f);
        // SAFETY: a live frame.
        Frame::into_raw(unsafe { Frame::clone_raw(f) })
    })
}

pub unsafe extern "C" fn copy_frame(f: *const VSFrame, _c: *mut VSCore) -> *mut VSFrame {
    guard("copyFrame", || Frame::into_raw(Arc::new(frame("copyFrame", f).shallow_copy())) as *mut VSFrame)
}

pub unsafe extern "C" fn get_frame_properties_ro(f: *const VSFrame) -> *const VSMap {
    guard("getFramePropertiesRO", || (frame("getFramePropertiesRO", f).props() as *const crate::map::Map).cast())
}

pub unsafe extern "C" fn get_frame_properties_rw(f: *mut VSFrame) -> *mut VSMap {
    guard("getFramePropertiesRW", || {
        // SAFETY: a writable frame pointer means the caller owns the frame.
        (unsafe { frame("getFramePropertiesRW", f).props_mut() } as *mut crate::map::Map).cast()
    })
}

fn plane_check<'a>(call: &str, f: &'a Frame, plane: c_int) -> &'a crate::frame::Plane {
    match f.plane(plane) {
        Some(p) => p,
        None => fatal(&format!("{call}: plane {plane} does not exist (the frame has {})", f.num_planes())),
    }
}

pub unsafe extern "C" fn get_stride(f: *const VSFrame, plane: c_int) -> isize {
    guard("getStride", || {
        let fr = frame("getStride", f);
        plane_check("getStride", fr, plane).stride
    })
}

pub unsafe extern "C" fn get_read_ptr(f: *const VSFrame, plane: c_int) -> *const u8 {
    guard("getReadPtr", || {
        let fr = frame("getReadPtr", f);
        plane_check("getReadPtr", fr, plane);
        if fr.residency != nrCPU {
            return ptr::null();
        }
        fr.read_ptr(plane).unwrap_or(ptr::null())
    })
}

pub unsafe extern "C" fn get_write_ptr(f: *mut VSFrame, plane: c_int) -> *mut u8 {
    guard("getWritePtr", || {
        let fr = frame("getWritePtr", f);
        plane_check("getWritePtr", fr, plane);
        if fr.residency != nrCPU {
            return ptr::null_mut();
        }
        // SAFETY: a writable frame pointer means the caller owns the frame.
        unsafe { fr.write_ptr(plane) }.unwrap_or(ptr::null_mut())
    })
}

pub unsafe extern "C" fn get_video_frame_format(f: *const VSFrame) -> *const VSVideoFormat {
    guard("getVideoFrameFormat", || frame("getVideoFrameFormat", f).video_format().map_or(ptr::null(), |v| v as *const _))
}

pub unsafe extern "C" fn get_audio_frame_format(f: *const VSFrame) -> *const VSAudioFormat {
    guard("getAudioFrameFormat", || frame("getAudioFrameFormat", f).audio_format().map_or(ptr::null(), |v| v as *const _))
}

pub unsafe extern "C" fn get_frame_type(f: *const VSFrame) -> c_int {
    guard("getFrameType", || frame("getFrameType", f).media_type())
}

pub unsafe extern "C" fn get_frame_width(f: *const VSFrame, plane: c_int) -> c_int {
    guard("getFrameWidth", || {
        let fr = frame("getFrameWidth", f);
        plane_check("getFrameWidth", fr, plane).width
    })
}

pub unsafe extern "C" fn get_frame_height(f: *const VSFrame, plane: c_int) -> c_int {
    guard("getFrameHeight", || {
        let fr = frame("getFrameHeight", f);
        plane_check("getFrameHeight", fr, plane).height
    })
}

pub unsafe extern "C" fn get_frame_length(f: *const VSFrame) -> c_int {
    guard("getFrameLength", || {
        let fr = frame("getFrameLength", f);
        if fr.is_audio() {
            fr.width
        } else {
            1
        }
    })
}

fn write_name(buf: *mut c_char, name: Option<String>) -> c_int {
    let Some(name) = name else { return 0 };
    if buf.is_null() {
        return 0;
    }
    let bytes = name.as_bytes();
    let n = bytes.len().min(31);
    // SAFETY: the API promises a 32-byte buffer; we write at most 31 bytes and a NUL.
    unsafe {
        ptr::copy_nonoverlapping(bytes.as_ptr(), buf.cast::<u8>(), n);
        *buf.add(n) = 0;
    }
    1
}

pub unsafe extern "C" fn get_video_format_name(f: *const VSVideoFormat, buf: *mut c_char) -> c_int {
    guard("getVideoFormatName", || {
        if f.is_null() {
            return 0;
        }
        // SAFETY: checked non-null.
        write_name(buf, format::video_name(unsafe { &*f }))
    })
}

pub unsafe extern "C" fn get_audio_format_name(f: *const VSAudioFormat, buf: *mut c_char) -> c_int {
    guard("getAudioFormatName", || {
        if f.is_null() {
            return 0;
        }
        // SAFETY: checked non-null.
        write_name(buf, format::audio_name(unsafe { &*f }))
    })
}

pub unsafe extern "C" fn query_video_format(out: *mut VSVideoFormat, cf: c_int, st: c_int, bits: c_int, ssw: c_int, ssh: c_int, _c: *mut VSCore) -> c_int {
    guard("queryVideoFormat", || {
        super::req_ptr("queryVideoFormat", "format", out);
        let r = format::query_video(cf, st, bits, ssw, ssh);
        // SAFETY: checked non-null; the caller provides the struct.
        unsafe { *out = r.unwrap_or_default() };
        r.is_some() as c_int
    })
}

pub unsafe extern "C" fn query_audio_format(out: *mut VSAudioFormat, st: c_int, bits: c_int, layout: u64, _c: *mut VSCore) -> c_int {
    guard("queryAudioFormat", || {
        super::req_ptr("queryAudioFormat", "format", out);
        let r = format::query_audio(st, bits, layout);
        // SAFETY: checked non-null.
        unsafe { *out = r.unwrap_or_default() };
        r.is_some() as c_int
    })
}

pub unsafe extern "C" fn query_video_format_id(cf: c_int, st: c_int, bits: c_int, ssw: c_int, ssh: c_int, _c: *mut VSCore) -> u32 {
    guard("queryVideoFormatID", || format::query_video(cf, st, bits, ssw, ssh).map_or(0, |f| format::video_id(&f)))
}

pub unsafe extern "C" fn get_video_format_by_id(out: *mut VSVideoFormat, id: u32, _c: *mut VSCore) -> c_int {
    guard("getVideoFormatByID", || {
        super::req_ptr("getVideoFormatByID", "format", out);
        let r = format::video_by_id(id);
        // SAFETY: checked non-null.
        unsafe { *out = r.unwrap_or_default() };
        r.is_some() as c_int
    })
}

pub unsafe extern "C" fn get_frame_residency(f: *const VSFrame) -> c_int {
    guard("getFrameResidency", || frame("getFrameResidency", f).residency)
}
