//! Parser tests: trees, spans and located errors of small texts, and
//! fuzzing for panics.

use super::*;
use crate::diag::Source;

const EXAMPLE: &str = r#"//! name: spin_lock
//! family: mutex
//! source: seed 003, Algorithm 1 (spin lock with atomicExch)
//! description: test-and-set spin lock; unlock is an atomic exchange
//! expect: verified
//! expect --blocks 3: verified

param iters = 1;

global u32 lock = 0;

fn lock_acquire() {
    while (atomicExch(lock, 1) != 0) {
        backoff();
    }
    __threadfence();
}

fn lock_release() {
    __threadfence();
    atomicExch(lock, 0);
}

harness master {
    check mutual_exclusion;
    for (u32 i = 0; i < iters; i++) {
        lock_acquire();
        critical { }
        lock_release();
    }
}
"#;

fn ok(text: &str) -> SpecFile {
    match parse_file(text) {
        Ok(file) => file,
        Err(d) => panic!("{}", d.render(&Source::new("t", text), false)),
    }
}

/// The message and `line:col` of the error for `text`.
fn err(text: &str) -> (String, (u32, u32)) {
    let d = parse_file(text).expect_err("should fail");
    (d.message, Source::new("t", text).line_col(d.span.start))
}

fn assert_err(text: &str, message: &str, at: (u32, u32)) {
    let (msg, pos) = err(text);
    assert!(msg.contains(message), "message `{msg}` lacks `{message}`");
    assert_eq!(pos, at, "position of `{msg}`");
    let rendered = parse_file(text)
        .unwrap_err()
        .render(&Source::new("t", text), false);
    assert!(
        rendered.contains(&format!("t:{}:{}", at.0, at.1)),
        "{rendered}"
    );
}

/// An S-expression rendering, to compare tree shapes compactly.
fn sx(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Name(n) => n.name.clone(),
        ExprKind::Index(n, i) => format!("{}[{}]", n.name, sx(i)),
        ExprKind::Unary(op, a) => format!("({op:?} {})", sx(a)),
        ExprKind::Binary(op, a, b) => format!("({} {} {})", op.symbol(), sx(a), sx(b)),
        ExprKind::Ternary(c, a, b) => format!("(? {} {} {})", sx(c), sx(a), sx(b)),
        ExprKind::Call {
            name,
            qualifiers,
            args,
        } => {
            let mut s = name.name.clone();
            for q in qualifiers {
                s += &format!(".{}", q.name);
            }
            let args: Vec<String> = args.iter().map(sx).collect();
            format!("{s}({})", args.join(", "))
        }
    }
}

/// The expression of `param p = TEXT;`.
fn expr(text: &str) -> Expr {
    match ok(&format!("param p = {text};")).items.remove(0) {
        Item::Param(p) => p.default,
        other => panic!("{other:?}"),
    }
}

fn body(file: &SpecFile, i: usize) -> &Block {
    match &file.items[i] {
        Item::Fn(f) => &f.body,
        Item::Harness(h) => &h.body,
        other => panic!("{other:?}"),
    }
}

#[test]
fn example_from_reference() {
    let src = Source::new("t", EXAMPLE);
    let file = ok(EXAMPLE);
    assert_eq!(file.header.name.as_deref(), Some("spin_lock"));
    assert_eq!(file.header.expects.len(), 2);
    assert_eq!(file.header.expects[1].args, vec!["--blocks", "3"]);
    assert_eq!(file.items.len(), 5);
    let Item::Param(p) = &file.items[0] else {
        panic!()
    };
    assert_eq!(
        (p.name.name.as_str(), sx(&p.default)),
        ("iters", "1".into())
    );
    assert_eq!(src.snippet(p.span), "param iters = 1;");
    let Item::Var(v) = &file.items[1] else {
        panic!()
    };
    assert_eq!(
        (v.storage, v.volatile, v.ty, v.name.name.as_str()),
        (Storage::Global, false, Type::U32, "lock")
    );
    assert!(matches!(&v.init, Init::Expr(e) if sx(e) == "0"));
    let Item::Fn(f) = &file.items[2] else {
        panic!()
    };
    assert_eq!(
        (f.name.name.as_str(), f.params.len(), f.ret),
        ("lock_acquire", 0, None)
    );
    assert!(
        src.snippet(f.span).starts_with("fn lock_acquire() {")
            && src.snippet(f.span).ends_with('}')
    );
    let StmtKind::While { cond, body } = &f.body.stmts[0].kind else {
        panic!()
    };
    assert_eq!(sx(cond), "(!= atomicExch(lock, 1) 0)");
    assert_eq!(src.snippet(body.stmts[0].span), "backoff();");
    assert_eq!(src.snippet(f.body.stmts[1].span), "__threadfence();");

    let Item::Harness(h) = &file.items[4] else {
        panic!()
    };
    assert_eq!(h.participants, Participants::Master);
    assert!(
        matches!(h.checks[..], [Check::MutualExclusion(s)] if src.snippet(s) == "check mutual_exclusion;")
    );
    assert_eq!(h.body.stmts.len(), 1);
    let StmtKind::For {
        init: Some(init),
        cond: Some(cond),
        step: Some(step),
        body,
    } = &h.body.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(src.snippet(init.span), "u32 i = 0");
    assert!(
        matches!(&init.kind, StmtKind::Let { ty: Type::U32, name, init: Some(_) } if name.name == "i")
    );
    assert_eq!(sx(cond), "(< i iters)");
    assert_eq!(src.snippet(step.span), "i++");
    let StmtKind::Assign {
        place,
        op: AssignOp::Add,
        value,
    } = &step.kind
    else {
        panic!()
    };
    assert_eq!(
        (src.snippet(place.span), sx(value), src.snippet(value.span)),
        ("i", "1".into(), "++")
    );
    assert_eq!(body.stmts.len(), 3);
    assert!(
        matches!(&body.stmts[1].kind, StmtKind::Critical { weight: None, body } if body.stmts.is_empty())
    );
    assert_eq!(src.snippet(body.stmts[1].span), "critical { }");
    assert!(src.snippet(h.span).starts_with("harness master {"));
}

#[test]
fn precedence_follows_c() {
    assert_eq!(sx(&expr("1 + 2 * 3 - 4")), "(- (+ 1 (* 2 3)) 4)");
    assert_eq!(
        sx(&expr("a || b && c | d ^ e & f == g < h << i + j % k")),
        "(|| a (&& b (| c (^ d (& e (== f (< g (<< h (+ i (% j k))))))))))"
    );
    assert_eq!(sx(&expr("a ? b : c ? d : e")), "(? a b (? c d e))");
    assert_eq!(
        sx(&expr("x == 0 || y > 1 ? -a[i] : ~!b")),
        "(? (|| (== x 0) (> y 1)) (Neg a[i]) (BitNot (Not b)))"
    );
    assert_eq!(sx(&expr("(1 + 2) * 3")), "(* (+ 1 2) 3)");
    assert_eq!(sx(&expr("a - b - c")), "(- (- a b) c)");
    assert_eq!(sx(&expr("0x10 >> 2 != true")), "(!= (>> 16 2) true)");
}

#[test]
fn expression_spans() {
    let text = "param p = (a + b) * f(c, d[1]);";
    let e = expr("(a + b) * f(c, d[1])");
    let src = Source::new("t", text);
    assert_eq!(src.snippet(e.span), "(a + b) * f(c, d[1])");
    let ExprKind::Binary(_, l, r) = &e.kind else {
        panic!()
    };
    assert_eq!(
        (src.snippet(l.span), src.snippet(r.span)),
        ("(a + b)", "f(c, d[1])")
    );
    let ExprKind::Call { args, .. } = &r.kind else {
        panic!()
    };
    assert_eq!(src.snippet(args[1].span), "d[1]");
}

#[test]
fn qualified_calls_and_launch_constants() {
    let text = "param p = atomicExch.release.gpu(x, 0) + fence.sc.cta() + load.acquire.gpu(x) \
                + store.volatile(x, 1) + atomicCAS_block(l, 0, 1) + blockIdx.x + threadIdx + __activemask();";
    let Item::Param(p) = &ok(text).items[0] else {
        panic!()
    };
    let src = Source::new("t", text);
    let mut e = &p.default;
    let mut parts = Vec::new();
    while let ExprKind::Binary(BinOp::Add, l, r) = &e.kind {
        parts.push(r.as_ref());
        e = l;
    }
    parts.push(e);
    parts.reverse();
    let shown: Vec<String> = parts.iter().map(|e| sx(e)).collect();
    assert_eq!(
        shown,
        [
            "atomicExch.release.gpu(x, 0)",
            "fence.sc.cta()",
            "load.acquire.gpu(x)",
            "store.volatile(x, 1)",
            "atomicCAS_block(l, 0, 1)",
            "blockIdx",
            "threadIdx",
            "__activemask()"
        ]
    );
    let ExprKind::Call {
        name, qualifiers, ..
    } = &parts[0].kind
    else {
        panic!()
    };
    assert_eq!(src.snippet(name.span), "atomicExch");
    assert_eq!(src.snippet(qualifiers[1].span), "gpu");
    assert_eq!(src.snippet(parts[5].span), "blockIdx.x");
    let ExprKind::Name(n) = &parts[5].kind else {
        panic!()
    };
    assert_eq!(src.snippet(n.span), "blockIdx");
}

#[test]
fn declarations() {
    let text = "param n = 4;\nglobal volatile i32 flag = 0;\nglobal u32 flags[nblocks] = 0;\n\
                global u32 turn[4] = {0, 1, 2, 3,};\nshared unsigned done;\nlocal int sense = 1;\n\
                fn f(u32 a, bool b) -> u8 { return a; }\nharness all { }\n";
    let file = ok(text);
    let src = Source::new("t", text);
    let Item::Var(flag) = &file.items[1] else {
        panic!()
    };
    assert!(flag.volatile && flag.ty == Type::I32 && flag.size.is_none());
    let Item::Var(flags) = &file.items[2] else {
        panic!()
    };
    assert_eq!(flags.size.as_ref().map(sx).as_deref(), Some("nblocks"));
    let Item::Var(turn) = &file.items[3] else {
        panic!()
    };
    let Init::List(values, span) = &turn.init else {
        panic!()
    };
    assert_eq!((values.len(), src.snippet(*span)), (4, "{0, 1, 2, 3,}"));
    assert_eq!(
        src.snippet(turn.span),
        "global u32 turn[4] = {0, 1, 2, 3,};"
    );
    let Item::Var(done) = &file.items[4] else {
        panic!()
    };
    assert!(
        matches!(done.init, Init::Zero) && done.storage == Storage::Shared && done.ty == Type::U32
    );
    let Item::Var(sense) = &file.items[5] else {
        panic!()
    };
    assert!(sense.storage == Storage::Local && sense.ty == Type::I32);
    let Item::Fn(f) = &file.items[6] else {
        panic!()
    };
    let params: Vec<(Type, &str)> = f
        .params
        .iter()
        .map(|p| (p.ty, p.name.name.as_str()))
        .collect();
    assert_eq!(
        (params, f.ret),
        (vec![(Type::U32, "a"), (Type::Bool, "b")], Some(Type::U8))
    );
    assert!(matches!(&f.body.stmts[0].kind, StmtKind::Return(Some(e)) if sx(e) == "a"));
    let Item::Harness(h) = &file.items[7] else {
        panic!()
    };
    assert_eq!(h.participants, Participants::All);
}

/// One statement of each kind, in the body of `f`.
const STATEMENTS: &str = r#"fn f() {
    u32 x = 1; bool y;
    x = 2; x += 3; a[x] -= 4; x--;
    if (x) { } else if (y) { progress; } else { break; }
    while (true) { continue; }
    for (;;) { }
    for (x = 0; x < 3; x += 1) { }
    return;
    assert(x == 1);
    assert(x, "bad \"x\"");
    critical(2) { phase { { } } }
    __syncwarp(mask);
}"#;

/// The statements of [`STATEMENTS`] and its source, for spans.
fn statements() -> (Vec<Stmt>, Source) {
    let file = ok(STATEMENTS);
    (body(&file, 0).stmts.clone(), Source::new("t", STATEMENTS))
}

#[test]
fn statement_spans_declarations_and_assignments() {
    let (stmts, src) = statements();
    let snippets: Vec<&str> = stmts.iter().map(|s| src.snippet(s.span)).collect();
    assert_eq!(
        &snippets[..6],
        &[
            "u32 x = 1;",
            "bool y;",
            "x = 2;",
            "x += 3;",
            "a[x] -= 4;",
            "x--;"
        ]
    );
    assert!(snippets[6].starts_with("if (x) { }") && snippets[6].ends_with("{ break; }"));
    assert!(matches!(
        &stmts[1].kind,
        StmtKind::Let {
            ty: Type::Bool,
            init: None,
            ..
        }
    ));
    let StmtKind::Assign {
        place,
        op: AssignOp::Sub,
        value,
    } = &stmts[4].kind
    else {
        panic!()
    };
    assert_eq!(
        (
            src.snippet(place.span),
            place.index.as_deref().map(sx),
            sx(value)
        ),
        ("a[x]", Some("x".into()), "4".into())
    );
    assert!(
        matches!(&stmts[5].kind, StmtKind::Assign { op: AssignOp::Sub, value, .. } if sx(value) == "1")
    );
}

#[test]
fn statement_control_flow() {
    let (stmts, src) = statements();
    let StmtKind::If {
        else_block: Some(else_block),
        ..
    } = &stmts[6].kind
    else {
        panic!()
    };
    let StmtKind::If {
        else_block: Some(last),
        then_block,
        ..
    } = &else_block.stmts[0].kind
    else {
        panic!()
    };
    assert!(matches!(then_block.stmts[0].kind, StmtKind::Progress));
    assert!(matches!(last.stmts[0].kind, StmtKind::Break));
    assert!(
        matches!(&stmts[7].kind, StmtKind::While { body, .. } if matches!(body.stmts[0].kind, StmtKind::Continue))
    );
    assert!(matches!(
        &stmts[8].kind,
        StmtKind::For {
            init: None,
            cond: None,
            step: None,
            ..
        }
    ));
    let StmtKind::For {
        init: Some(init),
        step: Some(step),
        ..
    } = &stmts[9].kind
    else {
        panic!()
    };
    assert!(matches!(
        init.kind,
        StmtKind::Assign {
            op: AssignOp::Set,
            ..
        }
    ));
    assert_eq!(src.snippet(step.span), "x += 1");
}

#[test]
fn statement_asserts_regions_and_calls() {
    let (stmts, _) = statements();
    assert!(matches!(stmts[10].kind, StmtKind::Return(None)));
    assert!(matches!(
        &stmts[11].kind,
        StmtKind::Assert { message: None, .. }
    ));
    assert!(
        matches!(&stmts[12].kind, StmtKind::Assert { message: Some(m), .. } if m == "bad \"x\"")
    );
    let StmtKind::Critical {
        weight: Some(w),
        body,
    } = &stmts[13].kind
    else {
        panic!()
    };
    assert_eq!(sx(w), "2");
    let StmtKind::Phase { body } = &body.stmts[0].kind else {
        panic!()
    };
    assert!(matches!(body.stmts[0].kind, StmtKind::Block(_)));
    assert!(matches!(&stmts[14].kind, StmtKind::Expr(e) if sx(e) == "__syncwarp(mask)"));
    assert_eq!(stmts.len(), 15);
}

#[test]
fn checks_anywhere_in_harness_top_block() {
    let file = ok(
        "harness all {\n x = 1;\n check barrier;\n phase { }\n check capacity(2);\n \
                   check invariant(lock <= 1);\n check mutual_exclusion;\n}",
    );
    let Item::Harness(h) = &file.items[0] else {
        panic!()
    };
    assert_eq!(h.body.stmts.len(), 2);
    let kinds: Vec<String> = h
        .checks
        .iter()
        .map(|c| match c {
            Check::MutualExclusion(_) => "me".to_string(),
            Check::Barrier(_) => "barrier".to_string(),
            Check::Capacity(e, _) => format!("cap {}", sx(e)),
            Check::Invariant(e, _) => format!("inv {}", sx(e)),
        })
        .collect();
    assert_eq!(kinds, ["barrier", "cap 2", "inv (<= lock 1)", "me"]);
}

#[test]
fn error_missing_closing_brace() {
    assert_err(
        "fn f() {\n    x = 1;\n",
        "expected `}`, found end of file",
        (1, 8),
    );
    assert_err(
        "fn f() {\n  if (x) {\n    y = 1;\n}\nfn g() { }\n",
        "expected `}`, found `fn`",
        (1, 8),
    );
    let d = parse_file("harness master {\n").unwrap_err();
    assert_eq!(d.label, "this `{` is never closed");
}

#[test]
fn error_missing_semicolon() {
    assert_err(
        "fn f() {\n    x = 1\n    y = 2;\n}",
        "expected `;`, found `y`",
        (2, 10),
    );
    assert_err(
        "param iters = 1\nglobal u32 x;",
        "expected `;`, found `global`",
        (1, 16),
    );
    assert_err(
        "fn f() {\n    return\n}",
        "expected `;`, found `}`",
        (2, 11),
    );
}

#[test]
fn error_garbage_after_expression() {
    assert_err(
        "fn f() {\n    x = a b;\n}",
        "expected `;`, found `b`",
        (2, 11),
    );
    assert_err("param p = (1 + 2) 3;", "expected `;`, found `3`", (1, 19));
}

#[test]
fn error_types() {
    assert_err("global foo x = 0;", "unknown type `foo`", (1, 8));
    assert_err(
        "fn f() {\n    uint x = 0;\n}",
        "unknown type `uint`",
        (2, 5),
    );
    assert_err("global uint64_t x = 0;", "unknown type `uint64_t`", (1, 8));
    let d = parse_file("fn f(long a) { }").unwrap_err();
    assert!(d
        .render(&Source::new("t", "fn f(long a) { }"), false)
        .contains("spelt `i64`"));
    ok("global u64 x = 0;\nfn f(i64 a) -> u64 { return a; }\nharness master { }");
    assert_err("u32 x = 0;", "expected an item", (1, 1));
}

#[test]
fn error_lexical() {
    assert_err(
        "param p = 1;\nglobal u32 x = 0 @ 1;",
        "unexpected character `@`",
        (2, 18),
    );
    assert_err(
        "fn f() {\n  assert(x, \"oops);\n}",
        "unterminated string",
        (2, 13),
    );
    assert_err(
        "param p = 1;\n  /* never\nclosed",
        "unterminated block comment",
        (2, 3),
    );
    assert_err(
        "param p = 99999999999999999999;",
        "integer literal `99999999999999999999` is too large",
        (1, 11),
    );
}

#[test]
fn error_else_without_if() {
    assert_err(
        "fn f() {\n    x = 1;\n    else { }\n}",
        "`else` without `if`",
        (3, 5),
    );
}

#[test]
fn error_missing_paren_in_call() {
    assert_err(
        "fn f() {\n    g(a, b;\n}",
        "expected `,` or `)`, found `;`",
        (2, 11),
    );
    assert_err(
        "fn f() {\n    while (atomicExch(lock, 1) != 0 {\n",
        "expected `)`, found `{`",
        (2, 37),
    );
}

#[test]
fn error_harness_and_check() {
    assert_err(
        "harness every { }",
        "expected `master` or `all` after `harness`, found `every`",
        (1, 9),
    );
    assert_err(
        "harness master {\n    check deadlock_freedom;\n}",
        "unknown property `deadlock_freedom`",
        (2, 11),
    );
    assert_err(
        "harness master {\n    check;\n}",
        "expected a property after `check`, found `;`",
        (2, 10),
    );
    assert_err(
        "fn f() {\n  check barrier;\n}",
        "`check` outside the harness",
        (2, 3),
    );
    assert_err(
        "harness all {\n  if (x) { check barrier; }\n}",
        "`check` outside the harness",
        (2, 12),
    );
}

#[test]
fn error_empty_array() {
    assert_err(
        "global u32 a[] = 0;",
        "expected an array size, found `]`",
        (1, 14),
    );
    assert_err(
        "fn f() {\n  x = a[];\n}",
        "expected an index, found `]`",
        (2, 9),
    );
    assert_err("global u32 a[2] = {};", "empty initializer list", (1, 19));
}

#[test]
fn designated_initializers() {
    let file = ok("global u32 flags[nblocks] = {[0] = 1, [nblocks - 1] = 2,};\nharness master { }");
    let Item::Var(flags) = &file.items[0] else {
        panic!()
    };
    let Init::Designated(entries, _) = &flags.init else {
        panic!("{:?}", flags.init)
    };
    let pairs: Vec<(String, String)> = entries
        .iter()
        .map(|d| (sx(&d.index), sx(&d.value)))
        .collect();
    assert_eq!(
        pairs,
        [
            ("0".into(), "1".into()),
            ("(- nblocks 1)".into(), "2".into())
        ]
    );
    assert_err(
        "global u32 a[2] = {[0] = 1, 2};",
        "either one value per element or `[index] = value`",
        (1, 29),
    );
    assert_err(
        "global u32 a[2] = {1, [1] = 2};",
        "either one value per element or `[index] = value`",
        (1, 23),
    );
    assert_err("global u32 a[2] = {[0] 1};", "expected `=`", (1, 24));
}

#[test]
fn error_launch_dimensions() {
    let (msg, at) = err("fn f() {\n    x = blockIdx.y;\n}");
    assert!(msg.contains("only .x exists"), "{msg}");
    assert_eq!(at, (2, 18));
    assert_err(
        "param p = threadIdx.z;",
        "`threadIdx.z` does not exist",
        (1, 21),
    );
    assert_err(
        "param p = blockDim.x;",
        "expected `(` after `blockDim.x`",
        (1, 21),
    );
}

#[test]
fn error_misc() {
    assert_err(
        "fn f() {\n  x + 1;\n}",
        "expression statement has no effect",
        (2, 3),
    );
    assert_err(
        "fn f() {\n  f() = 1;\n}",
        "cannot assign to this expression",
        (2, 3),
    );
    assert_err(
        "fn f() {\n  while x { }\n}",
        "expected `(` after `while`, found `x`",
        (2, 9),
    );
    assert_err(
        "fn f() {\n  if (x) y = 1;\n}",
        "expected `{`, found `y`",
        (2, 10),
    );
    assert_err(
        "fn f() {\n  global u32 x;\n}",
        "expected a statement, found `global`",
        (2, 3),
    );
    assert_err(
        "param while = 1;",
        "expected a parameter name, found `while`",
        (1, 7),
    );
    assert_err(
        "fn f() {\n  u32 a[4];\n}",
        "local arrays are not supported",
        (2, 8),
    );
    assert_err(
        "//! name: x\n//! bogus line\nparam p = 1;",
        "header line is not `key: value`",
        (2, 5),
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for open in ["(", "{", "!", "-", "a ? b : "] {
        let text = format!("fn f() {{ x = {}", open.repeat(5000));
        assert!(parse_file(&text).is_err());
    }
    let text = format!("fn f() {}", "{".repeat(5000));
    assert!(err(&text).0.contains("nested too deeply"));
}

// Random bytes, truncations and edits: tests/fuzz (every spec, through
// the lowering and the checker too).

#[test]
fn public_entry_point() {
    let file = crate::spec::parse(&Source::new("spin_lock.gsync", EXAMPLE)).unwrap();
    assert_eq!(file.items.len(), 5);
}

#[test]
fn misspelt_keywords_get_a_suggestion() {
    let hint = |text: &str| parse_file(text).unwrap_err().hint;
    let cases = [
        ("harnes master { }", "harness"),
        ("globl u32 x = 0;", "global"),
        ("harness master {\n    whle (true) { }\n}", "while"),
        ("harness master {\n    retrun;\n}", "return"),
        (
            "global u32 x = 0;\nharness master {\n    chek mutual_exclusion;\n}",
            "check",
        ),
    ];
    for (text, keyword) in cases {
        assert_eq!(
            hint(text).as_deref(),
            Some(format!("did you mean `{keyword}`?").as_str()),
            "{text}"
        );
    }
    // A name far from every keyword keeps the parser's own message, and a
    // statement that parses is not second-guessed.
    assert_ne!(
        hint("frobnicate master { }").as_deref(),
        Some("did you mean `harness`?")
    );
    ok("fn whle() { }\nharness master { whle(); }");
}
