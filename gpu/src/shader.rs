//! compileGPUShader: compute stage GLSL (#version 460) to SPIR-V 1.6 through shaderc (glslang),
//! cached per core by source text. Pure CPU work; no optimizer runs (`spirv` restates two things the
//! way R81's glslang writes them). VSVK_SHADER_DUMP keeps copies.
use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

/// Compiles `source`, or returns the cached words. The error carries the compiler's messages.
pub fn compile(cache: &Mutex<HashMap<String, Arc<[u32]>>>, source: &str) -> Result<Arc<[u32]>, String> {
    if let Some(w) = cache.lock().get(source) {
        return Ok(w.clone());
    }
    let words = compile_uncached(source)?;
    dump(source, &words);
    let words: Arc<[u32]> = words.into();
    cache.lock().entry(source.to_string()).or_insert(words.clone());
    Ok(words)
}

pub fn compile_uncached(source: &str) -> Result<Vec<u32>, String> {
    let compiler = shaderc::Compiler::new().map_err(|e| format!("glslang shader object creation failed: {e}"))?;
    let mut opts = shaderc::CompileOptions::new().map_err(|e| format!("glslang shader object creation failed: {e}"))?;
    opts.set_source_language(shaderc::SourceLanguage::GLSL);
    // SPIR-V 1.6 is what the Vulkan 1.4 client targets; the system glslang may predate the 1.4
    // environment enum, whose only effect for compute is this SPIR-V version.
    opts.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_3 as u32);
    opts.set_target_spirv(shaderc::SpirvVersion::V1_6);
    opts.set_optimization_level(shaderc::OptimizationLevel::Zero);
    let r = compiler
        .compile_into_spirv(source, shaderc::ShaderKind::Compute, "shader.comp", "main", Some(&opts))
        .map_err(|e| format!("shader compilation failed:\n{e}"))?;
    let words = r.as_binary().to_vec();
    Ok(if super::spirv::enabled() { super::spirv::fixup(words) } else { words })
}

/// VSVK_SHADER_DUMP=DIR: each shader compiled (once per core and source) is written there as
/// NAME.comp and its SPIR-V as NAME.spv, NAME a hash of the source: to compare what a plugin's
/// kernels become on this core with another compiler's output. Failures to write are ignored.
fn dump(source: &str, words: &[u32]) {
    let Some(dir) = std::env::var_os("VSVK_SHADER_DUMP") else { return };
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut h);
    let base = std::path::Path::new(&dir).join(format!("{:016x}", h.finish()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let _ = std::fs::write(base.with_extension("comp"), source);
    let _ = std::fs::write(base.with_extension("spv"), bytes);
}
