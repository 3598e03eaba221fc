//! Frames: owned references to read-only frames ([`Frame`]) and to frames being made
//! ([`FrameMut`]), their geometry, and their properties.

use crate::abi::*;
use crate::api::{api, Core};
use crate::error::{Error, Result};
use crate::values::{MapRead, MapWrite};

/// One reference to a frame that nobody writes any more.
pub struct Frame(*const VSFrame);

// SAFETY: frame references may be used and released from any thread.
unsafe impl Send for Frame {}
unsafe impl Sync for Frame {}

impl Frame {
    /// # Safety
    /// `p` is a frame reference the caller owns and gives up.
    pub unsafe fn from_raw(p: *const VSFrame) -> Frame {
        Frame(p)
    }
    pub fn as_ptr(&self) -> *const VSFrame {
        self.0
    }
    pub fn into_raw(self) -> *const VSFrame {
        let p = self.0;
        std::mem::forget(self);
        p
    }
    pub fn format(&self) -> VSVideoFormat {
        // SAFETY: we hold a reference to a video frame.
        unsafe { *(api().getVideoFrameFormat)(self.0) }
    }
    pub fn width(&self, plane: i32) -> i32 {
        // SAFETY: as above.
        unsafe { (api().getFrameWidth)(self.0, plane) }
    }
    pub fn height(&self, plane: i32) -> i32 {
        // SAFETY: as above.
        unsafe { (api().getFrameHeight)(self.0, plane) }
    }
    /// Bytes from one row to the next (the same for GPU planes as for CPU planes).
    pub fn stride(&self, plane: i32) -> isize {
        // SAFETY: as above.
        unsafe { (api().getStride)(self.0, plane) }
    }
    /// `nrGPU` or `nrCPU`.
    pub fn residency(&self) -> i32 {
        // SAFETY: as above.
        unsafe { (api().getFrameResidency)(self.0) }
    }
    /// A plane's samples; `None` for GPU frames, which have no host pointer.
    pub fn plane<T: Copy>(&self, plane: i32) -> Option<PlaneRows<'_, T>> {
        // SAFETY: as above.
        let p = unsafe { (api().getReadPtr)(self.0, plane) };
        (!p.is_null()).then(|| PlaneRows { ptr: p, stride: self.stride(plane), width: self.width(plane) as usize, height: self.height(plane) as usize, _f: std::marker::PhantomData })
    }
    pub fn props(&self) -> PropsRef<'_> {
        // SAFETY: as above.
        PropsRef(unsafe { (api().getFramePropertiesRO)(self.0) }, std::marker::PhantomData)
    }
    /// `mtVideo` or `mtAudio`.
    pub fn frame_type(&self) -> i32 {
        // SAFETY: we hold a reference.
        unsafe { (api().getFrameType)(self.0) }
    }
    /// The format of a video frame; `None` for audio frames.
    pub fn video_format(&self) -> Option<VSVideoFormat> {
        if self.frame_type() != mtVideo {
            return None;
        }
        // SAFETY: we hold a reference to a video frame.
        let p = unsafe { (api().getVideoFrameFormat)(self.0) };
        // SAFETY: a format the frame holds, copied.
        (!p.is_null()).then(|| unsafe { *p })
    }
    /// The format of an audio frame; `None` for video frames.
    pub fn audio_format(&self) -> Option<VSAudioFormat> {
        if self.frame_type() != mtAudio {
            return None;
        }
        // SAFETY: we hold a reference to an audio frame.
        let p = unsafe { (api().getAudioFrameFormat)(self.0) };
        // SAFETY: a format the frame holds, copied.
        (!p.is_null()).then(|| unsafe { *p })
    }
    /// Samples per channel of an audio frame (`getFrameLength`).
    pub fn length(&self) -> i32 {
        // SAFETY: we hold a reference.
        unsafe { (api().getFrameLength)(self.0) }
    }
    /// One channel of an audio frame as samples of T (the format's sample type).
    pub fn channel<T: Copy>(&self, ch: i32) -> &[T] {
        let f = self.audio_format().expect("an audio frame");
        assert!(ch >= 0 && ch < f.numChannels && std::mem::size_of::<T>() == f.bytesPerSample as usize, "channel {ch} as {} byte samples", std::mem::size_of::<T>());
        // SAFETY: an audio frame we hold; the channel holds `length` samples of T.
        unsafe { std::slice::from_raw_parts((api().getReadPtr)(self.0, ch).cast::<T>(), self.length() as usize) }
    }
}

impl Clone for Frame {
    fn clone(&self) -> Frame {
        // SAFETY: we hold a reference, so adding one is valid.
        Frame(unsafe { (api().addFrameRef)(self.0) })
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        // SAFETY: we own this reference.
        unsafe { (api().freeFrame)(self.0) }
    }
}

/// Rows of one CPU plane.
pub struct PlaneRows<'a, T> {
    ptr: *const u8,
    stride: isize,
    pub width: usize,
    pub height: usize,
    _f: std::marker::PhantomData<&'a [T]>,
}

impl<T: Copy> PlaneRows<'_, T> {
    pub fn row(&self, y: usize) -> &[T] {
        assert!(y < self.height, "row {y} of a plane {} high", self.height);
        // SAFETY: row y lies inside the plane, which holds `width` samples of T per row.
        unsafe { std::slice::from_raw_parts(self.ptr.offset(y as isize * self.stride).cast(), self.width) }
    }
    /// Every row, top to bottom.
    pub fn rows(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.height).map(move |y| self.row(y))
    }
    /// Bytes from one row to the next.
    pub fn stride(&self) -> isize {
        self.stride
    }
    /// The first sample, for kernels that walk the plane by stride themselves.
    pub fn as_ptr(&self) -> *const T {
        self.ptr.cast()
    }
}

/// Writable rows of one CPU plane of a frame being made.
pub struct PlaneRowsMut<'a, T> {
    ptr: *mut u8,
    stride: isize,
    pub width: usize,
    pub height: usize,
    _f: std::marker::PhantomData<&'a mut [T]>,
}

impl<T: Copy> PlaneRowsMut<'_, T> {
    pub fn row(&self, y: usize) -> &[T] {
        assert!(y < self.height, "row {y} of a plane {} high", self.height);
        // SAFETY: row y lies inside the plane, which holds `width` samples of T per row.
        unsafe { std::slice::from_raw_parts(self.ptr.offset(y as isize * self.stride).cast(), self.width) }
    }
    pub fn row_mut(&mut self, y: usize) -> &mut [T] {
        assert!(y < self.height, "row {y} of a plane {} high", self.height);
        // SAFETY: as above; `&mut self` makes the row exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.offset(y as isize * self.stride).cast(), self.width) }
    }
    /// Every row, top to bottom, writable at once (rows never overlap: stride >= row bytes).
    pub fn rows_mut(&mut self) -> impl Iterator<Item = &mut [T]> + '_ {
        let (ptr, stride, w) = (self.ptr, self.stride, self.width);
        // SAFETY: distinct rows of the plane, each `w` samples of T, borrowed from `&mut self`.
        (0..self.height).map(move |y| unsafe { std::slice::from_raw_parts_mut(ptr.offset(y as isize * stride).cast::<T>(), w) })
    }
    pub fn stride(&self) -> isize {
        self.stride
    }
    /// The first sample, for kernels that walk the plane by stride themselves.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr.cast()
    }
}

/// A frame this filter is making: the only reference, so it may be written.
pub struct FrameMut(*mut VSFrame);

// SAFETY: as for Frame; exclusive access is what `&mut` gives.
unsafe impl Send for FrameMut {}

impl FrameMut {
    /// A CPU frame (`newVideoFrame`) with `props`' properties.
    pub fn new_video(core: Core, f: &VSVideoFormat, w: i32, h: i32, props: Option<&Frame>) -> Result<FrameMut> {
        // SAFETY: valid format pointer, core from the core.
        let p = unsafe { (api().newVideoFrame)(f, w, h, props.map_or(std::ptr::null(), |f| f.0), core.0) };
        if p.is_null() {
            return Err(Error::Core { call: "newVideoFrame", message: "no frame".into() });
        }
        Ok(FrameMut(p))
    }
    /// A frame (`newVideoFrame2`) whose plane p is plane `planes[p].1` of frame `planes[p].0`,
    /// shared rather than copied, where `planes[p]` is `Some`, and new elsewhere; with `props`'
    /// properties. For filters that pass some planes through untouched: writing a shared plane
    /// would copy it first.
    pub fn new_video_sharing(core: Core, f: &VSVideoFormat, w: i32, h: i32, planes: [Option<(&Frame, i32)>; 3], props: Option<&Frame>) -> Result<FrameMut> {
        let src = planes.map(|p| p.map_or(std::ptr::null(), |(f, _)| f.0));
        let idx = planes.map(|p| p.map_or(0, |(_, i)| i));
        // SAFETY: valid format pointer, arrays of 3 entries (numPlanes is at most 3), live frames
        // or NULL, core from the core.
        let p = unsafe { (api().newVideoFrame2)(f, w, h, src.as_ptr(), idx.as_ptr(), props.map_or(std::ptr::null(), |f| f.0), core.0) };
        if p.is_null() {
            return Err(Error::Core { call: "newVideoFrame2", message: "no frame".into() });
        }
        Ok(FrameMut(p))
    }
    /// A copy sharing every plane (`copyFrame`). CPU planes of the copy may be written (the core
    /// copies a shared plane on its first write); GPU planes must not be (the GPU has no copy on
    /// write), so for GPU frames this is for changing properties only.
    pub fn copy_of(core: Core, f: &Frame) -> FrameMut {
        // SAFETY: we hold a reference to `f`.
        FrameMut(unsafe { (api().copyFrame)(f.0, core.0) })
    }
    /// # Safety
    /// `p` is the only reference to a frame, owned by the caller and given up.
    pub unsafe fn from_raw(p: *mut VSFrame) -> FrameMut {
        FrameMut(p)
    }
    pub fn as_ptr(&self) -> *mut VSFrame {
        self.0
    }
    pub fn format(&self) -> VSVideoFormat {
        // SAFETY: we own the frame.
        unsafe { *(api().getVideoFrameFormat)(self.0) }
    }
    pub fn width(&self, plane: i32) -> i32 {
        // SAFETY: as above.
        unsafe { (api().getFrameWidth)(self.0, plane) }
    }
    pub fn height(&self, plane: i32) -> i32 {
        // SAFETY: as above.
        unsafe { (api().getFrameHeight)(self.0, plane) }
    }
    pub fn stride(&self, plane: i32) -> isize {
        // SAFETY: as above.
        unsafe { (api().getStride)(self.0, plane) }
    }
    /// Row `y` of a CPU plane as bytes (the visible samples only); `None` for GPU frames.
    pub fn row_bytes_mut(&mut self, plane: i32, y: usize) -> Option<&mut [u8]> {
        let h = self.height(plane) as usize;
        let w = self.width(plane) as usize * self.format().bytesPerSample as usize;
        assert!(y < h, "row {y} of a plane {h} high");
        // SAFETY: we own the frame. getWritePtr is fatal on GPU frames, so ask first.
        if unsafe { (api().getFrameResidency)(self.0) } == nrGPU {
            return None;
        }
        // SAFETY: our CPU frame.
        let p = unsafe { (api().getWritePtr)(self.0, plane) };
        // SAFETY: row y lies inside the plane, `w` bytes of it visible; `&mut self` is exclusive.
        (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts_mut(p.offset(y as isize * self.stride(plane)), w) })
    }
    /// Plane `plane` as writable rows of T; `None` for GPU frames. T must be the format's sample
    /// size.
    pub fn plane_mut<T: Copy>(&mut self, plane: i32) -> Option<PlaneRowsMut<'_, T>> {
        let f = self.format();
        assert_eq!(std::mem::size_of::<T>(), f.bytesPerSample as usize, "plane {plane} read as the wrong sample size");
        // SAFETY: we own the frame. getWritePtr is fatal on GPU frames, so ask first.
        if unsafe { (api().getFrameResidency)(self.0) } == nrGPU {
            return None;
        }
        // SAFETY: our CPU frame.
        let p = unsafe { (api().getWritePtr)(self.0, plane) };
        (!p.is_null()).then(|| PlaneRowsMut { ptr: p, stride: self.stride(plane), width: self.width(plane) as usize, height: self.height(plane) as usize, _f: std::marker::PhantomData })
    }
    /// Plane `plane` read only (a CPU frame's planes; `None` for GPU frames).
    pub fn plane<T: Copy>(&self, plane: i32) -> Option<PlaneRows<'_, T>> {
        // SAFETY: we own the frame.
        let p = unsafe { (api().getReadPtr)(self.0, plane) };
        (!p.is_null()).then(|| PlaneRows { ptr: p, stride: self.stride(plane), width: self.width(plane) as usize, height: self.height(plane) as usize, _f: std::marker::PhantomData })
    }
    /// A CPU audio frame (`newAudioFrame`) of `samples` samples per channel, with `props`'
    /// properties.
    pub fn new_audio(core: Core, f: &VSAudioFormat, samples: i32, props: Option<&Frame>) -> Result<FrameMut> {
        // SAFETY: valid format pointer, core from the core.
        let p = unsafe { (api().newAudioFrame)(f, samples, props.map_or(std::ptr::null(), |f| f.0), core.0) };
        if p.is_null() {
            return Err(Error::Core { call: "newAudioFrame", message: "no frame".into() });
        }
        Ok(FrameMut(p))
    }
    /// One channel of an audio frame being made, writable.
    pub fn channel_mut<T: Copy>(&mut self, ch: i32) -> &mut [T] {
        // SAFETY: we own the frame.
        let (fp, len) = unsafe { ((api().getAudioFrameFormat)(self.0), (api().getFrameLength)(self.0)) };
        assert!(!fp.is_null(), "an audio frame");
        // SAFETY: non-null format of our frame.
        let f = unsafe { *fp };
        assert!(ch >= 0 && ch < f.numChannels && std::mem::size_of::<T>() == f.bytesPerSample as usize, "channel {ch} as {} byte samples", std::mem::size_of::<T>());
        // SAFETY: our audio frame; the channel holds `len` samples of T; `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut((api().getWritePtr)(self.0, ch).cast::<T>(), len as usize) }
    }
    /// The properties, read only.
    pub fn props(&self) -> PropsRef<'_> {
        // SAFETY: we own the frame.
        PropsRef(unsafe { (api().getFramePropertiesRO)(self.0) }, std::marker::PhantomData)
    }
    pub fn props_mut(&mut self) -> PropsMut<'_> {
        // SAFETY: we own the frame.
        PropsMut(unsafe { (api().getFramePropertiesRW)(self.0) }, std::marker::PhantomData)
    }
    /// Done writing: a frame that can be returned or read.
    pub fn freeze(self) -> Frame {
        let p = self.0;
        std::mem::forget(self);
        Frame(p)
    }
}

impl Drop for FrameMut {
    fn drop(&mut self) {
        // SAFETY: we own this reference.
        unsafe { (api().freeFrame)(self.0) }
    }
}

fn key(k: &str) -> crate::values::Key {
    crate::values::Key::new(k).unwrap_or_else(|| crate::values::Key::new("invalid-key").expect("no NUL"))
}

/// A frame's properties, read only.
pub struct PropsRef<'a>(*const VSMap, std::marker::PhantomData<&'a Frame>);

impl PropsRef<'_> {
    pub fn int(&self, k: &str) -> Option<i64> {
        let mut err = 0;
        // SAFETY: the map belongs to a frame we hold.
        let v = unsafe { (api().mapGetInt)(self.0, key(k).as_ptr(), 0, &mut err) };
        (err == 0).then_some(v)
    }
}

/// A frame's properties, writable.
pub struct PropsMut<'a>(*mut VSMap, std::marker::PhantomData<&'a mut FrameMut>);

impl PropsMut<'_> {
    pub fn set_int(&mut self, k: &str, v: i64) {
        // SAFETY: the map belongs to a frame we own.
        unsafe { (api().mapSetInt)(self.0, key(k).as_ptr(), v, maReplace) };
    }
    pub fn set_float(&mut self, k: &str, v: f64) {
        // SAFETY: as above.
        unsafe { (api().mapSetFloat)(self.0, key(k).as_ptr(), v, maReplace) };
    }
    /// A UTF-8 string property (`_PictType`).
    pub fn set_str(&mut self, k: &str, v: &str) {
        // SAFETY: as above; the core copies `len` bytes.
        unsafe { (api().mapSetData)(self.0, key(k).as_ptr(), v.as_ptr().cast(), v.len() as i32, dtUtf8, maReplace) };
    }
    /// Removes `k` if present.
    pub fn delete(&mut self, k: &str) {
        // SAFETY: as above.
        unsafe { (api().mapDeleteKey)(self.0, key(k).as_ptr()) };
    }
}

impl MapRead for PropsRef<'_> {
    fn map_ptr(&self) -> *const VSMap {
        self.0
    }
}

impl MapRead for PropsMut<'_> {
    fn map_ptr(&self) -> *const VSMap {
        self.0
    }
}

impl MapWrite for PropsMut<'_> {
    fn map_mut_ptr(&mut self) -> *mut VSMap {
        self.0
    }
}

// ---- audio channels as bytes ------------------------------------------------------------------------

impl Frame {
    /// One channel of an audio frame as its raw bytes (`length` samples of `bytesPerSample`
    /// each), for code that moves samples without reading them (splicing, reversing, shuffling
    /// channels) and so need not know their type.
    pub fn channel_bytes(&self, ch: i32) -> &[u8] {
        let f = self.audio_format().expect("an audio frame");
        assert!(ch >= 0 && ch < f.numChannels, "channel {ch} of {}", f.numChannels);
        let len = self.length() as usize * f.bytesPerSample as usize;
        // SAFETY: an audio frame we hold; the channel holds `len` bytes while the frame lives.
        unsafe { std::slice::from_raw_parts((api().getReadPtr)(self.0, ch), len) }
    }
}

impl FrameMut {
    /// The format of an audio frame being made; `None` for video frames.
    pub fn audio_format(&self) -> Option<VSAudioFormat> {
        // SAFETY: we own the frame; getAudioFrameFormat gives NULL for video frames.
        let p = unsafe { (api().getAudioFrameFormat)(self.0) };
        // SAFETY: a format the frame holds, copied.
        (!p.is_null()).then(|| unsafe { *p })
    }
    /// Samples per channel (`getFrameLength`).
    pub fn length(&self) -> i32 {
        // SAFETY: we own the frame.
        unsafe { (api().getFrameLength)(self.0) }
    }
    /// One channel of an audio frame being made as raw bytes, writable ([`Frame::channel_bytes`]).
    pub fn channel_bytes_mut(&mut self, ch: i32) -> &mut [u8] {
        let f = self.audio_format().expect("an audio frame");
        assert!(ch >= 0 && ch < f.numChannels, "channel {ch} of {}", f.numChannels);
        let len = self.length() as usize * f.bytesPerSample as usize;
        // SAFETY: our audio frame; the channel holds `len` bytes; `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut((api().getWritePtr)(self.0, ch), len) }
    }
}
