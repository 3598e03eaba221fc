//! The vsvk command's subcommands (cli/ starts Python, which calls `vsvk._main`).
use pyo3::prelude::*;

const USAGE: &str = "\
usage: vsvk COMMAND [ARGS]

commands:
  pipe SCRIPT OUT|-     run a script and write its output clip's frames (see vsvk pipe --help)
  render SCRIPT OUT|-   the same in chunks rendered by Ray worker processes, on a local Ray
                        instance or a cluster (--address), one worker per GPU (see vsvk render --help)
  devices               list the Vulkan devices and which one the core would use
  plugins [-v] [--load PATH]...
                        list the loaded plugins and their files (autoloaded from the
                        vapoursynth/plugins folders on Python's path, $VAPOURSYNTH_EXTRA_PLUGIN_PATH,
                        $VSVK_PLUGIN_PATH and ~/.local/share/vsvk/plugins, plus any --load file
                        or folder); -v also lists each plugin's functions with their arguments
  version               print the core's and the module's versions
  python [ARGS]         run the Python interpreter with vsvk (and the vapoursynth alias) importable
";

/// Runs one command; returns the process's exit status.
pub fn main(py: Python<'_>, args: &[String]) -> i32 {
    let Some(cmd) = args.first() else {
        eprint!("{USAGE}");
        return 2;
    };
    let rest = &args[1..];
    match cmd.as_str() {
        "pipe" => crate::pipe::main(py, rest),
        "render" => render(py, rest),
        "devices" => devices(),
        "plugins" => plugins(rest),
        "version" | "--version" | "-v" => version(py),
        "with-core" => crate::frontends::with_core(py, rest),
        "frontend" => crate::frontends::frontend(py, rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}{}", crate::frontends::USAGE);
            0
        }
        other => {
            eprintln!("vsvk: unknown command {other}\n");
            eprint!("{USAGE}{}", crate::frontends::USAGE);
            2
        }
    }
}

/// `vsvk render`: written in Python (python/src/render_*.py), as Ray's API is.
fn render(py: Python<'_>, args: &[String]) -> i32 {
    let run = || -> PyResult<i32> { py.import("vsvk._render_cli")?.call_method1("main", (args.to_vec(),))?.extract() };
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vsvk render: {}", crate::convert::exception_text(py, &e));
            1
        }
    }
}

fn version(py: Python<'_>) -> i32 {
    match crate::core() {
        Ok(core) => print!("{}", core.version_string.to_string_lossy()),
        Err(e) => e.print(py),
    }
    let pyver: String = py.import("sys").and_then(|s| s.getattr("version")?.extract()).unwrap_or_default();
    let pyver = pyver.lines().next().unwrap_or("").to_string();
    println!("Python module vsvk {} (Python {pyver})", env!("CARGO_PKG_VERSION"));
    0
}

fn devices() -> i32 {
    let list = match crate::vulkan::devices() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vsvk devices: {e}");
            return 1;
        }
    };
    if list.is_empty() {
        println!("no Vulkan devices");
        return 0;
    }
    // what each video engine decodes (vkdec.Source decodes on the CPU where nothing is listed)
    let decode = vsvk::gpu::video::decode_capabilities().unwrap_or_default();
    for (i, e) in list.iter().enumerate() {
        let v = e.apiVersion;
        println!(
            "{i}: {} ({}, Vulkan {}.{}.{}, {} MiB){}",
            crate::vulkan::c_text(&e.deviceName),
            crate::vulkan::device_type(e.deviceType),
            v >> 22 & 0x7f,
            v >> 12 & 0x3ff,
            v & 0xfff,
            e.deviceMemory >> 20,
            if e.usable != 0 { String::new() } else { format!(" not usable: {}", crate::vulkan::c_text(&e.unusableReason)) }
        );
        println!("   uuid {}", crate::vulkan::hex(&e.deviceUUID));
        if let Some(c) = decode.iter().find(|c| c.uuid == e.deviceUUID) {
            println!("   video decode: {}", decode_text(c));
        }
    }
    match crate::core().map_err(|e| e.to_string()).and_then(|c| crate::vulkan::core_info(&c)) {
        Ok(info) => println!("the core uses: {}", crate::vulkan::c_text(&info.deviceName)),
        Err(e) => println!("the core has no device: {e}"),
    }
    0
}

/// `H.264 8-bit up to 4096x4096, H.265 8/10-bit up to 8192x8192` (bit depths of one size merged).
fn decode_text(c: &vsvk::gpu::video::DecodeCaps) -> String {
    if c.decode_queue_family.is_none() {
        return "none (no video decode queue)".into();
    }
    let mut parts: Vec<(String, Vec<u32>, (u32, u32))> = Vec::new();
    for p in &c.profiles {
        match parts.iter_mut().find(|(codec, _, size)| codec == p.codec && *size == (p.max_width, p.max_height)) {
            Some(e) => e.1.push(p.bits),
            None => parts.push((p.codec.to_string(), vec![p.bits], (p.max_width, p.max_height))),
        }
    }
    if parts.is_empty() {
        return "a decode queue, but no 4:2:0 H.264, H.265 or AV1 profile".into();
    }
    parts
        .iter()
        .map(|(codec, bits, (w, h))| format!("{codec} {}-bit up to {w}x{h}", bits.iter().map(|b| b.to_string()).collect::<Vec<_>>().join("/")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plugins(args: &[String]) -> i32 {
    let mut verbose = false;
    let mut loads = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-v" | "--verbose" | "--functions" => verbose = true,
            "--load" => match it.next() {
                Some(p) => loads.push(p.clone()),
                None => {
                    eprintln!("vsvk plugins: --load needs a path");
                    return 2;
                }
            },
            other => {
                eprintln!("vsvk plugins: unknown argument {other}");
                return 2;
            }
        }
    }
    let core = match crate::core() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vsvk plugins: {e}");
            return 1;
        }
    };
    let core = &core;
    let mut status = 0;
    for p in loads {
        let path = std::path::Path::new(&p);
        if path.is_dir() {
            vsvk::autoload::load_folder(core, path);
        } else if let Err(e) = vsvk::plugin::load(core, path, None, None, false) {
            eprintln!("vsvk plugins: {e}");
            status = 1;
        }
    }
    let plugins = core.plugins.read().clone();
    for p in plugins {
        let cfg = p.config.get();
        let name = cfg.map(|c| c.name.to_string_lossy().into_owned()).unwrap_or_default();
        let version = cfg.map(|c| c.version).unwrap_or(0);
        let path = p.path.to_string_lossy();
        println!(
            "{:<12} {} (version {}.{}) {}{}",
            p.namespace(),
            p.id(),
            version >> 16,
            version & 0xffff,
            name,
            if path.is_empty() { String::new() } else { format!("\n             {path}") }
        );
        if verbose {
            for f in p.functions.read().values() {
                println!("    {}({}) -> {}", f.name.to_string_lossy(), f.args.to_string_lossy(), f.ret.to_string_lossy());
            }
        }
    }
    status
}
