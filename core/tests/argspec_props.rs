//! Property test of invoke's argument check (`Signature::check`) through the public API, against
//! a model of R81's rules: declared arguments in declaration order (missing and not `opt`: "is
//! required"; wrong type, even for an empty array: "is not of the correct type"; no values and not
//! `empty`: "does not accept empty arrays"; more than one value and not `[]`: "is not of array type
//! but more than one value was supplied"), then every undeclared key at once, in key order, unless
//! the string ends in `any`. Maps here hold no nodes or frames, so residency never comes into it.
use std::collections::BTreeMap;

use proptest::prelude::*;
use vsvk::argspec::{ArgSpec, ArgType, Residency, ReturnIssue, Signature};
use vsvk::map::{Data, Map, Value};
use vsvk_plugin_api::abi::*;

/// What a key holds: `count` values of a scalar type, or an empty array of any type.
#[derive(Clone, Debug)]
struct Held {
    ty: ArgType,
    count: usize,
}

fn arb_held() -> impl Strategy<Value = Held> {
    prop_oneof![
        3 => (prop::sample::select(vec![ArgType::Int, ArgType::Float, ArgType::Data]), 1usize..4)
            .prop_map(|(ty, count)| Held { ty, count }),
        1 => prop::sample::select(ArgType::ALL.to_vec()).prop_map(|ty| Held { ty, count: 0 }),
    ]
}

fn arb_spec() -> impl Strategy<Value = ArgSpec> {
    (
        prop::sample::select(vec!["a", "b", "c", "d", "e"]),
        prop::sample::select(ArgType::ALL.to_vec()),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::sample::select(vec![Residency::Cpu, Residency::Gpu, Residency::All]),
    )
        .prop_map(|(name, ty, array, optional, empty, residency)| ArgSpec {
            name: name.to_owned(),
            ty,
            array,
            optional,
            empty: empty && array,
            residency: if ty.has_residency() { residency } else { Residency::Cpu },
        })
}

fn arb_case() -> impl Strategy<Value = (Vec<ArgSpec>, bool, BTreeMap<String, Held>)> {
    (
        prop::collection::vec(arb_spec(), 0..5),
        any::<bool>(),
        prop::collection::btree_map(
            prop::sample::select(vec!["a", "b", "c", "d", "e", "f", "g", "B", "_x"]),
            arb_held(),
            0..6,
        ),
    )
        .prop_map(|(mut specs, any, held)| {
            let mut seen = std::collections::HashSet::new();
            specs.retain(|s| seen.insert(s.name.clone()));
            (specs, any, held.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
        })
}

fn build_map(held: &BTreeMap<String, Held>) -> Map {
    let mut m = Map::new();
    for (k, h) in held {
        if h.count == 0 {
            m.set_empty(k.as_bytes(), h.ty.type_code()).unwrap();
        }
        for i in 0..h.count {
            let v = match h.ty {
                ArgType::Int => Value::Int(i as i64),
                ArgType::Float => Value::Float(i as f64),
                ArgType::Data => Value::Data(Data::new(b"x", dtUtf8)),
                _ => unreachable!("only scalars have values here"),
            };
            m.set(k.as_bytes(), v, i > 0).unwrap();
        }
    }
    m
}

fn model(
    func: &str,
    what: &str,
    whats: &str,
    specs: &[ArgSpec],
    any: bool,
    held: &BTreeMap<String, Held>,
) -> Result<(), String> {
    for s in specs {
        let Some(h) = held.get(&s.name) else {
            if s.optional {
                continue;
            }
            return Err(format!("{func}: {what} {} is required", s.name));
        };
        if h.ty != s.ty {
            return Err(format!("{func}: {what} {} is not of the correct type", s.name));
        }
        if h.count == 0 && !s.empty {
            return Err(format!("{func}: {what} {} does not accept empty arrays", s.name));
        }
        if h.count > 1 && !s.array {
            return Err(format!("{func}: {what} {} is not of array type but more than one value was supplied", s.name));
        }
    }
    if !any {
        // BTreeMap<String> order is byte order, like the map's.
        let unknown: Vec<&str> =
            held.keys().filter(|k| !specs.iter().any(|s| &s.name == *k)).map(|k| k.as_str()).collect();
        if !unknown.is_empty() {
            return Err(format!("{func}: no {whats} named {}", unknown.join(", ")));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, .. ProptestConfig::default() })]

    #[test]
    fn check_matches_model((specs, any, held) in arb_case()) {
        let mut s: String = specs.iter().map(|a| format!("{a};")).collect();
        if any {
            s.push_str("any");
        }
        let sig = Signature::parse(&s).map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
        prop_assert_eq!(sig.args(), &specs[..]);
        prop_assert_eq!(sig.as_str(), s.as_str());
        let map = build_map(&held);

        let want = model("Fn", "argument", "argument(s)", &specs, any, &held);
        prop_assert_eq!(sig.check("Fn", &map), want.clone(), "{:?} with {:?}", s, held);
        prop_assert_eq!(sig.check_adapting("Fn", &map), want.map(|()| Vec::new()));

        let want = model("Fn", "return value", "return value(s)", &specs, any, &held);
        prop_assert_eq!(sig.check_returns("Fn", &map), want.map_err(ReturnIssue::Warning));
    }
}

#[test]
fn reference_examples() {
    let blank = Signature::parse("width:int:opt;height:int:opt;length:int:opt").unwrap();
    let mut m = Map::new();
    m.set(b"bogus", Value::Int(1), false).unwrap();
    assert_eq!(blank.check("BlankClip", &m).unwrap_err(), "BlankClip: no argument(s) named bogus");
    let mut m = Map::new();
    m.set(b"width", Value::Data(Data::new(b"x", dtUtf8)), false).unwrap();
    assert_eq!(blank.check("BlankClip", &m).unwrap_err(), "BlankClip: argument width is not of the correct type");
    let mut m = Map::new();
    m.set(b"width", Value::Int(1), false).unwrap();
    m.set(b"width", Value::Int(1), true).unwrap();
    assert_eq!(
        blank.check("BlankClip", &m).unwrap_err(),
        "BlankClip: argument width is not of array type but more than one value was supplied"
    );
    let crop = Signature::parse("clip:vnode;left:int:opt;right:int:opt;top:int:opt;bottom:int:opt;").unwrap();
    assert_eq!(crop.check("Crop", &Map::new()).unwrap_err(), "Crop: argument clip is required");
    let mut m = Map::new();
    m.set_empty(b"clip", ptAudioNode).unwrap();
    assert_eq!(crop.check("Crop", &m).unwrap_err(), "Crop: argument clip is not of the correct type");
}
