//! The layering that ARCHITECTURE.md states, enforced: the library's
//! top-level modules import only the layers below them, and at every level
//! of the module tree the sibling modules import each other without a
//! circle (a parent and its own children may use each other's items).
//!
//! Imports are read from the source text: every `crate::`, `super::` and
//! `self::` path, in `use` trees and inline, outside comments, strings and
//! `#[cfg(test)]` items (tests may reach anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library's top-level modules, lowest first: a module may import
/// only those of a lower rank (`clock`, the located diagnostics, `rng` and the
/// generic explorer know nothing of GPUs; the IR owns its vocabulary; the
/// front ends lower into it, the model and the CUDA backend read it; the
/// model implements the explorer's trait; the reductions are a layer over
/// the model; the checker sees both; outputs and the entry point come
/// after; the tools built on the entry point, and the command line over
/// all of them, last).
const LAYERS: &[(&str, u32)] = &[
    ("clock", 0),
    ("diag", 0),
    ("rng", 0),
    ("explore", 1),
    ("ir", 2),
    ("spec", 3),
    ("llvm", 3),
    ("cuda", 3),
    ("model", 3),
    ("clang_front", 4),
    ("reduce", 4),
    ("check", 5),
    ("report", 6),
    ("trace", 7),
    ("format", 8),
    ("api", 9),
    ("bench_checker", 10),
    ("dist", 10),
    ("gpu", 10),
    ("litmus", 10),
    ("tune", 10),
    ("cli", 11),
];

type ModPath = Vec<String>;

/// One import: the module that names a path, the module it resolves to,
/// and the path as written.
struct Import {
    from: ModPath,
    to: ModPath,
    path: String,
}

fn module_files(root: &Path) -> BTreeMap<ModPath, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().with_extension("");
            let mut parts: ModPath = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            out.insert(parts, path);
        }
    }
    out
}

/// The text with comments and string and char literals blanked out.
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b[i..].starts_with(b"r\"") || b[i..].starts_with(b"r#")) {
            // A raw string: r"..." or r#"..."#.
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && is_char_literal(&b[i..]) {
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Whether `'` starts a char literal rather than a lifetime.
fn is_char_literal(b: &[u8]) -> bool {
    match b.get(1) {
        Some(b'\\') => true,
        Some(_) => b.get(2) == Some(&b'\''),
        None => false,
    }
}

/// The text without `#[cfg(test)]` items (a `mod tests;` line or a block).
fn without_tests(src: &str) -> String {
    let mut s = src.to_string();
    while let Some(i) = s.find("#[cfg(test)]") {
        let rest = &s[i..];
        let (semi, brace) = (rest.find(';'), rest.find('{'));
        let end = match (semi, brace) {
            (Some(k), b) if b.is_none_or(|b| k < b) => i + k + 1,
            (_, Some(b)) => {
                let mut depth = 0;
                let mut end = s.len();
                for (k, c) in s[i + b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = i + b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            _ => s.len(),
        };
        s.replace_range(i..end, "");
    }
    s
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of a `use` tree (`a::{b, c::{d}}` gives `a::b`, `a::c::d`).
fn expand_tree(tree: &str, out: &mut Vec<String>) {
    // One space between words (`e as f`), none around the punctuation.
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut tree = words.join(" ");
    for p in ["{", "}", ",", "::"] {
        tree = tree
            .replace(&format!(" {p}"), p)
            .replace(&format!("{p} "), p);
    }
    fn rec(prefix: &str, t: &str, out: &mut Vec<String>) {
        let Some(open) = t.find('{') else {
            let t = t.split(" as ").next().unwrap_or(t).trim();
            out.push(format!("{prefix}{t}"));
            return;
        };
        let head = &t[..open];
        let body = &t[open + 1..t.rfind('}').unwrap_or(t.len())];
        let (mut depth, mut start) = (0, 0);
        for (k, c) in body.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    rec(&format!("{prefix}{head}"), &body[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        if start < body.len() {
            rec(&format!("{prefix}{head}"), &body[start..], out);
        }
    }
    rec("", &tree, out);
}

/// Every `crate::`, `super::` or `self::` path in the text.
fn paths(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(k) = rest.find("use ") {
        let before = rest[..k].chars().next_back();
        let tail = &rest[k + 4..];
        rest = tail;
        if before.is_some_and(is_ident) {
            continue;
        }
        let tree = tail.trim_start();
        if ["crate::", "super::", "self::"]
            .iter()
            .any(|p| tree.starts_with(p))
        {
            if let Some(end) = tree.find(';') {
                expand_tree(&tree[..end], &mut out);
            }
        }
    }
    for root in ["crate::", "super::", "self::"] {
        let mut at = 0;
        while let Some(k) = src[at..].find(root) {
            let start = at + k;
            at = start + root.len();
            if src[..start]
                .chars()
                .next_back()
                .is_some_and(|c| is_ident(c) || c == ':')
            {
                continue;
            }
            let end = src[start..]
                .find(|c: char| !(is_ident(c) || c == ':'))
                .map_or(src.len(), |e| start + e);
            out.push(src[start..end].trim_end_matches(':').to_string());
        }
    }
    out
}

/// The module a path names (its longest prefix that is a module), seen
/// from module `from`.
fn resolve(modules: &BTreeMap<ModPath, PathBuf>, from: &ModPath, path: &str) -> Option<ModPath> {
    let mut segs = path.split("::").filter(|s| !s.is_empty()).peekable();
    let mut at: ModPath = match segs.peek().copied() {
        Some("crate") => {
            segs.next();
            Vec::new()
        }
        Some("super" | "self") => from.clone(),
        _ => return None,
    };
    while let Some(&s) = segs.peek() {
        match s {
            "super" => {
                at.pop();
            }
            "self" => {}
            _ => break,
        }
        segs.next();
    }
    for s in segs {
        let mut next = at.clone();
        next.push(s.to_string());
        if !modules.contains_key(&next) {
            break;
        }
        at = next;
    }
    Some(at)
}

fn imports() -> Vec<Import> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = module_files(&root);
    let mut out = Vec::new();
    for (module, file) in &modules {
        // The binary's main and tests are not the library's layers.
        if module.first().is_some_and(|m| m == "main")
            || module.iter().any(|m| m == "tests" || m.ends_with("_tests"))
        {
            continue;
        }
        let src = without_tests(&strip(&std::fs::read_to_string(file).unwrap()));
        for path in paths(&src) {
            if let Some(to) = resolve(&modules, module, &path) {
                if &to != module {
                    out.push(Import {
                        from: module.clone(),
                        to,
                        path,
                    });
                }
            }
        }
    }
    out
}

/// The sibling modules an import connects: the children of the two
/// modules' deepest common ancestor, or `None` where one contains the other.
fn sibling_edge(i: &Import) -> Option<(ModPath, String, String)> {
    let common = i.from.iter().zip(&i.to).take_while(|(a, b)| a == b).count();
    if common == i.from.len() || common == i.to.len() {
        return None;
    }
    Some((
        i.from[..common].to_vec(),
        i.from[common].clone(),
        i.to[common].clone(),
    ))
}

/// Tarjan's strongly connected components of more than one node.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    let lw = self.low[w.as_str()];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(&w.as_str()) {
                    let iw = self.index[w.as_str()];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    scc.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.found.push(scc);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.found
}

#[test]
fn sibling_modules_import_each_other_without_a_circle() {
    let imports = imports();
    let mut graphs: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut witness: BTreeMap<(ModPath, String, String), String> = BTreeMap::new();
    for i in &imports {
        if let Some((parent, a, b)) = sibling_edge(i) {
            graphs
                .entry(parent.clone())
                .or_default()
                .entry(a.clone())
                .or_default()
                .insert(b.clone());
            witness
                .entry((parent, a, b))
                .or_insert_with(|| format!("{} uses {}", i.from.join("::"), i.path));
        }
    }
    let mut report = Vec::new();
    for (parent, graph) in &graphs {
        for scc in circles(graph) {
            let name = if parent.is_empty() {
                "crate".to_string()
            } else {
                parent.join("::")
            };
            report.push(format!(
                "in {name}: {} import each other in a circle",
                scc.join(", ")
            ));
            for a in &scc {
                for b in graph[a].iter().filter(|b| scc.contains(b)) {
                    report.push(format!(
                        "    {a} -> {b}: {}",
                        witness[&(parent.clone(), a.clone(), b.clone())]
                    ));
                }
            }
        }
    }
    assert!(report.is_empty(), "import circles:\n{}", report.join("\n"));
}

/// Fails with `heading` and each of `wrong` on a line, unless it is empty.
fn assert_none(heading: &str, wrong: BTreeSet<String>) {
    let lines: Vec<String> = wrong.into_iter().collect();
    assert!(lines.is_empty(), "{heading}:\n{}", lines.join("\n"));
}

#[test]
fn top_level_modules_import_only_lower_layers() {
    let rank: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let mut wrong = BTreeSet::new();
    for i in imports() {
        let (Some(a), Some(b)) = (i.from.first(), i.to.first()) else {
            continue;
        };
        if a == b {
            continue;
        }
        let (Some(&ra), Some(&rb)) = (rank.get(a.as_str()), rank.get(b.as_str())) else {
            wrong.insert(format!(
                "{a} or {b} has no layer in LAYERS (tests/architecture.rs)"
            ));
            continue;
        };
        if rb >= ra {
            wrong.insert(format!(
                "{a} (layer {ra}) imports {b} (layer {rb}): {} uses {}",
                i.from.join("::"),
                i.path
            ));
        }
    }
    assert_none("imports against the layers", wrong);
}

/// The front ends, which build or read a syntax tree: `spec` (its parser
/// and its lowering into the IR), `clang_front` (CUDA read with libclang
/// into the spec's AST) and `llvm` (LLVM IR lowered into the IR).
const FRONT_ENDS: &[&str] = &["spec", "clang_front", "llvm"];

/// The IR owns its types: below the front ends nothing reads the spec's
/// syntax tree (`spec::ast`); the IR, the model, the reductions, the
/// checker, the outputs and the backends name value types, storage,
/// operators, orders and scopes from `ir`, and spans from `diag`. Only the
/// front ends and, from the library's entry point (`api`) up, the tools
/// that parse a spec and read its header may.
#[test]
fn only_the_front_ends_and_their_drivers_read_the_spec_ast() {
    let rank: BTreeMap<&str, u32> = LAYERS.iter().copied().collect();
    let api = rank["api"];
    let mut wrong = BTreeSet::new();
    for i in imports() {
        if i.to.len() < 2 || i.to[0] != "spec" || i.to[1] != "ast" {
            continue;
        }
        let from = i.from[0].as_str();
        if FRONT_ENDS.contains(&from) || rank.get(from).is_some_and(|&r| r >= api) {
            continue;
        }
        wrong.insert(format!(
            "{} uses {} (take it from `ir` or `diag`)",
            i.from.join("::"),
            i.path
        ));
    }
    assert_none("the spec's AST read below the front ends", wrong);
}

#[test]
fn every_top_level_module_has_a_layer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let rank: BTreeSet<&str> = LAYERS.iter().map(|(m, _)| *m).collect();
    let missing: Vec<String> = module_files(&root)
        .into_keys()
        .filter(|m| m.len() == 1 && m[0] != "main")
        .map(|m| m[0].clone())
        .filter(|m| !rank.contains(m.as_str()) && !m.is_empty())
        .collect();
    assert!(missing.is_empty(), "modules without a layer: {missing:?}");
}

/// The checks above must see real imports: a reader that found none would
/// pass them all.
#[test]
fn the_import_reader_finds_known_imports() {
    let imports = imports();
    let has = |from: &str, to: &str| {
        imports
            .iter()
            .any(|i| i.from.join("::") == from && i.to.join("::") == to)
    };
    assert!(has("reduce", "model"), "reduce uses the model");
    assert!(has("model::memory", "ir"), "the memory model reads the IR");
    assert!(has("check::memory_fairness", "check::label"));
    assert!(has("spec::lower", "spec::ast"), "lowering reads the AST");
    assert!(has("api::prepare", "spec::ast"), "api reads the AST");
    let mut tree = Vec::new();
    expand_tree("crate::a::{b, c::{d, e as f}, g}", &mut tree);
    assert_eq!(
        tree,
        [
            "crate::a::b",
            "crate::a::c::d",
            "crate::a::c::e",
            "crate::a::g"
        ]
    );
    assert_eq!(
        without_tests("a\n#[cfg(test)]\nmod tests { use x; { } }\nb"),
        "a\n\nb"
    );
    assert_eq!(
        strip("x // crate::y\n\"crate::z\" 'c' 'a"),
        "x \n\"\" ' ' 'a"
    );
}
