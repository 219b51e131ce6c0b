//! The abstract syntax tree of a `.gsync` spec, as written (before name
//! resolution). Every node that can be the subject of an error carries a
//! [`Span`] so diagnostics point at the exact text.

pub use crate::diag::Span;
/// The AST is built of the IR's vocabulary (value types, storage,
/// operators), defined in `ir::types` and named here so that the AST reads
/// whole for the parser and the front ends that build it.
pub use crate::ir::{BinOp, Participants, Storage, Type, UnOp};

/// An identifier with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// A whole spec file.
#[derive(Clone, Debug, Default)]
pub struct SpecFile {
    pub header: Header,
    pub items: Vec<Item>,
}

impl SpecFile {
    /// The names of the declared parameters, in order.
    pub fn param_names(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter_map(|i| match i {
            Item::Param(p) => Some(p.name.name.as_str()),
            _ => None,
        })
    }

    /// The names of the declared procedures, in order.
    pub fn fn_names(&self) -> impl Iterator<Item = &str> {
        self.items.iter().filter_map(|i| match i {
            Item::Fn(f) => Some(f.name.name.as_str()),
            _ => None,
        })
    }
}

/// The `//!` header: metadata and expected verdicts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub name: Option<String>,
    pub family: Option<String>,
    pub source: Option<String>,
    pub description: Option<String>,
    /// Modelling decisions where a listing is simplified or ambiguous.
    pub notes: Vec<String>,
    pub expects: Vec<Expectation>,
    /// `simt: MODE`: the SIMT mode the spec is written for; the model's
    /// parser, which names the modes, reads it.
    pub simt: Option<HeaderValue>,
    /// `liveness: NAME=V ...`: parameter values used under a fair scheduler.
    pub liveness: Vec<(Ident, i64)>,
    /// `cuda: FILE`, `cuda-define: ...`, `cuda-include: DIR`, `cuda-timing:
    /// MODE` (key, value), in order: a harness of CUDA code.
    pub cuda: Vec<(String, HeaderValue)>,
}

/// A header value and where it is written, for errors found after parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderValue {
    pub text: String,
    pub span: Span,
}

/// One `//! expect [OPTIONS]: VERDICT [KIND]` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    /// CLI options, already split into words (`["--blocks", "3"]`).
    pub args: Vec<String>,
    /// `verified`, `violated` or `inconclusive`.
    pub verdict: String,
    /// Violation kind of the first violation, when given.
    pub kind: Option<String>,
    /// 1-based line of the header line, for error messages.
    pub line: u32,
}

#[derive(Clone, Debug)]
pub enum Item {
    Param(ParamDecl),
    Var(VarDecl),
    Fn(FnDecl),
    Harness(Harness),
}

/// `param NAME = EXPR;`
#[derive(Clone, Debug)]
pub struct ParamDecl {
    pub name: Ident,
    pub default: Expr,
    pub span: Span,
}

/// `global|shared|local [volatile] TYPE NAME[ [SIZE] ] = INIT;`
#[derive(Clone, Debug)]
pub struct VarDecl {
    pub storage: Storage,
    pub volatile: bool,
    pub ty: Type,
    pub name: Ident,
    /// `Some(size)` for arrays.
    pub size: Option<Expr>,
    pub init: Init,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Init {
    /// No initializer: zero.
    Zero,
    /// `= expr`: every element gets this value.
    Expr(Expr),
    /// `= {a, b, c}`: one value per element.
    List(Vec<Expr>, Span),
    /// `= {[i] = a, [j] = b}`: the named elements, the rest zero (C's
    /// designated initializers, for arrays whose size depends on the launch).
    Designated(Vec<Designator>, Span),
}

/// `[index] = value` in a designated initializer list.
#[derive(Clone, Debug)]
pub struct Designator {
    pub index: Expr,
    pub value: Expr,
}

/// `fn NAME(T a, T b) -> T { ... }`
#[derive(Clone, Debug)]
pub struct FnDecl {
    pub name: Ident,
    pub params: Vec<FnParam>,
    pub ret: Option<Type>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct FnParam {
    pub ty: Type,
    pub name: Ident,
}

/// `harness master|all { check ...; statements }`
#[derive(Clone, Debug)]
pub struct Harness {
    pub participants: Participants,
    pub checks: Vec<Check>,
    pub body: Block,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Check {
    /// `check mutual_exclusion;`
    MutualExclusion(Span),
    /// `check capacity(expr);`
    Capacity(Expr, Span),
    /// `check barrier;`
    Barrier(Span),
    /// `check invariant(expr);`
    Invariant(Expr, Span),
}

#[derive(Clone, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
}

#[derive(Clone, Debug)]
pub enum StmtKind {
    /// `T name = init;` (init optional: zero).
    Let {
        ty: Type,
        name: Ident,
        init: Option<Expr>,
    },
    /// `place op= value;` (`x++` is `x += 1`).
    Assign {
        place: Place,
        op: AssignOp,
        value: Expr,
    },
    /// A call or memory operation evaluated for its effect.
    Expr(Expr),
    If {
        cond: Expr,
        then_block: Block,
        else_block: Option<Block>,
    },
    While {
        cond: Expr,
        body: Block,
    },
    /// `for (init; cond; step) body`; init and step are optional.
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Box<Stmt>>,
        body: Block,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Assert {
        cond: Expr,
        message: Option<String>,
    },
    /// `critical { }` or `critical(weight) { }`.
    Critical {
        weight: Option<Expr>,
        body: Block,
    },
    /// `phase { }`: one barrier episode.
    Phase {
        body: Block,
    },
    /// `progress;`
    Progress,
    /// `{ ... }`
    Block(Block),
}

/// An assignable location: a local, a `local`/`global`/`shared` variable, or an array element.
#[derive(Clone, Debug)]
pub struct Place {
    pub name: Ident,
    pub index: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Int(i64),
    Bool(bool),
    /// A name: local, parameter, variable or launch constant (`blockIdx.x` is
    /// parsed as the name `blockIdx`).
    Name(Ident),
    /// `a[i]`
    Index(Ident, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A call: a user procedure, a memory operation or an intrinsic. The
    /// callee keeps its suffixes as written (`atomicCAS_block`,
    /// `atomicExch.release.gpu`, `fence.sc.cta`); `qualifiers` holds the dotted
    /// suffixes (`["release", "gpu"]`) and `name` the base name with the
    /// dotted part removed (`atomicExch`). Underscore spellings such as
    /// `atomicCAS_block` stay in `name`.
    Call {
        name: Ident,
        qualifiers: Vec<Ident>,
        args: Vec<Expr>,
    },
}
