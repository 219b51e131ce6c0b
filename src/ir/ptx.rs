//! PTX instruction text, as inline `asm` writes it, read into what the IR
//! names: the opcode, the order and scope of a memory operation
//! (`MemOrder`), its state space and width, an atomic's operation. Both
//! CUDA routes read inline PTX through this one parser (the libclang route
//! in `clang_front/ptx.rs`, the LLVM route in `llvm/lower/asm.rs`); each binds the
//! operands its own way. Anything outside the subset is an error that
//! names the instruction in PTX's words, never an approximation.
//!
//! Choices, after the PTX ISA's memory consistency model:
//! - `ld`/`st` without `.relaxed`/`.acquire`/`.release`/`.volatile` are
//!   weak (`.weak` is the default); `.volatile` is relaxed at system scope
//!   (the IR's `Order::Volatile`).
//! - Cache operators (`.ca .cg .cs .lu .cv` on a load, `.wb .cg .cs .wt` on
//!   a store), eviction priorities (`.L1::evict_*`, `.L2::evict_*`) and
//!   prefetch sizes (`.L2::64B`...) are performance hints: "the use of a
//!   cache operator on an ld or st instruction does not change the memory
//!   consistency behavior of the program". So `ld.global.cv` and
//!   `ld.global.cg` are weak loads: polling a flag with them is a data race
//!   in PTX's model, whatever the caches do on a given GPU.
//! - `.cluster` scope is `cta`: a launch here has no cluster dimensions,
//!   so each cluster is one CTA (PTX's implicit 1x1x1 cluster).
//! - `membar.{cta,gl,sys}` is `fence.sc` at that scope.

use super::{AtomicOp, MemOrder, Order, Scope};

/// One instruction, split into its opcode parts and operands.
#[derive(Debug, PartialEq, Eq)]
pub struct Instruction {
    /// A guard `@p` / `@!p`, as written.
    pub guard: Option<String>,
    /// `atom.add.release.gpu.u32` → `["atom", "add", "release", "gpu", "u32"]`;
    /// a directive keeps its dot: `.reg .b32 r;` → `[".reg"]`.
    pub parts: Vec<String>,
    /// Comma-separated operands, trimmed (`{%0}` braces dropped).
    pub operands: Vec<String>,
}

impl Instruction {
    /// The opcode with its qualifiers, as written.
    pub fn opcode(&self) -> String {
        self.parts.join(".")
    }
}

/// Splits an asm template into instructions (`;`-separated; `//`
/// comments, braces and blank pieces ignored).
pub fn instructions(template: &str) -> Vec<Instruction> {
    let text: String = template
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    text.split(';')
        .map(|i| i.replace(['{', '}'], " "))
        .map(|i| i.trim().to_string())
        .filter(|i| !i.is_empty())
        .map(|i| split(&i))
        .collect()
}

fn split(text: &str) -> Instruction {
    let (guard, body) = match text.strip_prefix('@') {
        Some(rest) => {
            let (g, b) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            (Some(g.to_string()), b.trim())
        }
        None => (None, text),
    };
    let (op, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let parts = match op.strip_prefix('.') {
        Some(directive) => vec![format!(".{directive}")],
        None => op.split('.').map(str::to_string).collect(),
    };
    Instruction {
        guard,
        parts,
        operands: rest
            .split(',')
            .map(|o| o.trim().to_string())
            .filter(|o| !o.is_empty())
            .collect(),
    }
}

/// The state space an access names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// No state space: generic addressing.
    Generic,
    Global,
    /// `.shared` or `.shared::cta`: the executing CTA's shared memory.
    Shared,
}

/// A load's or store's (or an atomic's) access: how it is ordered, where,
/// and how wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub order: MemOrder,
    pub space: Space,
    pub bits: u32,
    /// From the type: `.s` signed, `.u` unsigned, `.b`/`.f` neither.
    pub signed: Option<bool>,
}

/// What an instruction does, as far as the model names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ptx {
    Ld(Access),
    St(Access),
    /// `atom` (`returns`: it has a destination) or `red`.
    Atom {
        op: AtomicOp,
        access: Access,
        returns: bool,
    },
    Fence(MemOrder),
    /// `bar.sync`/`barrier.sync` (`arrive: false`) or `.arrive`.
    Barrier {
        arrive: bool,
    },
    Nanosleep,
    /// `mov.TYPE d, a` of this many bits.
    Mov {
        bits: u32,
    },
    /// `selp.TYPE d, a, b, p`: `p ? a : b`, of this many bits.
    Selp {
        bits: u32,
    },
    /// `.reg .TYPE names`: registers of this many bits (`.pred`: 1).
    Reg {
        bits: u32,
    },
    /// `cvta.to.shared.uN d, a` (`to_shared`: a generic address into the
    /// CTA's shared window) or `cvta.shared.uN d, a` (back); N bits.
    Cvta {
        to_shared: bool,
        bits: u32,
    },
    /// `cvt.uD.uS d, a` between integer types: truncated, or extended by
    /// the source's signedness (`.sS`).
    Cvt {
        bits: u32,
        from: u32,
        signed: bool,
    },
    Trap,
    Exit,
}

type R<T> = Result<T, String>;

/// What `ins` does; an error says why it is outside the subset.
pub fn parse(ins: &Instruction) -> R<Ptx> {
    let name = ins.opcode();
    if ins.guard.is_some() {
        return Err(format!(
            "the predicated instruction `@{} {name}`",
            ins.guard.as_deref().unwrap_or("")
        ));
    }
    let q: Vec<&str> = ins.parts[1..].iter().map(String::as_str).collect();
    match ins.parts[0].as_str() {
        "ld" | "st" => {
            memory(&name, ins.parts[0] == "ld", &q).map(
                |(ld, a)| {
                    if ld {
                        Ptx::Ld(a)
                    } else {
                        Ptx::St(a)
                    }
                },
            )
        }
        "atom" | "red" => atomic(&name, ins.parts[0] == "atom", &q),
        "fence" => fence(&name, &q),
        "membar" => match q.as_slice() {
            [s @ ("cta" | "gl" | "sys")] => Ok(Ptx::Fence(MemOrder::new(Order::Sc, scope(s)?))),
            _ => Err(format!("`{name}`")),
        },
        "bar" | "barrier" => barrier(&name, &q),
        "nanosleep" if q == ["u32"] => Ok(Ptx::Nanosleep),
        "mov" => match q.as_slice() {
            ["pred"] => Ok(Ptx::Mov { bits: 1 }),
            [t] => match type_bits(t) {
                Some((bits, _)) => Ok(Ptx::Mov { bits }),
                None => Err(format!("`{name}`")),
            },
            _ => Err(format!("`{name}`")),
        },
        "selp" => match q.as_slice() {
            [t] => match type_bits(t) {
                Some((bits, _)) if bits >= 16 => Ok(Ptx::Selp { bits }),
                _ => Err(format!("`{name}`")),
            },
            _ => Err(format!("`{name}`")),
        },
        ".reg" => match ins.operands.first().and_then(|o| o.split_once(' ')) {
            Some((".pred", _)) => Ok(Ptx::Reg { bits: 1 }),
            Some((t, _)) => match t.strip_prefix('.').and_then(type_bits) {
                Some((bits, _)) if bits > 1 => Ok(Ptx::Reg { bits }),
                _ => Err(format!("the register declaration `.reg {t}`")),
            },
            None => Err("a `.reg` declaration without a type".into()),
        },
        "cvta" => cvta(&name, &q),
        "cvt" => cvt(&name, &q),
        "trap" if q.is_empty() => Ok(Ptx::Trap),
        "exit" if q.is_empty() => Ok(Ptx::Exit),
        op => Err(match unmodelled(op) {
            Some(_) => unmodelled_op(&name, op),
            None => format!("the instruction `{name}`"),
        }),
    }
}

/// Why a known PTX instruction is not modelled.
fn unmodelled(op: &str) -> Option<&'static str> {
    Some(match op {
        "mbarrier" => "mbarrier objects: cuda::barrier, cuda::pipeline",
        "multimem" => "multimem: NVLink multicast memory",
        "cp" => "asynchronous copies",
        "cvta" => "address conversion to or from a space other than .shared: the model follows pointers, not addresses as integers",
        "cvt" => "a conversion other than between integer types",
        "setp" => "comparisons into predicates in inline PTX",
        "ldmatrix" | "stmatrix" | "mma" | "wgmma" => "matrix instructions",
        "ldu" => "a uniform load: read-only data",
        "prefetch" | "prefetchu" | "discard" | "applypriority" | "createpolicy" => "cache control",
        "shfl" | "vote" | "match" | "activemask" | "redux" => {
            "warp-level collectives in inline PTX"
        }
        "st" | "ld" | "atom" | "red" => "this form",
        _ => return None,
    })
}

/// `cvta{.to}.shared{::cta}.u32|u64`: a shared window address from a
/// generic one, or back. Other spaces (.global, .local, .const, .param)
/// stay outside the subset.
fn cvta(name: &str, q: &[&str]) -> R<Ptx> {
    let (to_shared, rest) = match q {
        ["to", rest @ ..] => (true, rest),
        rest => (false, rest),
    };
    match rest {
        ["shared" | "shared::cta", t @ ("u32" | "u64")] => Ok(Ptx::Cvta {
            to_shared,
            bits: if *t == "u32" { 32 } else { 64 },
        }),
        _ => Err(unmodelled_op(name, "cvta")),
    }
}

/// `cvt.D.S` between integer types, without rounding or saturation.
fn cvt(name: &str, q: &[&str]) -> R<Ptx> {
    let int = |t: &str| match type_bits(t) {
        Some((bits, Some(signed))) => Some((bits, signed)),
        _ => None,
    };
    match q {
        [d, s] => match (int(d), int(s)) {
            (Some((bits, _)), Some((from, signed))) => Ok(Ptx::Cvt { bits, from, signed }),
            _ => Err(unmodelled_op(name, "cvt")),
        },
        _ => Err(unmodelled_op(name, "cvt")),
    }
}

fn unmodelled_op(name: &str, op: &str) -> String {
    format!("`{name}` ({})", unmodelled(op).unwrap_or("this form"))
}

/// `.b32`, `.u64`, `.s16`, `.f32`... → (bits, signed).
fn type_bits(t: &str) -> Option<(u32, Option<bool>)> {
    let (kind, n) = t.split_at(1);
    let bits: u32 = n.parse().ok()?;
    let signed = match kind {
        "s" => Some(true),
        "u" => Some(false),
        "b" | "f" => None,
        _ => return None,
    };
    let ok = match kind {
        "f" => matches!(bits, 16 | 32 | 64),
        _ => matches!(bits, 8 | 16 | 32 | 64),
    };
    ok.then_some((bits, signed))
}

fn scope(s: &str) -> R<Scope> {
    Ok(match s {
        "cta" | "cluster" => Scope::Cta,
        "gpu" | "gl" => Scope::Gpu,
        "sys" => Scope::Sys,
        other => return Err(format!("the scope `.{other}`")),
    })
}

/// The qualifiers of a memory instruction, sorted by what they say.
#[derive(Default)]
struct Quals<'a> {
    sem: Option<&'a str>,
    scope: Option<Scope>,
    space: Option<Space>,
    ty: Option<(u32, Option<bool>, bool)>,
    cache: Option<&'a str>,
    op: Option<&'a str>,
}

const OPS: &[&str] = &[
    "add", "exch", "cas", "and", "or", "xor", "min", "max", "inc", "dec",
];

fn quals<'a>(name: &str, q: &[&'a str]) -> R<Quals<'a>> {
    let mut out = Quals::default();
    let bad = |what: &str| Err(format!("`{name}`: {what}"));
    for &p in q {
        match p {
            "weak" | "volatile" | "relaxed" | "acquire" | "release" | "acq_rel" | "sc" => {
                out.sem = Some(p)
            }
            "cta" | "cluster" | "gpu" | "sys" => out.scope = Some(scope(p)?),
            "global" => out.space = Some(Space::Global),
            "shared" | "shared::cta" => out.space = Some(Space::Shared),
            "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" => out.cache = Some(p),
            _ if OPS.contains(&p) => out.op = Some(p),
            _ if p.starts_with("L1::evict_")
                || p.starts_with("L2::evict_")
                || p == "L1::no_allocate"
                || matches!(p, "L2::64B" | "L2::128B" | "L2::256B") => {}
            _ => {
                match type_bits(p) {
                    Some((bits, signed)) => out.ty = Some((bits, signed, p.starts_with('f'))),
                    None => {
                        let why = match p {
                        "nc" => "`.nc`: a non-coherent load through the texture path (read-only data)",
                        "mmio" => "`.mmio`: memory-mapped I/O",
                        "shared::cluster" => "`.shared::cluster`: another CTA's shared memory",
                        "local" | "const" | "param" => "a state space other than .global, .shared and generic",
                        "L2::cache_hint" => "`.L2::cache_hint` (its cache-policy operand)",
                        "v2" | "v4" | "v8" => "vector accesses (`.v2`, `.v4`, `.v8`)",
                        "b128" => "128-bit accesses",
                        _ => return bad(&format!("the qualifier `.{p}`")),
                    };
                        return bad(why);
                    }
                }
            }
        }
    }
    Ok(out)
}

/// `ld`/`st` (`ld` tells which): order, scope, space, width.
fn memory(name: &str, ld: bool, q: &[&str]) -> R<(bool, Access)> {
    let qs = quals(name, q)?;
    let bad = |what: &str| Err(format!("`{name}`: {what}"));
    if qs.op.is_some() {
        return bad("not a load or store");
    }
    let Some((bits, signed, _)) = qs.ty else {
        return bad("no type");
    };
    let order = match (qs.sem.unwrap_or("weak"), qs.scope, ld) {
        ("weak", None, _) => MemOrder::new(Order::Weak, Scope::Cta),
        ("volatile", None, _) => MemOrder::new(Order::Volatile, Scope::Sys),
        ("relaxed", Some(s), _) => MemOrder::new(Order::Relaxed, s),
        ("acquire", Some(s), true) => MemOrder::new(Order::Acquire, s),
        ("release", Some(s), false) => MemOrder::new(Order::Release, s),
        ("relaxed" | "acquire" | "release", None, _) => {
            return bad("a strong access needs a scope (.cta, .gpu, .sys)")
        }
        ("weak" | "volatile", Some(_), _) => return bad("a scope on a weak or volatile access"),
        (o, _, _) => return bad(&format!("the order `.{o}`")),
    };
    if let Some(c) = qs.cache {
        let valid = if ld {
            ["ca", "cg", "cs", "lu", "cv"].contains(&c)
        } else {
            ["wb", "cg", "cs", "wt"].contains(&c)
        };
        if !valid || order.order != Order::Weak {
            return bad(&format!("the cache operator `.{c}` here"));
        }
    }
    let access = Access {
        order,
        space: qs.space.unwrap_or(Space::Generic),
        bits,
        signed,
    };
    Ok((ld, access))
}

/// `atom`/`red`: the operation, its order (default relaxed) and scope
/// (default gpu), the width and how max/min compare.
fn atomic(name: &str, returns: bool, q: &[&str]) -> R<Ptx> {
    let qs = quals(name, q)?;
    let bad = |what: &str| Err(format!("`{name}`: {what}"));
    let Some(op) = qs.op else {
        return bad("no operation");
    };
    let Some((bits, signed, float)) = qs.ty else {
        return bad("no type");
    };
    if float {
        return bad("floating-point atomics");
    }
    if qs.cache.is_some() {
        return bad("a cache operator on an atomic");
    }
    let order = match (qs.sem.unwrap_or("relaxed"), returns) {
        ("relaxed", _) => Order::Relaxed,
        ("release", _) => Order::Release,
        ("acquire", true) => Order::Acquire,
        ("acq_rel", true) => Order::AcqRel,
        (o, _) => return bad(&format!("the order `.{o}`")),
    };
    let (op, signed) = match (op, signed) {
        ("add", _) => (AtomicOp::Add, None),
        ("exch", _) => (AtomicOp::Exch, None),
        ("cas", _) => (AtomicOp::Cas, None),
        ("and", _) => (AtomicOp::And, None),
        ("or", _) => (AtomicOp::Or, None),
        ("xor", _) => (AtomicOp::Xor, None),
        ("inc", Some(false)) if bits == 32 => (AtomicOp::Inc, None),
        ("dec", Some(false)) if bits == 32 => (AtomicOp::Dec, None),
        ("min", Some(s)) => (AtomicOp::Min, Some(s)),
        ("max", Some(s)) => (AtomicOp::Max, Some(s)),
        (o, _) => return bad(&format!("`.{o}` on this type")),
    };
    if op == AtomicOp::Cas && !returns {
        return bad("`red.cas`");
    }
    let access = Access {
        order: MemOrder::new(order, qs.scope.unwrap_or(Scope::Gpu)),
        space: qs.space.unwrap_or(Space::Generic),
        bits,
        signed,
    };
    Ok(Ptx::Atom {
        op,
        access,
        returns,
    })
}

/// `fence.sc.SCOPE`, `fence.acq_rel.SCOPE`; the model has no one-sided
/// (`.acquire`/`.release`) fences and no proxy fences.
fn fence(name: &str, q: &[&str]) -> R<Ptx> {
    let order = match q.first() {
        Some(&"sc") => Order::Sc,
        Some(&"acq_rel") => Order::AcqRel,
        Some(p) if p.starts_with("proxy") => {
            return Err(format!(
                "`{name}` (a proxy fence: async and tensor-memory proxies)"
            ))
        }
        _ => {
            return Err(format!(
                "`{name}`: the model has fence.sc and fence.acq_rel"
            ))
        }
    };
    match &q[1..] {
        [s] => Ok(Ptx::Fence(MemOrder::new(order, scope(s)?))),
        _ => Err(format!("`{name}`: a fence needs one scope")),
    }
}

/// `bar{.cta}.sync`, `barrier{.cta}.sync{.aligned}`, and `.arrive`.
fn barrier(name: &str, q: &[&str]) -> R<Ptx> {
    let words: Vec<&str> = q.iter().copied().filter(|w| *w != "cta").collect();
    match words.as_slice() {
        ["sync"] | ["sync", "aligned"] => Ok(Ptx::Barrier { arrive: false }),
        ["arrive"] | ["arrive", "aligned"] => Ok(Ptx::Barrier { arrive: true }),
        _ => Err(format!("the barrier `{name}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(t: &str) -> R<Ptx> {
        parse(&instructions(t)[0])
    }

    #[test]
    fn splits_instructions_operands_comments_and_directives() {
        let i = instructions("atom.add.release.gpu.u32 $0,[$1],$2;");
        assert_eq!(i[0].parts, ["atom", "add", "release", "gpu", "u32"]);
        assert_eq!(i[0].operands, ["$0", "[$1]", "$2"]);
        let two = instructions(
            "{\n\t.reg .pred p; // note\n fence.acq_rel.gpu;\n ld.global.cg.u32 {%0}, [%1]; }",
        );
        assert_eq!(two.len(), 3);
        assert_eq!(two[0].parts, [".reg"]);
        assert_eq!(two[0].operands, [".pred p"]);
        assert_eq!(two[2].operands, ["%0", "[%1]"]);
        let g = instructions("@!p st.u32 [$0], $1;");
        assert_eq!(g[0].guard.as_deref(), Some("!p"));
        assert!(parse(&g[0]).is_err());
    }

    #[test]
    fn qualifiers_in_any_order_give_order_scope_space_width() {
        let a = |t| match one(t).unwrap() {
            Ptx::Ld(a) | Ptx::St(a) => a,
            other => panic!("{other:?}"),
        };
        let x = a("ld.global.acquire.sys.b32 $0, [$1];");
        let y = a("ld.acquire.sys.global.u32 $0, [$1];");
        assert_eq!((x.order, x.space, x.bits), (y.order, y.space, 32));
        assert_eq!(x.order, MemOrder::new(Order::Acquire, Scope::Sys));
        assert_eq!(
            a("st.volatile.global.u32 [$1], $0;").order.order,
            Order::Volatile
        );
        assert_eq!(a("ld.global.cg.u32 $0, [$1];").order.order, Order::Weak);
        assert_eq!(a("ld.cv.u64 $0, [$1];").bits, 64);
        assert_eq!(
            a("st.relaxed.cluster.shared::cta.s32 [$0], $1;")
                .order
                .scope,
            Scope::Cta
        );
        assert_eq!(
            a("ld.relaxed.gpu.shared.b64 $0, [$1];").space,
            Space::Shared
        );
        for refused in [
            "ld.acquire.global.u32 $0, [$1];",
            "ld.release.gpu.u32 $0, [$1];",
            "st.volatile.cg.u32 [$0], $1;",
            "ld.global.nc.u32 $0, [$1];",
            "ld.volatile.v2.f32 {$0, $1}, [$2];",
            "ld.shared::cluster.u32 $0, [$1];",
            "ld.mmio.relaxed.sys.global.u32 $0, [$1];",
        ] {
            assert!(one(refused).is_err(), "{refused}");
        }
        assert!(one("ld.global.nc.u32 $0, [$1];")
            .unwrap_err()
            .contains("`.nc`"));
    }

    #[test]
    fn atomics_fences_and_the_rest() {
        let Ptx::Atom {
            op,
            access,
            returns,
        } = one("atom.cas.acquire.gpu.b64 $0,[$1],$2,$3;").unwrap()
        else {
            panic!()
        };
        assert_eq!((op, access.bits, returns), (AtomicOp::Cas, 64, true));
        assert_eq!(access.order, MemOrder::new(Order::Acquire, Scope::Gpu));
        let Ptx::Atom {
            access, returns, ..
        } = one("red.global.add.u32 [$0], $1;").unwrap()
        else {
            panic!()
        };
        assert_eq!(
            (access.order, returns),
            (MemOrder::new(Order::Relaxed, Scope::Gpu), false)
        );
        assert!(matches!(
            one("atom.shared.cta.max.s32 $0,[$1],$2;"),
            Ok(Ptx::Atom {
                op: AtomicOp::Max,
                access: Access {
                    signed: Some(true),
                    ..
                },
                ..
            })
        ));
        assert!(one("atom.add.f32 $0,[$1],$2;").is_err());
        assert!(one("red.acquire.gpu.add.u32 [$0],$1;").is_err());
        assert_eq!(
            one("fence.acq_rel.sys;"),
            Ok(Ptx::Fence(MemOrder::new(Order::AcqRel, Scope::Sys)))
        );
        assert_eq!(
            one("membar.gl;"),
            Ok(Ptx::Fence(MemOrder::new(Order::Sc, Scope::Gpu)))
        );
        assert!(one("fence.acquire.gpu;").is_err());
        assert!(one("fence.proxy.async;").is_err());
        assert_eq!(
            one("barrier.sync.aligned 1, 64;"),
            Ok(Ptx::Barrier { arrive: false })
        );
        assert_eq!(one("nanosleep.u32 $0;"), Ok(Ptx::Nanosleep));
        assert_eq!(one("mov.b64 $0, $2;"), Ok(Ptx::Mov { bits: 64 }));
        assert_eq!(one(".reg .b32 r<2>;"), Ok(Ptx::Reg { bits: 32 }));
        assert_eq!(one("selp.b32 $0, 1, 0, p;"), Ok(Ptx::Selp { bits: 32 }));
        assert!(one("mbarrier.init.shared.b64 [$0], $1;")
            .unwrap_err()
            .contains("mbarrier"));
        assert!(one("multimem.red.release.sys.global.add.u32 [$0], $1;").is_err());
        assert_eq!(
            one("cvta.to.shared.u64 r, $1;"),
            Ok(Ptx::Cvta {
                to_shared: true,
                bits: 64
            })
        );
        assert_eq!(
            one("cvta.shared::cta.u32 $0, r;"),
            Ok(Ptx::Cvta {
                to_shared: false,
                bits: 32
            })
        );
        assert!(one("cvta.to.global.u64 $0, $1;")
            .unwrap_err()
            .contains("other than .shared"));
        assert_eq!(
            one("cvt.u32.s16 $0, $1;"),
            Ok(Ptx::Cvt {
                bits: 32,
                from: 16,
                signed: true
            })
        );
        assert!(one("cvt.rn.f32.u32 $0, $1;").is_err());
        assert!(one("cvt.f32.u32 $0, $1;").is_err());
    }
}
