//! Foreign memory in: an allocation another API exported (an opaque fd from CUDA's VMM or a second
//! Vulkan device) imported once, frames whose planes are buffers over it, and the exporter's
//! timeline semaphore imported as a core timeline to publish as those planes' producer pair. The
//! core never waits for the foreign side on the host: consumers wait the pair on the device.
//!
//! Only opaque fds: the core's device enables VK_KHR_external_memory_fd and nothing more (the
//! guide's fixed extension set), so dma-bufs, which need VK_EXT_external_memory_dma_buf, are
//! refused with that reason. On Windows the handle is an opaque NT handle instead
//! (VK_KHR_external_memory_win32, gpu::handle), which an import does not consume: the caller
//! closes it, whether the import succeeded or not.
use std::sync::Arc;

use ash::vk;

use super::device::Device;
use super::exec::Timeline;
use super::frame::{GpuPlane, PLANE_USAGE};
use super::handle;

const DMA_BUF: i32 = vk::ExternalMemoryHandleTypeFlags::DMA_BUF_EXT.as_raw() as i32;

#[derive(Debug)]
pub enum ImportError {
    NoExport,
    NoSemaphoreImport,
    BadFd(i32),
    ZeroSize,
    SemaphoreHandleType(i32),
    HandleType(i32),
    MemoryType(u32),
    Driver(&'static str, vk::Result),
    Layout(String),
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportError::NoExport => write!(f, "the core's Vulkan device cannot import memory: its driver lacks {} (exportHandleType is 0)", handle::EXT_MEMORY.to_string_lossy()),
            ImportError::NoSemaphoreImport => write!(f, "the core's Vulkan device cannot import semaphores: its driver lacks {} (semaphoreExportHandleType is 0); wait on the foreign side and publish no timeline instead", handle::EXT_SEMAPHORE.to_string_lossy()),
            ImportError::BadFd(fd) => write!(f, "handle {fd} is not an open {}", HANDLE_NOUN),
            ImportError::SemaphoreHandleType(t) => write!(f, "semaphore handle type {t} cannot be imported: only {} of timeline semaphores ({}) can", HANDLES_NOUN, SEMAPHORE_BIT),
            ImportError::ZeroSize => write!(f, "size is 0: pass the exported allocation's size"),
            ImportError::HandleType(t) if *t == DMA_BUF => write!(f, "dma-buf import needs VK_EXT_external_memory_dma_buf, which the core's device does not enable (its extensions are fixed); export an opaque fd instead"),
            ImportError::HandleType(t) => write!(f, "handle type {t} cannot be imported: only {} ({}) can", HANDLES_NOUN, MEMORY_BIT),
            ImportError::MemoryType(i) => write!(f, "memory type {i} does not exist or cannot hold frame planes on this device"),
            ImportError::Driver(call, r) => write!(f, "{call} failed (VkResult {}): the handle is not an allocation (or timeline) of this GPU, or its size or memory type differs from the exporter's", r.as_raw()),
            ImportError::Layout(m) => write!(f, "{m}"),
        }
    }
}

#[cfg(not(windows))]
const HANDLE_NOUN: &str = "file descriptor";
#[cfg(not(windows))]
const HANDLES_NOUN: &str = "opaque fds";
#[cfg(not(windows))]
const MEMORY_BIT: &str = "VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, 1";
#[cfg(not(windows))]
const SEMAPHORE_BIT: &str = "VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT, 1";
#[cfg(windows)]
const HANDLE_NOUN: &str = "handle";
#[cfg(windows)]
const HANDLES_NOUN: &str = "opaque NT handles";
#[cfg(windows)]
const MEMORY_BIT: &str = "VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT, 2";
#[cfg(windows)]
const SEMAPHORE_BIT: &str = "VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_BIT, 2";

/// Memory another API exported, imported into the core's device.
pub struct ImportedMemory {
    pub dev: Arc<Device>,
    pub memory: vk::DeviceMemory,
    pub size: u64,
    pub type_index: u32,
    /// A memoryId like the core's own allocations', never reused.
    pub memory_id: u64,
}

impl Drop for ImportedMemory {
    fn drop(&mut self) {
        // SAFETY: no buffer is bound any more (planes hold this), and their readers are done.
        unsafe { self.dev.device.free_memory(self.memory, None) };
    }
}

/// Runs the foreign owner's callback when the last plane of an imported frame is gone, i.e. when
/// every consumer's work on it has completed and the memory may be written again.
pub struct Release(std::sync::Mutex<Option<Box<dyn FnOnce() + Send>>>);

impl Release {
    pub fn new(f: impl FnOnce() + Send + 'static) -> Arc<Release> {
        Arc::new(Release(std::sync::Mutex::new(Some(Box::new(f)))))
    }

    /// For a frame that was never made: its memory was never the core's, so its owner is not told.
    pub fn disarm(&self) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take();
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        if let Some(f) = self.0.get_mut().unwrap_or_else(|p| p.into_inner()).take() {
            f();
        }
    }
}

/// Runs a Vulkan import on a duplicate of `fd`, so the caller's fd is consumed on success and left
/// alone on failure whatever the driver does: the specification leaves the fd with the application
/// when an import fails, but lavapipe closes it, and a caller closing it again could close an fd
/// another thread has just been given. A closed or negative fd is refused here, before Vulkan,
/// whose import of one is undefined behaviour.
#[cfg(not(windows))]
fn on_duplicate<T>(fd: i32, import: impl FnOnce(i32) -> Result<T, ImportError>) -> Result<T, ImportError> {
    if fd < 0 {
        return Err(ImportError::BadFd(fd));
    }
    // SAFETY: F_DUPFD_CLOEXEC on any integer either fails (EBADF) or makes a new descriptor.
    let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if dup < 0 {
        return Err(ImportError::BadFd(fd));
    }
    let id = identity(dup);
    match import(dup) {
        Ok(v) => {
            // SAFETY: the caller's fd, which a successful import consumes (the driver owns `dup`).
            unsafe { libc::close(fd) };
            Ok(v)
        }
        Err(e) => {
            // Still ours unless the driver closed it; the number may have been reused since, so
            // only the same open file is closed.
            if id.is_some() && identity(dup) == id {
                // SAFETY: the duplicate made above, which the failed import left open.
                unsafe { libc::close(dup) };
            }
            Err(e)
        }
    }
}

/// An NT handle is not consumed by a Vulkan import (the caller closes it either way), so it is
/// imported as it is, once it is known to be an open handle: importing a closed one is undefined.
#[cfg(windows)]
fn on_duplicate<T>(h: i32, import: impl FnOnce(i32) -> Result<T, ImportError>) -> Result<T, ImportError> {
    if !is_open_handle(h) {
        return Err(ImportError::BadFd(h));
    }
    import(h)
}

/// Whether an NT handle (passed in the ABI's int: 64-bit Windows keeps handle values within 32
/// bits, sign extended) is open in this process.
#[cfg(windows)]
fn is_open_handle(h: i32) -> bool {
    let mut flags = 0u32;
    // SAFETY: GetHandleInformation only looks the value up in the process's handle table.
    h != 0 && h != -1 && unsafe { windows_sys::Win32::Foundation::GetHandleInformation(h as isize as windows_sys::Win32::Foundation::HANDLE, &mut flags) } != 0
}

/// What can be said of a handle and a size without a device: an open handle, a size above 0.
#[cfg(windows)]
pub fn check_handle(h: i32, size: u64) -> Result<(), ImportError> {
    if size == 0 {
        return Err(ImportError::ZeroSize);
    }
    if is_open_handle(h) {
        Ok(())
    } else {
        Err(ImportError::BadFd(h))
    }
}

/// What can be said of an fd and a size without a device: an open descriptor, a size above 0.
#[cfg(not(windows))]
pub fn check_handle(fd: i32, size: u64) -> Result<(), ImportError> {
    if size == 0 {
        return Err(ImportError::ZeroSize);
    }
    identity(fd).map(|_| ()).ok_or(ImportError::BadFd(fd))
}

/// The open file behind an fd: (device, inode), None when it is not open.
#[cfg(not(windows))]
fn identity(fd: i32) -> Option<(u64, u64)> {
    let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes a stat into the buffer or fails without touching it.
    if unsafe { libc::fstat(fd, st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: initialised by the successful fstat.
    let st = unsafe { st.assume_init() };
    Some((st.st_dev, st.st_ino))
}

/// A probe buffer's memory requirements for planes over external memory.
fn plane_buffer(dev: &Device, size: u64) -> Result<(vk::Buffer, vk::MemoryRequirements), ImportError> {
    let mut ext = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle::MEMORY);
    let ci = dev.pool.buffer_info(size.max(1), PLANE_USAGE).push_next(&mut ext);
    // SAFETY: a valid create info.
    let b = unsafe { dev.device.create_buffer(&ci, None) }.map_err(|r| ImportError::Driver("vkCreateBuffer", r))?;
    // SAFETY: a live buffer.
    let req = unsafe { dev.device.get_buffer_memory_requirements(b) };
    Ok((b, req))
}

/// Imports `size` bytes exported as `fd`. `type_index`: the exporter's memory type where it is a
/// Vulkan device (Vulkan requires the same one), else None for the first device local type that
/// holds planes (CUDA's VMM memory). The fd is consumed on success only.
pub fn import_memory(dev: &Arc<Device>, handle_type: i32, fd: i32, size: u64, type_index: Option<u32>) -> Result<Arc<ImportedMemory>, ImportError> {
    if handle_type != handle::MEMORY_TYPE {
        return Err(ImportError::HandleType(handle_type));
    }
    if dev.memory_export.is_none() {
        return Err(ImportError::NoExport);
    }
    check_handle(fd, size)?;
    let (probe, req) = plane_buffer(dev, 4096)?;
    // SAFETY: unused.
    unsafe { dev.device.destroy_buffer(probe, None) };
    let props = &dev.mem_props;
    let fits = |i: u32| i < props.memory_type_count && req.memory_type_bits & (1 << i) != 0;
    let type_index = match type_index {
        Some(i) if fits(i) => i,
        Some(i) => return Err(ImportError::MemoryType(i)),
        None => (0..props.memory_type_count)
            .find(|&i| fits(i) && props.memory_types[i as usize].property_flags.contains(vk::MemoryPropertyFlags::DEVICE_LOCAL))
            .ok_or(ImportError::MemoryType(u32::MAX))?,
    };
    let memory = on_duplicate(fd, |fd| {
        #[cfg(not(windows))]
        let mut import = vk::ImportMemoryFdInfoKHR::default().handle_type(handle::MEMORY).fd(fd);
        #[cfg(windows)]
        let mut import = vk::ImportMemoryWin32HandleInfoKHR::default().handle_type(handle::MEMORY).handle(fd as isize);
        let mut flags = vk::MemoryAllocateFlagsInfo::default().flags(vk::MemoryAllocateFlags::DEVICE_ADDRESS);
        let ai = vk::MemoryAllocateInfo::default().allocation_size(size).memory_type_index(type_index).push_next(&mut import).push_next(&mut flags);
        // SAFETY: a valid allocate info; the driver takes an fd on success (an NT handle never).
        unsafe { dev.device.allocate_memory(&ai, None) }.map_err(|r| ImportError::Driver("vkAllocateMemory (import)", r))
    })?;
    Ok(Arc::new(ImportedMemory { dev: dev.clone(), memory, size, type_index, memory_id: super::device::new_memory_id() }))
}

/// Imports a timeline semaphore exported as an opaque fd (consumed on success only).
pub fn import_timeline(dev: &Arc<Device>, handle_type: i32, fd: i32) -> Result<Arc<Timeline>, ImportError> {
    if handle_type != handle::SEMAPHORE_TYPE {
        return Err(ImportError::SemaphoreHandleType(handle_type));
    }
    let sx = dev.semaphore_export.as_ref().ok_or(ImportError::NoSemaphoreImport)?;
    let sem = dev.create_timeline().map_err(|_| ImportError::Driver("vkCreateSemaphore", vk::Result::ERROR_UNKNOWN))?;
    let imported = on_duplicate(fd, |fd| {
        #[cfg(not(windows))]
        {
            let info = vk::ImportSemaphoreFdInfoKHR::default().semaphore(sem).handle_type(handle::SEMAPHORE).fd(fd);
            // SAFETY: a semaphore of this device, not in use; the fd is consumed on success.
            unsafe { sx.import_semaphore_fd(&info) }.map_err(|r| ImportError::Driver("vkImportSemaphoreFdKHR", r))
        }
        #[cfg(windows)]
        {
            let info = vk::ImportSemaphoreWin32HandleInfoKHR::default().semaphore(sem).handle_type(handle::SEMAPHORE).handle(fd as isize);
            // SAFETY: a semaphore of this device, not in use; the NT handle stays the caller's.
            unsafe { sx.import_semaphore_win32_handle(&info) }.map_err(|r| ImportError::Driver("vkImportSemaphoreWin32HandleKHR", r))
        }
    });
    if let Err(e) = imported {
        // SAFETY: unused.
        unsafe { dev.device.destroy_semaphore(sem, None) };
        return Err(e);
    }
    Ok(Arc::new(Timeline { dev: dev.clone(), sem, pool_submitted: None, queue: None, by_cuda: false }))
}

/// One plane of an imported frame: where it lies in which import, and its row stride in bytes.
pub struct PlaneAt {
    pub memory: Arc<ImportedMemory>,
    pub offset: u64,
    pub stride: isize,
}

/// Plane `p` of an imported frame: a buffer of `size` bytes bound at `at` (which must hold it at an
/// offset the buffer's alignment allows), keeping the import and the release alive. The frame around
/// the planes is the runtime's (see vsvk-core's gpu::import).
pub fn plane_over(dev: &Arc<Device>, p: usize, at: &PlaneAt, size: u64, release: Option<Arc<Release>>) -> Result<GpuPlane, ImportError> {
    let (buffer, req) = plane_buffer(dev, size)?;
    let bad = if req.memory_type_bits & (1 << at.memory.type_index) == 0 {
        Some("its memory type cannot back plane buffers".to_string())
    } else if at.offset % req.alignment != 0 {
        Some(format!("offset {} is not a multiple of the buffer alignment {}", at.offset, req.alignment))
    } else if at.offset.checked_add(req.size).is_none_or(|end| end > at.memory.size) {
        Some(format!("{} bytes from offset {} pass the end of the {}-byte allocation", req.size, at.offset, at.memory.size))
    } else {
        None
    };
    if let Some(m) = bad {
        // SAFETY: unused.
        unsafe { dev.device.destroy_buffer(buffer, None) };
        return Err(ImportError::Layout(format!("plane {p}: {m}")));
    }
    // SAFETY: compatible memory, checked above.
    if let Err(r) = unsafe { dev.device.bind_buffer_memory(buffer, at.memory.memory, at.offset) } {
        // SAFETY: unused.
        unsafe { dev.device.destroy_buffer(buffer, None) };
        return Err(ImportError::Driver("vkBindBufferMemory", r));
    }
    Ok(GpuPlane::imported(dev, buffer, at.memory.clone(), release, size))
}
