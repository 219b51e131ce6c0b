//! The CUDA subset the front end reads, as a typed syntax tree: what
//! libclang parsed, with C++'s implicit conversions made explicit and
//! every node located in the combined source. Only constructs of the
//! subset have a node; anything else was refused with a located error.

use crate::diag::Diagnostic;
use crate::ir::Scope;
use crate::spec::ast::Span;

/// A declaration's identity: where its name starts in the combined source.
pub(crate) type DeclId = u32;

/// The types of the subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum CType {
    Void,
    Bool,
    Int {
        bits: u8,
        signed: bool,
    },
    Float {
        bits: u8,
    },
    Pointer(Box<Pointee>),
    /// `T&` (a `compare_exchange` argument).
    Reference(Box<CType>),
    Array(Box<CType>, u32),
    /// `cuda::atomic_ref<T, S>` (`by_ref`) or `cuda::atomic<T, S>`.
    Atomic {
        value: Box<CType>,
        scope: Scope,
        by_ref: bool,
    },
    /// `cuda::memory_order`, `cuda::thread_scope` and other enums.
    Enum,
    /// Anything else, by its spelling (refused where it is used).
    Other(String),
}

/// What a pointer points to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pointee {
    pub ty: CType,
    pub volatile: bool,
}

impl CType {
    pub(crate) fn int(bits: u8, signed: bool) -> CType {
        CType::Int { bits, signed }
    }

    pub(crate) fn is_integer(&self) -> bool {
        matches!(self, CType::Bool | CType::Int { .. } | CType::Enum)
    }

    pub(crate) fn pointee(&self) -> Option<&Pointee> {
        match self {
            CType::Pointer(p) => Some(p),
            _ => None,
        }
    }

    /// How the type reads in messages.
    pub(crate) fn describe(&self) -> String {
        match self {
            CType::Void => "void".into(),
            CType::Bool => "bool".into(),
            CType::Int { bits, signed } => format!("{}{bits}", if *signed { "i" } else { "u" }),
            CType::Float { bits } => format!("f{bits}"),
            CType::Pointer(p) => format!(
                "{}{} *",
                if p.volatile { "volatile " } else { "" },
                p.ty.describe()
            ),
            CType::Reference(t) => format!("{} &", t.describe()),
            CType::Array(t, n) => format!("{}[{n}]", t.describe()),
            CType::Atomic { value, by_ref, .. } => format!(
                "cuda::atomic{}<{}>",
                if *by_ref { "_ref" } else { "" },
                value.describe()
            ),
            CType::Enum => "enum".into(),
            CType::Other(s) => s.clone(),
        }
    }
}

/// A translation unit: its device functions and file-scope device
/// variables. A declaration the subset cannot express keeps its error,
/// reported only if the harness uses it.
#[derive(Debug, Default)]
pub(crate) struct CProgram {
    /// Device functions by name, each converted or refused.
    pub functions: Vec<(String, Result<CFunction, Diagnostic>)>,
    /// Names of every function the unit declares (device, host or both),
    /// with whether it runs on the device and is defined there.
    pub declared: Vec<(String, FnSpace)>,
    pub globals: Vec<Result<CVar, Diagnostic>>,
}

impl CProgram {
    /// The device function called `name`, if the unit defines one.
    pub(crate) fn function(&self, name: &str) -> Option<&Result<CFunction, Diagnostic>> {
        self.functions
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, f)| f)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FnSpace {
    Device,
    Global,
    Host,
}

#[derive(Clone, Debug)]
pub(crate) struct CFunction {
    pub name: String,
    pub params: Vec<CVar>,
    pub ret: CType,
    pub body: Vec<CStmt>,
    pub span: Span,
    /// The closing brace, where a value-returning function may fall off.
    pub end: Span,
}

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Storage {
    /// A local or parameter: thread-private.
    Auto,
    /// `__shared__`: one copy per block.
    Shared,
    /// `__device__` at file scope, or `static` in a device function: one
    /// copy in global memory.
    Device,
}

#[derive(Clone, Debug)]
pub(crate) struct CVar {
    pub id: DeclId,
    pub name: String,
    pub ty: CType,
    pub volatile: bool,
    pub storage: Storage,
    pub init: Option<CExpr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(crate) struct CStmt {
    pub kind: CStmtKind,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub(crate) enum CStmtKind {
    Block(Vec<CStmt>),
    Decl(Vec<CVar>),
    Expr(CExpr),
    If {
        cond: CExpr,
        then: Box<CStmt>,
        otherwise: Option<Box<CStmt>>,
    },
    While {
        cond: CExpr,
        body: Box<CStmt>,
    },
    DoWhile {
        body: Box<CStmt>,
        cond: CExpr,
    },
    For {
        init: Option<Box<CStmt>>,
        cond: Option<CExpr>,
        step: Option<CExpr>,
        body: Box<CStmt>,
    },
    Break,
    Continue,
    Return(Option<CExpr>),
    Empty,
    Asm(AsmStmt),
}

/// `asm volatile("template" : outputs : inputs : clobbers)`.
#[derive(Clone, Debug)]
pub(crate) struct AsmStmt {
    pub template: String,
    pub outputs: Vec<(String, CExpr)>,
    pub inputs: Vec<(String, CExpr)>,
}

#[derive(Clone, Debug)]
pub(crate) struct CExpr {
    pub kind: CExprKind,
    pub ty: CType,
    pub span: Span,
}

/// `threadIdx`, `blockIdx`, `blockDim`, `gridDim`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // CUDA's own names
pub(crate) enum Dim {
    ThreadIdx,
    BlockIdx,
    BlockDim,
    GridDim,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CUnOp {
    LNot,
    BitNot,
    Neg,
    Plus,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

impl CUnOp {
    /// What `++` (1) or `--` (-1) adds; 0 for the other operators.
    pub(crate) fn delta(self) -> i64 {
        match self {
            CUnOp::PreInc | CUnOp::PostInc => 1,
            CUnOp::PreDec | CUnOp::PostDec => -1,
            _ => 0,
        }
    }

    /// `++` or `--`, before or after.
    pub(crate) fn is_step(self) -> bool {
        self.delta() != 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CBinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LAnd,
    LOr,
    Comma,
}

#[derive(Clone, Debug)]
pub(crate) enum CExprKind {
    Int(i64),
    Null,
    /// A variable or parameter.
    Var(DeclId, String),
    /// `threadIdx.x` (axis 0), `.y` (1), `.z` (2), ...
    Dim(Dim, u8),
    WarpSize,
    Unary(CUnOp, Box<CExpr>),
    Binary(CBinOp, Box<CExpr>, Box<CExpr>),
    /// `a = b` (`None`) or `a op= b`.
    Assign(Option<CBinOp>, Box<CExpr>, Box<CExpr>),
    Cond(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    Index(Box<CExpr>, Box<CExpr>),
    /// A conversion (implicit or written) to the node's type.
    Cast(Box<CExpr>),
    /// A call of a function by name (a built-in or a device function).
    Call(String, Vec<CExpr>),
    /// `object.name(args)`: a member of `cuda::atomic_ref` / `cuda::atomic`.
    Method(Box<CExpr>, String, Vec<CExpr>),
    /// `T object(args)`: constructing a `cuda::atomic_ref`.
    Construct(Vec<CExpr>),
    /// An enumerator of `cuda::memory_order` or `cuda::thread_scope`, by name.
    Enumerator(String),
}

impl CExpr {
    /// The expressions directly inside this one, left to right.
    pub(crate) fn children(&self) -> impl Iterator<Item = &CExpr> {
        let none: &[CExpr] = &[];
        let (fixed, list): ([Option<&CExpr>; 3], &[CExpr]) = match &self.kind {
            CExprKind::Unary(_, a) | CExprKind::Cast(a) => ([Some(a), None, None], none),
            CExprKind::Binary(_, a, b) | CExprKind::Assign(_, a, b) | CExprKind::Index(a, b) => {
                ([Some(a), Some(b), None], none)
            }
            CExprKind::Cond(c, a, b) => ([Some(c), Some(a), Some(b)], none),
            CExprKind::Call(_, args) | CExprKind::Construct(args) => ([None; 3], args),
            CExprKind::Method(object, _, args) => ([Some(object), None, None], args),
            CExprKind::Int(_)
            | CExprKind::Null
            | CExprKind::Var(..)
            | CExprKind::Dim(..)
            | CExprKind::WarpSize
            | CExprKind::Enumerator(_) => ([None; 3], none),
        };
        fixed.into_iter().flatten().chain(list)
    }

    /// Whether evaluating the expression assigns or calls something
    /// (reading the clock aside).
    pub(crate) fn has_effects(&self) -> bool {
        match &self.kind {
            CExprKind::Assign(..) | CExprKind::Method(..) | CExprKind::Construct(_) => true,
            CExprKind::Call(n, _) if !is_clock(n) => true,
            CExprKind::Unary(op, _) if op.is_step() => true,
            _ => self.children().any(CExpr::has_effects),
        }
    }

    /// Whether the expression reads the clock (outside member calls and
    /// constructors).
    pub(crate) fn mentions_clock(&self) -> bool {
        match &self.kind {
            CExprKind::Call(n, _) if is_clock(n) => true,
            CExprKind::Method(..) | CExprKind::Construct(_) => false,
            _ => self.children().any(CExpr::mentions_clock),
        }
    }
}

/// `clock()` or `clock64()`.
pub(crate) fn is_clock(function: &str) -> bool {
    matches!(function, "clock" | "clock64")
}

impl CStmt {
    /// The statements directly inside this one: a block's, the branches
    /// of an `if`, a loop's body and a `for`'s init.
    pub(crate) fn sub_stmts(&self) -> impl Iterator<Item = &CStmt> {
        let none: &[CStmt] = &[];
        let (fixed, list): ([Option<&CStmt>; 2], &[CStmt]) = match &self.kind {
            CStmtKind::Block(v) => ([None, None], v),
            CStmtKind::If {
                then, otherwise, ..
            } => ([Some(then), otherwise.as_deref()], none),
            CStmtKind::While { body, .. } | CStmtKind::DoWhile { body, .. } => {
                ([Some(body), None], none)
            }
            CStmtKind::For { init, body, .. } => ([init.as_deref(), Some(body)], none),
            CStmtKind::Decl(_)
            | CStmtKind::Expr(_)
            | CStmtKind::Break
            | CStmtKind::Continue
            | CStmtKind::Return(_)
            | CStmtKind::Empty
            | CStmtKind::Asm(_) => ([None, None], none),
        };
        fixed.into_iter().flatten().chain(list)
    }
}
