//! Structure-aware mutation of the real inputs (specs, litmus tests, saved
//! counterexamples): deterministic, so that a case is named by its seed.

use crate::common::rng::Rng;
use serde_json::Value;

/// Numbers at the edges of every width the inputs use.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "-0",
    "31",
    "32",
    "63",
    "64",
    "65",
    "255",
    "1024",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "0x7FFFFFFF",
    "0xFFFFFFFF",
    "0xFFFFFFFFFFFFFFFF",
    "0x10000000000000000",
    "-0x8000000000000000",
    "0x",
    "0b1",
    "1e309",
    "1.5",
    "00000000000000000000000001",
];

/// Bytes that open or close something, or end a token, in one of the
/// languages.
const PUNCTUATION: &[u8] = b"{}()[];,.:=+-*/%!~&|^<>?\"'\\@#\n\t /";

/// What nesting looks like in the languages: (opener, closer).
const NESTS: &[(&str, &str)] = &[
    ("(", ")"),
    ("{", "}"),
    ("[", "]"),
    ("!", ""),
    ("-", ""),
    ("~", ""),
    ("~(", ")"),
    ("a ? b : ", ""),
    ("if (x) { ", "}"),
    ("while (1) { ", "}"),
    ("/*", "*/"),
    ("\"", "\""),
];

/// Long chains: (term, operator).
const CHAINS: &[(&str, &str)] = &[
    ("x", "+"),
    ("1", " * "),
    ("a", " && "),
    ("a", " || "),
    ("x", " << "),
    ("x", " ? x : "),
    ("P0:r0 == 0", " /\\ "),
    ("P1:r1 == 1", " \\/ "),
    ("st.weak x, 1", " | "),
    ("x = 1", "; "),
    ("f()", "; "),
    ("//! note: x", "\n"),
    ("__syncthreads()", ";\n"),
    ("0", ", "),
];

/// Sequences that are not UTF-8: a lone continuation byte, a truncated
/// sequence, an overlong encoding, a surrogate, bytes never used.
const NOT_UTF8: &[&[u8]] = &[
    b"\x80",
    b"\xc3",
    b"\xe2\x82",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xff",
    b"\xf8\x88\x80\x80\x80",
];

/// Mutates `base` with 1 to 4 edits, borrowing tokens from `donors` (the
/// other files of the corpus); the result is at most `max_len` bytes.
pub fn mutate_bytes(rng: &mut Rng, base: &[u8], donors: &[&[u8]], max_len: usize) -> Vec<u8> {
    let mut out = base.to_vec();
    for _ in 0..rng.size(4) {
        edit(rng, &mut out, donors);
        out.truncate(max_len);
    }
    out
}

/// A random position in `text` (`0..=len`).
fn at(rng: &mut Rng, text: &[u8]) -> usize {
    rng.below(text.len() + 1)
}

/// A random range of at most `max` bytes in `text`.
fn range(rng: &mut Rng, text: &[u8], max: usize) -> std::ops::Range<usize> {
    let start = at(rng, text);
    let end = (start + rng.size(max)).min(text.len());
    start..end
}

/// The token-ish piece of `text` around a random position: from one
/// white-space byte to another, or a whole line.
fn token<'a>(rng: &mut Rng, text: &'a [u8]) -> &'a [u8] {
    if text.is_empty() {
        return text;
    }
    let stop: &[u8] = if rng.one_in(3) { b"\n" } else { b" \t\n" };
    let i = rng.below(text.len());
    let start = text[..i]
        .iter()
        .rposition(|b| stop.contains(b))
        .map_or(0, |p| p + 1);
    let end = text[i..]
        .iter()
        .position(|b| stop.contains(b))
        .map_or(text.len(), |p| i + p);
    &text[start..end]
}

/// Text made of up to `max_tokens` tokens of `donors`, punctuation and
/// random bytes: mostly nonsense in the inputs' own words.
pub fn token_soup(rng: &mut Rng, donors: &[&[u8]], max_tokens: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..rng.size(max_tokens) {
        match rng.below(4) {
            0 => out.push(*rng.pick(PUNCTUATION)),
            1 => out.push(rng.next_u64() as u8),
            _ => {
                let donor = *rng.pick(donors);
                out.extend_from_slice(token(rng, donor));
                out.push(b' ');
            }
        }
    }
    out
}

fn edit(rng: &mut Rng, text: &mut Vec<u8>, donors: &[&[u8]]) {
    match rng.below(14) {
        // A flipped bit.
        0 if !text.is_empty() => {
            let i = rng.below(text.len());
            text[i] ^= 1 << rng.below(8);
        }
        // A byte replaced by punctuation, inserted, or removed.
        1 if !text.is_empty() => {
            let i = rng.below(text.len());
            text[i] = *rng.pick(PUNCTUATION);
        }
        2 => {
            let i = at(rng, text);
            text.insert(i, *rng.pick(PUNCTUATION));
        }
        3 => {
            let r = range(rng, text, 64);
            text.drain(r);
        }
        // A piece repeated, once or many times (a line 500 times).
        4 => {
            let piece = token(rng, text).to_vec();
            let i = at(rng, text);
            let times = rng.size(500);
            splice(text, i..i, &piece.repeat(times));
        }
        // A token of another file put in place of one here, or inserted.
        5 | 6 if !donors.is_empty() => {
            let donor = *rng.pick(donors);
            let piece = token(rng, donor).to_vec();
            let r = if rng.one_in(2) {
                let i = at(rng, text);
                i..i
            } else {
                range(rng, text, 32)
            };
            splice(text, r, &piece);
        }
        // Truncated.
        7 => {
            let i = at(rng, text);
            text.truncate(i);
        }
        // Nested deep.
        8 => {
            let (open, close) = *rng.pick(NESTS);
            let depth = rng.size(3000);
            let i = at(rng, text);
            let j = i + rng.below(text.len() - i + 1);
            splice(text, j..j, close.repeat(depth).as_bytes());
            splice(text, i..i, open.repeat(depth).as_bytes());
        }
        // A number replaced by one at an edge.
        9 => {
            let number = rng.pick(NUMBERS).as_bytes();
            match digits_at(rng, text) {
                Some(r) => splice(text, r, number),
                None => {
                    let i = at(rng, text);
                    splice(text, i..i, number);
                }
            }
        }
        // A long chain.
        10 => {
            let (term, op) = *rng.pick(CHAINS);
            let n = rng.size(5000);
            let chain = vec![term; n].join(op);
            let r = range(rng, text, 8);
            splice(text, r, chain.as_bytes());
        }
        // Bytes that are not UTF-8.
        11 => {
            let i = at(rng, text);
            let bytes = *rng.pick::<&[u8]>(NOT_UTF8);
            splice(text, i..i, bytes);
        }
        // Two lines swapped.
        12 => {
            let mut lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
            let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
            lines.swap(a, b);
            *text = lines.join(&b'\n');
        }
        // Random bytes.
        _ => {
            let i = at(rng, text);
            let bytes: Vec<u8> = (0..rng.size(16)).map(|_| rng.next_u64() as u8).collect();
            splice(text, i..i, &bytes);
        }
    }
}

fn splice(text: &mut Vec<u8>, r: std::ops::Range<usize>, with: &[u8]) {
    text.splice(r, with.iter().copied());
}

/// A run of digits in `text`, found from a random position on.
fn digits_at(rng: &mut Rng, text: &[u8]) -> Option<std::ops::Range<usize>> {
    let from = at(rng, text);
    let start = from + text[from..].iter().position(u8::is_ascii_digit)?;
    let len = text[start..]
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .unwrap_or(text.len() - start);
    Some(start..start + len)
}

/// Every node of `v` as a JSON pointer (`/violation/trace/schedule/3`).
fn pointers(v: &Value, at: &str, out: &mut Vec<String>) {
    out.push(at.to_string());
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                pointers(
                    child,
                    &format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                pointers(child, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The fields replay acts on, mutated more often than the rest.
const HOT: &[&str] = &[
    "/spec",
    "/source",
    "/spec_hash",
    "/config/blocks",
    "/config/threads_per_block",
    "/config/warp_size",
    "/config/memory_model",
    "/config/simt",
    "/config/branch_order",
    "/config/lock_bits",
    "/config/params",
    "/config/scheduler",
    "/config/resident",
    "/violation/kind",
    "/violation/trace/schedule",
    "/violation/trace/cycle_schedule",
    "/violation/trace/steps",
];

/// A value of the same JSON type as `node`, so that the file still reads
/// as a counterexample more often and replay itself is reached.
fn same_kind(rng: &mut Rng, node: &Value) -> Value {
    match node {
        Value::Bool(b) => Value::Bool(!b),
        Value::Number(_) => Value::from(*rng.pick(&[0u64, 1, 2, 3, 4, 7, 32, 33, 64, 1024, 1025])),
        Value::String(_) => Value::from(*rng.pick(STRINGS)),
        // A schedule of a few thread ids, or another list of the same items.
        Value::Array(items) => match items.first() {
            Some(Value::Number(_)) | None => Value::Array(
                (0..rng.size(64))
                    .map(|_| Value::from(rng.below(5) as u64))
                    .collect(),
            ),
            Some(first) => Value::Array(vec![first.clone(); rng.size(8)]),
        },
        _ => replacement(rng),
    }
}

const STRINGS: &[&str] = &[
    "",
    "sc",
    "ptx",
    "its",
    "lockstep",
    "else-first",
    "weak",
    "strong",
    "obe",
    "hsa",
    "deadlock",
    "fair",
    "lobe",
    "hsa-obe",
    "unfair",
    "blocks=obe,threads=fair",
    "blocks=obe,threads=strong",
    "livelock",
    "starvation",
    "mutual_exclusion",
    "builtin:spin_lock",
    "builtin:",
    "builtin:no_such_spec",
    "../specs/spin_lock.gsync",
    "../specs",
    "no_such_file.gsync",
    "fnv1a64:0000000000000000",
];

/// Values a field can be given in place of its own.
fn replacement(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => Value::from(*rng.pick(&[0u64, 1, 2, 3, 31, 32, 33, 64, 1024, 1025])),
        3 => Value::from(*rng.pick(&[u64::from(u32::MAX), u64::MAX, 1 << 32, 1 << 53])),
        4 => Value::from(*rng.pick(&[-1i64, i64::MIN, -(1 << 31)])),
        5 => Value::from(*rng.pick(&[0.5f64, 1e300, -0.0])),
        6 => Value::from(*rng.pick(STRINGS)),
        7 => Value::from("x".repeat(rng.size(10_000))),
        8 => Value::Array(vec![]),
        9 => Value::Object(Default::default()),
        10 => Value::Array(
            (0..rng.size(64))
                .map(|_| Value::from(rng.below(8) as u64))
                .collect(),
        ),
        _ => Value::Array(vec![Value::from(rng.next_u64()); rng.size(1000)]),
    }
}

/// Mutates a saved counterexample as JSON: fields removed, retyped, set
/// to extreme values, swapped with the same field of another
/// counterexample (`donors`) or with a sibling, arrays cut, grown,
/// shuffled. 1 to 4 edits.
pub fn mutate_json(rng: &mut Rng, value: &mut Value, donors: &[Value]) {
    for _ in 0..rng.size(4) {
        let mut all = Vec::new();
        pointers(value, "", &mut all);
        let pointer = if rng.one_in(2) {
            rng.pick(HOT).to_string()
        } else {
            rng.pick(&all).clone()
        };
        json_edit(rng, value, &pointer, donors);
    }
}

fn json_edit(rng: &mut Rng, value: &mut Value, pointer: &str, donors: &[Value]) {
    let donor = rng.pick(donors).pointer(pointer).cloned();
    let (parent, key) = pointer.rsplit_once('/').unwrap_or(("", ""));
    let Some(node) = value.pointer_mut(pointer) else {
        return;
    };
    match rng.below(9) {
        0 => *node = replacement(rng),
        6..=8 => *node = same_kind(rng, node),
        1 => {
            if let Some(d) = donor {
                *node = d;
            }
        }
        2 => match node {
            Value::Array(items) if !items.is_empty() => match rng.below(4) {
                0 => items.truncate(rng.below(items.len())),
                1 => {
                    let i = rng.below(items.len());
                    let copy = items[i].clone();
                    items.extend(std::iter::repeat_n(copy, rng.size(200)));
                }
                2 => items.reverse(),
                _ => {
                    let (a, b) = (rng.below(items.len()), rng.below(items.len()));
                    items.swap(a, b);
                }
            },
            Value::Number(n) => {
                let v = n.as_i64().unwrap_or(0);
                *node = Value::from(v.wrapping_add(*rng.pick(&[-1i64, 1, 2, 7, 1 << 20])));
            }
            _ => *node = replacement(rng),
        },
        3 => {
            // Swapped with a sibling field.
            let Some(Value::Object(map)) = value.pointer_mut(parent) else {
                return;
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            if keys.is_empty() {
                return;
            }
            let other = rng.pick(&keys).clone();
            let key = key.replace("~1", "/").replace("~0", "~");
            if let (Some(a), Some(b)) = (map.get(&key).cloned(), map.get(&other).cloned()) {
                map.insert(key, b);
                map.insert(other, a);
            }
        }
        4 => {
            // Removed.
            let key = key.replace("~1", "/").replace("~0", "~");
            match value.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.remove(&key);
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = key.parse::<usize>() {
                        if i < items.len() {
                            items.remove(i);
                        }
                    }
                }
                _ => {}
            }
        }
        _ => {
            // Nested deep: the value wrapped in arrays or objects.
            let depth = rng.size(200);
            let mut v = node.take();
            for _ in 0..depth {
                v = if rng.one_in(2) {
                    Value::Array(vec![v])
                } else {
                    serde_json::json!({ "x": v })
                };
            }
            *node = v;
        }
    }
}
