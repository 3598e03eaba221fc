//! std.LoadPlugin and std.LoadAllPlugins.
use std::path::Path;
use std::sync::Arc;

use crate::core::Core;
use crate::map::Map;
use crate::plugin;

pub fn register(r: &super::Registrar) {
    r.add("LoadPlugin", "path:data;altsearchpath:int:opt;forcens:data:opt;forceid:data:opt;", "", load_plugin);
    r.add("LoadAllPlugins", "path:data;", "", load_all_plugins);
}

fn data_arg(m: &Map, key: &str) -> Option<String> {
    m.get_data(key.as_bytes(), 0).ok().map(|d| d.to_str_lossy())
}

pub fn load_plugin(input: &Map, out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let path = data_arg(input, "path").ok_or("path is required")?;
    let ns = data_arg(input, "forcens");
    let id = data_arg(input, "forceid");
    // altsearchpath only changes the DLL search order on Windows; elsewhere libraries resolve their
    // own dependencies through their rpath and the loader's usual rules.
    let alt_search = input.opt_int("altsearchpath").unwrap_or(0) != 0;
    // The loader's own message is complete (it names the file), so it is not prefixed.
    if let Err(e) = plugin::load(core, Path::new(&path), ns.as_deref(), id.as_deref(), alt_search) {
        out.set_error(&e.to_string());
    }
    Ok(())
}

pub fn load_all_plugins(input: &Map, _out: &mut Map, core: &Arc<Core>) -> Result<(), String> {
    let path = data_arg(input, "path").ok_or("path is required")?;
    let dir = Path::new(&path);
    // as in the reference, a folder that is not there holds nothing to load
    if !dir.is_dir() {
        return Ok(());
    }
    crate::autoload::load_folder(core, dir);
    Ok(())
}
