//! The Vulkan instance and device: loading the loader, listing physical devices, the feature gate,
//! device creation with exactly the fixed feature set (plus the optional features and extensions
//! that are present), queues with their locks, and the `VSVulkanFunctions` table.
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use ash::vk;
use parking_lot::lock_api::RawMutex as _;
use parking_lot::{Mutex, RawMutex};
use vsvk_plugin_api::vulkan::*;

use super::handle;

/// The lowest loader (instance) version we accept. Vulkan scopes physical-device-level and
/// device-level functionality by the *physical device's* version together with the application's
/// requested apiVersion, not by the loader's; a 1.1+ instance accepts any requested apiVersion.
/// Only instance-level commands are bounded by the loader, and 1.4 added none that we use, so a
/// 1.3 loader in front of a 1.4 driver yields a full 1.4 device (see docs/GPU.md).
pub const MIN_LOADER_VERSION: u32 = vk::API_VERSION_1_3;
pub const DEVICE_VERSION: u32 = vk::make_api_version(0, 1, 4, 0);

/// `VkPhysicalDeviceVulkan14Features`, which ash 0.38 (Vulkan 1.3.281) lacks.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PhysicalDeviceVulkan14Features {
    pub s_type: vk::StructureType,
    pub p_next: *mut c_void,
    pub global_priority_query: vk::Bool32,
    pub shader_subgroup_rotate: vk::Bool32,
    pub shader_subgroup_rotate_clustered: vk::Bool32,
    pub shader_float_controls2: vk::Bool32,
    pub shader_expect_assume: vk::Bool32,
    pub rectangular_lines: vk::Bool32,
    pub bresenham_lines: vk::Bool32,
    pub smooth_lines: vk::Bool32,
    pub stippled_rectangular_lines: vk::Bool32,
    pub stippled_bresenham_lines: vk::Bool32,
    pub stippled_smooth_lines: vk::Bool32,
    pub vertex_attribute_instance_rate_divisor: vk::Bool32,
    pub vertex_attribute_instance_rate_zero_divisor: vk::Bool32,
    pub index_type_uint8: vk::Bool32,
    pub dynamic_rendering_local_read: vk::Bool32,
    pub maintenance5: vk::Bool32,
    pub maintenance6: vk::Bool32,
    pub pipeline_protected_access: vk::Bool32,
    pub pipeline_robustness: vk::Bool32,
    pub host_image_copy: vk::Bool32,
    pub push_descriptor: vk::Bool32,
}
/// VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES
pub const STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES: vk::StructureType = vk::StructureType::from_raw(55);

impl Default for PhysicalDeviceVulkan14Features {
    fn default() -> Self {
        // SAFETY: plain integers and a null pointer.
        let mut f: Self = unsafe { std::mem::zeroed() };
        f.s_type = STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES;
        f
    }
}

/// Every feature structure we query and enable, chained through `link`.
#[derive(Default)]
pub struct FeatureChain {
    pub f2: vk::PhysicalDeviceFeatures2<'static>,
    pub f11: vk::PhysicalDeviceVulkan11Features<'static>,
    pub f12: vk::PhysicalDeviceVulkan12Features<'static>,
    pub f13: vk::PhysicalDeviceVulkan13Features<'static>,
    pub f14: PhysicalDeviceVulkan14Features,
    pub af: vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static>,
    pub af2: vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT<'static>,
    /// Whether af / af2 are part of the chain (their extensions are present).
    pub with_af: bool,
    pub with_af2: bool,
}

impl FeatureChain {
    /// Links the chain head (`f2`) through every member. The box must not move afterwards.
    fn link(self: &mut Box<Self>) -> *mut c_void {
        let mut next: *mut c_void = std::ptr::null_mut();
        if self.with_af2 {
            self.af2.p_next = next;
            next = (&mut self.af2 as *mut vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT).cast();
        }
        if self.with_af {
            self.af.p_next = next;
            next = (&mut self.af as *mut vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT).cast();
        }
        self.f14.p_next = next;
        next = (&mut self.f14 as *mut PhysicalDeviceVulkan14Features).cast();
        self.f13.p_next = next;
        next = (&mut self.f13 as *mut vk::PhysicalDeviceVulkan13Features).cast();
        self.f12.p_next = next;
        next = (&mut self.f12 as *mut vk::PhysicalDeviceVulkan12Features).cast();
        self.f11.p_next = next;
        next = (&mut self.f11 as *mut vk::PhysicalDeviceVulkan11Features).cast();
        self.f2.p_next = next;
        (&mut self.f2 as *mut vk::PhysicalDeviceFeatures2).cast()
    }
}

type Feature = (&'static str, fn(&mut FeatureChain) -> &mut vk::Bool32);

/// The fixed feature set every core device is created with; plugins rely on it unconditionally.
/// A device lacking any of them is unusable. Checked in this order.
pub const REQUIRED_FEATURES: &[Feature] = &[
    ("shaderInt16", |c| &mut c.f2.features.shader_int16),
    ("shaderUniformBufferArrayDynamicIndexing", |c| &mut c.f2.features.shader_uniform_buffer_array_dynamic_indexing),
    ("shaderSampledImageArrayDynamicIndexing", |c| &mut c.f2.features.shader_sampled_image_array_dynamic_indexing),
    ("shaderStorageBufferArrayDynamicIndexing", |c| &mut c.f2.features.shader_storage_buffer_array_dynamic_indexing),
    ("shaderStorageImageArrayDynamicIndexing", |c| &mut c.f2.features.shader_storage_image_array_dynamic_indexing),
    ("shaderImageGatherExtended", |c| &mut c.f2.features.shader_image_gather_extended),
    ("shaderStorageImageExtendedFormats", |c| &mut c.f2.features.shader_storage_image_extended_formats),
    ("storageBuffer16BitAccess", |c| &mut c.f11.storage_buffer16_bit_access),
    ("variablePointersStorageBuffer", |c| &mut c.f11.variable_pointers_storage_buffer),
    ("variablePointers", |c| &mut c.f11.variable_pointers),
    ("samplerYcbcrConversion", |c| &mut c.f11.sampler_ycbcr_conversion),
    ("timelineSemaphore", |c| &mut c.f12.timeline_semaphore),
    ("hostQueryReset", |c| &mut c.f12.host_query_reset),
    ("uniformBufferStandardLayout", |c| &mut c.f12.uniform_buffer_standard_layout),
    ("shaderSubgroupExtendedTypes", |c| &mut c.f12.shader_subgroup_extended_types),
    ("subgroupBroadcastDynamicId", |c| &mut c.f12.subgroup_broadcast_dynamic_id),
    ("bufferDeviceAddress", |c| &mut c.f12.buffer_device_address),
    ("vulkanMemoryModel", |c| &mut c.f12.vulkan_memory_model),
    ("vulkanMemoryModelDeviceScope", |c| &mut c.f12.vulkan_memory_model_device_scope),
    ("storageBuffer8BitAccess", |c| &mut c.f12.storage_buffer8_bit_access),
    ("shaderInt8", |c| &mut c.f12.shader_int8),
    ("scalarBlockLayout", |c| &mut c.f12.scalar_block_layout),
    ("synchronization2", |c| &mut c.f13.synchronization2),
    ("maintenance4", |c| &mut c.f13.maintenance4),
    ("subgroupSizeControl", |c| &mut c.f13.subgroup_size_control),
    ("computeFullSubgroups", |c| &mut c.f13.compute_full_subgroups),
    ("shaderIntegerDotProduct", |c| &mut c.f13.shader_integer_dot_product),
    ("shaderZeroInitializeWorkgroupMemory", |c| &mut c.f13.shader_zero_initialize_workgroup_memory),
    ("inlineUniformBlock", |c| &mut c.f13.inline_uniform_block),
    ("pipelineCreationCacheControl", |c| &mut c.f13.pipeline_creation_cache_control),
    ("privateData", |c| &mut c.f13.private_data),
    ("maintenance5", |c| &mut c.f14.maintenance5),
    ("maintenance6", |c| &mut c.f14.maintenance6),
    ("pushDescriptor", |c| &mut c.f14.push_descriptor),
    ("shaderSubgroupRotate", |c| &mut c.f14.shader_subgroup_rotate),
    ("shaderSubgroupRotateClustered", |c| &mut c.f14.shader_subgroup_rotate_clustered),
    ("shaderFloatControls2", |c| &mut c.f14.shader_float_controls2),
    ("shaderExpectAssume", |c| &mut c.f14.shader_expect_assume),
    ("pipelineRobustness", |c| &mut c.f14.pipeline_robustness),
];

/// Enabled whenever the device offers them; plugins must check before relying on them.
pub const OPTIONAL_FEATURES: &[Feature] = &[
    ("shaderFloat64", |c| &mut c.f2.features.shader_float64),
    ("shaderInt64", |c| &mut c.f2.features.shader_int64),
    ("shaderFloat16", |c| &mut c.f12.shader_float16),
    ("shaderBufferInt64Atomics", |c| &mut c.f12.shader_buffer_int64_atomics),
    ("shaderSharedInt64Atomics", |c| &mut c.f12.shader_shared_int64_atomics),
];

const EXT_ATOMIC_FLOAT: &CStr = c"VK_EXT_shader_atomic_float";
const EXT_ATOMIC_FLOAT2: &CStr = c"VK_EXT_shader_atomic_float2";
const EXT_PORTABILITY_ENUM: &CStr = c"VK_KHR_portability_enumeration";
const EXT_DEBUG_UTILS: &CStr = c"VK_EXT_debug_utils";

/// What we learn of a physical device before choosing one.
#[derive(Clone)]
pub struct DeviceInfo {
    pub name: String,
    pub api_version: u32,
    pub device_type: vk::PhysicalDeviceType,
    pub device_memory: i64,
    pub usable: Result<(), String>,
    pub uuid: [u8; vk::UUID_SIZE],
    pub luid: [u8; vk::LUID_SIZE],
    pub node_mask: u32,
    pub luid_valid: bool,
    /// The driver is built on Mesa's common Vulkan runtime (its driver info names Mesa), whose
    /// queue threads keep working on a submission after signalling it (see `drain_queues`).
    pub mesa: bool,
}

/// A loaded loader and an instance. Destroys the instance on drop.
pub struct Instance {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub debug_utils: bool,
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every child object is gone (the device drops first, see Device's field order).
        unsafe { self.instance.destroy_instance(None) };
    }
}

fn has_ext(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter().any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
}

fn vkerr(what: &str, r: vk::Result) -> String {
    format!("{what} failed (VkResult {})", r.as_raw())
}

impl Instance {
    pub fn new() -> Result<Instance, String> {
        // SAFETY: loading the system's Vulkan loader library.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| format!("Failed to load the Vulkan loader: {e}"))?;
        // SAFETY: a global-level query on a loaded entry.
        let version = match unsafe { entry.try_enumerate_instance_version() } {
            Ok(Some(v)) => v,
            Ok(None) => vk::API_VERSION_1_0,
            Err(_) => return Err("Failed to query the Vulkan instance version".into()),
        };
        if version < MIN_LOADER_VERSION {
            return Err(format!(
                "The Vulkan loader supports {}.{}, but at least 1.3 is needed",
                vk::api_version_major(version),
                vk::api_version_minor(version)
            ));
        }
        // SAFETY: as above.
        let exts = unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap_or_default();
        let mut names: Vec<*const c_char> = Vec::new();
        let mut flags = vk::InstanceCreateFlags::empty();
        if has_ext(&exts, EXT_PORTABILITY_ENUM) {
            names.push(EXT_PORTABILITY_ENUM.as_ptr());
            flags |= vk::InstanceCreateFlags::ENUMERATE_PORTABILITY_KHR;
        }
        let debug_utils = has_ext(&exts, EXT_DEBUG_UTILS);
        if debug_utils {
            names.push(EXT_DEBUG_UTILS.as_ptr());
        }
        // VS_VULKAN_VALIDATION=1: the Khronos validation layer, when installed.
        let mut layers: Vec<*const c_char> = Vec::new();
        if std::env::var_os("VS_VULKAN_VALIDATION").is_some_and(|v| v != "0") {
            // SAFETY: a global-level query.
            let avail = unsafe { entry.enumerate_instance_layer_properties() }.unwrap_or_default();
            if avail.iter().any(|l| l.layer_name_as_c_str().is_ok_and(|n| n == c"VK_LAYER_KHRONOS_validation")) {
                layers.push(c"VK_LAYER_KHRONOS_validation".as_ptr());
            } else {
                eprintln!("vsvk: Vulkan validation requested but VK_LAYER_KHRONOS_validation is not installed");
            }
        }
        let app = vk::ApplicationInfo::default().application_name(c"vsvk").engine_name(c"vsvk").api_version(DEVICE_VERSION);
        let ci = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_extension_names(&names)
            .enabled_layer_names(&layers)
            .flags(flags);
        // SAFETY: valid create info with live pointers.
        let instance = unsafe { entry.create_instance(&ci, None) }.map_err(|r| vkerr("vkCreateInstance", r))?;
        Ok(Instance { entry, instance, debug_utils })
    }

    pub fn physical_devices(&self) -> Result<Vec<vk::PhysicalDevice>, String> {
        // SAFETY: a live instance.
        unsafe { self.instance.enumerate_physical_devices() }.map_err(|r| vkerr("vkEnumeratePhysicalDevices", r))
    }

    fn device_exts(&self, pd: vk::PhysicalDevice) -> Vec<vk::ExtensionProperties> {
        // SAFETY: a physical device of this instance.
        unsafe { self.instance.enumerate_device_extension_properties(pd) }.unwrap_or_default()
    }

    /// The supported features, as a linked chain.
    fn supported(&self, pd: vk::PhysicalDevice, exts: &[vk::ExtensionProperties]) -> Box<FeatureChain> {
        let mut c = Box::<FeatureChain>::default();
        c.with_af = has_ext(exts, EXT_ATOMIC_FLOAT);
        c.with_af2 = has_ext(exts, EXT_ATOMIC_FLOAT2);
        c.link();
        // SAFETY: a linked chain of valid structures whose versions the device supports (checked
        // by the caller: 1.4 devices only).
        unsafe { self.instance.get_physical_device_features2(pd, &mut c.f2) };
        c.link();
        c
    }

    pub fn describe(&self, pd: vk::PhysicalDevice) -> DeviceInfo {
        let mut id = vk::PhysicalDeviceIDProperties::default();
        let mut drv = vk::PhysicalDeviceDriverProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut id).push_next(&mut drv);
        // SAFETY: valid output structures.
        unsafe { self.instance.get_physical_device_properties2(pd, &mut p2) };
        let props = p2.properties;
        // SAFETY: as above.
        let mem = unsafe { self.instance.get_physical_device_memory_properties(pd) };
        let device_memory = largest_device_heap(&mem);
        let name = props.device_name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut info = DeviceInfo {
            name: name.clone(),
            api_version: props.api_version,
            device_type: props.device_type,
            device_memory: device_memory as i64,
            usable: Ok(()),
            uuid: id.device_uuid,
            luid: id.device_luid,
            node_mask: id.device_node_mask,
            luid_valid: id.device_luid_valid != 0,
            mesa: drv.driver_info_as_c_str().is_ok_and(|s| s.to_string_lossy().contains("Mesa")),
        };
        info.usable = self.gate(pd, &props);
        info
    }

    /// The Vulkan 1.4 and required feature gate.
    fn gate(&self, pd: vk::PhysicalDevice, props: &vk::PhysicalDeviceProperties) -> Result<(), String> {
        let name = props.device_name_as_c_str().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if props.api_version < DEVICE_VERSION {
            return Err(format!(
                "Vulkan device {name} reports Vulkan {}.{}.{}, but 1.4 is required",
                vk::api_version_major(props.api_version),
                vk::api_version_minor(props.api_version),
                vk::api_version_patch(props.api_version)
            ));
        }
        let exts = self.device_exts(pd);
        let mut sup = self.supported(pd, &exts);
        for (fname, get) in REQUIRED_FEATURES {
            if *get(&mut sup) == 0 {
                return Err(format!("Vulkan device {name} does not support the {fname} feature"));
            }
        }
        if compute_family(&self.instance, pd).is_none() {
            return Err(format!("Vulkan device {name} has no compute capable queue family"));
        }
        Ok(())
    }
}

pub fn largest_device_heap(mem: &vk::PhysicalDeviceMemoryProperties) -> u64 {
    mem.memory_heaps_as_slice().iter().filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL)).map(|h| h.size).max().unwrap_or(0)
}

fn families(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Vec<vk::QueueFamilyProperties> {
    // SAFETY: a physical device of this instance.
    unsafe { instance.get_physical_device_queue_family_properties(pd) }
}

fn compute_family(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Option<u32> {
    let fams = families(instance, pd);
    // A dedicated compute family first (as R81 picks on NVIDIA), else any compute capable one.
    fams.iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE) && !f.queue_flags.contains(vk::QueueFlags::GRAPHICS) && f.queue_count > 0)
        .or_else(|| fams.iter().position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE) && f.queue_count > 0))
        .map(|i| i as u32)
}

fn transfer_family(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Option<u32> {
    families(instance, pd)
        .iter()
        .position(|f| {
            f.queue_count > 0
                && f.queue_flags.contains(vk::QueueFlags::TRANSFER)
                && !f.queue_flags.intersects(vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS)
        })
        .map(|i| i as u32)
}

/// How many private copy queues the core asks for: VSVK_DOWNLOAD_QUEUES (0 puts downloads back on
/// the shared transfer queue), else 1.
fn copy_queues_wanted() -> usize {
    std::env::var("VSVK_DOWNLOAD_QUEUES").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(1).min(8)
}

/// How many further private queues of the compute family take downloads too
/// (VSVK_DOWNLOAD_COMPUTE_QUEUES, default 3, 0 for none): copies on one queue run one after
/// another, each submission with its barrier and signal, and a small frame's copy costs the queue
/// far more than the bus time it needs; the compute family has queues of its own to run them
/// beside. On the H100 three more took a 1080p vk.Expr chain from 2,630 to 6,520 fps
/// (docs/BENCHMARKS.md, Transfers).
fn compute_copy_queues_wanted() -> usize {
    std::env::var("VSVK_DOWNLOAD_COMPUTE_QUEUES").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(3).min(8)
}

/// How many further private queues of the compute family the upload kernel takes
/// (VSVK_UPLOAD_COMPUTE_QUEUES, default 2, 0 for none), beyond the downloads': on queues of their
/// own the kernel's uploads run beside downloads, where on one queue they would take turns. With
/// none, uploads go by the copy engine (the H100's round trip: 1,184 fps with two, 1,082 without).
fn upload_queues_wanted() -> usize {
    std::env::var("VSVK_UPLOAD_COMPUTE_QUEUES").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(2).min(8)
}

/// How many queues of the compute family filters' exec pools on the compute queue are spread over,
/// the compute queue included (VSVK_KERNEL_QUEUES, default 2; 1 keeps them all on it). Each filter
/// created takes the next in turn for every pool it makes (a filter may order its own pools' work
/// by the queue alone), so where one filter's kernels leave shader cores idle between dispatches,
/// the next filter's run beside them; a pool stays on its queue, so its timeline is signalled in
/// order. On the H100, one call, two samples a row (2026-12-07, docs/BENCHMARKS.md, GPU chains):
/// four KNLMeans in a row 534 / 598 / 599 fps with 1 / 2 / 3 queues (R81 553-555); KNLMeans ->
/// NNEDI3 -> BM3D at 2160p 148 / 147 / 136 (R81 134-136; NNEDI3 uses neither an exec pool nor the
/// queue lock, so two and three queues place that chain alike, and three ran it at 133-136 in all
/// three calls that had it, one queue at 145-151).
fn kernel_queues_wanted() -> usize {
    std::env::var("VSVK_KERNEL_QUEUES").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(2).clamp(1, 8)
}

/// Lists every physical device through a temporary instance.
pub fn enumerate() -> Result<Vec<DeviceInfo>, String> {
    let inst = Instance::new()?;
    let pds = inst.physical_devices()?;
    Ok(pds.into_iter().map(|pd| inst.describe(pd)).collect())
}

/// The automatic choice: usable discrete GPUs first, then integrated, then the rest; the largest
/// device local heap decides ties.
pub fn auto_choice(infos: &[DeviceInfo]) -> Option<usize> {
    let rank = |t: vk::PhysicalDeviceType| match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    };
    infos
        .iter()
        .enumerate()
        .filter(|(_, d)| d.usable.is_ok())
        .min_by_key(|(i, d)| (rank(d.device_type), std::cmp::Reverse(d.device_memory), *i))
        .map(|(i, _)| i)
}

/// VSVK_DEVICE: the device a core takes when nothing selected one (setVulkanDevice wins), by its
/// index in the enumeration order or by its UUID (32 hex digits; dashes and nvidia-smi's `GPU-`
/// prefix allowed, so that a process manager that hands out GPUs by UUID, as Ray and CUDA do, can
/// name the same card to Vulkan). None when unset or empty.
pub fn env_choice(infos: &[DeviceInfo]) -> Option<Result<usize, String>> {
    let v = std::env::var("VSVK_DEVICE").ok().filter(|v| !v.trim().is_empty())?;
    Some(parse_device_choice(&v, infos))
}

fn parse_device_choice(v: &str, infos: &[DeviceInfo]) -> Result<usize, String> {
    let v = v.trim();
    let present = || {
        let list: Vec<String> =
            infos.iter().enumerate().map(|(i, d)| format!("{i}: {} uuid {}", d.name, d.uuid.iter().map(|b| format!("{b:02x}")).collect::<String>())).collect();
        if list.is_empty() { "none".to_string() } else { list.join(", ") }
    };
    if let Ok(i) = v.parse::<usize>() {
        return if i < infos.len() { Ok(i) } else { Err(format!("VSVK_DEVICE={v}: there is no Vulkan device {i} (present: {})", present())) };
    }
    let hex: String = v.strip_prefix("GPU-").unwrap_or(v).chars().filter(|c| *c != '-').collect::<String>().to_ascii_lowercase();
    if hex.len() != 2 * vk::UUID_SIZE || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("VSVK_DEVICE={v}: expected a device index or a UUID of 32 hex digits"));
    }
    infos
        .iter()
        .position(|d| d.uuid.iter().map(|b| format!("{b:02x}")).collect::<String>() == hex)
        .ok_or_else(|| format!("VSVK_DEVICE={v} names no Vulkan device (present: {})", present()))
}

/// One of the core's queues with the lock every submission to it must hold.
pub struct Queue {
    pub family: u32,
    pub index: u32,
    pub queue: vk::Queue,
    lock: RawMutex,
    /// Submissions the queue received, counted under its lock: their order, for stall reports.
    pub seq: AtomicU64,
}

impl Queue {
    pub fn lock(&self) {
        self.lock.lock();
    }
    /// # Safety
    /// The calling context holds the lock (taken with `lock`).
    pub unsafe fn unlock(&self) {
        self.lock.unlock();
    }
    /// Runs `f` under the queue lock.
    pub fn with<R>(&self, f: impl FnOnce(vk::Queue) -> R) -> R {
        self.lock.lock();
        struct Unlock<'a>(&'a RawMutex);
        impl Drop for Unlock<'_> {
            fn drop(&mut self) {
                // SAFETY: locked just above by this thread.
                unsafe { self.0.unlock() };
            }
        }
        let _u = Unlock(&self.lock);
        f(self.queue)
    }
}

/// The core's device. Lives as long as anything made from it (frames, timelines, pools).
pub struct Device {
    pub name: String,
    pub info: DeviceInfo,
    pub props: vk::PhysicalDeviceProperties,
    pub mem_props: vk::PhysicalDeviceMemoryProperties,
    pub pdev: vk::PhysicalDevice,
    pub device: ash::Device,
    pub compute: Arc<Queue>,
    /// Equal (the same Arc) to `compute` without a dedicated transfer family.
    pub transfer: Arc<Queue>,
    /// The transfer family's other queues, private to the core (GPUDownload's copies); none where
    /// the family has one queue.
    pub copy: Vec<Arc<Queue>>,
    /// Private queues of the compute family for the upload kernel (upload_queues_wanted).
    pub upload: Vec<Arc<Queue>>,
    /// Further queues of the compute family that plugins' exec pools on the compute queue are
    /// spread over, with it, in turn (kernel_queues_wanted).
    pub kernel: Vec<Arc<Queue>>,
    /// The next filter's turn among the compute queue and `kernel` (next_kernel_turn).
    pub next_kernel_queue: std::sync::atomic::AtomicUsize,
    pub functions: Box<VSVulkanFunctions>,
    pub get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    /// The platform's opaque handle export (gpu::handle), where the driver has it.
    pub memory_export: Option<handle::MemoryExt>,
    pub semaphore_export: Option<handle::SemaphoreExt>,
    pub unified: bool,
    pub budget: i64,
    pub lost: AtomicBool,
    /// VSVK_INJECT_DEVICE_LOST: the device is lost at the submission after this many (tests).
    pub inject_after: Option<u64>,
    /// Submissions counted towards `inject_after`.
    pub submissions: std::sync::atomic::AtomicU64,
    /// The pooled sub-allocator and VRAM accounting.
    pub pool: super::pool::Pool,
    /// Exec pools alive on this device, for memory pressure sweeps.
    pub exec_pools: Mutex<Vec<std::sync::Weak<super::exec::PoolInner>>>,
    /// Bytes that submitted but unfinished work on compute pools retains (the in-flight budget).
    pub inflight_bytes: AtomicI64,
    /// How busy the compute queue has been lately (its pools' GPU timestamps).
    pub compute_load: super::timing::Load,
    /// When a copy engine last took an upload from host memory (see `recent`).
    pub dma_uploads: super::recent::Recent,
    /// When a download was last queued: uploads under the copy engine's threshold then leave the
    /// compute family to the downloads (core's transfer::upload).
    pub downloads: super::recent::Recent,
    /// Filters that may run kernels now (see `filter_kernels`).
    pub filter_kernels: Arc<super::filter_kernels::FilterKernels>,
    /// Host staging instead of direct mapped uploads even where plane memory is host visible.
    pub force_staging: bool,
    /// Last: the instance outlives the device.
    pub instance: Instance,
}

// SAFETY: Vulkan handles are plain values; the ones needing external synchronisation (queues) are
// only used under their locks, and ash's function tables are immutable.
unsafe impl Send for Device {}
unsafe impl Sync for Device {}

pub static LIMIT_FLOOR: i64 = 256 << 20;

fn host_memory() -> i64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("MemTotal:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok()))
        .map_or(8 << 30, |kb| kb * 1024)
}

impl Device {
    /// Brings up the device: `index` into the enumeration order, or -1 for the automatic choice.
    pub fn create(index: i32, host_limit: i64) -> Result<Arc<Device>, String> {
        let instance = Instance::new()?;
        let pds = instance.physical_devices()?;
        if pds.is_empty() {
            return Err("No Vulkan devices found".into());
        }
        let infos: Vec<DeviceInfo> = pds.iter().map(|&pd| instance.describe(pd)).collect();
        let chosen = if let Some(named) = (index < 0).then(|| env_choice(&infos)).flatten() {
            let i = named?;
            infos[i].usable.clone()?;
            i
        } else if index < 0 {
            auto_choice(&infos).ok_or_else(|| {
                let reasons: Vec<String> = infos.iter().filter_map(|i| i.usable.clone().err()).collect();
                format!("No usable Vulkan device found ({})", reasons.join("; "))
            })?
        } else {
            let i = index as usize;
            if i >= infos.len() {
                return Err(format!("Vulkan device {index} requested but only {} present", infos.len()));
            }
            infos[i].usable.clone()?;
            i
        };
        let pd = pds[chosen];
        let info = infos[chosen].clone();
        let inst = &instance.instance;
        // SAFETY: queries on a physical device of this instance.
        let props = unsafe { inst.get_physical_device_properties(pd) };
        // SAFETY: as above.
        let mem_props = unsafe { inst.get_physical_device_memory_properties(pd) };
        let exts = instance.device_exts(pd);
        let supported = instance.supported(pd, &exts);

        // Exactly the fixed set, plus optional features that are present.
        let mut want = Box::<FeatureChain>::default();
        let mut sup = supported;
        for (_, get) in REQUIRED_FEATURES {
            *get(&mut want) = vk::TRUE;
        }
        for (_, get) in OPTIONAL_FEATURES {
            if *get(&mut sup) != 0 {
                *get(&mut want) = vk::TRUE;
            }
        }
        let mut enabled_exts: Vec<*const c_char> = Vec::new();
        if sup.with_af {
            want.with_af = true;
            want.af = sup.af;
            enabled_exts.push(EXT_ATOMIC_FLOAT.as_ptr());
        }
        if sup.with_af2 {
            want.with_af2 = true;
            want.af2 = sup.af2;
            enabled_exts.push(EXT_ATOMIC_FLOAT2.as_ptr());
        }
        let memory_export = has_ext(&exts, handle::EXT_MEMORY);
        if memory_export {
            enabled_exts.push(handle::EXT_MEMORY.as_ptr());
        }
        let semaphore_export = has_ext(&exts, handle::EXT_SEMAPHORE);
        if semaphore_export {
            enabled_exts.push(handle::EXT_SEMAPHORE.as_ptr());
        }
        let head = want.link();

        let compute_fam = compute_family(inst, pd).ok_or("The selected Vulkan device has no compute capable queue family")?;
        let transfer_fam =
            if std::env::var_os("VS_VULKAN_NO_TRANSFER_QUEUE").is_some() { None } else { transfer_family(inst, pd) };
        // Queues of the transfer family beyond the shared one, for the core's own downloads: a
        // download waits for its frame's producer on the GPU, and on one queue every copy queued
        // behind it waits too (uploads included), where the copy engines could run them.
        let extra_copy = match transfer_fam {
            Some(t) => (families(inst, pd)[t as usize].queue_count as usize).saturating_sub(1).min(copy_queues_wanted()),
            None => 0,
        };
        let tprio = vec![1.0f32; 1 + extra_copy];
        let compute_queues = families(inst, pd)[compute_fam as usize].queue_count as usize;
        let extra_compute = compute_queues.saturating_sub(1).min(compute_copy_queues_wanted());
        let extra_upload = compute_queues.saturating_sub(1 + extra_compute).min(upload_queues_wanted());
        let extra_kernel = compute_queues.saturating_sub(1 + extra_compute + extra_upload).min(kernel_queues_wanted() - 1);
        let cprio = vec![1.0f32; 1 + extra_compute + extra_upload + extra_kernel];
        let mut qcis = vec![vk::DeviceQueueCreateInfo::default().queue_family_index(compute_fam).queue_priorities(&cprio)];
        if let Some(t) = transfer_fam {
            qcis.push(vk::DeviceQueueCreateInfo::default().queue_family_index(t).queue_priorities(&tprio));
        }
        let mut dci = vk::DeviceCreateInfo::default().queue_create_infos(&qcis).enabled_extension_names(&enabled_exts);
        dci.p_next = head;
        // SAFETY: the create info and its feature chain are valid and alive for the call.
        let device = unsafe { inst.create_device(pd, &dci, None) }.map_err(|r| vkerr("vkCreateDevice", r))?;
        drop(want);

        // Every (family, index) asked for here was in the queue create infos above: the transfer
        // family's 1 + extra_copy queues, the compute family's 1 + extra_compute + extra_upload +
        // extra_kernel.
        let queue = |family: u32, index: u32| {
            // SAFETY: a queue the device was created with (see above).
            let queue = unsafe { device.get_device_queue(family, index) };
            Arc::new(Queue { family, index, queue, lock: RawMutex::INIT, seq: AtomicU64::new(0) })
        };
        let compute = queue(compute_fam, 0);
        let transfer = match transfer_fam {
            Some(t) => queue(t, 0),
            None => compute.clone(),
        };
        let mut copy: Vec<Arc<Queue>> = (1..=extra_copy as u32).map(|i| queue(transfer.family, i)).collect();
        copy.extend((1..=extra_compute as u32).map(|i| queue(compute_fam, i)));
        let first_upload = 1 + extra_compute as u32;
        let upload: Vec<Arc<Queue>> = (first_upload..first_upload + extra_upload as u32).map(|i| queue(compute_fam, i)).collect();
        let first_kernel = first_upload + extra_upload as u32;
        let kernel: Vec<Arc<Queue>> = (first_kernel..first_kernel + extra_kernel as u32).map(|i| queue(compute_fam, i)).collect();

        let gipa = instance.entry.static_fn().get_instance_proc_addr;
        let functions = match load_functions(&instance, &device) {
            Ok(f) => f,
            Err(e) => {
                // SAFETY: nothing was created on the device yet.
                unsafe { device.destroy_device(None) };
                return Err(e);
            }
        };
        let memory_export = memory_export.then(|| handle::MemoryExt::new(inst, &device));
        let semaphore_export = semaphore_export.then(|| handle::SemaphoreExt::new(inst, &device));

        let unified = matches!(info.device_type, vk::PhysicalDeviceType::INTEGRATED_GPU | vk::PhysicalDeviceType::CPU);
        let heap = largest_device_heap(&mem_props) as i64;
        // The driver's budget for the largest device local heap: VK_EXT_memory_budget is a
        // physical-device-level query, usable when supported without enabling anything.
        let budget = if has_ext(&exts, c"VK_EXT_memory_budget") {
            let mut b = vk::PhysicalDeviceMemoryBudgetPropertiesEXT::default();
            let mut p2 = vk::PhysicalDeviceMemoryProperties2::default().push_next(&mut b);
            // SAFETY: valid output structures; the extension is supported.
            unsafe { inst.get_physical_device_memory_properties2(pd, &mut p2) };
            let heaps = mem_props.memory_heaps_as_slice();
            heaps
                .iter()
                .enumerate()
                .filter(|(_, h)| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL) && h.size as i64 == heap)
                .map(|(i, _)| b.heap_budget[i] as i64)
                .find(|&v| v > 0)
                .unwrap_or(heap)
        } else {
            heap
        };
        let mut limit = (budget / 3 * 2).max(LIMIT_FLOOR);
        if unified {
            // The same RAM as the host's: leave the machine room next to the host frame budget.
            let room = (host_memory() / 4 * 3 - host_limit) / 2;
            limit = limit.min(room).max(LIMIT_FLOOR);
        }
        if let Some(mb) = std::env::var("VS_VULKAN_MAX_VRAM_MB").ok().and_then(|s| s.parse::<i64>().ok()) {
            if mb > 0 {
                limit = (mb << 20).max(LIMIT_FLOOR);
            }
        }
        let families = if compute.family == transfer.family { vec![compute.family] } else { vec![compute.family, transfer.family] };
        let pool = super::pool::Pool::new(&instance.instance, &device, pd, &mem_props, unified, limit, families)
            .map_err(|e| format!("Vulkan device creation failed: {e}"))?;
        let force_staging = std::env::var_os("VS_VULKAN_FORCE_STAGING").is_some();
        let inject_after = match std::env::var("VSVK_INJECT_DEVICE_LOST") {
            Ok(v) => Some(parse_inject(&v)?),
            Err(_) => None,
        };
        let dev = Arc::new(Device {
            name: info.name.clone(),
            info,
            props,
            mem_props,
            pdev: pd,
            device,
            compute,
            transfer,
            copy,
            upload,
            kernel,
            next_kernel_queue: Default::default(),
            functions,
            get_instance_proc_addr: gipa,
            memory_export,
            semaphore_export,
            unified,
            budget,
            lost: AtomicBool::new(false),
            inject_after,
            submissions: std::sync::atomic::AtomicU64::new(0),
            pool,
            exec_pools: Mutex::new(Vec::new()),
            inflight_bytes: AtomicI64::new(0),
            compute_load: Default::default(),
            filter_kernels: Default::default(),
            dma_uploads: Default::default(),
            downloads: Default::default(),
            force_staging,
            instance,
        });
        if super::warmup::enabled(&dev) {
            super::warmup::warm_queues(&dev).map_err(|e| format!("Vulkan device creation failed: warming up {e}"))?;
        }
        Ok(dev)
    }

    pub fn queue(&self, q: i32) -> &Arc<Queue> {
        if q == vqTransfer {
            &self.transfer
        } else {
            &self.compute
        }
    }

    /// Every queue of the device, each once (`transfer` is `compute` without a transfer family).
    pub fn all_queues(&self) -> Vec<&Arc<Queue>> {
        let mut all = vec![&self.compute];
        if !Arc::ptr_eq(&self.compute, &self.transfer) {
            all.push(&self.transfer);
        }
        all.extend(self.copy.iter().chain(&self.upload).chain(&self.kernel));
        all
    }

    /// Whether filters' kernels run on `q`: the compute queue, or one of the queues their exec
    /// pools are spread over.
    pub fn runs_kernels(&self, q: &Arc<Queue>) -> bool {
        Arc::ptr_eq(q, &self.compute) || self.kernel.iter().any(|k| Arc::ptr_eq(k, q))
    }

    /// The queues `runs_kernels` names, as (family, index).
    pub fn kernel_queue_ids(&self) -> Vec<(u32, u32)> {
        std::iter::once(&self.compute).chain(&self.kernel).map(|q| (q.family, q.index)).collect()
    }

    /// The next turn among the queues that run filters' kernels, for `kernel_queue`.
    pub fn next_kernel_turn(&self) -> usize {
        self.next_kernel_queue.fetch_add(1, Ordering::Relaxed)
    }

    /// The queue of turn `n`: the compute queue and `kernel` in turn.
    pub fn kernel_queue(&self, n: usize) -> &Arc<Queue> {
        match n % (1 + self.kernel.len()) {
            0 => &self.compute,
            i => &self.kernel[i - 1],
        }
    }

    pub fn export_memory_type(&self) -> i32 {
        if self.memory_export.is_some() {
            handle::MEMORY_TYPE
        } else {
            0
        }
    }
    pub fn export_semaphore_type(&self) -> i32 {
        if self.semaphore_export.is_some() {
            handle::SEMAPHORE_TYPE
        } else {
            0
        }
    }
    /// Records a device loss. On the first report the pool is closed: its idle buffers go back
    /// to the driver, since nothing will reuse them, and so does everything given back later.
    pub fn mark_lost(&self) {
        if !self.lost.swap(true, Ordering::AcqRel) {
            for e in self.pool.close(&self.device) {
                e.destroy(self);
            }
        }
    }
    pub fn is_lost(&self) -> bool {
        self.lost.load(Ordering::Acquire)
    }

    /// Gives a pooled buffer back: to its bucket, or to the driver once the device is lost (the
    /// pool, closed by `mark_lost`, decides under its lock: checking the loss here first raced
    /// with the closing, and a buffer could land in a bucket that had just been emptied).
    pub fn recycle_buffer(&self, b: super::pool::PooledBuffer) {
        self.pool.recycle(&self.device, b);
    }

    /// The injection hook, called once per submission before its queue lock is taken: whether
    /// this submission is where the injected loss happens (or comes after it). Without
    /// VSVK_INJECT_DEVICE_LOST it is one branch.
    pub fn injected_loss(&self) -> bool {
        let Some(n) = self.inject_after else { return false };
        if self.submissions.fetch_add(1, Ordering::AcqRel) < n {
            return false;
        }
        if !self.is_lost() {
            self.simulate_loss();
        }
        true
    }

    /// What a real loss leaves behind, on a device that is in fact fine: nothing executing (the
    /// work already submitted finishes first, so what it retains can be freed as after a reset)
    /// and the loss recorded, so every later submission, wait and acquire reports it. Every queue
    /// is held for vkDeviceWaitIdle's external synchronisation; submitters check the loss under
    /// their queue's lock, so none slips in after the wait.
    fn simulate_loss(&self) {
        let all = self.all_queues();
        for q in &all {
            q.lock();
        }
        // SAFETY: every queue of the device is held by this thread.
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        self.mark_lost();
        // SAFETY: locked above by this thread.
        unsafe {
            for q in all.iter().rev() {
                q.unlock();
            }
        }
    }

    /// Before a timeline or command pool that submissions named is destroyed, on Mesa drivers:
    /// waits until every queue has finished all it was given, the driver's own bookkeeping
    /// included (vkQueueWaitIdle on each, under its lock). Mesa's queues (lavapipe's among them)
    /// release a submission's timeline points on their own thread after the signal a host wait
    /// sees; a semaphore destroyed in between crashed that thread (about 1 run in 200 of a short
    /// upload/download chain on lavapipe). Other drivers are done with a submission once it has
    /// signalled, as Vulkan says, and skip the wait. Never called with a queue lock held.
    pub fn drain_queues(&self) {
        if !self.info.mesa {
            return;
        }
        for q in self.all_queues() {
            // SAFETY: the queue's lock is held for the call, as Vulkan's external synchronisation of
            // queues requires; a lost device's error changes nothing here.
            q.with(|h| unsafe {
                let _ = self.device.queue_wait_idle(h);
            });
        }
    }

    /// The queues GPUDownload's copies go to: the private copy queues where the device has them
    /// (VSVK_DOWNLOAD_QUEUES=N uses N of them in turn), else the shared transfer queue.
    pub fn download_queues(&self) -> Vec<Arc<Queue>> {
        if self.copy.is_empty() {
            vec![self.transfer.clone()]
        } else {
            self.copy.clone()
        }
    }

    /// Creates a timeline semaphore at 0, exportable where the device allows it.
    pub fn create_timeline(&self) -> Result<vk::Semaphore, String> {
        let mut ty = vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE).initial_value(0);
        let mut export = vk::ExportSemaphoreCreateInfo::default().handle_types(handle::SEMAPHORE);
        let mut ci = vk::SemaphoreCreateInfo::default().push_next(&mut ty);
        if self.semaphore_export.is_some() {
            ci = ci.push_next(&mut export);
        }
        // SAFETY: a valid create info.
        unsafe { self.device.create_semaphore(&ci, None) }.map_err(|r| vkerr("vkCreateSemaphore for a producer timeline", r))
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: the last reference: nothing can submit any more. Wait, then free the pool's blocks
        // and the device; the instance goes after (field order).
        unsafe {
            let _ = self.device.device_wait_idle();
        }
        for e in self.pool.drain_exportables() {
            e.destroy(self);
        }
        self.pool.teardown(&self.device);
        // SAFETY: every object made from the device is gone (they all held a reference).
        unsafe { self.device.destroy_device(None) };
    }
}

/// VSVK_INJECT_DEVICE_LOST's value: `N` or `after:N`, the number of submissions that succeed.
fn parse_inject(v: &str) -> Result<u64, String> {
    v.trim()
        .strip_prefix("after:")
        .unwrap_or(v.trim())
        .parse::<u64>()
        .map_err(|_| format!("VSVK_INJECT_DEVICE_LOST={v:?} is not a number of submissions (N or after:N)"))
}

/// Loads `VS_VK_FUNCTION_LIST` by level; a missing required entry fails device creation.
fn load_functions(instance: &Instance, device: &ash::Device) -> Result<Box<VSVulkanFunctions>, String> {
    let gipa = instance.entry.static_fn().get_instance_proc_addr;
    let gdpa = instance.instance.fp_v1_0().get_device_proc_addr;
    let mut table = Box::<VSVulkanFunctions>::default();
    let base = (&mut *table as *mut VSVulkanFunctions).cast::<u8>();
    for e in VS_VK_FUNCTION_LIST {
        // SAFETY: loader lookups with live handles.
        let f: vk::PFN_vkVoidFunction = unsafe {
            match e.level {
                VS_VK_GLOBAL => gipa(vk::Instance::null(), e.name.as_ptr()),
                VS_VK_INSTANCE => gipa(instance.instance.handle(), e.name.as_ptr()),
                _ => gdpa(device.handle(), e.name.as_ptr()),
            }
        };
        if f.is_none() && e.requirement == VS_VK_REQUIRED {
            return Err(format!(
                "Vulkan entry point {} is missing from the driver, which likely predates 1.4",
                e.name.to_string_lossy()
            ));
        }
        // SAFETY: every member is an Option of a function pointer, the same size and niche as
        // PFN_vkVoidFunction; the offset comes from offset_of!.
        unsafe { base.add(e.offset).cast::<vk::PFN_vkVoidFunction>().write(f) };
    }
    Ok(table)
}

/// A memoryId for a new allocation (VSVulkanExportedMemory). Process wide rather than per device,
/// so that caches of foreign imports keyed by it (the Python module's CUDA imports) cannot take
/// one core's allocation for another's.
pub fn new_memory_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, uuid_byte: u8) -> DeviceInfo {
        DeviceInfo {
            name: name.into(),
            api_version: DEVICE_VERSION,
            device_type: vk::PhysicalDeviceType::DISCRETE_GPU,
            device_memory: 0,
            usable: Ok(()),
            uuid: [uuid_byte; vk::UUID_SIZE],
            luid: [0; vk::LUID_SIZE],
            node_mask: 0,
            luid_valid: false,
            mesa: false,
        }
    }

    #[test]
    fn vsvk_device_names_a_device_by_index_or_uuid() {
        let infos = [info("a", 0x11), info("b", 0xab)];
        assert_eq!(parse_device_choice("1", &infos), Ok(1));
        assert_eq!(parse_device_choice(" 0 ", &infos), Ok(0));
        assert_eq!(parse_device_choice(&"ab".repeat(16), &infos), Ok(1));
        // nvidia-smi's spelling: GPU- and dashes, any case
        assert_eq!(parse_device_choice("GPU-ABABABAB-ABAB-ABAB-ABAB-ABABABABABAB", &infos), Ok(1));
        let e = parse_device_choice("2", &infos).unwrap_err();
        assert!(e.contains("no Vulkan device 2") && e.contains("1: b uuid abab"), "{e}");
        let e = parse_device_choice(&"cd".repeat(16), &infos).unwrap_err();
        assert!(e.contains("names no Vulkan device"), "{e}");
        let e = parse_device_choice("GPU-12", &infos).unwrap_err();
        assert!(e.contains("32 hex digits"), "{e}");
    }
}
