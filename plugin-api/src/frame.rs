//! Frames: owned references to read-only frames ([`Frame`]) and to frames being made
//! ([`FrameMut`]), their geometry, and their properties.
use std::ffi::CString;

use crate::abi::*;
use crate::api::{api, Core};
use crate::error::{Error, Result};

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
    /// A copy sharing every plane (`copyFrame`), for changing properties only: planes of a copy
    /// must not be written (the GPU has no copy on write).
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

fn key(k: &str) -> CString {
    CString::new(k).unwrap_or_else(|_| CString::new("invalid-key").expect("no NUL"))
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
