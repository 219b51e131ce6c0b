//! The lowering on hand-written IR: phis leave SSA correctly (the swap
//! problem), addresses become indices, atomics get CUDA's orders and
//! scopes, and what the model cannot name is refused. A small
//! interpreter runs one thread's program to check values, not shapes.

use super::access::{map_atomic, scope_of};
use super::*;
use crate::ir::{
    eval_binary, eval_unary, wrap, AtomicAccess, AtomicOp, MemAccess, MemOrder, Order, Scope,
};
use crate::llvm::ir::{Atomic, Ordering};
use std::collections::BTreeMap;

fn lower(ll: &str, kernel: &str, args: &[(&str, i64)]) -> Result<Program, String> {
    let module = crate::llvm::parse(ll).expect("the test IR parses");
    let args: Vec<(String, i64)> = args.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let request = KernelRequest {
        kernel,
        launch: Launch::default(),
        args: &args,
        call: None,
    };
    lower_kernel(
        &module,
        Path::new("/nonexistent/k.cu"),
        "",
        &UserFiles::default(),
        &request,
    )
    .map_err(refusal_message)
}

/// A refusal's message, located or not.
fn refusal_message(r: Refusal) -> String {
    match r {
        Refusal::Usage(m) => m,
        Refusal::Located(d, _) => d.message,
    }
}

/// Runs thread 0 of block 0 alone; memory as `(variable, index) → value`
/// (what it stores; a load of an element never stored reads its initial value),
/// and `("<assert>", pc)` → 1 for each assertion that fails.
fn run(p: &Program) -> BTreeMap<(String, i64), i64> {
    let mut locals = vec![0i64; p.locals.len()];
    let mut mem: BTreeMap<(String, i64), i64> = BTreeMap::new();
    fn eval(e: &Expr, locals: &[i64]) -> i64 {
        match e {
            Expr::Const(c) => *c,
            Expr::Local(l) => locals[*l as usize],
            Expr::Builtin(_) => 0,
            Expr::Unary(op, a) => eval_unary(*op, eval(a, locals)),
            Expr::Binary(op, a, b) => {
                eval_binary(*op, eval(a, locals), eval(b, locals)).expect("no fault")
            }
            Expr::Ternary(c, a, b) => {
                if eval(c, locals) != 0 {
                    eval(a, locals)
                } else {
                    eval(b, locals)
                }
            }
            Expr::Fma(f, abc) => {
                let [a, b, c] = abc.each_ref().map(|x| eval(x, locals));
                crate::ir::float::fma(*f, a, b, c)
            }
            Expr::Global(..) => unreachable!("not in code"),
        }
    }
    let key = |a: &MemAccess, locals: &[i64]| {
        let i = a.loc.index.as_ref().map_or(0, |e| eval(e, locals));
        (p.vars[a.loc.var as usize].name.clone(), i)
    };
    let mut pc = 0usize;
    for _ in 0..10_000 {
        let mut next = pc + 1;
        match &p.code[pc].op {
            Op::Assign { dst, value } => {
                let ty = p.locals[*dst as usize].ty;
                locals[*dst as usize] = wrap(ty, eval(value, &locals));
            }
            Op::Store { access, value } => {
                let v = eval(value, &locals);
                mem.insert(key(access, &locals), v);
            }
            Op::Load { dst, access } => {
                let k = key(access, &locals);
                let init = p.vars[access.loc.var as usize]
                    .init
                    .get(k.1 as usize)
                    .map_or(0, |w| *w as i64);
                let v = mem.get(&k).copied().unwrap_or(init);
                locals[*dst as usize] = v;
            }
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                next = if eval(cond, &locals) != 0 {
                    *then_pc
                } else {
                    *else_pc
                } as usize
            }
            Op::Atomic {
                dst,
                op: AtomicOp::Cas,
                access,
                operands,
            } => {
                let k = key(access, &locals);
                let init = p.vars[access.loc.var as usize]
                    .init
                    .get(k.1 as usize)
                    .map_or(0, |w| *w as i64);
                let old = mem.get(&k).copied().unwrap_or(init);
                if old == eval(&operands[0], &locals) {
                    mem.insert(k, eval(&operands[1], &locals));
                }
                if let Some(d) = dst {
                    locals[*d as usize] = old;
                }
            }
            Op::Jump { target } => next = *target as usize,
            Op::Assert { cond, .. } if eval(cond, &locals) == 0 => {
                mem.insert(("<assert>".to_string(), pc as i64), 1);
            }
            Op::Exit => return mem,
            _ => {}
        }
        pc = next;
    }
    panic!("the program does not end");
}

const SWAP: &str = r#"
define ptx_kernel void @swap(ptr %out, i32 %n) {
entry:
  br label %loop
loop:
  %a = phi i32 [ 1, %entry ], [ %b, %body ]
  %b = phi i32 [ 2, %entry ], [ %a, %body ]
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %done
body:
  %i1 = add i32 %i, 1
  br label %loop
done:
  store i32 %a, ptr %out
  %p = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %b, ptr %p
  ret void
}
"#;

#[test]
fn phis_that_read_each_other_are_copied_in_parallel() {
    for (n, a, b) in [(0, 1, 2), (1, 2, 1), (2, 1, 2), (3, 2, 1)] {
        let p = lower(SWAP, "swap", &[("arg1", n)]).unwrap();
        let mem = run(&p);
        assert_eq!(mem[&("arg0".to_string(), 0)], a, "n={n}");
        assert_eq!(mem[&("arg0".to_string(), 1)], b, "n={n}");
    }
}

#[test]
fn a_parallel_copy_without_clashes_is_sequential() {
    let seq = flow::parallel_copy(vec![(0, Expr::Const(1)), (1, Expr::Local(2))], |_| 99);
    assert_eq!(seq.len(), 2);
    let mut temps = 10;
    let swap = flow::parallel_copy(vec![(0, Expr::Local(1)), (1, Expr::Local(0))], |_| {
        temps += 1;
        temps
    });
    assert_eq!(swap.len(), 4, "two temporaries, then two copies");
    assert!(matches!(swap[2], (0, Expr::Local(11))));
}

const ADDRESSES: &str = r#"
@_ZZ1kE5flags = internal addrspace(3) global [4 x i32] undef, align 4

define ptx_kernel void @k(ptr %buf, i32 %i) {
  %x = zext i32 %i to i64
  %e = getelementptr inbounds i32, ptr %buf, i64 %x
  store i32 7, ptr %e
  %b = getelementptr inbounds i8, ptr %buf, i64 12
  store i32 9, ptr %b
  %s = getelementptr inbounds [4 x i32], ptr addrspacecast (ptr addrspace(3) @_ZZ1kE5flags to ptr), i64 0, i64 %x
  store i32 5, ptr %s
  %neg = sub i32 0, %i
  %m = sext i32 %neg to i64
  %back = getelementptr inbounds i32, ptr %b, i64 %m
  store i32 3, ptr %back
  ret void
}
"#;

#[test]
fn getelementptr_becomes_an_element_index() {
    let p = lower(ADDRESSES, "k", &[("arg1", 2)]).unwrap();
    let mem = run(&p);
    let at = |v: &str, i| mem.get(&(v.to_string(), i)).copied();
    assert_eq!(at("arg0", 2), Some(7));
    // 12 bytes in, at 3 - 2: the signed index of a sext'd negative value.
    assert_eq!(at("arg0", 3), Some(9));
    assert_eq!(at("arg0", 1), Some(3));
    assert_eq!(at("flags", 2), Some(5));
    let flags = p.vars.iter().find(|v| v.name == "flags").unwrap();
    assert_eq!(flags.storage, crate::ir::Storage::Shared);
    assert_eq!((flags.len, flags.init.len()), (4, 8), "per block");
    let buf = &p.vars[0];
    assert_eq!((buf.len, buf.ty), (DEFAULT_BUFFER_LEN, Type::U32));
}

const ATOMICS: &str = r#"
define ptx_kernel void @k(ptr %p) {
  %a = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  %b = call i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr %p, i32 1)
  %c = atomicrmw max ptr %p, i32 1 syncscope("block") monotonic, align 4
  %d = atomicrmw xchg ptr %p, i32 0 syncscope("device") seq_cst, align 4
  %e = cmpxchg ptr %p, i32 0, i32 1 seq_cst seq_cst, align 4
  %f = extractvalue { i32, i1 } %e, 1
  %g = load volatile i32, ptr %p, align 4
  %h = load i32, ptr %p, align 4
  call void @llvm.nvvm.membar.gl()
  call void @llvm.nvvm.barrier0()
  ret void
}
declare i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr, i32)
declare void @llvm.nvvm.membar.gl()
declare void @llvm.nvvm.barrier0()
"#;

/// The program's memory operations and barriers, with orders and scopes
/// (`red`: an atomic whose old value is not kept).
fn memory_ops(p: &Program) -> Vec<String> {
    let at = |a: &MemAccess| format!("{:?} {:?}", a.order, a.scope);
    p.code
        .iter()
        .filter_map(|i| match &i.op {
            Op::Atomic {
                op, access, dst, ..
            } => Some(format!(
                "{op:?} {}{}",
                at(access),
                if dst.is_none() { " red" } else { "" }
            )),
            Op::Load { access, .. } => Some(format!("load {}", at(access))),
            Op::Store { access, .. } => Some(format!("store {}", at(access))),
            Op::Fence(m) => Some(format!("fence {:?} {:?}", m.order, m.scope)),
            Op::SyncThreads => Some("__syncthreads".into()),
            Op::Backoff => Some("backoff".into()),
            _ => None,
        })
        .collect()
}

#[test]
fn atomics_get_cudas_orders_and_scopes() {
    let p = lower(ATOMICS, "k", &[]).unwrap();
    assert_eq!(
        memory_ops(&p),
        [
            // Legacy atomicAdd: relaxed at device scope.
            "Add Relaxed Gpu",
            // atomicAdd_block.
            "Add Relaxed Cta",
            "Max Relaxed Cta",
            // seq_cst at a scope: fence.sc, then acquire (PTX's ABI).
            "fence Sc Gpu",
            "Exch Acquire Gpu",
            "Cas Relaxed Gpu",
            "load Volatile Sys",
            "load Weak Cta",
            "fence Sc Gpu",
            "__syncthreads",
        ]
    );
    // atomicMax on an `int` compares signed.
    assert_eq!(p.vars[0].ty, Type::I32);
    assert!(p.code.iter().any(|i| matches!(
        i.op,
        Op::Atomic {
            op: AtomicOp::Cas,
            ..
        }
    )));
}

#[test]
fn orders_and_scopes_map_as_ptx_does() {
    let legacy = Atomic {
        ordering: Ordering::SeqCst,
        scope: None,
    };
    let m = map_atomic(&legacy, AtomicAccess::ReadModifyWrite).unwrap();
    assert_eq!((m.order.order, m.order.scope), (Order::Relaxed, Scope::Gpu));
    assert!(m.fence.is_none());
    // A seq_cst load without a scope is not a legacy atomic: system scope.
    let m = map_atomic(&legacy, AtomicAccess::Load).unwrap();
    assert_eq!((m.order.order, m.order.scope), (Order::Acquire, Scope::Sys));
    assert_eq!(m.fence.map(|f| f.order), Some(Order::Sc));
    let acq = Atomic {
        ordering: Ordering::Acquire,
        scope: Some("block".into()),
    };
    let m = map_atomic(&acq, AtomicAccess::ReadModifyWrite).unwrap();
    assert_eq!((m.order.order, m.order.scope), (Order::Acquire, Scope::Cta));
    assert_eq!(scope_of(Some("cluster")), None);
    // seq_cst at a scope, as NVIDIA's PTX ABI and libcu++ map it (the
    // libclang route alike): `fence.sc`, then `ld.acquire`, `st.relaxed`,
    // `atom.acquire`.
    let sc = Atomic {
        ordering: Ordering::SeqCst,
        scope: Some("device".into()),
    };
    for (access, order) in [
        (AtomicAccess::Load, Order::Acquire),
        (AtomicAccess::Store, Order::Relaxed),
        (AtomicAccess::ReadModifyWrite, Order::Acquire),
    ] {
        let m = map_atomic(&sc, access).unwrap();
        assert_eq!(
            (m.order.order, m.order.scope),
            (order, Scope::Gpu),
            "{access:?}"
        );
        assert_eq!(m.fence, Some(MemOrder::new(Order::Sc, Scope::Gpu)));
    }
}

#[test]
fn what_the_model_cannot_name_is_refused() {
    let half = r#"
define ptx_kernel void @k(ptr %p) {
  %x = load half, ptr %p, align 2
  %y = fadd half %x, %x
  store half %y, ptr %p, align 2
  ret void
}
"#;
    let e = lower(half, "k", &[]).unwrap_err();
    assert!(e.contains("half-precision arithmetic"), "{e}");
    // An approximate function (`__expf`) is refused by its name.
    let approximate = r#"
declare float @__nv_fast_expf(float)
define ptx_kernel void @k(ptr %p) {
  %x = load float, ptr %p, align 4
  %y = call float @__nv_fast_expf(float %x)
  store float %y, ptr %p, align 4
  ret void
}
"#;
    let e = lower(approximate, "k", &[]).unwrap_err();
    assert!(e.contains("`__nv_fast_expf`"), "{e}");
    let asm = r#"
define ptx_kernel void @k() {
  call void asm sideeffect "membar.proxy;", ""()
  ret void
}
"#;
    let e = lower(asm, "k", &[]).unwrap_err();
    assert!(e.contains("inline PTX"), "{e}");
    let e = lower(SWAP, "swap", &[]).unwrap_err();
    assert!(e.contains("--arg arg1=VALUE"), "{e}");
    let e = lower(SWAP, "nope", &[]).unwrap_err();
    assert!(e.contains("swap"), "{e}");
    // A float copied is its bits.
    let copy = r#"
define ptx_kernel void @k(ptr %p) {
  %x = load float, ptr %p, align 4
  %q = getelementptr inbounds float, ptr %p, i64 1
  store float %x, ptr %q, align 4
  store float 1.500000e+00, ptr %p, align 4
  ret void
}
"#;
    let p = lower(copy, "k", &[]).unwrap();
    let mem = run(&p);
    assert_eq!(mem[&("arg0".to_string(), 0)], i64::from(1.5f32.to_bits()));
}

#[test]
fn assert_and_trap_are_failures() {
    let ll = r#"
@.str = private unnamed_addr constant [6 x i8] c"x > 0\00", align 1
define ptx_kernel void @k() {
  call void @__assertfail(ptr @.str, ptr @.str, i32 1, ptr @.str, i64 1)
  call void asm sideeffect "trap;", ""()
  ret void
}
declare void @__assertfail(ptr, ptr, i32, ptr, i64)
"#;
    let p = lower(ll, "k", &[]).unwrap();
    let messages: Vec<&str> = p
        .code
        .iter()
        .filter_map(|i| match &i.op {
            Op::Assert { message, .. } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        messages,
        ["device assertion `x > 0` failed", "__trap() was called"]
    );
}

const INLINE_PTX: &str = r#"
@_ZZ1kE1s = internal addrspace(3) global [2 x i32] undef, align 4

define ptx_kernel void @k(ptr %p, ptr %q, i64 %x, i64 %y) {
  %a = call i32 asm sideeffect "ld.global.acquire.gpu.b32 $0, [$1];", "=r,l,~{memory}"(ptr %p)
  call void asm sideeffect "st.release.sys.global.u32 [$1], $0;", "r,l"(i32 %a, ptr %p)
  %b = call i64 asm sideeffect "atom.cas.acquire.gpu.b64 $0,[$1],$2,$3;", "=l,l,l,l,~{memory}"(ptr %q, i64 %x, i64 %y)
  call void asm sideeffect "red.release.cta.global.add.u32 [$0], $1;", "l,r"(ptr %p, i32 2)
  call void asm sideeffect "{ fence.acq_rel.sys;\0A\09membar.cta; }", "~{memory}"()
  %c = call i32 asm sideeffect "ld.global.cg.u32 {$0}, [$1+4];", "=r,l"(ptr %p)
  %d = call i32 asm sideeffect "ld.volatile.u32 $0, [$1];", "=r,l"(ptr addrspacecast (ptr addrspace(3) @_ZZ1kE1s to ptr))
  call void asm sideeffect "nanosleep.u32 $0;", "r"(i32 100)
  %l = call i32 asm "mov.u32 $0, %laneid;", "=r"()
  %s = call { i64, i64 } asm "mov.b64 $0, $2;\0A mov.b64 $1, $3;", "=l,=l,l,l"(i64 %x, i64 %y)
  %s0 = extractvalue { i64, i64 } %s, 0
  %s1 = extractvalue { i64, i64 } %s, 1
  %r = call i64 asm "{ .reg .b64 t; .reg .pred p; mov.b64 t, $1; mov.pred p, 1; selp.b64 $0, t, 3, p; }", "=l,l"(i64 %s1)
  store i64 %s0, ptr %q
  %q1 = getelementptr inbounds i64, ptr %q, i64 1
  store i64 %r, ptr %q1
  ret void
}
"#;

#[test]
fn inline_ptx_gets_its_orders_scopes_and_widths() {
    let p = lower(INLINE_PTX, "k", &[("arg2", 5), ("arg3", 7)]).unwrap();
    assert_eq!(
        memory_ops(&p),
        [
            "load Acquire Gpu",
            "store Release Sys",
            "Cas Acquire Gpu",
            "Add Release Cta red",
            "fence AcqRel Sys",
            "fence Sc Cta",
            // A cache operator is a hint: a weak load.
            "load Weak Cta",
            "load Volatile Sys",
            "backoff",
            "store Weak Cta",
            "store Weak Cta",
        ]
    );
    // `[$1+4]` is the next 32-bit element; the CAS made arg1 64-bit.
    let offset = p.code.iter().find_map(|i| match &i.op {
        Op::Load { access, .. } if access.order == Order::Weak => access.loc.index.clone(),
        _ => None,
    });
    assert!(matches!(offset, Some(Expr::Const(1))), "{offset:?}");
    assert_eq!(p.vars[1].ty, Type::U64);
    let mem = run(&p);
    assert_eq!(mem[&("arg1".to_string(), 0)], 5, "the first output");
    assert_eq!(mem[&("arg1".to_string(), 1)], 7, "through a .reg");
}

/// libcu++'s shape: `__isLocal(p)` guards a fallback that the model
/// cannot name; for a buffer it is false, and the fallback is left out.
#[test]
fn the_local_memory_fallback_of_a_buffer_is_left_out() {
    let ll = r#"
define ptx_kernel void @k(ptr %p) {
entry:
  %l = call i1 @llvm.nvvm.isspacep.local(ptr %p)
  br i1 %l, label %local, label %global
local:
  %s = call { ptr, ptr } asm "mov.b64 $0, $2;", "=l,=l,l,l"(ptr %p, ptr %p)
  %b = load i8, ptr %p
  br label %done
global:
  %v = call i32 asm sideeffect "ld.relaxed.gpu.b32 $0,[$1];", "=r,l,~{memory}"(ptr %p)
  br label %done
done:
  %r = phi i32 [ 0, %local ], [ %v, %global ]
  store i32 %r, ptr %p
  ret void
}
declare i1 @llvm.nvvm.isspacep.local(ptr)
"#;
    let p = lower(ll, "k", &[]).unwrap();
    assert_eq!(memory_ops(&p), ["load Relaxed Gpu", "store Weak Cta"]);
    assert_eq!(p.vars[0].ty, Type::U32, "the dead i8 load sets no width");
}

#[test]
fn inline_ptx_outside_the_model_is_refused_in_its_words() {
    let one = |body: &str| {
        let ll = format!(
            "@_ZZ1kE1s = internal addrspace(3) global [2 x i32] undef, align 4\n\
             define ptx_kernel void @k(ptr %p) {{\n{body}\n  ret void\n}}\n"
        );
        lower(&ll, "k", &[]).unwrap_err()
    };
    for (body, says) in [
        (
            r#"  call void asm sideeffect "mbarrier.init.shared.b64 [$0], $1;", "l,r"(ptr %p, i32 1)"#,
            "mbarrier",
        ),
        (
            r#"  %t = call i32 asm sideeffect "mov.u32 $0, %smid;", "=r"()"#,
            "where the hardware runs a thread is not modelled",
        ),
        (
            r#"  %t = call i32 asm sideeffect "ld.global.nc.u32 $0, [$1];", "=r,l"(ptr %p)"#,
            "`.nc`",
        ),
        (
            r#"  %t = call { i32, i32 } asm sideeffect "ld.volatile.v2.u32 {$0, $1}, [$2];", "=r,=r,l"(ptr %p)"#,
            "`.v2`",
        ),
        (
            r#"  %t = call i32 asm sideeffect "ld.acquire.global.u32 $0, [$1];", "=r,l"(ptr %p)"#,
            "needs a scope",
        ),
        (
            r#"  call void asm sideeffect "fence.acquire.gpu;", ""()"#,
            "fence.sc and fence.acq_rel",
        ),
        (
            r#"  %t = call i32 asm sideeffect "ld.shared.u32 $0, [$1];", "=r,l"(ptr %p)"#,
            "shared-window",
        ),
        (
            r#"  %t = call i32 asm sideeffect "ld.global.u32 $0, [$1];", "=r,l"(ptr addrspacecast (ptr addrspace(3) @_ZZ1kE1s to ptr))"#,
            "undefined in PTX",
        ),
        (
            r#"  %t = call i32 asm sideeffect "ld.u32 $0, [$1];", "=r,l"(i64 0)"#,
            "as integers",
        ),
        (
            r#"  %t = call i64 asm sideeffect "ld.relaxed.gpu.u64 $0, [$1];", "=l,l"(ptr %p)
  %u = load i32, ptr %p"#,
            "64-bit and 32-bit",
        ),
        (
            r#"  call void asm sideeffect "@p st.u32 [$0], $1;", "l,r"(ptr %p, i32 1)"#,
            "predicated",
        ),
        (
            r#"  %t = call i32 asm sideeffect "atom.add.f32 $0, [$1], $2;", "=r,l,r"(ptr %p, i32 1)"#,
            "floating-point",
        ),
    ] {
        let e = one(body);
        assert!(e.contains(says), "{body}: {e}");
    }
}

/// Ginkgo's shape: `cvta.to.shared` makes a pointer into `__shared__`
/// memory a 32-bit window address (through a `.reg` and `cvt`), and a
/// later asm's `.shared` access at that integer is followed back to the
/// element; a pure asm of moves whose result nobody reads is left out.
#[test]
fn shared_window_addresses_are_followed_back() {
    let ll = r#"
@_ZZ1kE1s = internal addrspace(3) global [2 x i32] undef, align 4
define ptx_kernel void @k(ptr %out) {
  %e = getelementptr inbounds i32, ptr addrspacecast (ptr addrspace(3) @_ZZ1kE1s to ptr), i64 1
  %a = call i32 asm "{{ .reg .u64 r; cvta.to.shared.u64 r, $1; cvt.u32.u64 $0, r; }}", "=r,l"(ptr %e)
  call void asm sideeffect "st.release.cta.shared.s32 [$0], $1;", "r,r,~{memory}"(i32 %a, i32 5)
  %v = call i32 asm sideeffect "ld.acquire.cta.shared.s32 $0, [$1];", "=r,r,~{memory}"(i32 %a)
  store i32 %v, ptr %out
  %o1 = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %a, ptr %o1
  %dead = call i64 asm "{ .reg .u32 s; mov.u32 s, %reserved_smem_offset_1; cvt.u64.u32 $0, s; }", "=l"()
  ret void
}
"#;
    let p = lower(ll, "k", &[]).unwrap();
    assert_eq!(
        memory_ops(&p),
        [
            "store Release Cta",
            "load Acquire Cta",
            "store Weak Cta",
            "store Weak Cta"
        ]
    );
    let mem = run(&p);
    let s = |i| mem.get(&("s".to_string(), i)).copied();
    assert_eq!(
        (s(0), s(1)),
        (None, Some(5)),
        "element 1 of the shared array"
    );
    assert_eq!(mem[&("arg0".to_string(), 0)], 5);
    let window = mem[&("arg0".to_string(), 1)];
    assert!(
        window > 0 && window < 1 << 32,
        "a 32-bit window address: {window:#x}"
    );
    // Any other use of a window address, or one of another space, is refused.
    let one = |body: &str| {
        let ll = format!(
            "@_ZZ1kE1s = internal addrspace(3) global [2 x i32] undef, align 4\n\
             define ptx_kernel void @k(ptr %p) {{\n\
               %a = call i32 asm \"cvta.to.shared.u32 $0, $1;\", \"=r,l\"(ptr addrspacecast (ptr addrspace(3) @_ZZ1kE1s to ptr))\n\
               {body}\n  ret void\n}}\n"
        );
        lower(&ll, "k", &[]).unwrap_err()
    };
    for (body, says) in [
        (
            r#"%t = call i32 asm sideeffect "ld.u32 $0, [$1];", "=r,r"(i32 %a)"#,
            "undefined outside .shared",
        ),
        (
            r#"%b = add i32 %a, 4
  %t = call i32 asm sideeffect "ld.shared.u32 $0, [$1];", "=r,r"(i32 %b)"#,
            "as integers",
        ),
        (
            r#"%b = call i32 asm sideeffect "cvta.to.shared.u32 $0, $1;", "=r,l"(ptr %p)"#,
            "not into a __shared__ variable",
        ),
        (
            r#"%b = call i64 asm sideeffect "cvta.shared.u64 $0, $1;", "=l,r"(i32 %a)"#,
            "made generic again",
        ),
        (
            r#"%b = call i64 asm sideeffect "cvta.to.global.u64 $0, $1;", "=l,l"(ptr %p)"#,
            "other than .shared",
        ),
    ] {
        let e = one(body);
        assert!(e.contains(says), "{body}: {e}");
    }
}

#[test]
fn min_max_and_abs_are_expressions() {
    let ll = r#"
define ptx_kernel void @k(ptr %out, i32 %x) {
  %a = call i32 @__nv_max(i32 %x, i32 3)
  store i32 %a, ptr %out
  %b = call i32 @llvm.umin.i32(i32 %x, i32 3)
  %p1 = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %b, ptr %p1
  %c = call i32 @__nv_abs(i32 %x)
  %p2 = getelementptr inbounds i32, ptr %out, i64 2
  store i32 %c, ptr %p2
  %d = ashr i32 %x, 1
  %p3 = getelementptr inbounds i32, ptr %out, i64 3
  store i32 %d, ptr %p3
  ret void
}
declare i32 @__nv_max(i32, i32)
declare i32 @__nv_abs(i32)
declare i32 @llvm.umin.i32(i32, i32)
"#;
    let p = lower(ll, "k", &[("arg1", -5)]).unwrap();
    let mem = run(&p);
    let at = |i| mem[&("arg0".to_string(), i)];
    // Values are held zero-extended: -5 as 0xFFFFFFFB.
    assert_eq!(at(0), 3, "signed max(-5, 3)");
    assert_eq!(at(1), 3, "unsigned min(0xFFFFFFFB, 3)");
    assert_eq!(at(2), 5);
    assert_eq!(at(3), i64::from(-3i32 as u32), "ashr keeps the sign");
}

/// IR with a line dropped, or a line's last operand cut off: refused or
/// lowered, never a panic.
#[test]
fn mutated_ir_never_panics() {
    for text in [SWAP, ADDRESSES, ATOMICS] {
        let lines: Vec<&str> = text.lines().collect();
        for i in 0..lines.len() {
            let mut dropped = lines.clone();
            dropped.remove(i);
            let mut cut = lines.clone();
            let short;
            if let Some(at) = lines[i].rfind(", ") {
                short = lines[i][..at].to_string();
                cut[i] = &short;
            }
            for variant in [dropped.join("\n"), cut.join("\n")] {
                let Ok(module) = crate::llvm::parse(&variant) else {
                    continue;
                };
                for kernel in ["k", "swap"] {
                    let args = [("arg1".to_string(), 1)];
                    let request = KernelRequest {
                        kernel,
                        launch: Launch::default(),
                        args: &args[..module
                            .kernel_functions()
                            .next()
                            .map_or(0, |f| usize::from(f.params.len() > 1))],
                        call: None,
                    };
                    let _ = lower_kernel(
                        &module,
                        Path::new("/nonexistent/k.cu"),
                        "",
                        &UserFiles::default(),
                        &request,
                    );
                }
            }
        }
    }
}

#[test]
fn local_statics_are_named_as_written() {
    use super::memory::display_name;
    assert_eq!(display_name("_ZZ9spin_lockPiS_iE1s"), "s");
    assert_eq!(display_name("_ZZ4kernE5flags"), "flags");
    assert_eq!(display_name("counter"), "counter");
    assert_eq!(
        display_name("_ZN5desul4Impl30CUDA_SPACE_ATOMIC_LOCKS_DEVICEE"),
        "desul::Impl::CUDA_SPACE_ATOMIC_LOCKS_DEVICE"
    );
    assert_eq!(display_name("_ZN3fooIiE1xE"), "_ZN3fooIiE1xE");
    assert_eq!(
        display_name("_Z9bwd_queueILi2EjE"),
        "bwd_queue<2, unsigned int>"
    );
    assert_eq!(display_name("_Z1vILin3EE"), "v<-3>");
    assert_eq!(display_name("_Z1vI3FooE"), "_Z1vI3FooE");
    assert_eq!(display_name("_ZZ1kE9é"), "_ZZ1kE9é");
}

/// `ceil((float)gridDim.x / n)` of launch constants is computed as IEEE
/// single precision rounds it; the same on a loaded value is refused.
#[test]
fn float_arithmetic_on_launch_constants_is_computed() {
    let ceil = r#"
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare float @__nv_ceilf(float)
define ptx_kernel void @k(ptr %p, i32 %n) {
  %g = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %f = uitofp i32 %g to float
  %d = uitofp i32 %n to float
  %q = fdiv float %f, %d
  %c = call float @__nv_ceilf(float %q)
  %i = fptosi float %c to i32
  store i32 %i, ptr %p, align 4
  %t = fptosi float %q to i32
  %r = getelementptr inbounds i32, ptr %p, i64 1
  store i32 %t, ptr %r, align 4
  ret void
}
"#;
    // Launch::default() has 2 blocks: ceil(2 / 3) = 1, trunc(2 / 3) = 0.
    let mem = run(&lower(ceil, "k", &[("arg1", 3)]).unwrap());
    assert_eq!(mem[&("arg0".to_string(), 0)], 1);
    assert_eq!(mem[&("arg0".to_string(), 1)], 0);
    // Constants fold through the run-time operations: the sum is a
    // constant, and an out-of-range conversion saturates as at run time.
    let constants = r#"
define ptx_kernel void @k(ptr %p) {
  %s = fadd float 1.000000e+00, 2.000000e+00
  store float %s, ptr %p, align 4
  %i = fptosi double 1.000000e+300 to i32
  %q = getelementptr inbounds i32, ptr %p, i64 1
  store i32 %i, ptr %q, align 4
  ret void
}
"#;
    let p = lower(constants, "k", &[]).unwrap();
    let folded = p.code.iter().any(|i| {
        matches!(&i.op, Op::Assign { value: Expr::Const(c), .. } if *c == i64::from(3f32.to_bits()))
    });
    assert!(folded, "{:?}", p.code);
    let mem = run(&p);
    assert_eq!(mem[&("arg0".to_string(), 0)], i64::from(3f32.to_bits()));
    assert_eq!(mem[&("arg0".to_string(), 1)], i64::from(i32::MAX));
}

/// Floats known only at run time (loaded from a buffer) computed as IEEE
/// single and double precision round them: `fadd` of `a` and `b`,
/// `a * a + b` contracted into one rounding and not, comparisons with
/// NaN, saturating conversions, the math intrinsics.
#[test]
fn float_arithmetic_at_run_time_is_ieee() {
    let ll = r#"
declare float @llvm.sqrt.f32(float)
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.fmuladd.f32(float, float, float)
declare float @__nv_fminf(float, float)
declare float @__nv_fmul_rn(float, float)
define ptx_kernel void @k(ptr %p, ptr %q) {
  %a = load float, ptr %p, align 4
  %pb = getelementptr inbounds float, ptr %p, i64 1
  %b = load float, ptr %pb, align 4
  %pn = getelementptr inbounds float, ptr %p, i64 2
  %nan = load float, ptr %pn, align 4
  %s = fadd float %a, %b
  store float %s, ptr %q, align 4
  %m = fmul contract float %a, %a
  %f = fadd contract float %m, %b
  %q1 = getelementptr inbounds float, ptr %q, i64 1
  store float %f, ptr %q1, align 4
  %n = fmul float %a, %a
  %g = fadd float %n, %b
  %q2 = getelementptr inbounds float, ptr %q, i64 2
  store float %g, ptr %q2, align 4
  %lt = fcmp olt float %b, %a
  %un = fcmp uno float %a, %nan
  %eq = fcmp oeq float %nan, %nan
  %c1 = zext i1 %lt to i32
  %c2 = zext i1 %un to i32
  %c3 = zext i1 %eq to i32
  %c12 = shl i32 %c2, 1
  %c123 = shl i32 %c3, 2
  %cs = or i32 %c1, %c12
  %cc = or i32 %cs, %c123
  %q3 = getelementptr inbounds i32, ptr %q, i64 3
  store i32 %cc, ptr %q3, align 4
  %big = fmul float %a, 1.000000e+20
  %sat = fptosi float %big to i32
  %q4 = getelementptr inbounds i32, ptr %q, i64 4
  store i32 %sat, ptr %q4, align 4
  %neg = fneg float %a
  %d = fpext float %neg to double
  %d3 = fdiv double %d, 3.000000e+00
  %t = fptrunc double %d3 to float
  %q5 = getelementptr inbounds float, ptr %q, i64 5
  store float %t, ptr %q5, align 4
  %sq = call float @llvm.sqrt.f32(float %a)
  %q6 = getelementptr inbounds float, ptr %q, i64 6
  store float %sq, ptr %q6, align 4
  %fm = call float @llvm.fma.f32(float %a, float %a, float %b)
  %q7 = getelementptr inbounds float, ptr %q, i64 7
  store float %fm, ptr %q7, align 4
  %mn = call float @__nv_fminf(float %nan, float %b)
  %q8 = getelementptr inbounds float, ptr %q, i64 8
  store float %mn, ptr %q8, align 4
  %r = call float @__nv_fmul_rn(float %a, float %a)
  %rb = fadd contract float %r, %b
  %q9 = getelementptr inbounds float, ptr %q, i64 9
  store float %rb, ptr %q9, align 4
  %i = fptoui float %b to i32
  %back = uitofp i32 %i to float
  %q10 = getelementptr inbounds float, ptr %q, i64 10
  store float %back, ptr %q10, align 4
  ret void
}
"#;
    let a = 1.0 + 2f32.powi(-12);
    let b = -(1.0 + 2f32.powi(-11));
    let bits = |x: f32| i64::from(x.to_bits());
    let args = [
        ("arg0", 3),
        ("arg0[0]", bits(a)),
        ("arg0[1]", bits(b)),
        ("arg0[2]", bits(f32::NAN)),
        ("arg1", 11),
    ];
    let p = lower(ll, "k", &args).unwrap();
    let mem = run(&p);
    let at = |i| mem[&("arg1".to_string(), i)];
    assert_eq!(at(0), bits(a + b));
    assert_eq!(at(1), bits(a.mul_add(a, b)), "contracted: one rounding");
    assert_eq!(at(1), bits(2f32.powi(-24)));
    assert_eq!(at(2), bits(a * a + b), "not contracted: two roundings");
    assert_eq!(at(2), 0);
    assert_eq!(at(3), 0b011, "olt holds, uno holds, oeq of NaN does not");
    assert_eq!(at(4), i64::from(i32::MAX), "saturated");
    assert_eq!(at(5), bits((f64::from(-a) / 3.0) as f32));
    assert_eq!(at(6), bits(a.sqrt()));
    assert_eq!(at(7), bits(a.mul_add(a, b)));
    assert_eq!(at(8), bits(b), "fminf ignores a NaN");
    assert_eq!(at(9), 0, "__fmul_rn is never contracted");
    assert_eq!(at(10), 0, "fptoui of a negative float saturates to 0");
}

/// Contraction as LLVM's NVPTX back end does it (this IR through
/// `llc-19 -O3 -mcpu=sm_90` gives these `fma.rn.f32`): a product is fused
/// whatever its other uses; of two products the one with fewer uses left,
/// the block visited last to first; `c - b * c` is `fma(-b, c, c)`.
#[test]
fn contraction_fuses_the_product_with_fewer_uses() {
    let ll = r#"
define ptx_kernel void @k(ptr %p, ptr %q) {
  %a = load float, ptr %p, align 4
  %pb = getelementptr inbounds float, ptr %p, i64 1
  %b = load float, ptr %pb, align 4
  %pc = getelementptr inbounds float, ptr %p, i64 2
  %c = load float, ptr %pc, align 4
  %m = fmul contract float %a, %b
  store float %m, ptr %q, align 4
  %n = fmul contract float %b, %c
  %t = fadd contract float %m, %n
  %q1 = getelementptr inbounds float, ptr %q, i64 1
  store float %t, ptr %q1, align 4
  %u = fsub contract float %c, %n
  %q2 = getelementptr inbounds float, ptr %q, i64 2
  store float %u, ptr %q2, align 4
  ret void
}
"#;
    let (a, b, c) = (1.389_892_6_f32, 1.432_861_3_f32, -1.607_666_f32);
    let bits = |x: f32| i64::from(x.to_bits());
    let args = [
        ("arg0[0]", bits(a)),
        ("arg0[1]", bits(b)),
        ("arg0[2]", bits(c)),
    ];
    let mem = run(&lower(ll, "k", &args).unwrap());
    let at = |i| mem[&("arg1".to_string(), i)];
    assert_eq!(at(0), bits(a * b), "the product itself is rounded");
    // %m and %n have two uses each, but the fsub, visited first, fuses
    // %n and leaves it one: the fadd then fuses %n.
    assert_eq!(at(1), bits(b.mul_add(c, a * b)));
    assert_ne!(at(1), bits(a.mul_add(b, b * c)));
    assert_ne!(at(1), bits(a * b + b * c));
    assert_eq!(at(2), bits((-b).mul_add(c, c)));
    assert_ne!(at(2), bits(c - b * c));
}

/// A struct passed by value is a read-only buffer: its words are given
/// with `NAME[i]=V`, its pointer fields are buffers of their own, and a
/// write into it is refused.
#[test]
fn struct_by_value_is_a_read_only_buffer() {
    let byval = r#"
%struct.S = type { i32, ptr }
define ptx_kernel void @k(ptr byval(%struct.S) align 8 %s) {
  %n = load i32, ptr %s, align 8
  %f = getelementptr inbounds i8, ptr %s, i64 8
  %q = load ptr, ptr %f, align 8
  store i32 %n, ptr %q, align 4
  ret void
}
"#;
    let p = lower(byval, "k", &[("arg0[0]", 7)]).unwrap();
    let s = p
        .vars
        .iter()
        .find(|v| v.name == "arg0")
        .expect("the struct's buffer");
    // Two words of the 16-byte struct at least (its size rounded to words).
    assert!(s.len >= 4 && s.init[0] == 7, "{s:?}");
    // The store goes through the pointer field at byte 8, a buffer of its own.
    assert!(run(&p).contains_key(&("arg0->@8".to_string(), 0)));
    let write = r#"
%struct.S = type { i32, i32 }
define ptx_kernel void @k(ptr byval(%struct.S) align 4 %s) {
  store i32 1, ptr %s, align 4
  ret void
}
"#;
    let e = lower(write, "k", &[]).unwrap_err();
    assert!(e.contains("passed by value"), "{e}");
}

/// stdgpu's `_value == nullptr`: a pointer the model follows (a buffer, a
/// struct argument's field) is never null; comparing two pointers, or a
/// pointer it cannot follow, is refused.
#[test]
fn followed_pointers_are_not_null() {
    let ll = r#"
%struct.S = type { i32, ptr }
define ptx_kernel void @k(ptr byval(%struct.S) align 8 %s, ptr %out) {
  %f = getelementptr inbounds i8, ptr %s, i64 8
  %q = load ptr, ptr %f, align 8
  %z = icmp eq ptr %q, null
  %nz = icmp ne ptr null, %out
  %a = zext i1 %z to i32
  %b = zext i1 %nz to i32
  store i32 %a, ptr %out, align 4
  %o1 = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %b, ptr %o1, align 4
  ret void
}
"#;
    let mem = run(&lower(ll, "k", &[]).unwrap());
    assert_eq!(mem[&("arg1".to_string(), 0)], 0, "a field is not null");
    assert_eq!(mem[&("arg1".to_string(), 1)], 1, "a buffer is not null");
    let two = ll.replace("icmp eq ptr %q, null", "icmp eq ptr %q, %out");
    let e = lower(&two, "k", &[]).unwrap_err();
    assert!(e.contains("comparison of pointers"), "{e}");
    let ordered = ll.replace("icmp eq ptr %q, null", "icmp ult ptr %q, null");
    let e = lower(&ordered, "k", &[]).unwrap_err();
    assert!(e.contains("with null"), "{e}");
}

/// A `__constant__` pointer the host sets is a buffer of its own, and an
/// address is its variable's base (aligned far beyond any hash mask) plus
/// the byte offset: desul's `(ptr >> 2) & 0x1FFFF` of element 0 is 0.
#[test]
fn pointer_variables_and_addresses() {
    let ll = r#"
@locks = addrspace(4) externally_initialized global ptr null, align 8
define ptx_kernel void @k(ptr %p) {
  %q = getelementptr inbounds i32, ptr %p, i64 3
  %a = ptrtoint ptr %q to i64
  %s = lshr i64 %a, 2
  %h = and i64 %s, 131071
  %t = load ptr, ptr addrspacecast (ptr addrspace(4) @locks to ptr), align 8
  %l = getelementptr inbounds i32, ptr %t, i64 %h
  store i32 1, ptr %l, align 4
  ret void
}
"#;
    let p = lower(ll, "k", &[]).unwrap();
    let mem = run(&p);
    assert_eq!(mem.get(&("locks".to_string(), 3)), Some(&1), "{mem:?}");
    let len = |p: &Program| p.vars.iter().find(|v| v.name == "locks").map(|v| v.len);
    assert_eq!(len(&p), Some(4), "the default length");
    // `--arg locks=8` sizes its buffer; a name that is neither a parameter
    // nor a pointer variable, or a length out of range, is refused.
    assert_eq!(len(&lower(ll, "k", &[("locks", 8)]).unwrap()), Some(8));
    let e = lower(ll, "k", &[("lock", 8)]).unwrap_err();
    assert!(
        e.contains("pointer variables") && e.contains("locks"),
        "{e}"
    );
    assert!(lower(ll, "k", &[("locks", 0)]).is_err());
    let back = r#"
define ptx_kernel void @k(i64 %a) {
  %p = inttoptr i64 %a to ptr
  store i32 1, ptr %p, align 4
  ret void
}
"#;
    let e = lower(back, "k", &[("arg0", 0)]).unwrap_err();
    assert!(e.contains("cannot follow"), "{e}");
    // A constant expression's address (cusync's `shared_storage != nullptr`
    // of a `__shared__` array) is the variable's: never 0.
    let constant = r#"
@s = internal addrspace(3) global [3 x i32] undef, align 4
define ptx_kernel void @k(ptr %p) {
  %z = icmp eq i64 ptrtoint (ptr addrspacecast (ptr addrspace(3) @s to ptr) to i64), 0
  %v = zext i1 %z to i32
  store i32 %v, ptr %p, align 4
  %a = trunc i64 ptrtoint (ptr getelementptr inbounds (i8, ptr addrspacecast (ptr addrspace(3) @s to ptr), i64 8) to i64) to i32
  %q = getelementptr inbounds i32, ptr %p, i64 1
  store i32 %a, ptr %q, align 4
  ret void
}
"#;
    let mem = run(&lower(constant, "k", &[]).unwrap());
    assert_eq!(mem[&("arg0".to_string(), 0)], 0, "{mem:?}");
    assert_eq!(
        mem[&("arg0".to_string(), 1)],
        8,
        "the low bits: the byte offset"
    );
}

/// A `__device__` object of struct type is the 32-bit words of its layout:
/// a field is the word at its byte offset; one holding a pointer is refused.
#[test]
fn struct_globals_are_their_words() {
    let ll = r#"
%struct.Q = type { [2 x i32], [2 x i32], i32 }
@q = addrspace(1) externally_initialized global %struct.Q zeroinitializer, align 4
define ptx_kernel void @k() {
  %c = getelementptr inbounds i8, ptr addrspacecast (ptr addrspace(1) @q to ptr), i64 16
  %old = atomicrmw add ptr %c, i32 1 seq_cst, align 4
  ret void
}
"#;
    let p = lower(ll, "k", &[]).unwrap();
    let q = p.vars.iter().find(|v| v.name == "q").expect("the object");
    assert_eq!(q.len, 5);
    let with_pointer = ll.replace("{ [2 x i32], [2 x i32], i32 }", "{ [2 x i32], ptr, i32 }");
    let e = lower(&with_pointer, "k", &[]).unwrap_err();
    assert!(e.contains("structs of those"), "{e}");
}

/// An `alloca` SROA left (its address taken, or indexed at run time) is
/// the thread's own values: constant offsets name one slot each, a
/// run-time offset chooses among the array's slots after an assertion
/// that it is inside.
#[test]
fn private_memory_is_the_threads_own_values() {
    let ll = r#"
define ptx_kernel void @k(ptr %out, i32 %n) {
  %a = alloca [4 x i32], align 4
  store i32 7, ptr %a, align 4
  %o3 = getelementptr inbounds i32, ptr %out, i64 3
  store i32 %n, ptr %o3, align 4
  %i = load i32, ptr %o3, align 4
  %idx = sext i32 %i to i64
  %ei = getelementptr inbounds [4 x i32], ptr %a, i64 0, i64 %idx
  store i32 9, ptr %ei, align 4
  %v0 = load i32, ptr %a, align 4
  %e2 = getelementptr inbounds [4 x i32], ptr %a, i64 0, i64 2
  %v2 = load i32, ptr %e2, align 4
  %vi = load i32, ptr %ei, align 4
  store i32 %v0, ptr %out, align 4
  %o1 = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %v2, ptr %o1, align 4
  %o2 = getelementptr inbounds i32, ptr %out, i64 2
  store i32 %vi, ptr %o2, align 4
  ret void
}
"#;
    let out = |i: i64| {
        let p = lower(ll, "k", &[("arg1", i)]).unwrap();
        // Only the buffer is memory: the array's words are locals.
        assert_eq!(p.vars.len(), 1, "{:?}", p.vars);
        let mem = run(&p);
        let failed = mem.keys().any(|(v, _)| v == "<assert>");
        let at = |k| mem.get(&("arg0".to_string(), k)).copied().unwrap_or(0);
        (at(0), at(1), at(2), failed)
    };
    assert_eq!(out(2), (7, 9, 9, false));
    assert_eq!(out(0), (9, 0, 9, false));
    assert!(out(4).3, "an index past the end fails its assertion");
    assert!(out(-1).3, "a negative index fails its assertion");
    // One word read as two halves is refused, not guessed.
    let halves = r#"
define ptx_kernel void @k(ptr %out) {
  %a = alloca i64, align 8
  store i64 1, ptr %a, align 8
  %h = getelementptr inbounds i8, ptr %a, i64 4
  %v = load i32, ptr %h, align 4
  store i32 %v, ptr %out, align 4
  ret void
}
"#;
    let e = lower(halves, "k", &[]).unwrap_err();
    assert!(e.contains("two widths"), "{e}");
    // A constant offset outside the array fails where it runs.
    let past = r#"
define ptx_kernel void @k() {
  %a = alloca [2 x i32], align 4
  %e = getelementptr inbounds [2 x i32], ptr %a, i64 0, i64 2
  store i32 1, ptr %e, align 4
  ret void
}
"#;
    let p = lower(past, "k", &[]).unwrap();
    assert!(run(&p).keys().any(|(v, _)| v == "<assert>"));
    let atomic = r#"
define ptx_kernel void @k() {
  %a = alloca i32, align 4
  %v = atomicrmw add ptr %a, i32 1 syncscope("device") monotonic, align 4
  ret void
}
"#;
    let e = lower(atomic, "k", &[]).unwrap_err();
    assert!(e.contains("private") || e.contains("local"), "{e}");
}

/// Time stands still: every read of a clock gives 0, so a back-off that
/// reads it only spins.
#[test]
fn clocks_read_as_one_instant() {
    let ll = r#"
declare i64 @llvm.nvvm.read.ptx.sreg.clock64()
define ptx_kernel void @k(ptr %out) {
  %t = call i64 asm sideeffect "mov.u64 $0, %globaltimer;", "=l"()
  %c = call i64 @llvm.nvvm.read.ptx.sreg.clock64()
  %s = add i64 %t, %c
  %s1 = add i64 %s, 5
  store i64 %s1, ptr %out, align 8
  ret void
}
"#;
    let p = lower(ll, "k", &[]).unwrap();
    assert_eq!(run(&p)[&("arg0".to_string(), 0)], 5);
}

/// `__popc`, `__ffs`, `__clz` (libdevice's, and LLVM's `ctpop`, `cttz`,
/// `ctlz`) are expressions over the operand's bits, equal to CUDA's.
#[test]
fn bit_counts_are_cudas() {
    let cases: &[(&str, &str, i64, i64)] = &[
        ("i32 @__nv_popc(i32)", "i32", 0xF0F0, 8),
        ("i32 @__nv_popc(i32)", "i32", -1, 32),
        ("i32 @__nv_popcll(i64)", "i64", -1, 64),
        ("i32 @__nv_ffs(i32)", "i32", 8, 4),
        ("i32 @__nv_ffs(i32)", "i32", 0, 0),
        ("i32 @__nv_ffs(i32)", "i32", i64::from(i32::MIN), 32),
        ("i32 @__nv_ffsll(i64)", "i64", 1 << 40, 41),
        ("i32 @__nv_clz(i32)", "i32", 1, 31),
        ("i32 @__nv_clz(i32)", "i32", 0, 32),
        ("i32 @__nv_clz(i32)", "i32", -1, 0),
        ("i32 @__nv_clzll(i64)", "i64", 1, 63),
        ("i32 @llvm.cttz.i32(i32)", "i32", 8, 3),
        ("i32 @llvm.cttz.i32(i32)", "i32", 0, 32),
        ("i32 @llvm.ctlz.i32(i32)", "i32", 0x00FF_0000, 8),
        ("i32 @llvm.ctpop.i32(i32)", "i32", 7, 3),
    ];
    for &(decl, ty, x, want) in cases {
        let name = decl.split(['@', '(']).nth(1).unwrap();
        let ll = format!(
            "declare {decl}\n\
             define ptx_kernel void @k(ptr %out, ptr %in) {{\n\
               store {ty} {x}, ptr %in\n\
               %x = load {ty}, ptr %in\n\
               %c = call i32 @{name}({ty} %x)\n\
               store i32 %c, ptr %out\n\
               ret void\n\
             }}\n"
        );
        let p = lower(&ll, "k", &[]).unwrap();
        assert_eq!(run(&p)[&("arg0".to_string(), 0)], want, "{name}({x})");
    }
}

/// The first violation the checker finds in `p` (deadlock questions only,
/// no reductions), or `None` when it verifies.
fn first_violation(p: &Program) -> Option<crate::model::ViolationKind> {
    let model = crate::model::Model::new(p, crate::model::ModelOptions::default());
    let settings = crate::check::Settings {
        scheduler: crate::model::Scheduler::Deadlock,
        reductions: crate::reduce::Reductions::NONE,
        limits: crate::explore::Options::default(),
    };
    let result = crate::check::check(&model, &settings);
    assert!(result.limit.is_none(), "the search ends");
    result.findings.first().map(|f| f.kind)
}

/// A struct copy (`auto dp = *_dp;`) is word copies, plain loads then
/// plain stores: from a buffer into private memory (read back from the
/// copy), and between buffers at the width their other accesses fix. A
/// size known only at run time is refused.
#[test]
fn memcpy_is_word_copies() {
    let ll = r#"
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
define ptx_kernel void @k(ptr %in, ptr %out, ptr %dst) {
  %s = alloca [4 x i32], align 16
  store i32 5, ptr %in, align 4
  %in2 = getelementptr inbounds i32, ptr %in, i64 2
  store i32 7, ptr %in2, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %s, ptr align 16 %in, i64 16, i1 false)
  %e2 = getelementptr inbounds i32, ptr %s, i64 2
  %v = load i32, ptr %e2, align 4
  store i32 %v, ptr %out, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 4 %in, i64 12, i1 false)
  ret void
}
"#;
    let p = lower(ll, "k", &[]).unwrap();
    let mem = run(&p);
    assert_eq!(mem.get(&("arg1".to_string(), 0)), Some(&7), "{mem:?}");
    assert_eq!(mem.get(&("arg2".to_string(), 0)), Some(&5), "{mem:?}");
    assert_eq!(mem.get(&("arg2".to_string(), 2)), Some(&7), "{mem:?}");
    // 12 bytes of 32-bit words: three stores into `arg2`.
    let dst = p.vars.iter().position(|v| v.name == "arg2").unwrap() as u32;
    let copies = p
        .code
        .iter()
        .filter(|i| matches!(&i.op, Op::Store { access, .. } if access.loc.var == dst))
        .count();
    assert_eq!(copies, 3, "{:?}", memory_ops(&p));
    let weak = p.code.iter().all(|i| match &i.op {
        Op::Load { access, .. } | Op::Store { access, .. } => access.order == Order::Weak,
        _ => true,
    });
    assert!(weak, "a struct copy is plain accesses");
    let sized = ll.replace("i64 12, i1 false", "i64 %n, i1 false").replace(
        "define ptx_kernel void @k(ptr %in, ptr %out, ptr %dst) {",
        "define ptx_kernel void @k(ptr %in, ptr %out, ptr %dst, i64 %m) {\n  %n = add i64 %m, 0",
    );
    let e = lower(&sized, "k", &[("arg3", 12)]).unwrap_err();
    assert!(e.contains("known only at run time"), "{e}");
}

/// A struct by value holding an array of pointers (vLLM's `RankSignals`)
/// is host-set memory: each pointer word points to a buffer of its own,
/// and a store through the word chosen at run time lands in that
/// word's buffer; its address is `values::address`'s.
#[test]
fn pointer_words_of_a_struct_argument() {
    let ll = r#"
%struct.S = type { [4 x ptr] }
define ptx_kernel void @k(ptr byval(%struct.S) align 16 %sg, ptr %sel) {
  %i = load i32, ptr %sel, align 4
  %ii = zext i32 %i to i64
  %w = getelementptr inbounds [4 x ptr], ptr %sg, i64 0, i64 %ii
  %p = load ptr, ptr %w, align 8
  %q = getelementptr inbounds i32, ptr %p, i64 1
  store i32 9, ptr %q, align 4
  ret void
}
"#;
    for i in 0..4i64 {
        let p = lower(ll, "k", &[("arg1[0]", i)]).unwrap();
        let mem = run(&p);
        let name = format!("arg0->@{}", 8 * i);
        assert_eq!(mem.get(&(name.clone(), 1)), Some(&9), "{i}: {mem:?}");
        let written = mem.keys().filter(|(v, _)| v.starts_with("arg0->")).count();
        assert_eq!(written, 1, "{mem:?}");
        let sg = p.vars.iter().find(|v| v.name == "arg0").unwrap();
        let target = p.vars.iter().position(|v| v.name == name).unwrap() as u64;
        assert_eq!(sg.init[i as usize], (target + 1) << 32);
    }
    // A compare-and-swap through the word: its old value and success are
    // the case's that ran, for each word.
    let cas = r#"
%struct.S = type { [4 x ptr] }
define ptx_kernel void @k(ptr byval(%struct.S) align 16 %sg, ptr %sel) {
  %i = load i32, ptr %sel, align 4
  %ii = zext i32 %i to i64
  %w = getelementptr inbounds [4 x ptr], ptr %sg, i64 0, i64 %ii
  %p = load ptr, ptr %w, align 8
  %r = cmpxchg ptr %p, i32 0, i32 5 seq_cst seq_cst, align 4
  %ok = extractvalue { i32, i1 } %r, 1
  %okz = zext i1 %ok to i32
  %o1 = getelementptr inbounds i32, ptr %sel, i64 1
  store i32 %okz, ptr %o1, align 4
  ret void
}
"#;
    for i in 0..4i64 {
        let word = format!("arg0->@{}[0]", 8 * i);
        let taken = lower(cas, "k", &[("arg1[0]", i), (word.as_str(), 7)]).unwrap();
        assert_eq!(run(&taken).get(&("arg1".to_string(), 1)), Some(&0), "{i}");
        let free = lower(cas, "k", &[("arg1[0]", i)]).unwrap();
        assert_eq!(run(&free).get(&("arg1".to_string(), 1)), Some(&1), "{i}");
    }
    // `--arg arg0->@8=N` sizes a word's buffer.
    let p = lower(ll, "k", &[("arg0->@8", 10)]).unwrap();
    let len = p.vars.iter().find(|v| v.name == "arg0->@8").map(|v| v.len);
    assert_eq!(len, Some(10));
}

/// A pointer a thread stores is its address, and a load of it follows it
/// back; a NULL or never-set word fails where it is dereferenced; a
/// pointer into private memory is not stored.
#[test]
fn stored_pointers_are_followed() {
    let ll = r#"
@slot = addrspace(1) global [2 x ptr] zeroinitializer, align 8
define ptx_kernel void @k(ptr %buf, ptr %sel) {
  %t = getelementptr inbounds i32, ptr %buf, i64 3
  store ptr %t, ptr addrspacecast (ptr addrspace(1) @slot to ptr), align 8
  %i = load i32, ptr %sel, align 4
  %ii = zext i32 %i to i64
  %w = getelementptr inbounds [2 x ptr], ptr addrspacecast (ptr addrspace(1) @slot to ptr), i64 0, i64 %ii
  %p = load ptr, ptr %w, align 8
  store i32 4, ptr %p, align 4
  ret void
}
"#;
    let p = lower(ll, "k", &[]).unwrap();
    let mem = run(&p);
    assert_eq!(mem.get(&("arg0".to_string(), 3)), Some(&4), "{mem:?}");
    assert!(!mem.keys().any(|(v, _)| v == "<assert>"), "{mem:?}");
    // Word 1 was never set: NULL, dereferenced.
    let p = lower(ll, "k", &[("arg1[0]", 1)]).unwrap();
    let mem = run(&p);
    assert!(mem.keys().any(|(v, _)| v == "<assert>"), "{mem:?}");
    assert!(!mem.contains_key(&("arg0".to_string(), 3)), "{mem:?}");
    let private = ll.replace(
        "%t = getelementptr inbounds i32, ptr %buf, i64 3",
        "%t = alloca i32, align 4",
    );
    let e = lower(&private, "k", &[]).unwrap_err();
    assert!(e.contains("private memory"), "{e}");
}

/// Two blocks signal each other through an array of pointers the host
/// set (`int **bufs`): block b sets the flag `*bufs[b]` and waits on
/// `*bufs[1 - b]`. The deadlock when both set `*bufs[0]`, and the race
/// when both write `bufs[0][0]`, are visible only through the pointers:
/// each word points to a buffer of its own, and equal words to one.
#[test]
fn races_and_deadlocks_through_pointer_words() {
    let signal = |mine: &str| {
        format!(
            r#"
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
define ptx_kernel void @k(ptr %bufs) {{
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bi = zext i32 %b to i64
  %o = xor i64 %bi, 1
  %zero = and i64 %bi, 0
  %ms = getelementptr inbounds ptr, ptr %bufs, i64 {mine}
  %m = load ptr, ptr %ms, align 8
  store volatile i32 1, ptr %m, align 4
  %os = getelementptr inbounds ptr, ptr %bufs, i64 %o
  %other = load ptr, ptr %os, align 8
  br label %wait
wait:
  %v = load volatile i32, ptr %other, align 4
  %z = icmp eq i32 %v, 0
  br i1 %z, label %wait, label %done
done:
  ret void
}}
"#
        )
    };
    use crate::model::ViolationKind;
    let p = lower(&signal("%bi"), "k", &[("arg0", 2)]).unwrap();
    assert_eq!(first_violation(&p), None);
    let p = lower(&signal("%zero"), "k", &[("arg0", 2)]).unwrap();
    assert_eq!(first_violation(&p), Some(ViolationKind::Deadlock));
    let write = |which: &str| {
        format!(
            r#"
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
define ptx_kernel void @k(ptr %bufs) {{
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bi = zext i32 %b to i64
  %zero = and i64 %bi, 0
  %s = getelementptr inbounds ptr, ptr %bufs, i64 {which}
  %p = load ptr, ptr %s, align 8
  store i32 %b, ptr %p, align 4
  ret void
}}
"#
        )
    };
    let p = lower(&write("%bi"), "k", &[("arg0", 2)]).unwrap();
    assert_eq!(first_violation(&p), None);
    // Plain stores of two blocks to one word: a race at no common scope.
    let p = lower(&write("%zero"), "k", &[("arg0", 2)]).unwrap();
    assert_eq!(first_violation(&p), Some(ViolationKind::HeterogeneousRace));
}

/// warpcore's table: a struct passed by value whose fields are read at
/// different widths is laid out by its declared fields, each read at its
/// own width as the launch's value (`--arg NAME.FIELD=V`, else 0).
#[test]
fn struct_fields_of_different_widths_are_read_at_their_own() {
    let ll = r#"
%struct.T = type { ptr, i64, i8, i32 }
define ptx_kernel void @k(ptr byval(%struct.T) align 8 %t, ptr %in) {
  %c = getelementptr inbounds i8, ptr %t, i64 8
  %cap = load i64, ptr %c, align 8
  %f = getelementptr inbounds i8, ptr %t, i64 16
  %flag = load i8, ptr %f, align 8
  %s = getelementptr inbounds i8, ptr %t, i64 20
  %seed = load i32, ptr %s, align 4
  %p = load ptr, ptr %t, align 8
  %third = udiv i64 %cap, 3
  %v = trunc i64 %third to i32
  %w = zext i8 %flag to i32
  %x = add i32 %v, %w
  %y = add i32 %x, %seed
  store i32 %y, ptr %p, align 4
  ret void
}
"#;
    let args = [("arg0.@8", 30), ("arg0.@16", 1), ("arg0.@20", 100)];
    let mem = run(&lower(ll, "k", &args).unwrap());
    assert_eq!(mem[&("arg0->@0".to_string(), 0)], 10 + 1 + 100);
    // Unset fields are 0, as in the zero-initialised struct.
    let mem = run(&lower(ll, "k", &args[..1]).unwrap());
    assert_eq!(mem[&("arg0->@0".to_string(), 0)], 10);
    // A capacity at or above 2^63 divides unsigned.
    let mem = run(&lower(ll, "k", &[("arg0.@8", -1)]).unwrap());
    assert_eq!(mem[&("arg0->@0".to_string(), 0)], 0x5555_5555);
    let refused = |from: &str, to: &str, args: &[(&str, i64)]| {
        lower(&ll.replace(from, to), "k", args).unwrap_err()
    };
    let e = refused("%seed = load i32, ptr %s", "%seed = load i16, ptr %s", &[]);
    assert!(
        e.contains("declared 32 bits wide and read as 16 bits"),
        "{e}"
    );
    let e = refused("%seed = load i32, ptr %s", "%seed = load i64, ptr %s", &[]);
    assert!(e.contains("spans its field"), "{e}");
    let e = refused("i8, ptr %t, i64 16", "i8, ptr %t, i64 17", &[]);
    assert!(e.contains("padding"), "{e}");
    let e = refused(
        "%f = getelementptr inbounds i8, ptr %t, i64 16",
        "%i = load i64, ptr %in, align 8\n  %f = getelementptr inbounds i8, ptr %t, i64 %i",
        &[],
    );
    assert!(e.contains("run-time offset"), "{e}");
    let e = lower(ll, "k", &[("arg0[2]", 1)]).unwrap_err();
    assert!(
        e.contains("has no elements") && e.contains("arg0.@8"),
        "{e}"
    );
    let e = lower(ll, "k", &[("arg0.seed", 1)]).unwrap_err();
    assert!(
        e.contains("reads such a field") && e.contains("arg0.@20"),
        "{e}"
    );
    // Read at one width, the struct stays one buffer of that width.
    let one = ll
        .replace("load i64, ptr %c", "load i32, ptr %c")
        .replace("%third = udiv i64 %cap, 3", "%third = udiv i32 %cap, 3")
        .replace("trunc i64 %third to i32", "add i32 %third, 0")
        .replace("load i8, ptr %f", "load i32, ptr %f")
        .replace("zext i8 %flag to i32", "add i32 %flag, 0");
    let mem = run(&lower(&one, "k", &[("arg0[2]", 30), ("arg0[4]", 1)]).unwrap());
    assert_eq!(mem[&("arg0->@0".to_string(), 0)], 10 + 1);
}

/// `udiv`/`urem` of `i64` divide the bits unsigned (PTX div.u64 and
/// rem.u64), at and above 2^63 too.
#[test]
fn unsigned_64_bit_division_reads_the_bits_unsigned() {
    let ll = r#"
define ptx_kernel void @k(ptr %in, ptr %out) {
  %a = load i64, ptr %in, align 8
  %bp = getelementptr inbounds i64, ptr %in, i64 1
  %b = load i64, ptr %bp, align 8
  %q = udiv i64 %a, %b
  %r = urem i64 %a, %b
  store i64 %q, ptr %out, align 8
  %o1 = getelementptr inbounds i64, ptr %out, i64 1
  store i64 %r, ptr %o1, align 8
  ret void
}
"#;
    let p = lower(ll, "k", &[("arg0[0]", -1), ("arg0[1]", 10)]).unwrap();
    let mem = run(&p);
    assert_eq!(mem[&("arg1".to_string(), 0)] as u64, u64::MAX / 10);
    assert_eq!(mem[&("arg1".to_string(), 1)], 5, "signed: -1 % 10 = -1");
}

/// Two kernels launched together: a producer that writes its block's
/// word and a consumer that reads it, with a `__shared__` variable each.
const CO_LAUNCH: &str = r#"
@_ZZ4prodE1s = internal addrspace(3) global i32 undef, align 4

define ptx_kernel void @prod(ptr %out, i32 %v) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %x = zext i32 %b to i64
  %e = getelementptr inbounds i32, ptr %out, i64 %x
  store i32 %v, ptr %e
  store i32 1, ptr addrspacecast (ptr addrspace(3) @_ZZ4prodE1s to ptr)
  ret void
}

define ptx_kernel void @cons(ptr %in, ptr %res) {
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %x = zext i32 %b to i64
  %e = getelementptr inbounds i32, ptr %in, i64 %x
  %w = load i32, ptr %e
  store i32 %n, ptr %res
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
"#;

#[test]
fn kernels_launched_together_share_named_buffers_and_number_their_own_blocks() {
    use crate::ir::{BinOp, Builtin, CallArg};
    let module = crate::llvm::parse(CO_LAUNCH).expect("the test IR parses");
    let name = |n: &str| CallArg::Name(n.to_string());
    let prod_call = [name("data"), CallArg::Int(7)];
    let cons_call = [name("data"), name("out")];
    let args = [("data".to_string(), 3)];
    let launch = |blocks| Launch {
        blocks,
        ..Launch::default()
    };
    let requests = [
        KernelRequest {
            kernel: "prod",
            launch: launch(3),
            args: &args,
            call: Some(&prod_call),
        },
        KernelRequest {
            kernel: "cons",
            launch: launch(2),
            args: &args,
            call: Some(&cons_call),
        },
    ];
    let lowered = super::lower_kernels(
        &module,
        Path::new("/nonexistent/k.cu"),
        "",
        &UserFiles::default(),
        &requests,
    );
    let Ok(p) = lowered else {
        panic!("lowered");
    };
    assert_eq!(p.launch.blocks, 5);
    let parts: Vec<(&str, u32, u32)> = p
        .launches
        .iter()
        .map(|l| (l.kernel.as_str(), l.first_block, l.blocks))
        .collect();
    assert_eq!(parts, [("prod", 0, 3), ("cons", 3, 2)]);
    // One buffer `data` of 3 elements for both; `out` the consumer's own.
    let named: Vec<(&str, u32)> = p.vars.iter().map(|v| (v.name.as_str(), v.len)).collect();
    assert_eq!(
        named.iter().filter(|(n, _)| *n == "data").count(),
        1,
        "{named:?}"
    );
    assert!(
        named.contains(&("data", 3)) && named.contains(&("out", 4)),
        "{named:?}"
    );
    // A `__shared__` variable has a copy for every block of the program.
    let s = p.vars.iter().find(|v| v.name == "s").unwrap();
    assert_eq!(s.init.len(), 5);
    // Blocks below 3 run the producer, the others the consumer.
    let Op::Branch {
        cond,
        then_pc,
        else_pc,
    } = &p.code[0].op
    else {
        panic!("a dispatch first: {:?}", p.code[0].op);
    };
    assert!(matches!(cond, Expr::Binary(BinOp::Lt, a, b)
        if matches!(**a, Expr::Builtin(Builtin::BlockIdx)) && matches!(**b, Expr::Const(3))));
    assert_eq!(*then_pc, 1);
    // The consumer's blockIdx.x counts from its first block, its
    // gridDim.x is its own grid.
    let consumer = &p.code[*else_pc as usize..];
    let offset = consumer.iter().any(|i| {
        matches!(&i.op, Op::Assign { value: Expr::Binary(BinOp::Sub, a, b), .. }
        if matches!(**a, Expr::Builtin(Builtin::BlockIdx)) && matches!(**b, Expr::Const(3)))
    });
    let grid = consumer.iter().any(|i| {
        matches!(
            &i.op,
            Op::Store {
                value: Expr::Const(2),
                ..
            }
        )
    });
    assert!(offset && grid, "{consumer:?}");
    // The literal is recorded as the producer's (a parameter without
    // source text is `argN`).
    assert!(
        p.params.contains(&("prod.arg1".to_string(), 7)),
        "{:?}",
        p.params
    );
}

/// Kernels launched together: a struct field set by `--arg NAME.FIELD=V`
/// may be one that only another kernel reads, and one that no kernel
/// reads is refused.
#[test]
fn a_struct_field_argument_is_checked_against_every_launched_kernel() {
    let ll = r#"
%struct.T = type { i64, i8, i32 }
define ptx_kernel void @ka(ptr byval(%struct.T) align 8 %t, ptr %out) {
  %cap = load i64, ptr %t, align 8
  %f = getelementptr inbounds i8, ptr %t, i64 8
  %flag = load i8, ptr %f, align 8
  %v = trunc i64 %cap to i32
  %w = zext i8 %flag to i32
  %x = add i32 %v, %w
  store i32 %x, ptr %out, align 4
  ret void
}
define ptx_kernel void @kb(ptr byval(%struct.T) align 8 %t, ptr %out) {
  %f = getelementptr inbounds i8, ptr %t, i64 8
  %flag = load i8, ptr %f, align 8
  %s = getelementptr inbounds i8, ptr %t, i64 12
  %seed = load i32, ptr %s, align 4
  %w = zext i8 %flag to i32
  %x = add i32 %seed, %w
  %o = getelementptr inbounds i32, ptr %out, i64 1
  store i32 %x, ptr %o, align 4
  ret void
}
"#;
    let module = crate::llvm::parse(ll).expect("the test IR parses");
    let call = [
        crate::ir::CallArg::Name("cfg".into()),
        crate::ir::CallArg::Name("out".into()),
    ];
    let co_launch = |field: &str| {
        let args = vec![(field.to_string(), 5), ("out".to_string(), 2)];
        let request = |kernel| KernelRequest {
            kernel,
            launch: Launch::default(),
            args: &args,
            call: Some(&call),
        };
        lower_kernels(
            &module,
            Path::new("/nonexistent/k.cu"),
            "",
            &UserFiles::default(),
            &[request("ka"), request("kb")],
        )
        .map(|_| ())
        .map_err(refusal_message)
    };
    // Read by kb only, set once for both launches.
    assert_eq!(co_launch("cfg.@12"), Ok(()));
    assert_eq!(co_launch("cfg.@0"), Ok(()));
    let e = co_launch("cfg.@4").unwrap_err();
    assert!(
        e.contains("no launched kernel reads such a field")
            && e.contains("cfg.@0")
            && e.contains("cfg.@12"),
        "{e}"
    );
}
