//! Frame property editors: SetFieldBased, SetFrameProp, SetFrameProps and RemoveFrameProps. Each
//! passes frame n on with other properties, wherever the frames live.
use vsvk_plugin_api::api::Core;
use vsvk_plugin_api::map::{Args, Out};
use vsvk_plugin_api::plugin::Registrar;
use vsvk_plugin_api::values::{MapRead, MapWrite, Values};
use vsvk_plugin_api::{Error, Result};

use crate::util::{is_valid_key, props_filter};

const BAD_PROP_NAME: &str = "'prop' must be a valid property name, a letter or underscore followed by letters, digits and underscores";

pub fn register(r: &Registrar) {
    r.function("SetFrameProp", "clip:vnode:all;prop:data;intval:int[]:opt;floatval:float[]:opt;data:data[]:opt;", "clip:vnode:all;", set_frame_prop);
    r.function("SetFrameProps", "clip:vnode:all;any", "clip:vnode:all;", set_frame_props);
    r.function("RemoveFrameProps", "clip:vnode:all;props:data[]:opt;", "clip:vnode:all;", remove_frame_props);
    r.function("SetFieldBased", "clip:vnode:all;value:int;", "clip:vnode:all;", set_field_based);
}

fn set_field_based(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let value = args.int("value")?.unwrap_or(-1);
    if !(0..=2).contains(&value) {
        return Err(Error::invalid("value must be 0, 1 or 2"));
    }
    props_filter(out, core, "SetFieldBased", clip, move |props| {
        props.delete("_Field");
        props.set_int("_FieldBased", value);
    })
}

fn set_frame_prop(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let prop = args.get_data("prop", 0).map(|d| d.to_str_lossy()).unwrap_or_default();
    if !is_valid_key(prop.as_bytes()) {
        return Err(Error::invalid(BAD_PROP_NAME));
    }
    let given: Vec<&str> = ["intval", "floatval", "data"].into_iter().filter(|k| args.contains(k)).collect();
    if given.is_empty() {
        return Err(Error::invalid("one of 'intval', 'floatval', or 'data' must be passed."));
    }
    if given.len() > 1 {
        return Err(Error::invalid("only one of 'intval', 'floatval', and 'data' can be passed."));
    }
    let values = args.values(given[0]).ok_or_else(|| Error::invalid(format!("argument {} could not be read", given[0])))?;
    props_filter(out, core, "SetFrameProp", clip, move |props| {
        let _ = props.put_values(&prop, values.clone());
    })
}

fn set_frame_props(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let mut values: Vec<(String, Values)> = Vec::new();
    for k in args.keys() {
        if k == "clip" {
            continue;
        }
        let v = args.values(&k).ok_or_else(|| Error::invalid(format!("argument {k} could not be read")))?;
        if matches!(v, Values::Function(_) | Values::VideoNode(_) | Values::AudioNode(_)) {
            return Err(Error::invalid(format!("nodes and functions cannot be stored as frame properties ('{k}')")));
        }
        values.push((k, v));
    }
    props_filter(out, core, "SetFrameProps", clip, move |props| {
        for (k, v) in &values {
            let _ = props.put_values(k, v.clone());
        }
    })
}

/// Glob matching as RemoveFrameProps does it: `*` any run of characters, `?` any one character.
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && (pattern[p] == b'?' || pattern[p] == name[n]) {
            p += 1;
            n += 1;
        } else if p < pattern.len() && pattern[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    while p < pattern.len() && pattern[p] == b'*' {
        p += 1;
    }
    p == pattern.len()
}

fn remove_frame_props(args: &Args, out: &mut Out, core: Core) -> Result<()> {
    let clip = args.node("clip")?;
    let patterns: Option<Vec<Vec<u8>>> = match args.values("props") {
        Some(Values::Data(v)) => Some(v.into_iter().map(|d| d.bytes).collect()),
        _ => None,
    };
    props_filter(out, core, "RemoveFrameProps", clip, move |props| match &patterns {
        None => props.clear(),
        Some(pats) => {
            for k in props.keys() {
                if pats.iter().any(|p| glob_match(p, k.as_bytes())) {
                    props.delete_key(&k);
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match(b"*", b"Foo"));
        assert!(glob_match(b"F*", b"FooBar"));
        assert!(glob_match(b"*o*", b"_Fo"));
        assert!(!glob_match(b"?oo", b"FooBar"));
        assert!(glob_match(b"?oo", b"Foo"));
        assert!(glob_match(b"Foo*Bar*", b"FooBar"));
        assert!(!glob_match(b"F*r", b"Foo"));
        assert!(glob_match(b"*?", b"a"));
        assert!(!glob_match(b"*?", b""));
        assert!(!glob_match(b"Ba[rz]", b"Bar"));
    }
}
