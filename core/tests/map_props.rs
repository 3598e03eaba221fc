//! Property tests of the property map through the public Rust API, against a simple model of the
//! reference core's (R81) behaviour: keys kept in byte order, typed value arrays, replace versus
//! append, typed empty arrays, copy, delete, clear and the error state.
//!
//! R81 facts the model encodes (probed with the C API):
//! - mapGet* on a map in error state fails with peError whatever the key; otherwise a missing key
//!   is peUnset, an index out of range peIndex (checked before the type), a wrong type peType.
//! - mapSetError clears the map and leaves one key, `_Error` (data). The map stays usable: later
//!   sets add keys next to `_Error` (mapNumKeys counts them), gets keep failing with peError, and
//!   mapGetError answers the `_Error` value until clearMap. copyMap from a map in error state
//!   copies `_Error` as an ordinary data key and does not put the destination in error state.
//! - Appending a value of another type fails and changes nothing; setting without append
//!   replaces whatever type the key held; mapSetEmpty fails when the key exists.
use std::collections::BTreeMap;

use proptest::prelude::*;
use vsvk::map::{is_valid_key, Data, Map, MapError, SetError, Value, Values};
use vsvk_plugin_api::abi::*;

#[derive(Clone, Debug)]
enum Scalar {
    I(i64),
    F(f64),
    D(Vec<u8>, i32),
}

impl Scalar {
    fn ty(&self) -> i32 {
        match self {
            Scalar::I(_) => ptInt,
            Scalar::F(_) => ptFloat,
            Scalar::D(..) => ptData,
        }
    }
    fn value(&self) -> Value {
        match self {
            Scalar::I(i) => Value::Int(*i),
            Scalar::F(f) => Value::Float(*f),
            Scalar::D(d, hint) => Value::Data(Data::new(d, *hint)),
        }
    }
    fn same(&self, other: &Scalar) -> bool {
        match (self, other) {
            (Scalar::I(a), Scalar::I(b)) => a == b,
            (Scalar::F(a), Scalar::F(b)) => a.to_bits() == b.to_bits(),
            (Scalar::D(a, ha), Scalar::D(b, hb)) => a == b && ha == hb,
            _ => false,
        }
    }
}

/// One key's values. Node, function and frame arrays only ever come from set_empty, so they stay
/// empty and are described by their type code alone.
#[derive(Clone, Debug)]
struct Entry {
    ty: i32,
    vals: Vec<Scalar>,
}

#[derive(Clone, Debug, Default)]
struct Model {
    entries: BTreeMap<Vec<u8>, Entry>,
    error: bool,
}

const ERROR_KEY: &[u8] = b"_Error";

impl Model {
    fn error_message(&self) -> Option<Vec<u8>> {
        if !self.error {
            return None;
        }
        match self.entries.get(ERROR_KEY).and_then(|e| e.vals.first()) {
            Some(Scalar::D(d, _)) => Some(d.clone()),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Set { key: Vec<u8>, val: Scalar, append: bool },
    SetValues { key: Vec<u8>, vals: Vec<Scalar> },
    SetEmpty { key: Vec<u8>, ty: i32 },
    Delete { key: Vec<u8> },
    Clear,
    CopyFrom { src: Vec<Op> },
    SetError { msg: String },
}

fn arb_key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => "[abAB_][ab0_]{0,2}".prop_map(String::into_bytes),
        1 => prop::sample::select(vec![
            b"".to_vec(),
            b"1a".to_vec(),
            b"0".to_vec(),
            b"a b".to_vec(),
            b"a-b".to_vec(),
            b" a".to_vec(),
            b"a\0b".to_vec(),
            b"\xffa".to_vec(),
            "\u{e9}t\u{e9}".as_bytes().to_vec(),
        ]),
    ]
}

fn arb_scalar() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        (-3i64..3).prop_map(Scalar::I),
        any::<i64>().prop_map(Scalar::I),
        prop_oneof![Just(0.5f64), Just(-0.0), Just(f64::NAN), any::<f64>()].prop_map(Scalar::F),
        (prop::collection::vec(any::<u8>(), 0..6), prop::sample::select(vec![dtUnknown, dtBinary, dtUtf8]))
            .prop_map(|(d, h)| Scalar::D(d, h)),
    ]
}

/// A non-empty run of values of one type.
fn arb_values() -> impl Strategy<Value = Vec<Scalar>> {
    prop_oneof![
        prop::collection::vec(any::<i64>().prop_map(Scalar::I), 1..4),
        prop::collection::vec(any::<f64>().prop_map(Scalar::F), 1..4),
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..4).prop_map(|d| Scalar::D(d, dtBinary)), 1..4),
    ]
}

fn arb_simple_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (arb_key(), arb_scalar(), any::<bool>()).prop_map(|(key, val, append)| Op::Set { key, val, append }),
        1 => (arb_key(), arb_values()).prop_map(|(key, vals)| Op::SetValues { key, vals }),
        2 => (arb_key(), -1i32..10).prop_map(|(key, ty)| Op::SetEmpty { key, ty }),
        2 => arb_key().prop_map(|key| Op::Delete { key }),
        1 => Just(Op::Clear),
    ]
}

fn arb_error_op() -> impl Strategy<Value = Op> {
    "[a-z][a-z ]{0,7}".prop_map(|msg| Op::SetError { msg })
}

fn arb_ops(with_error: bool) -> BoxedStrategy<Vec<Op>> {
    let src: BoxedStrategy<Op> = if with_error {
        prop_oneof![6 => arb_simple_op(), 1 => arb_error_op()].boxed()
    } else {
        arb_simple_op().boxed()
    };
    let copy = prop::collection::vec(src, 0..8).prop_map(|src| Op::CopyFrom { src });
    let op: BoxedStrategy<Op> = if with_error {
        prop_oneof![12 => arb_simple_op(), 2 => copy, 1 => arb_error_op()].boxed()
    } else {
        prop_oneof![12 => arb_simple_op(), 2 => copy].boxed()
    };
    prop::collection::vec(op, 0..40).boxed()
}

fn is_known_type(ty: i32) -> bool {
    (ptInt..=ptAudioFrame).contains(&ty)
}

/// Applies `op` to both; checks what the call returned.
fn apply(map: &mut Map, model: &mut Model, op: &Op) -> Result<(), TestCaseError> {
    match op {
        Op::Set { key, val, append } => {
            let got = map.set(key, val.value(), *append);
            let want = if !is_valid_key(key) {
                Err(SetError::BadKey)
            } else {
                match model.entries.get_mut(key) {
                    Some(e) if *append && e.ty != val.ty() => Err(SetError::TypeMismatch),
                    Some(e) if *append => {
                        e.vals.push(val.clone());
                        Ok(())
                    }
                    _ => {
                        model.entries.insert(key.clone(), Entry { ty: val.ty(), vals: vec![val.clone()] });
                        Ok(())
                    }
                }
            };
            prop_assert_eq!(got, want, "set {:?} {:?} append {}", key, val, append);
        }
        Op::SetValues { key, vals } => {
            let values = match &vals[0] {
                Scalar::I(_) => {
                    Values::Int(vals.iter().map(|v| if let Scalar::I(i) = v { *i } else { unreachable!() }).collect())
                }
                Scalar::F(_) => {
                    Values::Float(vals.iter().map(|v| if let Scalar::F(f) = v { *f } else { unreachable!() }).collect())
                }
                Scalar::D(..) => Values::Data(
                    vals.iter()
                        .map(|v| if let Scalar::D(d, h) = v { Data::new(d, *h) } else { unreachable!() })
                        .collect(),
                ),
            };
            let got = map.set_values(key, values);
            let want = if is_valid_key(key) {
                model.entries.insert(key.clone(), Entry { ty: vals[0].ty(), vals: vals.clone() });
                Ok(())
            } else {
                Err(SetError::BadKey)
            };
            prop_assert_eq!(got, want, "set_values {:?}", key);
        }
        Op::SetEmpty { key, ty } => {
            let got = map.set_empty(key, *ty);
            let want = if !is_valid_key(key) {
                Err(SetError::BadKey)
            } else if !is_known_type(*ty) {
                Err(SetError::BadType)
            } else if model.entries.contains_key(key) {
                Err(SetError::Exists)
            } else {
                model.entries.insert(key.clone(), Entry { ty: *ty, vals: Vec::new() });
                Ok(())
            };
            prop_assert_eq!(got, want, "set_empty {:?} {}", key, ty);
        }
        Op::Delete { key } => {
            let got = map.delete(key);
            let want = model.entries.remove(key).is_some();
            prop_assert_eq!(got, want, "delete {:?}", key);
        }
        Op::Clear => {
            map.clear();
            *model = Model::default();
        }
        Op::CopyFrom { src } => {
            let mut src_map = Map::new();
            let mut src_model = Model::default();
            for op in src {
                apply(&mut src_map, &mut src_model, op)?;
            }
            prop_assert!(map.copy_from(&src_map).is_ok());
            for (k, e) in src_model.entries {
                model.entries.insert(k, e);
            }
        }
        Op::SetError { msg } => {
            map.set_error(msg);
            model.entries.clear();
            model.entries.insert(
                ERROR_KEY.to_vec(),
                Entry { ty: ptData, vals: vec![Scalar::D(msg.clone().into_bytes(), dtUtf8)] },
            );
            model.error = true;
        }
    }
    Ok(())
}

fn values_as_scalars(v: &Values) -> (i32, Option<Vec<Scalar>>) {
    let scalars = match v {
        Values::Int(a) => Some(a.iter().map(|i| Scalar::I(*i)).collect()),
        Values::Float(a) => Some(a.iter().map(|f| Scalar::F(*f)).collect()),
        Values::Data(a) => Some(a.iter().map(|d| Scalar::D(d.as_bytes().to_vec(), d.hint)).collect()),
        _ => None,
    };
    (v.type_code(), scalars)
}

/// The expected getter error for (key, index, wanted type), R81 order.
fn expected_get(model: &Model, key: &[u8], index: usize, want_ty: i32) -> Result<Scalar, MapError> {
    if model.error {
        return Err(MapError::Error);
    }
    let e = model.entries.get(key).ok_or(MapError::Unset)?;
    if index >= e.vals.len() {
        return Err(MapError::Index);
    }
    if e.ty != want_ty {
        return Err(MapError::Type);
    }
    Ok(e.vals[index].clone())
}

/// Compares everything observable.
fn compare(map: &Map, model: &Model, probe_keys: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let want_keys: Vec<&[u8]> = model.entries.keys().map(|k| k.as_slice()).collect();
    prop_assert_eq!(map.num_keys(), want_keys.len());
    for (i, want) in want_keys.iter().enumerate() {
        prop_assert_eq!(map.key(i).map(|k| k.to_bytes()), Some(*want), "key {}", i);
    }
    prop_assert!(map.key(want_keys.len()).is_none());
    prop_assert_eq!(map.error().map(|e| e.to_bytes().to_vec()), model.error_message());

    if !model.error {
        let got_keys: Vec<&[u8]> = map.keys().map(|k| k.to_bytes()).collect();
        prop_assert_eq!(&got_keys, &want_keys);
        let iter_keys: Vec<&[u8]> = map.iter().map(|(k, _)| k.to_bytes()).collect();
        prop_assert_eq!(&iter_keys, &want_keys);
        for (k, e) in &model.entries {
            let v = map.get(k).map_err(|err| TestCaseError::fail(format!("get {k:?}: {err:?}")))?;
            let (ty, scalars) = values_as_scalars(v);
            prop_assert_eq!(ty, e.ty, "type of {:?}", k);
            prop_assert_eq!(v.len(), e.vals.len(), "count of {:?}", k);
            prop_assert_eq!(v.is_empty(), e.vals.is_empty());
            if let Some(s) = scalars {
                prop_assert!(
                    s.iter().zip(&e.vals).all(|(a, b)| a.same(b)),
                    "values of {:?}: {:?} vs {:?}",
                    k,
                    s,
                    e.vals
                );
            }
            prop_assert!(map.contains(k));
        }
    }

    for key in model.entries.keys().chain(probe_keys) {
        if !model.error {
            if !model.entries.contains_key(key) {
                prop_assert_eq!(map.get(key).err(), Some(MapError::Unset), "get {:?}", key);
            }
        } else {
            prop_assert_eq!(map.get(key).err(), Some(MapError::Error), "get {:?} on a map in error state", key);
        }
        let len = model.entries.get(key).map_or(0, |e| e.vals.len());
        for index in 0..len + 2 {
            let want =
                expected_get(model, key, index, ptInt).map(|s| if let Scalar::I(i) = s { i } else { unreachable!() });
            prop_assert_eq!(map.get_int(key, index), want, "get_int {:?}[{}]", key, index);
            let want = expected_get(model, key, index, ptFloat).map(|s| {
                if let Scalar::F(f) = s {
                    f.to_bits()
                } else {
                    unreachable!()
                }
            });
            prop_assert_eq!(map.get_float(key, index).map(f64::to_bits), want, "get_float {:?}[{}]", key, index);
            let want = expected_get(model, key, index, ptData).map(|s| {
                if let Scalar::D(d, h) = s {
                    (d, h)
                } else {
                    unreachable!()
                }
            });
            prop_assert_eq!(
                map.get_data(key, index).map(|d| (d.as_bytes().to_vec(), d.hint)),
                want,
                "get_data {:?}[{}]",
                key,
                index
            );
            // No node is ever stored; a node array's index is always out of range.
            let want = expected_get(model, key, index, -1).err();
            prop_assert_eq!(map.get_node(key, index).err(), want, "get_node {:?}[{}]", key, index);
        }
    }
    Ok(())
}

fn probe_keys() -> Vec<Vec<u8>> {
    ["a", "b", "A", "_", "a0", "zz", "_Error", ""].iter().map(|k| k.as_bytes().to_vec()).collect()
}

fn run(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut map = Map::new();
    let mut model = Model::default();
    let probes = probe_keys();
    for op in ops {
        apply(&mut map, &mut model, op)?;
        compare(&map, &model, &probes)?;
    }
    // A copy of the map is independent of it.
    let snapshot = model.clone();
    let copy = map.clone();
    map.clear();
    compare(&copy, &snapshot, &probes)?;
    compare(&map, &Model::default(), &probes)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// Everything but the error state.
    #[test]
    fn map_matches_model(ops in arb_ops(false)) {
        run(&ops)?;
    }

    /// With mapSetError in the mix, R81's error state semantics (see the file's comment).
    #[test]
    fn map_with_errors_matches_model(ops in arb_ops(true)) {
        run(&ops)?;
    }

    #[test]
    fn key_validation(key in prop::collection::vec(any::<u8>(), 0..6)) {
        let want = !key.is_empty()
            && (key[0].is_ascii_alphabetic() || key[0] == b'_')
            && key[1..].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
        prop_assert_eq!(is_valid_key(&key), want);
        let mut m = Map::new();
        prop_assert_eq!(m.set(&key, Value::Int(1), false).is_ok(), want);
        prop_assert_eq!(m.num_keys(), usize::from(want));
        prop_assert_eq!(Map::new().set_empty(&key, ptFloat).is_ok(), want);
        prop_assert_eq!(Map::new().set_values(&key, Values::Int(vec![1])).is_ok(), want);
    }
}

#[test]
fn keys_are_in_byte_order() {
    let mut m = Map::new();
    for k in ["b", "B", "_", "a1", "a", "Z9"] {
        m.set(k.as_bytes(), Value::Int(1), false).unwrap();
    }
    let keys: Vec<&[u8]> = m.keys().map(|k| k.to_bytes()).collect();
    assert_eq!(keys, [&b"B"[..], b"Z9", b"_", b"a", b"a1", b"b"]);
}

#[test]
fn getter_errors_in_reference_order() {
    let mut m = Map::new();
    m.set(b"i", Value::Int(1), false).unwrap();
    m.set_empty(b"e", ptInt).unwrap();
    assert_eq!(m.get_float(b"i", 0), Err(MapError::Type));
    assert_eq!(m.get_float(b"i", 1), Err(MapError::Index), "R81 checks the index before the type");
    assert_eq!(m.get_int(b"i", 1), Err(MapError::Index));
    assert_eq!(m.get_float(b"e", 0), Err(MapError::Index));
    assert_eq!(m.get_int(b"nope", 0), Err(MapError::Unset));
    assert_eq!(m.get_int(b"1x", 0), Err(MapError::Unset));
    assert_eq!(m.get_node(b"i", 0).err(), Some(MapError::Type));
}

#[test]
fn appending_another_type_changes_nothing() {
    let mut m = Map::new();
    m.set_empty(b"vn", ptVideoNode).unwrap();
    assert_eq!(m.set(b"vn", Value::Int(1), true), Err(SetError::TypeMismatch));
    assert_eq!(m.get(b"vn").map(|v| (v.type_code(), v.len())), Ok((ptVideoNode, 0)));
    m.set(b"vn", Value::Int(1), false).unwrap();
    assert_eq!(m.get_int(b"vn", 0), Ok(1));
    assert_eq!(m.set_empty(b"vn", ptInt), Err(SetError::Exists));
    assert_eq!(m.set_empty(b"x", ptUnset), Err(SetError::BadType));
    assert_eq!(m.set_empty(b"x", 99), Err(SetError::BadType));
    assert_eq!(m.set_empty(b"1x", 99), Err(SetError::BadKey));
}

#[test]
fn frame_properties_refuse_nodes_and_functions() {
    let mut p = Map::new_frame_props();
    for ty in ptInt..=ptAudioFrame {
        let want = if ty == ptFunction || ty == ptVideoNode || ty == ptAudioNode {
            Err(SetError::NotAllowedInFrameProps)
        } else {
            Ok(())
        };
        assert_eq!(p.set_empty(b"x", ty), want, "type {ty}");
        p.delete(b"x");
    }
    let mut src = Map::new();
    src.set_empty(b"n", ptVideoNode).unwrap();
    assert_eq!(p.copy_from(&src), Err(SetError::NotAllowedInFrameProps));
    assert!(!p.contains(b"n"));
}

#[test]
fn error_state() {
    let mut m = Map::new();
    m.set(b"k", Value::Int(1), false).unwrap();
    m.set_error("boom");
    assert_eq!(m.num_keys(), 1);
    assert_eq!(m.key(0).map(|k| k.to_bytes()), Some(ERROR_KEY));
    assert_eq!(m.error().map(|e| e.to_bytes()), Some(&b"boom"[..]));
    assert_eq!(m.get(b"k").err(), Some(MapError::Error));
    assert_eq!(m.get(b"_Error").err(), Some(MapError::Error));
    assert_eq!(m.get_int(b"nope", 0), Err(MapError::Error));
    m.clear();
    assert_eq!(m.num_keys(), 0);
    assert!(m.error().is_none());
    assert_eq!(m.get_int(b"k", 0), Err(MapError::Unset));
}

#[test]
fn error_state_keeps_later_keys_like_r81() {
    let mut m = Map::new();
    m.set_error("boom");
    m.set(b"A", Value::Int(1), false).unwrap();
    m.set(b"z", Value::Int(5), false).unwrap();
    m.set(b"z", Value::Int(6), true).unwrap();
    let keys: Vec<&[u8]> = (0..m.num_keys()).filter_map(|i| m.key(i)).map(|k| k.to_bytes()).collect();
    assert_eq!(keys, [&b"A"[..], b"_Error", b"z"]);
    assert_eq!(m.get_int(b"z", 0), Err(MapError::Error));
    assert!(m.delete(b"z"));
    assert_eq!(m.num_keys(), 2);
    assert_eq!(m.error().map(|e| e.to_bytes()), Some(&b"boom"[..]));

    // Copying an error map copies `_Error` as data, without the error state.
    let mut dst = Map::new();
    dst.set(b"a", Value::Int(1), false).unwrap();
    let mut src = Map::new();
    src.set_error("src");
    dst.copy_from(&src).unwrap();
    assert!(dst.error().is_none());
    assert_eq!(dst.num_keys(), 2);
    assert_eq!(dst.get_data(b"_Error", 0).map(|d| d.as_bytes().to_vec()), Ok(b"src".to_vec()));
    // Into a map in error state: the message is replaced.
    m.copy_from(&src).unwrap();
    assert_eq!(m.error().map(|e| e.to_bytes()), Some(&b"src"[..]));
}
