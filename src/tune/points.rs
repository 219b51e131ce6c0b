//! The points of a spec's text that carry an order or a scope (every
//! atomic, `load`, `store` and fence, and the `volatile` of a
//! declaration), and, for `repair`, the places a fence may be inserted.
//! A point spells any level it can take as an edit of the original text.

use super::level::{Class, Level};
use super::walk::{CallSite, Walk};
use crate::ir::{order_name, scope_name};
use crate::ir::{Order, Scope};
use crate::spec::ast::{Item, SpecFile, Storage};
use crate::spec::lower::builtins::{classify_call, CallKind};
use std::ops::Range;

/// One place of the text whose strength can change.
#[derive(Clone, Debug)]
pub(super) struct Point {
    pub class: Class,
    /// Its strength as written (an inserted fence: absent).
    pub original: Level,
    /// The text it is in: 0 the spec, k the spec's k-th imported CUDA file.
    pub doc: usize,
    /// 1-based line and column in that text, for messages.
    pub line: u32,
    pub column: u32,
    site: Site,
}

#[derive(Clone, Debug)]
enum Site {
    /// A callee with its suffixes (`atomicCAS_block`, `load.acquire.gpu`),
    /// and for a fence statement the text that removing it deletes.
    Callee {
        span: Range<usize>,
        base: String,
        removal: Option<Range<usize>>,
    },
    /// The `volatile ` of a declaration, or where it would go.
    Keyword { at: usize, len: usize },
    /// A fence that `repair` may insert: at `at`, on a line of its own
    /// with this indentation, or inline; spelt in CUDA where `cuda`.
    Insert {
        at: usize,
        indent: Option<String>,
        cuda: bool,
    },
    /// A CUDA atomic function's name (`atomicAdd_block`): only its scope
    /// suffix can change (CUDA's atomic functions are all relaxed).
    CudaAtomic { span: Range<usize>, base: String },
    /// A CUDA `__threadfence*()` call; `removal` (where the call is a
    /// statement of its own) is what removing it deletes, and only then
    /// can it become an `asm` statement (an acq_rel fence).
    CudaFence {
        call: Range<usize>,
        stmt: Option<Range<usize>>,
        removal: Option<Range<usize>>,
    },
    /// The name of a libcu++ `memory_order_*` enumerator (its qualifier,
    /// `cuda::` or `cuda::std::`, stays as written).
    CppOrder { span: Range<usize> },
}

/// An edit of the original text: replace `range` by `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

impl Point {
    /// Whether the point can be written at `level` (a fence that is not a
    /// statement of its own cannot be removed).
    pub(super) fn allows(&self, level: Level) -> bool {
        match &self.site {
            Site::Callee { removal, .. } => level.order.is_some() || removal.is_some(),
            Site::Keyword { .. } | Site::Insert { .. } => true,
            Site::CudaAtomic { .. } => level.order == Some(Order::Relaxed),
            Site::CudaFence { removal, .. } => level.order == Some(Order::Sc) || removal.is_some(),
            Site::CppOrder { .. } => level.order.is_some(),
        }
    }

    /// The strongest level the point can take: where `repair` starts.
    pub(super) fn top(&self) -> Level {
        match &self.site {
            Site::CudaAtomic { .. } => Level::new(Order::Relaxed, Scope::Sys),
            _ => super::level::top(self.class),
        }
    }

    /// The edit that writes the point at `level`; none at its original level.
    pub(super) fn edit(&self, level: Level) -> Option<Edit> {
        if level == self.original {
            return None;
        }
        Some(match &self.site {
            Site::Callee {
                span,
                base,
                removal,
            } => match (level.order, removal) {
                (None, Some(r)) => Edit {
                    range: r.clone(),
                    text: String::new(),
                },
                _ => Edit {
                    range: span.clone(),
                    text: spell(self.class, base, level),
                },
            },
            Site::Keyword { at, len } => match level.order {
                None => Edit {
                    range: *at..*at + *len,
                    text: String::new(),
                },
                Some(_) => Edit {
                    range: *at..*at,
                    text: "volatile ".into(),
                },
            },
            Site::Insert { at, indent, cuda } => {
                let fence = match cuda {
                    true => cuda_fence(level),
                    false => format!("{}();", spell(Class::Fence, "fence", level)),
                };
                Edit {
                    range: *at..*at,
                    text: match indent {
                        Some(indent) => format!("{indent}{fence}\n"),
                        None => format!("{fence} "),
                    },
                }
            }
            Site::CppOrder { span } => Edit {
                range: span.clone(),
                text: cpp_order(level),
            },
            Site::CudaAtomic { span, base } => Edit {
                range: span.clone(),
                text: spell(Class::Atomic, base, level),
            },
            Site::CudaFence {
                call,
                stmt,
                removal,
            } => match (level.order, removal) {
                (None, Some(r)) => Edit {
                    range: r.clone(),
                    text: String::new(),
                },
                (Some(Order::Sc), _) => Edit {
                    range: call.clone(),
                    text: cuda_fence(level).trim_end_matches(';').to_string(),
                },
                // An `asm` statement replaces the whole statement.
                _ => Edit {
                    range: stmt.clone().unwrap_or(call.clone()),
                    text: cuda_fence(level),
                },
            },
        })
    }

    /// How the point reads at `level`, for messages.
    pub(super) fn describe(&self, level: Level) -> String {
        match (&self.site, level.order) {
            (Site::Keyword { .. }, Some(_)) => "volatile".into(),
            (Site::Keyword { .. }, None) => "not volatile".into(),
            (_, None) => "no fence".into(),
            (Site::Callee { base, .. }, _) => format!("{}()", spell(self.class, base, level)),
            (Site::Insert { cuda: false, .. }, _) => {
                format!("{}()", spell(Class::Fence, "fence", level))
            }
            (Site::Insert { cuda: true, .. } | Site::CudaFence { .. }, _) => {
                cuda_fence(level).trim_end_matches(';').to_string()
            }
            (Site::CudaAtomic { base, .. }, _) => format!("{}()", spell(self.class, base, level)),
            (Site::CppOrder { .. }, _) => cpp_order(level),
        }
    }
}

/// A libcu++ order, as its enumerator is named.
fn cpp_order(level: Level) -> String {
    let name = match level.order {
        Some(Order::Sc) => "seq_cst",
        Some(Order::AcqRel) => "acq_rel",
        Some(Order::Acquire) => "acquire",
        Some(Order::Release) => "release",
        _ => "relaxed",
    };
    format!("memory_order_{name}")
}

/// A fence statement in CUDA: `__threadfence*();` for an SC fence, an
/// inline PTX `fence.acq_rel` for the weaker one (CUDA has no function
/// for it without libcu++'s header).
fn cuda_fence(level: Level) -> String {
    let scope = level.scope.unwrap_or(Scope::Gpu);
    match level.order {
        Some(Order::Sc) => format!("{}();", spell(Class::Fence, "", level)),
        _ => format!(
            "asm volatile(\"fence.acq_rel.{};\" ::: \"memory\");",
            scope_name(scope)
        ),
    }
}

/// A level spelt as a callee: CUDA's spelling where it has one
/// (`atomicAdd_block`, `__threadfence()`), PTX's dotted one otherwise.
fn spell(class: Class, base: &str, level: Level) -> String {
    let scope = level.scope.unwrap_or(Scope::Gpu);
    match (class, level.order) {
        (Class::Atomic, Some(Order::Relaxed)) => format!(
            "{base}{}",
            match scope {
                Scope::Cta => "_block",
                Scope::Gpu => "",
                Scope::Sys => "_system",
            }
        ),
        (Class::Fence, Some(Order::Sc)) => format!(
            "__threadfence{}",
            match scope {
                Scope::Cta => "_block",
                Scope::Gpu => "",
                Scope::Sys => "_system",
            }
        ),
        (Class::Fence, _) => format!("fence.acq_rel.{}", scope_name(scope)),
        (_, Some(Order::Weak) | None) => base.to_string(),
        (_, Some(o)) => format!("{base}.{}.{}", order_name(o), scope_name(scope)),
    }
}

/// The points of a parsed spec, in source order; with `insertions`, also
/// a fence point before every statement and at the end of every block.
pub(super) fn points(text: &str, file: &SpecFile, insertions: bool) -> Vec<Point> {
    let lines = LineIndex::new(text);
    let walk = Walk::of(file);
    let mut out: Vec<Point> = walk
        .calls
        .iter()
        .filter_map(|c| call_point(text, c))
        .chain(volatile_points(text, file, insertions))
        .map(|(class, original, at, site)| {
            let (line, column) = lines.locate(at);
            Point {
                class,
                original,
                doc: 0,
                line,
                column,
                site,
            }
        })
        .collect();
    if insertions {
        out.extend(insertion_points(text, &walk, &lines));
    }
    out.sort_by_key(|p| (p.line, p.column));
    out
}

type Found = (Class, Level, usize, Site);

fn call_point(text: &str, c: &CallSite) -> Option<Found> {
    let (class, mo) = match classify_call(c.name, c.qualifiers).ok()? {
        CallKind::Atomic(_, mo) => (Class::Atomic, mo),
        CallKind::Load(mo) => (Class::Load, mo),
        CallKind::Store(mo) => (Class::Store, mo),
        CallKind::Fence(mo) => (Class::Fence, mo),
        _ => return None,
    };
    // A volatile access is relaxed at system scope (PTX).
    let original = match mo.order {
        Order::Volatile => Level::new(Order::Relaxed, Scope::Sys),
        o => Level::new(o, mo.scope),
    };
    let start = c.name.span.start as usize;
    let end = c.qualifiers.last().unwrap_or(c.name).span.end as usize;
    let base = c.name.name.split('.').next().unwrap_or("");
    let base = base
        .strip_suffix("_block")
        .or_else(|| base.strip_suffix("_system"))
        .unwrap_or(base);
    let removal = c
        .stmt
        .filter(|_| class == Class::Fence)
        .map(|s| removal(text, s.start as usize..s.end as usize));
    let site = Site::Callee {
        span: start..end,
        base: base.to_string(),
        removal,
    };
    Some((class, original, start, site))
}

/// What deleting a statement deletes: its whole line (with a comment
/// after it) where it stands alone, else the statement and the spaces after it.
fn removal(text: &str, stmt: Range<usize>) -> Range<usize> {
    let line_start = text[..stmt.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[stmt.end..]
        .find('\n')
        .map_or(text.len(), |i| stmt.end + i);
    let rest = text[stmt.end..line_end].trim_start();
    let alone = text[line_start..stmt.start].trim().is_empty()
        && (rest.is_empty() || rest.starts_with("//"));
    if alone {
        line_start..(line_end + 1).min(text.len())
    } else {
        let spaces = text[stmt.end..line_end].len() - text[stmt.end..line_end].trim_start().len();
        stmt.start..stmt.end + spaces
    }
}

/// The `volatile` of each global or shared declaration that has one, and
/// (for `repair`) where it would go in each that has not.
fn volatile_points<'a>(
    text: &'a str,
    file: &'a SpecFile,
    insertions: bool,
) -> impl Iterator<Item = Found> + 'a {
    file.items.iter().filter_map(move |item| {
        let Item::Var(v) = item else { return None };
        if v.storage == Storage::Local || !(v.volatile || insertions) {
            return None;
        }
        let decl = &text[v.span.start as usize..v.span.end as usize];
        let storage_end = decl.find(char::is_whitespace)?;
        let at = v.span.start as usize + storage_end + decl[storage_end..].len()
            - decl[storage_end..].trim_start().len();
        let (original, len) = match v.volatile {
            true => {
                let after = &text[at + "volatile".len()..];
                let spaces = after.len() - after.trim_start().len();
                (top_volatile(), "volatile".len() + spaces)
            }
            false => (Level::ABSENT, 0),
        };
        Some((Class::Volatile, original, at, Site::Keyword { at, len }))
    })
}

fn top_volatile() -> Level {
    super::level::top(Class::Volatile)
}

/// A fence point before every statement that is not itself a fence, and
/// at the end of every block.
fn insertion_points(text: &str, walk: &Walk, lines: &LineIndex) -> Vec<Point> {
    let fences: Vec<usize> = walk
        .calls
        .iter()
        .filter(|c| matches!(classify_call(c.name, c.qualifiers), Ok(CallKind::Fence(_))))
        .filter_map(|c| c.stmt.map(|s| s.start as usize))
        .collect();
    let mut at: Vec<(usize, bool)> = Vec::new();
    for b in &walk.blocks {
        for s in &b.stmts {
            if !fences.contains(&(s.span.start as usize)) {
                at.push((s.span.start as usize, false));
            }
        }
        at.push((b.span.end as usize - 1, true));
    }
    at.sort_unstable();
    at.dedup();
    at.into_iter()
        .map(|(offset, closing)| {
            let (line, column) = lines.locate(offset);
            Point {
                class: Class::Fence,
                original: Level::ABSENT,
                doc: 0,
                line,
                column,
                site: insert_site(text, offset, closing, false),
            }
        })
        .collect()
}

/// Where a fence inserted before `offset` (a statement, or a block's
/// closing brace) goes: on a line of its own where the statement starts
/// its line, else inline.
fn insert_site(text: &str, offset: usize, closing: bool, cuda: bool) -> Site {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let (at, indent) = match before.trim().is_empty() {
        true if closing => (line_start, Some(format!("{before}    "))),
        true => (line_start, Some(before.to_string())),
        false => (offset, None),
    };
    Site::Insert { at, indent, cuda }
}

/// The points of imported CUDA: each site the front end found, in
/// document `doc` (its file's text is `text`).
pub(super) fn cuda_point(text: &str, doc: usize, site: &Site_) -> Point {
    use crate::clang_front::sites::SiteKind;
    let (class, original, site_) = match &site.kind {
        SiteKind::Atomic { base, scope } => (
            Class::Atomic,
            Level::new(Order::Relaxed, *scope),
            Site::CudaAtomic {
                span: site.range.clone(),
                base: base.clone(),
            },
        ),
        SiteKind::Fence { scope, stmt } => (
            Class::Fence,
            Level::new(Order::Sc, *scope),
            Site::CudaFence {
                call: site.range.clone(),
                stmt: stmt.clone(),
                removal: stmt.clone().map(|s| removal(text, s)),
            },
        ),
        SiteKind::Order { access, order } => {
            use crate::clang_front::sites::{Access, CppOrder};
            let class = match access {
                Access::Load => Class::CppLoad,
                Access::Store => Class::CppStore,
                Access::ReadModifyWrite => Class::CppRmw,
                Access::Fence => Class::CppFence,
            };
            let order = match order {
                CppOrder::Relaxed => Order::Relaxed,
                CppOrder::Acquire => Order::Acquire,
                CppOrder::Release => Order::Release,
                CppOrder::AcqRel => Order::AcqRel,
                CppOrder::SeqCst => Order::Sc,
            };
            let level = Level {
                order: Some(order),
                scope: None,
            };
            let span = site.range.clone();
            (class, level, Site::CppOrder { span })
        }
        SiteKind::Insert { closing } => (
            Class::Fence,
            Level::ABSENT,
            insert_site(text, site.range.start, *closing, true),
        ),
    };
    let (line, column) = LineIndex::new(text).locate(site.range.start);
    Point {
        class,
        original,
        doc,
        line,
        column,
        site: site_,
    }
}

type Site_ = crate::clang_front::sites::Site;

/// The text with the edits applied (they do not overlap; insertions at
/// one offset keep the points' order).
pub(super) fn apply(text: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(text.len() + 64);
    let mut at = 0;
    for e in edits {
        if e.range.start < at {
            continue; // overlapping: never made by the points
        }
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.text);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Byte offsets to 1-based lines and columns.
pub(super) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex { starts }
    }

    pub(super) fn locate(&self, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= offset);
        let column = offset - self.starts[line.saturating_sub(1)] + 1;
        (line as u32, column as u32)
    }
}
