//! The emitted CUDA computes what the model computes (issue 17, item 9).
//! Every operator is emitted for every mix of operand classes (32-bit
//! unsigned, 32-bit signed, 64-bit, literals), and random expression trees
//! over typed locals are emitted whole; the code is compiled on the host
//! with g++ together with `arith.h` (plain C++ as well as CUDA) under
//! UBSan, which aborts on any undefined operation (signed overflow, an
//! out-of-range shift, INT64_MIN / -1, a zero divisor), and run over edge
//! and random values. Each result must equal the model's; where the model
//! reports a runtime error (a zero divisor, a negative shift count) the
//! C++ must still be defined.
//!
//! Needs g++ (`.ci/run` installs it; under CI=true a missing g++ fails).

mod common;

use common::rng::Rng;
use common::*;
use gsync_check::cuda::emit::ARITH;
use gsync_check::cuda::expr::{self, Class, Code};
use gsync_check::ir::{eval_binary, eval_unary, Expr};
use gsync_check::ir::{BinOp, Type, UnOp};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

fn main() -> std::process::ExitCode {
    let missing = match Command::new("g++").arg("--version").output() {
        Ok(out) if out.status.success() => None,
        _ => Some("g++ was not found (apt-get install g++, as .ci/run does)".to_string()),
    };
    run_trials(vec![needs(
        "emitted_arithmetic_matches_the_model_on_the_host",
        missing,
        emitted_arithmetic_matches_the_model_on_the_host,
    )])
}

const BINOPS: [BinOp; 20] = [
    BinOp::Or,
    BinOp::And,
    BinOp::BitOr,
    BinOp::BitXor,
    BinOp::BitAnd,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
    BinOp::UDiv,
    BinOp::URem,
];
const UNOPS: [UnOp; 3] = [UnOp::Not, UnOp::Neg, UnOp::BitNot];
const TYPES: [Type; 7] = [
    Type::Bool,
    Type::U8,
    Type::U16,
    Type::U32,
    Type::I8,
    Type::I16,
    Type::I32,
];

/// Values that meet the edge cases of the operators: around 0, the shift
/// widths 32 and 64, and the limits of each width.
const EDGES: [i64; 22] = [
    0,
    1,
    2,
    -1,
    -2,
    31,
    32,
    33,
    63,
    64,
    65,
    -63,
    -64,
    i32::MAX as i64,
    i32::MIN as i64,
    u32::MAX as i64,
    1 << 32,
    -(1 << 32),
    1 << 62,
    i64::MAX,
    i64::MIN,
    i64::MIN + 1,
];

/// The C++ type of an operand of `class`, and whether `v` is one of its values.
fn cpp_type(class: Class) -> &'static str {
    match class {
        Class::Nat => "unsigned int",
        Class::Signed => "int",
        Class::Wide => "long long",
    }
}

fn fits(class: Class, v: i64) -> bool {
    match class {
        Class::Nat => (0..=u32::MAX as i64).contains(&v),
        Class::Signed => (i32::MIN as i64..=i32::MAX as i64).contains(&v),
        Class::Wide => true,
    }
}

fn fits_type(ty: Type, v: i64) -> bool {
    let bits = ty.bits();
    match (ty, ty.signed()) {
        (Type::Bool, _) => v == 0 || v == 1,
        (_, true) => (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&v),
        (_, false) => (0..(1i64 << bits)).contains(&v),
    }
}

/// A random value of `class`: an edge value or a random one, often near an edge.
fn value(rng: &mut Rng, fits: impl Fn(i64) -> bool) -> i64 {
    loop {
        let v = match rng.below(4) {
            0 => *rng.pick(&EDGES),
            1 => rng.pick(&EDGES).wrapping_add(rng.below(5) as i64 - 2),
            2 => rng.next_u64() as i64 >> rng.below(64),
            _ => rng.next_u64() as i64,
        };
        if fits(v) {
            return v;
        }
    }
}

/// One emitted C++ function and the inputs to run it on, with the
/// model's value for each (`None`: a runtime error of the spec).
struct Case {
    /// `(TYPE a, TYPE b, ...)` and the expression.
    params: Vec<&'static str>,
    code: String,
    what: String,
    runs: Vec<(Vec<i64>, Option<i64>)>,
}

/// An operand of an operator case: a variable of a class, or a literal.
#[derive(Clone, Copy, Debug)]
enum Operand {
    Var(Class),
    Lit(i64),
}

const LITERALS: [i64; 15] = [
    0,
    1,
    5,
    31,
    32,
    63,
    64,
    100,
    -1,
    -5,
    1 << 31,
    u32::MAX as i64,
    1 << 40,
    i64::MIN,
    i64::MAX,
];

fn operands(literals: &[i64]) -> Vec<Operand> {
    let mut out = vec![
        Operand::Var(Class::Nat),
        Operand::Var(Class::Signed),
        Operand::Var(Class::Wide),
    ];
    out.extend(literals.iter().map(|&v| Operand::Lit(v)));
    out
}

/// Every operator over every mix of operand classes and literals.
fn operator_cases(rng: &mut Rng) -> Vec<Case> {
    let mut cases = Vec::new();
    let lefts = operands(&[0, 1, -1, 1 << 40, i64::MIN]);
    let rights = operands(&LITERALS);
    for op in BINOPS {
        for &l in &lefts {
            for &r in &rights {
                cases.push(operator_case(
                    rng,
                    &[l, r],
                    |c| expr::binary(op, c[0].clone(), c[1].clone()),
                    |v| eval_binary(op, v[0], v[1]).ok(),
                    format!("{op:?}"),
                ));
            }
        }
    }
    for op in UNOPS {
        for &a in &lefts {
            cases.push(operator_case(
                rng,
                &[a],
                |c| expr::unary(op, c[0].clone()),
                |v| Some(eval_unary(op, v[0])),
                format!("{op:?}"),
            ));
        }
    }
    cases
}

fn operator_case(
    rng: &mut Rng,
    ops: &[Operand],
    emit: impl Fn(&[Code]) -> Code,
    model: impl Fn(&[i64]) -> Option<i64>,
    name: String,
) -> Case {
    let mut params = Vec::new();
    let mut codes = Vec::new();
    for op in ops {
        codes.push(match *op {
            Operand::Var(class) => {
                params.push(cpp_type(class));
                Code::new(format!("v{}", params.len() - 1), class)
            }
            Operand::Lit(v) => expr::literal(v),
        });
    }
    let code = emit(&codes);
    // Inputs: every pair of edge values of the classes, then random ones.
    let vars: Vec<Class> = ops
        .iter()
        .filter_map(|o| match o {
            Operand::Var(c) => Some(*c),
            Operand::Lit(_) => None,
        })
        .collect();
    let mut inputs: Vec<Vec<i64>> = vec![vec![]];
    for &class in &vars {
        let edges: Vec<i64> = EDGES.iter().copied().filter(|&v| fits(class, v)).collect();
        inputs = inputs
            .into_iter()
            .flat_map(|prefix| {
                edges.iter().map(move |&e| {
                    let mut p = prefix.clone();
                    p.push(e);
                    p
                })
            })
            .collect();
    }
    if !vars.is_empty() {
        for _ in 0..200 {
            inputs.push(vars.iter().map(|&c| value(rng, |v| fits(c, v))).collect());
        }
    }
    let runs = inputs
        .into_iter()
        .map(|vals| {
            let mut it = vals.iter();
            let all: Vec<i64> = ops
                .iter()
                .map(|o| match o {
                    Operand::Var(_) => *it.next().unwrap(),
                    Operand::Lit(v) => *v,
                })
                .collect();
            let expected = model(&all);
            (vals, expected)
        })
        .collect();
    Case {
        params,
        code: code.text,
        what: format!("{name} {ops:?} as `{}`", codes_text(&codes)),
        runs,
    }
}

fn codes_text(codes: &[Code]) -> String {
    codes
        .iter()
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Random expression trees over four typed locals, emitted whole by
/// `expr::emit`: the classes of inner results feed outer operators.
fn tree_cases(rng: &mut Rng) -> Vec<Case> {
    let mut cases = Vec::new();
    for _ in 0..300 {
        let types: Vec<Type> = (0..4).map(|_| *rng.pick(&TYPES)).collect();
        let tree = random_tree(rng, 4);
        let local = |l: u32| (format!("v{l}"), types[l as usize]);
        let code = expr::emit(&tree, &local);
        let runs = (0..100)
            .map(|_| {
                let vals: Vec<i64> = types
                    .iter()
                    .map(|&ty| value(rng, |v| fits_type(ty, v)))
                    .collect();
                let expected = eval(&tree, &vals);
                (vals, expected)
            })
            .collect();
        cases.push(Case {
            params: types.iter().map(|&t| expr::cuda_type(t)).collect(),
            code: code.text,
            what: format!("tree {tree:?} over {types:?}"),
            runs,
        });
    }
    cases
}

fn random_tree(rng: &mut Rng, depth: u32) -> Expr {
    if depth == 0 || rng.below(4) == 0 {
        return match rng.below(3) {
            0 => Expr::Const(*rng.pick(&LITERALS)),
            _ => Expr::Local(rng.below(4) as u32),
        };
    }
    match rng.below(8) {
        0 => Expr::Unary(*rng.pick(&UNOPS), Box::new(random_tree(rng, depth - 1))),
        1 => Expr::Ternary(
            Box::new(random_tree(rng, depth - 1)),
            Box::new(random_tree(rng, depth - 1)),
            Box::new(random_tree(rng, depth - 1)),
        ),
        _ => Expr::Binary(
            *rng.pick(&BINOPS),
            Box::new(random_tree(rng, depth - 1)),
            Box::new(random_tree(rng, depth - 1)),
        ),
    }
}

/// The model's value of a pure expression (as `model::eval` computes it);
/// `None` where it reports a runtime error. `&&`, `||` and `?:` evaluate
/// only what decides, as in C++.
fn eval(e: &Expr, locals: &[i64]) -> Option<i64> {
    Some(match e {
        Expr::Const(v) => *v,
        Expr::Local(l) => locals[*l as usize],
        Expr::Unary(op, a) => eval_unary(*op, eval(a, locals)?),
        Expr::Binary(BinOp::And, a, b) => (eval(a, locals)? != 0 && eval(b, locals)? != 0) as i64,
        Expr::Binary(BinOp::Or, a, b) => (eval(a, locals)? != 0 || eval(b, locals)? != 0) as i64,
        Expr::Binary(op, a, b) => eval_binary(*op, eval(a, locals)?, eval(b, locals)?).ok()?,
        Expr::Ternary(c, a, b) => match eval(c, locals)? != 0 {
            true => eval(a, locals)?,
            false => eval(b, locals)?,
        },
        other => panic!("not generated: {other:?}"),
    })
}

/// The C++ program: `arith.h`, one function per case, and a loop reading
/// `case v0 v1 ...` lines and printing each result.
fn program(cases: &[Case]) -> String {
    let mut src = String::from(ARITH);
    src.push_str("#include <cstdio>\n");
    for (k, c) in cases.iter().enumerate() {
        let params: Vec<String> = c
            .params
            .iter()
            .enumerate()
            .map(|(i, t)| format!("{t} v{i}"))
            .collect();
        let _ = writeln!(
            src,
            "static long long f{k}({}) {{ return (long long)({}); }} // {}",
            params.join(", "),
            c.code,
            c.what
        );
    }
    src.push_str(
        "int main() {\n  int k;\n  long long v[4];\n  while (std::scanf(\"%d\", &k) == 1) {\n    \
         for (int i = 0; i < 4; i++) std::scanf(\"%lld\", &v[i]);\n    long long r = 0;\n    \
         switch (k) {\n",
    );
    for (k, c) in cases.iter().enumerate() {
        let args: Vec<String> = c
            .params
            .iter()
            .enumerate()
            .map(|(i, t)| format!("({t})v[{i}]"))
            .collect();
        let _ = writeln!(src, "      case {k}: r = f{k}({}); break;", args.join(", "));
    }
    src.push_str("    }\n    std::printf(\"%lld\\n\", r);\n  }\n  return 0;\n}\n");
    src
}

/// The line of `program` that UBSan's report `...arith.cpp:LINE:COL: ...` names.
fn failing_line<'a>(program: &'a str, report: &str) -> &'a str {
    let line = report
        .split("arith.cpp:")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse::<usize>().ok());
    line.and_then(|n| program.lines().nth(n - 1))
        .unwrap_or("(no line named)")
}

fn emitted_arithmetic_matches_the_model_on_the_host() {
    let mut rng = Rng::new(0x5EED_0017_0009);
    let mut cases = operator_cases(&mut rng);
    cases.extend(tree_cases(&mut rng));
    let dir = std::env::temp_dir().join(format!("gsync-arith-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, exe) = (dir.join("arith.cpp"), dir.join("arith"));
    let program_text = program(&cases);
    std::fs::write(&src, &program_text).unwrap();
    let out = Command::new("g++")
        .args([
            "-std=c++17",
            "-O1",
            "-fsanitize=undefined",
            "-fno-sanitize-recover=all",
        ])
        .args([
            "-Werror=overflow",
            "-Werror=shift-count-overflow",
            "-Werror=div-by-zero",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "g++ rejected the emitted arithmetic ({}):\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut input = String::new();
    let mut expected = Vec::new();
    for (k, c) in cases.iter().enumerate() {
        for (vals, want) in &c.runs {
            let mut line = format!("{k}");
            for i in 0..4 {
                let _ = write!(line, " {}", vals.get(i).copied().unwrap_or(0));
            }
            input.push_str(&line);
            input.push('\n');
            expected.push((k, vals, *want));
        }
    }
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    // A program stopped by UBSan stops reading: the failure is said below.
    let _ = writer.join();
    // UBSan aborts at the first undefined operation and names the line of
    // `arith.cpp`, whose comment says which case it is.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "undefined behaviour:\n{stderr}\nat: {}",
        failing_line(&program_text, &stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let done = stdout.lines().count();
    assert_eq!(done, expected.len(), "one result per input");
    let mut failures = Vec::new();
    let mut compared = 0;
    for (line, (k, vals, want)) in stdout.lines().zip(&expected) {
        let Some(want) = want else { continue };
        compared += 1;
        let got: i64 = line.parse().unwrap();
        if got != *want && failures.len() < 20 {
            failures.push(format!(
                "{} on {vals:?}: C++ {got}, model {want}",
                cases[*k].what
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The comparison is not vacuous: most inputs have a value.
    assert!(
        compared * 10 > expected.len() * 9,
        "{compared} of {}",
        expected.len()
    );
}
