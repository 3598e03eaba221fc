//! The C API driven through its own table, as a plugin or an application sees it: versions,
//! plugin loading (folders, manifests, CPU variants, forcens/forceid, autoload), logging, graph
//! inspection and node timing. Real plugins come from the reference installation (scripts/setup.sh).
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::PathBuf;
use std::ptr;
use std::sync::Mutex;

use vsvk::api::getVapourSynthAPI;
use vsvk_plugin_api::abi::*;

fn api() -> &'static VSAPI {
    // SAFETY: the table is static.
    unsafe { &*getVapourSynthAPI(VAPOURSYNTH_API_VERSION) }
}

fn plugins_dir() -> PathBuf {
    let base = std::env::var_os("VSVK_REF")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/vsvk-ref"));
    let p = base.join("plugins");
    assert!(p.join("cas.so").is_file(), "the reference plugins are missing in {}: run scripts/setup.sh", p.display());
    p
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

unsafe fn s<'a>(p: *const c_char) -> &'a str {
    assert!(!p.is_null());
    CStr::from_ptr(p).to_str().unwrap()
}

unsafe fn invoke(core: *mut VSCore, ns: &str, func: &str, args: *mut VSMap) -> Result<*mut VSMap, String> {
    let a = api();
    let p = (a.getPluginByNamespace)(c(ns).as_ptr(), core);
    if p.is_null() {
        return Err(format!("no namespace {ns}"));
    }
    let r = (a.invoke)(p, c(func).as_ptr(), args);
    let e = (a.mapGetError)(r);
    if e.is_null() {
        Ok(r)
    } else {
        let msg = s(e).to_string();
        (a.freeMap)(r);
        Err(msg)
    }
}

unsafe fn load(core: *mut VSCore, func: &str, path: &str, extra: &[(&str, &str)]) -> Result<(), String> {
    let a = api();
    let m = (a.createMap)();
    (a.mapSetData)(m, c"path".as_ptr(), c(path).as_ptr(), -1, dtUtf8, maReplace);
    for (k, v) in extra {
        (a.mapSetData)(m, c(k).as_ptr(), c(v).as_ptr(), -1, dtUtf8, maReplace);
    }
    let r = invoke(core, "std", func, m);
    (a.freeMap)(m);
    r.map(|r| (a.freeMap)(r))
}

unsafe fn namespaces(core: *mut VSCore) -> Vec<String> {
    let a = api();
    let mut v = Vec::new();
    let mut p = (a.getNextPlugin)(ptr::null_mut(), core);
    while !p.is_null() {
        v.push(s((a.getPluginNamespace)(p)).to_string());
        p = (a.getNextPlugin)(p, core);
    }
    v
}

#[test]
fn versions_are_served_up_to_4_3() {
    assert!(!getVapourSynthAPI(make_version(4, 0)).is_null());
    assert!(!getVapourSynthAPI(make_version(4, 3)).is_null());
    assert!(getVapourSynthAPI(make_version(4, 4)).is_null());
    assert!(getVapourSynthAPI(make_version(3, 6)).is_null());
    // SAFETY: a static function pointer of the table.
    assert_eq!(unsafe { (api().getAPIVersion)() }, make_version(4, 3));
}

/// A scratch plugin folder over the reference plugins: plain libraries at the top and two levels
/// down, a folder without manifest, and manifest folders with CPU variants (as wheels install them).
fn scratch_plugin_folder(name: &str) -> PathBuf {
    let src = plugins_dir();
    let dir = std::env::temp_dir().join(format!("vsvk-api-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("deep/deeper")).unwrap();
    let link = |from: &str, to: &str| std::os::unix::fs::symlink(src.join(from), dir.join(to)).unwrap();
    link("cas.so", "cas.so");
    link("bwdif.so", "deep/bwdif.so");
    link("znedi3.so", "deep/deeper/znedi3.so");
    link("zsmooth", "zsmooth");
    link("vszip", "vszip");
    dir
}

#[test]
fn folders_manifests_and_variants_load() {
    let dir = scratch_plugin_folder("folders");
    unsafe {
        let a = api();
        let core = (a.createCore)(ccfDisableAutoLoading);
        assert!(namespaces(core).iter().all(|n| BUILTIN.contains(&n.as_str())), "{:?}", namespaces(core));
        load(core, "LoadAllPlugins", dir.to_str().unwrap(), &[]).unwrap();
        let ns = namespaces(core);
        // plain libraries at any depth and manifest subfolders
        for want in ["cas", "bwdif", "znedi3", "zsmooth", "vszip"] {
            assert!(ns.iter().any(|n| n == want), "{want} missing from {ns:?}");
        }
        // the manifest folder's library is the best variant this CPU runs
        let p = (a.getPluginByNamespace)(c"zsmooth".as_ptr(), core);
        let path = s((a.getPluginPath)(p)).to_string();
        let best = vsvk::plugin::pick_variant(&dir.join("zsmooth"), "libzsmooth").unwrap();
        assert_eq!(PathBuf::from(&path).file_name(), best.file_name());
        // loading the same plugin again names what is already there
        let e = load(core, "LoadPlugin", dir.join("cas.so").to_str().unwrap(), &[]).unwrap_err();
        assert!(e.contains("already loaded"), "{e}");
        (a.freeCore)(core);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_manifest_folder_loads_only_what_its_manifest_names() {
    // the reference plugins folder itself holds a manifest (the dfttest2 wheel installs one at the
    // top of vapoursynth/plugins), so as in R81 nothing else of it loads
    let dir = plugins_dir();
    unsafe {
        let a = api();
        let core = (a.createCore)(ccfDisableAutoLoading);
        load(core, "LoadAllPlugins", dir.to_str().unwrap(), &[]).unwrap();
        let ns: Vec<String> = namespaces(core).into_iter().filter(|n| !BUILTIN.contains(&n.as_str())).collect();
        assert_eq!(ns, vec!["dfttest2_cpu".to_string()]);
        (a.freeCore)(core);
    }
}

#[test]
fn forcens_and_forceid_rename_a_plugin() {
    let dir = plugins_dir();
    unsafe {
        let a = api();
        let core = (a.createCore)(ccfDisableAutoLoading);
        load(core, "LoadPlugin", dir.join("cas.so").to_str().unwrap(), &[("forcens", "sharp"), ("forceid", "org.test.sharp")]).unwrap();
        assert!((a.getPluginByNamespace)(c"cas".as_ptr(), core).is_null());
        let p = (a.getPluginByID)(c"org.test.sharp".as_ptr(), core);
        assert!(!p.is_null());
        assert_eq!(s((a.getPluginNamespace)(p)), "sharp");
        assert!(!(a.getPluginFunctionByName)(c"CAS".as_ptr(), p).is_null());
        (a.freeCore)(core);
    }
}

#[test]
fn bad_libraries_give_clear_errors() {
    unsafe {
        let a = api();
        let core = (a.createCore)(ccfDisableAutoLoading);
        let e = load(core, "LoadPlugin", "/nonexistent/plugin.so", &[]).unwrap_err();
        assert!(e.starts_with("Failed to load /nonexistent/plugin.so"), "{e}");
        let libz = ["/usr/lib/x86_64-linux-gnu/libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1"].into_iter().find(|p| std::path::Path::new(p).exists());
        if let Some(z) = libz {
            let e = load(core, "LoadPlugin", z, &[]).unwrap_err();
            assert_eq!(e, format!("No entry point found in {z}"));
        }
        // as in R81, a folder that is not there holds nothing to load
        assert!(load(core, "LoadAllPlugins", "/nonexistent", &[]).is_ok());
        (a.freeCore)(core);
    }
}

/// Namespaces the core provides itself.
const BUILTIN: [&str; 3] = ["std", "resize", "text"];

static ENV: Mutex<()> = Mutex::new(());

#[test]
fn autoload_reads_the_environment_folder_unless_disabled() {
    let _g = ENV.lock().unwrap();
    let tmp = std::env::temp_dir().join(format!("vsvk-autoload-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let dst = tmp.join("cas.so");
    let _ = std::fs::remove_file(&dst);
    std::os::unix::fs::symlink(plugins_dir().join("cas.so"), &dst).unwrap();
    std::env::set_var("VSVK_PLUGIN_PATH", &tmp);
    unsafe {
        let a = api();
        let core = (a.createCore)(0);
        assert!(namespaces(core).contains(&"cas".to_string()));
        (a.freeCore)(core);
        let core = (a.createCore)(ccfDisableAutoLoading);
        assert!(namespaces(core).iter().all(|n| BUILTIN.contains(&n.as_str())), "{:?}", namespaces(core));
        (a.freeCore)(core);
    }
    std::env::remove_var("VSVK_PLUGIN_PATH");
    let _ = std::fs::remove_dir_all(&tmp);
}

unsafe extern "C" fn collect(level: c_int, msg: *const c_char, data: *mut c_void) {
    let v = &*(data as *const Mutex<Vec<(i32, String)>>);
    v.lock().unwrap().push((level, CStr::from_ptr(msg).to_string_lossy().into_owned()));
}

#[test]
fn log_handlers_receive_messages_until_removed() {
    unsafe {
        let a = api();
        let core = (a.createCore)(ccfDisableAutoLoading);
        let seen: Mutex<Vec<(i32, String)>> = Mutex::new(Vec::new());
        let h = (a.addLogHandler)(Some(collect), None, &seen as *const _ as *mut c_void, core);
        (a.logMessage)(mtWarning, c"first".as_ptr(), core);
        assert_eq!((a.removeLogHandler)(h, core), 1);
        assert_eq!((a.removeLogHandler)(h, core), 0);
        (a.logMessage)(mtWarning, c"second".as_ptr(), core);
        assert_eq!(*seen.lock().unwrap(), vec![(mtWarning, "first".to_string())]);
        (a.freeCore)(core);
    }
}

#[test]
fn graph_inspection_and_timing() {
    unsafe {
        let a = api();
        let core = (a.createCore)(ccfDisableAutoLoading | ccfEnableGraphInspection);
        (a.setCoreNodeTiming)(core, 1);
        assert_eq!((a.getCoreNodeTiming)(core), 1);
        let m = (a.createMap)();
        (a.mapSetInt)(m, c"length".as_ptr(), 3, maReplace);
        let r = invoke(core, "std", "BlankClip", m).unwrap();
        let node = (a.mapGetNode)(r, c"clip".as_ptr(), 0, ptr::null_mut());
        assert_eq!(s((a.getNodeCreationFunctionName)(node, 0)), "BlankClip");
        assert_eq!(s((a.getNodeCreationPluginID)(node, 0)), "com.vapoursynth.std");
        assert_eq!(s((a.getNodeCreationPluginNS)(node, 0)), "std");
        let args = (a.getNodeCreationFunctionArguments)(node, 0);
        assert_eq!((a.mapGetInt)(args, c"length".as_ptr(), 0, ptr::null_mut()), 3);
        assert!((a.getNodeCreationFunctionName)(node, 1).is_null());
        let mut err = [0 as c_char; 128];
        for n in 0..3 {
            let f = (a.getFrame)(n, node, err.as_mut_ptr(), 128);
            assert!(!f.is_null());
            (a.freeFrame)(f);
        }
        assert!((a.getNodeProcessingTime)(node, 0) > 0);
        let mut info: VSCoreInfo2 = std::mem::zeroed();
        (a.getCoreInfo2)(core, &mut info);
        assert_eq!(info.creationFlags, ccfDisableAutoLoading | ccfEnableGraphInspection);
        assert_eq!(info.apiVersion, make_version(4, 3));
        assert_eq!(info.usedFramebufferSize, 0, "nothing holds a frame");
        let held = (a.getFrame)(0, node, err.as_mut_ptr(), 128);
        (a.getCoreInfo2)(core, &mut info);
        assert!(info.usedFramebufferSize >= 640 * 480 * 3, "{}", info.usedFramebufferSize);
        (a.freeFrame)(held);
        (a.freeNode)(node);
        (a.freeMap)(r);
        (a.freeMap)(m);
        // The worker that produced the last frame may still hold the node for a moment.
        let t0 = std::time::Instant::now();
        while (a.getFreedNodeProcessingTime)(core, 0) == 0 && t0.elapsed().as_secs() < 5 {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!((a.getFreedNodeProcessingTime)(core, 0) > 0);
        (a.freeCore)(core);
    }
}

#[test]
fn vulkan_table_is_served_and_cpu_frames_are_handled() {
    use vsvk_plugin_api::vulkan::{gdDrained, VSVULKANAPI as Vk};
    unsafe {
        let a = api();
        let vk = (a.getVulkanAPI)() as *const Vk;
        assert!(!vk.is_null());
        let vk = &*vk;
        let core = (a.createCore)(ccfDisableAutoLoading);
        let mut err = [0 as c_char; 256];
        // a CPU frame is either already complete or refused with a message, never a crash
        let mut fmt: VSVideoFormat = std::mem::zeroed();
        (a.getVideoFormatByID)(&mut fmt, pfGray8, core);
        let f = (a.newVideoFrame)(&fmt, 16, 16, ptr::null(), core);
        let r = (vk.waitGPUFrame)(f, err.as_mut_ptr(), 256);
        assert!(r == gdDrained || !s(err.as_ptr()).is_empty(), "waitGPUFrame on a CPU frame: {r} without a message");
        assert_eq!((a.getFrameResidency)(f), nrCPU);
        (a.freeFrame)(f);
        (a.freeCore)(core);
    }
}
