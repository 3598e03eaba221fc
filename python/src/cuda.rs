//! The CUDA driver API as the DLPack hand-off (dlpack.rs) and gpu_map (gpu_map.rs) use it: the GPU
//! crate's (vsvk::gpu::cuda), for the CUDA device that is this module's core's Vulkan device.
pub use vsvk::gpu::cuda::*;

/// Why `who` cannot run, from cuda()'s error: "X needs the CUDA driver (...), which ..." where the
/// driver is missing, "X: ..." for any other failure.
pub fn needs(who: &str, e: &str) -> String {
    if e.starts_with("the CUDA driver (") {
        format!("{who} needs {e}")
    } else {
        format!("{who}: {e}")
    }
}

/// The driver for the core's device, looked up once (each DLPack hand-off and gpu_map frame asks);
/// the error says why there is none.
pub fn cuda() -> Result<&'static Cuda, String> {
    static CUDA: std::sync::OnceLock<Result<&'static Cuda, String>> = std::sync::OnceLock::new();
    CUDA.get_or_init(|| {
        let info = crate::vulkan::core_info(&crate::core().map_err(|e| e.to_string())?).map_err(|e| format!("getVulkanCoreInfo: {e}"))?;
        for_uuid(info.deviceUUID, &crate::vulkan::c_text(&info.deviceName))
    })
    .clone()
}
