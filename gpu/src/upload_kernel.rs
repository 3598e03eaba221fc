//! Uploads (and downloads) by the shader cores: a compute kernel that reads a plane from host
//! transfer memory (a pinned frame's) and writes it into the GPU plane, or the other way, on a few
//! workgroups so that other queues' work runs beside it. Why not a copy engine: on the H100 the
//! round trip of 2160p 16-bit frames ran 1,184 fps with uploads by this kernel and 1,082 with them
//! on the copy engine, in one call, and 1,407 against 1,348 with downloads by it too in a later
//! one (docs/BENCHMARKS.md, Transfers). bench/vkcopy compares the ways on large buffers.
use std::sync::{Arc, OnceLock};

use ash::vk;

use super::device::Device;

const SOURCE: &str = r#"#version 450
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Words { uint count; uint step; };
void main() {
    for (uint i = gl_GlobalInvocationID.x; i < count; i += step) {
        dst[i] = src[i];
    }
}
"#;

/// Workgroups of 256 per dispatch (VSVK_UPLOAD_SM_GROUPS, default 64): about half an H100's
/// streaming multiprocessors, which read the bus as fast as all of them (bench/vkcopy
/// --sm-groups 66), and leave the rest to kernels and other copies.
fn groups() -> u32 {
    static N: OnceLock<u32> = OnceLock::new();
    *N.get_or_init(|| std::env::var("VSVK_UPLOAD_SM_GROUPS").ok().and_then(|v| v.trim().parse::<u32>().ok()).filter(|&n| n > 0).unwrap_or(64))
}

pub struct UploadKernel {
    dev: Arc<Device>,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl Drop for UploadKernel {
    fn drop(&mut self) {
        // SAFETY: the owner drops the kernel only after its pools drained (Transfer's field order
        // and PoolInner's drop), so no submission still uses these handles.
        unsafe {
            self.dev.device.destroy_pipeline(self.pipeline, None);
            self.dev.device.destroy_pipeline_layout(self.layout, None);
            self.dev.device.destroy_descriptor_set_layout(self.set_layout, None);
        }
    }
}

impl UploadKernel {
    pub fn new(dev: &Arc<Device>) -> Result<UploadKernel, String> {
        static SPIRV: OnceLock<Result<Vec<u32>, String>> = OnceLock::new();
        let words = SPIRV.get_or_init(|| super::shader::compile_uncached(SOURCE)).as_ref().map_err(|e| format!("the upload kernel: {e}"))?;
        let d = &dev.device;
        let bindings = [0, 1].map(|b| {
            vk::DescriptorSetLayoutBinding::default()
                .binding(b)
                .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
        });
        let sci = vk::DescriptorSetLayoutCreateInfo::default().flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR).bindings(&bindings);
        // SAFETY: valid create infos throughout; each handle is destroyed on the error paths below.
        let set_layout = unsafe { d.create_descriptor_set_layout(&sci, None) }.map_err(|r| format!("vkCreateDescriptorSetLayout failed ({})", r.as_raw()))?;
        let ranges = [vk::PushConstantRange { stage_flags: vk::ShaderStageFlags::COMPUTE, offset: 0, size: 8 }];
        let lci = vk::PipelineLayoutCreateInfo::default().set_layouts(std::slice::from_ref(&set_layout)).push_constant_ranges(&ranges);
        // SAFETY: as above.
        let layout = match unsafe { d.create_pipeline_layout(&lci, None) } {
            Ok(l) => l,
            Err(r) => {
                // SAFETY: unused.
                unsafe { d.destroy_descriptor_set_layout(set_layout, None) };
                return Err(format!("vkCreatePipelineLayout failed ({})", r.as_raw()));
            }
        };
        let mci = vk::ShaderModuleCreateInfo::default().code(words);
        // SAFETY: as above.
        let module = unsafe { d.create_shader_module(&mci, None) };
        let pipeline = module.and_then(|m| {
            let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(m).name(c"main");
            let ci = vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout);
            // SAFETY: as above; the module may go once the pipeline exists.
            let p = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &[ci], None) }.map(|v| v[0]).map_err(|(_, r)| r);
            // SAFETY: as above.
            unsafe { d.destroy_shader_module(m, None) };
            p
        });
        match pipeline {
            Ok(pipeline) => Ok(UploadKernel { dev: dev.clone(), set_layout, layout, pipeline }),
            Err(r) => {
                // SAFETY: unused.
                unsafe {
                    d.destroy_pipeline_layout(layout, None);
                    d.destroy_descriptor_set_layout(set_layout, None);
                }
                Err(format!("the upload kernel's pipeline: VkResult {}", r.as_raw()))
            }
        }
    }

    /// Whether a plane of `bytes` can go this way: whole 16-byte words, counted in 32 bits, in one
    /// storage buffer binding of this device (maxStorageBufferRange: 128 MiB at Vulkan's minimum,
    /// less than one 16K float plane).
    pub fn fits(&self, bytes: u64) -> bool {
        words_fit(bytes, self.dev.props.limits.max_storage_buffer_range)
    }

    /// Records the copy of the first `bytes` of `src` into the start of `dst` (`self.fits(bytes)`).
    ///
    /// # Safety
    /// `cb` is recording on a compute capable queue of this kernel's device; both buffers live
    /// until the submission completes, have STORAGE_BUFFER usage and hold at least `bytes`.
    pub unsafe fn record(&self, cb: vk::CommandBuffer, src: vk::Buffer, dst: vk::Buffer, bytes: u64) {
        let f = &self.dev.functions;
        let infos = [src, dst].map(|buffer| vk::DescriptorBufferInfo { buffer, offset: 0, range: bytes });
        let writes = [0, 1].map(|i| {
            vk::WriteDescriptorSet::default().dst_binding(i as u32).descriptor_type(vk::DescriptorType::STORAGE_BUFFER).buffer_info(std::slice::from_ref(&infos[i]))
        });
        let words = (bytes / 16) as u32;
        let groups = groups().min(words.div_ceil(256).max(1));
        let push = [words, groups * 256];
        self.dev.device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, self.pipeline);
        (f.vkCmdPushDescriptorSet.expect("required"))(cb, vk::PipelineBindPoint::COMPUTE, self.layout, 0, writes.len() as u32, writes.as_ptr());
        let bytes_of: Vec<u8> = push.iter().flat_map(|w| w.to_ne_bytes()).collect();
        self.dev.device.cmd_push_constants(cb, self.layout, vk::ShaderStageFlags::COMPUTE, 0, &bytes_of);
        self.dev.device.cmd_dispatch(cb, groups, 1, 1);
    }
}

/// Whether `bytes` are whole 16-byte words, counted in 32 bits, within a binding of `range` bytes.
fn words_fit(bytes: u64, range: u32) -> bool {
    bytes > 0 && bytes.is_multiple_of(16) && bytes / 16 <= u32::MAX as u64 && bytes <= range as u64
}

#[cfg(test)]
mod tests {
    use super::words_fit;

    #[test]
    fn planes_fit_in_whole_words_within_the_binding_range() {
        assert!(words_fit(16, 1 << 27));
        assert!(words_fit(1 << 27, 1 << 27));
        assert!(!words_fit(0, 1 << 27));
        assert!(!words_fit(24, 1 << 27));
        // a 16K GrayS plane (15360 x 8640 x 4 bytes) is over Vulkan's minimum range
        assert!(!words_fit(15360 * 8640 * 4, 1 << 27));
        assert!(words_fit(15360 * 8640 * 4, u32::MAX));
    }
}
