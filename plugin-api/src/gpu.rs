//! Compute work on the core's Vulkan device, the way VSVulkan4's rules want it done.
//!
//! * [`Gpu`]: the core's table, dispatch functions and device, with GPU frames and planes.
//! * [`ExecPool`]: one per filter instance. It owns the filter's pipelines, so that they are
//!   destroyed only after `freeGPUExecPool` has drained every submission that used them.
//! * [`Exec`]: one recording, as a guard: it ends in [`Exec::submit`] or, when dropped without
//!   it (an error halfway, a panic), in `gpuExecAbandon`, so an acquire never leaks. It is not
//!   `Send`, because a context belongs to the thread that acquired it.
//! * Producer pairs are the pool's business: [`Exec::reads`] makes the submission wait on every
//!   plane of a frame (and keeps it alive), [`Exec::writes`] publishes the submission's pair on a
//!   plane. Filters never touch semaphores or queue locks.
//! * Shaders are GLSL compiled by the core ([`Gpu::compile`]); [`ExecPool::pipeline`] makes a
//!   compute pipeline whose bindings are storage buffers set with push descriptors, one per
//!   binding in order, with a push constant block. Copies and fills ([`Exec::copy`],
//!   [`Exec::fill`]) need no pipeline.
use std::ffi::{c_char, CString};
use std::marker::PhantomData;

use ash::vk;

use crate::abi::*;
use crate::api::{api, Core};
use crate::error::{buffer_text, check, Error, Result};
use crate::frame::{Frame, FrameMut};
use crate::vulkan::*;

/// [`Exec::fill`]'s size for "to the end of the buffer" (`VK_WHOLE_SIZE`).
pub const WHOLE_SIZE: u64 = vk::WHOLE_SIZE;

/// The core's GPU half, for one core. Valid while the core lives, which covers every filter
/// instance made on it.
#[derive(Clone, Copy)]
pub struct Gpu {
    vk: *const VSVULKANAPI,
    fns: *const VSVulkanFunctions,
    device: vk::Device,
    core: Core,
}

// SAFETY: the tables are immutable and the core's functions are thread safe.
unsafe impl Send for Gpu {}
unsafe impl Sync for Gpu {}

fn err_buf() -> [c_char; 1024] {
    [0; 1024]
}

impl Gpu {
    /// Brings up (or finds) the core's device.
    pub fn new(core: Core) -> Result<Gpu> {
        // SAFETY: getVulkanAPI never returns NULL (API 4.3).
        let t = unsafe { &*(api().getVulkanAPI)() };
        let mut e = err_buf();
        // SAFETY: valid core and error buffer.
        let fns = unsafe { (t.getVulkanFunctions)(core.as_ptr(), e.as_mut_ptr(), e.len() as i32) };
        if fns.is_null() {
            return Err(Error::Core { call: "getVulkanFunctions", message: buffer_text(&e) });
        }
        let mut h = VSVulkanCoreHandles::default();
        // SAFETY: as above, with a valid out struct.
        if unsafe { (t.getVulkanHandles)(core.as_ptr(), &mut h, e.as_mut_ptr(), e.len() as i32) } != 0 {
            return Err(Error::Core { call: "getVulkanHandles", message: buffer_text(&e) });
        }
        Ok(Gpu { vk: t, fns, device: h.device, core })
    }

    pub fn table(&self) -> &VSVULKANAPI {
        // SAFETY: the table lives as long as the core library.
        unsafe { &*self.vk }
    }

    /// The core's Vulkan dispatch table.
    pub fn fns(&self) -> &VSVulkanFunctions {
        // SAFETY: valid for the core's lifetime, which outlives this handle's users.
        unsafe { &*self.fns }
    }

    pub fn device(&self) -> vk::Device {
        self.device
    }

    pub fn core(&self) -> Core {
        self.core
    }

    /// GLSL (`#version 460` compute) to SPIR-V, through the core's compiler and cache.
    pub fn compile(&self, glsl: &str) -> Result<Vec<u32>> {
        let src = CString::new(glsl).map_err(|_| Error::Shader("the source contains a NUL".into()))?;
        let mut e = [0 as c_char; 8192];
        // SAFETY: valid core, source and log buffer.
        let sh = unsafe { (self.table().compileGPUShader)(self.core.as_ptr(), slGLSL, src.as_ptr(), e.as_mut_ptr(), e.len() as i32) };
        if sh.is_null() {
            return Err(Error::Shader(buffer_text(&e)));
        }
        let mut size = 0usize;
        // SAFETY: the shader is ours until freed; the words are copied before that.
        let words = unsafe {
            let p = (self.table().getGPUShaderCode)(sh, &mut size);
            let v = std::slice::from_raw_parts(p, size / 4).to_vec();
            (self.table().freeGPUShader)(sh);
            v
        };
        Ok(words)
    }

    /// A new GPU frame (`newGPUVideoFrame`) with `props`' properties; its planes are the
    /// caller's to write (and declare with [`Exec::writes`]).
    pub fn new_frame(&self, f: &VSVideoFormat, w: i32, h: i32, props: Option<&Frame>) -> Result<FrameMut> {
        // SAFETY: valid format and core; the frame returned is ours.
        let p = unsafe { (self.table().newGPUVideoFrame)(f, w, h, props.map_or(std::ptr::null(), |f| f.as_ptr()), self.core.as_ptr()) };
        if p.is_null() {
            return Err(Error::Core { call: "newGPUVideoFrame", message: "no GPU frame (no device?)".into() });
        }
        // SAFETY: a new frame, ours alone.
        Ok(unsafe { FrameMut::from_raw(p) })
    }

    /// A plane's buffer; an error for CPU frames.
    pub fn plane(&self, f: &Frame, plane: i32) -> Result<VSVulkanPlaneInfo> {
        self.plane_raw(f.as_ptr(), plane)
    }

    pub fn plane_mut(&self, f: &FrameMut, plane: i32) -> Result<VSVulkanPlaneInfo> {
        self.plane_raw(f.as_ptr(), plane)
    }

    fn plane_raw(&self, f: *const VSFrame, plane: i32) -> Result<VSVulkanPlaneInfo> {
        let mut info = VSVulkanPlaneInfo::default();
        // SAFETY: a frame the caller holds.
        if unsafe { (self.table().getGPUPlane)(f, plane, &mut info) } != 0 {
            return Err(Error::invalid(format!("plane {plane} is not a GPU plane (a CPU clip where a GPU clip is needed?)")));
        }
        Ok(info)
    }

    /// Scratch or table memory from the core's pool.
    pub fn buffer(&self, size: u64, usage: vk::BufferUsageFlags, required: vk::MemoryPropertyFlags, preferred: vk::MemoryPropertyFlags) -> Result<Buffer> {
        let mut info = VSVulkanBufferInfo::default();
        let mut e = err_buf();
        // SAFETY: valid core, out struct and error buffer.
        let raw = unsafe { (self.table().createGPUBuffer)(self.core.as_ptr(), size.max(4), usage, required, preferred, &mut info, e.as_mut_ptr(), e.len() as i32) };
        if raw.is_null() {
            return Err(Error::Core { call: "createGPUBuffer", message: buffer_text(&e) });
        }
        Ok(Buffer { raw, info, gpu: *self })
    }

    /// A storage buffer the host fills once (a table) and shaders read afterwards.
    pub fn table_buffer<T: Copy>(&self, data: &[T]) -> Result<Buffer> {
        let bytes = std::mem::size_of_val(data) as u64;
        let b = self.buffer(
            bytes,
            vk::BufferUsageFlags::STORAGE_BUFFER,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            vk::MemoryPropertyFlags::DEVICE_LOCAL,
        )?;
        let dst = b.info.mapped;
        if dst.is_null() {
            return Err(Error::Core { call: "createGPUBuffer", message: "host visible memory came back unmapped".into() });
        }
        // SAFETY: the mapping holds at least `bytes` bytes and nothing else uses the new buffer.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr().cast::<u8>(), dst.cast::<u8>(), bytes as usize) };
        Ok(b)
    }

    pub fn exec_pool(&self) -> Result<ExecPool> {
        let mut e = err_buf();
        // SAFETY: valid core and error buffer.
        let raw = unsafe { (self.table().createGPUExecPool)(self.core.as_ptr(), vqCompute, e.as_mut_ptr(), e.len() as i32) };
        if raw.is_null() {
            return Err(Error::Core { call: "createGPUExecPool", message: buffer_text(&e) });
        }
        Ok(ExecPool { raw, gpu: *self, pipelines: Vec::new() })
    }
}

/// Pooled device memory. Dropping it returns the memory at once, so only drop buffers no
/// submission still uses; hand per-frame ones to [`Exec::uses_buffer`] instead.
pub struct Buffer {
    raw: *mut VSGPUBuffer,
    pub info: VSVulkanBufferInfo,
    gpu: Gpu,
}

// SAFETY: the handle is only given back to the core's thread safe functions.
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    pub fn handle(&self) -> vk::Buffer {
        self.info.buffer
    }
    /// The host mapping, when the memory is host visible.
    pub fn mapped<T: Copy>(&self, count: usize) -> Option<&[T]> {
        let p = self.info.mapped;
        (!p.is_null() && count * std::mem::size_of::<T>() <= self.info.size as usize)
            // SAFETY: the mapping holds `size` bytes; the caller waited for the GPU's writes.
            .then(|| unsafe { std::slice::from_raw_parts(p.cast::<T>(), count) })
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: we own the buffer.
        unsafe { (self.gpu.table().destroyGPUBuffer)(self.raw) }
    }
}

/// A compute pipeline owned by an [`ExecPool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineId(usize);

struct Pipeline {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    bindings: u32,
    push_bytes: u32,
}

/// A filter instance's exec pool and pipelines; freeing it drains the GPU first.
pub struct ExecPool {
    raw: *mut VSGPUExecPool,
    gpu: Gpu,
    pipelines: Vec<Pipeline>,
}

// SAFETY: exec pools are thread safe; pipelines are only read after creation.
unsafe impl Send for ExecPool {}
unsafe impl Sync for ExecPool {}

impl ExecPool {
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Compiles `glsl` and makes a pipeline with `bindings` storage buffers (bindings 0.. of
    /// set 0, push descriptors) and `push_bytes` of push constants.
    pub fn pipeline(&mut self, glsl: &str, bindings: u32, push_bytes: u32) -> Result<PipelineId> {
        let g = self.gpu;
        let f = g.fns();
        let code = g.compile(glsl)?;
        let mut p = Pipeline {
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            bindings,
            push_bytes,
        };
        let r = (|| -> Result<()> {
            let smci = vk::ShaderModuleCreateInfo::default().code(&code);
            // SAFETY: valid device and create infos; the handles land in `p`, destroyed in Drop.
            unsafe {
                check("vkCreateShaderModule", (f.vkCreateShaderModule.expect("required"))(g.device, &smci, std::ptr::null(), &mut p.module))?;
                let b: Vec<vk::DescriptorSetLayoutBinding> = (0..bindings)
                    .map(|i| {
                        vk::DescriptorSetLayoutBinding::default()
                            .binding(i)
                            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                            .descriptor_count(1)
                            .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    })
                    .collect();
                let dslci = vk::DescriptorSetLayoutCreateInfo::default().flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR).bindings(&b);
                check("vkCreateDescriptorSetLayout", (f.vkCreateDescriptorSetLayout.expect("required"))(g.device, &dslci, std::ptr::null(), &mut p.set_layout))?;
                let ranges = [vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::COMPUTE, offset: 0, size: push_bytes }];
                let layouts = [p.set_layout];
                let plci = vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts).push_constant_ranges(if push_bytes > 0 { &ranges[..] } else { &[] });
                check("vkCreatePipelineLayout", (f.vkCreatePipelineLayout.expect("required"))(g.device, &plci, std::ptr::null(), &mut p.layout))?;
                let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(p.module).name(c"main");
                let cpci = vk::ComputePipelineCreateInfo::default().stage(stage).layout(p.layout);
                check(
                    "vkCreateComputePipelines",
                    (f.vkCreateComputePipelines.expect("required"))(g.device, vk::PipelineCache::null(), 1, &cpci, std::ptr::null(), &mut p.pipeline),
                )?;
            }
            Ok(())
        })();
        if let Err(e) = r {
            self.destroy(&p);
            return Err(e);
        }
        self.pipelines.push(p);
        Ok(PipelineId(self.pipelines.len() - 1))
    }

    fn destroy(&self, p: &Pipeline) {
        let (f, d) = (self.gpu.fns(), self.gpu.device);
        // SAFETY: no submission uses these any more (the pool is drained or they never ran);
        // destroying null handles is a no-op.
        unsafe {
            (f.vkDestroyPipeline.expect("required"))(d, p.pipeline, std::ptr::null());
            (f.vkDestroyPipelineLayout.expect("required"))(d, p.layout, std::ptr::null());
            (f.vkDestroyDescriptorSetLayout.expect("required"))(d, p.set_layout, std::ptr::null());
            (f.vkDestroyShaderModule.expect("required"))(d, p.module, std::ptr::null());
        }
    }

    /// Starts a recording on this thread.
    pub fn acquire(&self) -> Result<Exec<'_>> {
        let mut e = err_buf();
        // SAFETY: our pool; the context is ended by submit or by Exec's Drop.
        let ctx = unsafe { (self.gpu.table().gpuExecAcquire)(self.raw, e.as_mut_ptr(), e.len() as i32) };
        if ctx.is_null() {
            return Err(Error::Core { call: "gpuExecAcquire", message: buffer_text(&e) });
        }
        // SAFETY: the context is ours on this thread.
        let cmd = unsafe { (self.gpu.table().gpuExecCommandBuffer)(ctx) };
        Ok(Exec { pool: self, ctx, cmd, bound: None, _thread: PhantomData })
    }

    /// Waits on the host for a value [`Exec::submit`] returned (to read results back).
    pub fn wait(&self, value: u64) -> Result<()> {
        let mut e = err_buf();
        // SAFETY: our pool and a value it submitted.
        let r = unsafe { (self.gpu.table().gpuExecWaitValue)(self.raw, value, e.as_mut_ptr(), e.len() as i32) };
        if r != gdDrained {
            return Err(Error::Core { call: "gpuExecWaitValue", message: buffer_text(&e) });
        }
        Ok(())
    }
}

impl Drop for ExecPool {
    fn drop(&mut self) {
        // SAFETY: our pool; freeing drains every submission, after which the pipelines are unused.
        unsafe { (self.gpu.table().freeGPUExecPool)(self.raw) };
        for p in std::mem::take(&mut self.pipelines) {
            self.destroy(&p);
        }
    }
}

/// One recording on an exec pool; see the module documentation.
pub struct Exec<'p> {
    pool: &'p ExecPool,
    ctx: *mut VSGPUExecContext,
    cmd: vk::CommandBuffer,
    bound: Option<usize>,
    /// a context belongs to the thread that acquired it
    _thread: PhantomData<*const ()>,
}

impl Exec<'_> {
    fn t(&self) -> &VSVULKANAPI {
        self.pool.gpu.table()
    }
    fn f(&self) -> &VSVulkanFunctions {
        self.pool.gpu.fns()
    }

    /// The command buffer, for recording anything Vulkan allows.
    pub fn command_buffer(&self) -> vk::CommandBuffer {
        self.cmd
    }

    /// This submission reads `frame`: it waits on every plane's producer and keeps it alive.
    pub fn reads(&mut self, frame: &Frame) {
        // SAFETY: our context, a frame the caller holds (the pool takes its own reference).
        unsafe { (self.t().gpuExecReadsFrame)(self.ctx, frame.as_ptr()) }
    }

    /// This submission writes plane `plane` of `frame`, a frame the filter made.
    pub fn writes(&mut self, frame: &mut FrameMut, plane: i32) {
        // SAFETY: our context; `&mut FrameMut` is the only reference to a frame we made.
        unsafe { (self.t().gpuExecWritesPlane)(self.ctx, frame.as_ptr(), plane) }
    }

    /// Hands a buffer over; it is destroyed once the submission completes.
    pub fn uses_buffer(&mut self, b: Buffer) {
        let raw = b.raw;
        std::mem::forget(b);
        // SAFETY: our context; ownership of the buffer passes to it.
        unsafe { (self.t().gpuExecUsesBuffer)(self.ctx, raw) }
    }

    /// Records one dispatch of `pipe` over `groups` workgroups with `buffers` at bindings 0.. and
    /// `push` as the push constants.
    pub fn dispatch(&mut self, pipe: PipelineId, buffers: &[vk::Buffer], push: &[u32], groups: [u32; 3]) -> Result<()> {
        let pool = self.pool;
        let p = &pool.pipelines[pipe.0];
        if buffers.len() != p.bindings as usize || push.len() * 4 > p.push_bytes as usize {
            return Err(Error::invalid(format!(
                "dispatch with {} buffers and {} push bytes on a pipeline of {} bindings and {} push bytes",
                buffers.len(),
                push.len() * 4,
                p.bindings,
                p.push_bytes
            )));
        }
        if groups.contains(&0) {
            return Ok(());
        }
        let f = pool.gpu.fns();
        let infos: Vec<vk::DescriptorBufferInfo> = buffers.iter().map(|&b| vk::DescriptorBufferInfo { buffer: b, offset: 0, range: vk::WHOLE_SIZE }).collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(i, bi)| vk::WriteDescriptorSet::default().dst_binding(i as u32).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).buffer_info(std::slice::from_ref(bi)))
            .collect();
        // SAFETY: recording into our command buffer with live handles of this pool's pipeline.
        unsafe {
            if self.bound != Some(pipe.0) {
                (f.vkCmdBindPipeline.expect("required"))(self.cmd, vk::PipelineBindPoint::COMPUTE, p.pipeline);
                self.bound = Some(pipe.0);
            }
            (f.vkCmdPushDescriptorSet.expect("required"))(self.cmd, vk::PipelineBindPoint::COMPUTE, p.layout, 0, writes.len() as u32, writes.as_ptr());
            if !push.is_empty() {
                let bytes: Vec<u8> = push.iter().flat_map(|w| w.to_ne_bytes()).collect();
                let pci = vk::PushConstantsInfoKHR::default().layout(p.layout).stage_flags(vk::ShaderStageFlags::COMPUTE).offset(0).values(&bytes);
                (f.vkCmdPushConstants2.expect("required"))(self.cmd, &pci);
            }
            (f.vkCmdDispatch.expect("required"))(self.cmd, groups[0], groups[1], groups[2]);
        }
        Ok(())
    }

    /// Copies `size` bytes between buffers.
    pub fn copy(&mut self, src: vk::Buffer, dst: vk::Buffer, size: u64) {
        let region = [vk::BufferCopy2::default().size(size)];
        let info = vk::CopyBufferInfo2::default().src_buffer(src).dst_buffer(dst).regions(&region);
        // SAFETY: recording into our command buffer.
        unsafe { (self.f().vkCmdCopyBuffer2.expect("required"))(self.cmd, &info) }
    }

    /// Fills `size` bytes of `dst` from `offset` on with `word` repeated (`vkCmdFillBuffer`): a
    /// constant plane without a shader. The word holds the sample value as often as it fits (an
    /// 8-bit sample times 0x01010101, a 16-bit one or a half times 0x00010001, a 32-bit one as it
    /// is). Vulkan wants `offset` and `size` multiples of 4, or `size` [`WHOLE_SIZE`] (to the end
    /// of the buffer, rounded down to a multiple of 4); anything else is refused here rather than
    /// left to the driver. A size of 0 records nothing.
    pub fn fill(&mut self, dst: vk::Buffer, offset: u64, size: u64, word: u32) -> Result<()> {
        if !offset.is_multiple_of(4) || (size != WHOLE_SIZE && !size.is_multiple_of(4)) {
            return Err(Error::invalid(format!("fill of {size} bytes at offset {offset}: both must be multiples of 4")));
        }
        if size == 0 {
            return Ok(());
        }
        // SAFETY: recording into our command buffer; offset and size keep Vulkan's rules.
        unsafe { (self.f().vkCmdFillBuffer.expect("required"))(self.cmd, dst, offset, size, word) };
        Ok(())
    }

    /// Everything recorded so far (dispatches, copies, fills) finishes and is visible before what follows.
    pub fn barrier(&mut self) {
        let stages = vk::PipelineStageFlags2::COMPUTE_SHADER | vk::PipelineStageFlags2::TRANSFER;
        let mb = [vk::MemoryBarrier2::default()
            .src_stage_mask(stages)
            .src_access_mask(vk::AccessFlags2::SHADER_WRITE | vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(stages | vk::PipelineStageFlags2::HOST)
            .dst_access_mask(vk::AccessFlags2::SHADER_READ | vk::AccessFlags2::SHADER_WRITE | vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE | vk::AccessFlags2::HOST_READ)];
        let dep = vk::DependencyInfo::default().memory_barriers(&mb);
        // SAFETY: recording into our command buffer.
        unsafe { (self.f().vkCmdPipelineBarrier2.expect("required"))(self.cmd, &dep) }
    }

    /// Ends the recording and submits it; returns the value it signals on the pool's timeline.
    pub fn submit(self) -> Result<u64> {
        let mut e = err_buf();
        let mut value = 0u64;
        let ctx = self.ctx;
        let t = self.t() as *const VSVULKANAPI;
        std::mem::forget(self);
        // SAFETY: our context, ended here exactly once (forget keeps Drop from abandoning it).
        let r = unsafe { ((*t).gpuExecSubmit)(ctx, &mut value, e.as_mut_ptr(), e.len() as i32) };
        if r != 0 {
            return Err(Error::Core { call: "gpuExecSubmit", message: buffer_text(&e) });
        }
        Ok(value)
    }
}

impl Drop for Exec<'_> {
    fn drop(&mut self) {
        // SAFETY: an unsubmitted context of ours: abandon it, releasing what it retained.
        unsafe { (self.t().gpuExecAbandon)(self.ctx) }
    }
}
