//! The data model of a parsed LLVM module: owned, plain data that the
//! lowering to the checker's program will consume. Only what the reader
//! understands is kept; attributes, comdats and most metadata are skipped.

use std::collections::BTreeMap;

/// A metadata node's number (`!42`).
pub type MdId = u32;

/// A whole `.ll` file: its kernels, functions, globals, named types and the
/// numbered metadata the debug locations refer to.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// `source_filename`, as clang wrote it (the translation unit).
    pub source_filename: Option<String>,
    /// Names of the functions `!nvvm.annotations` (or `ptx_kernel`) marks as kernels.
    pub kernels: Vec<String>,
    /// Definitions and declarations, in file order.
    pub functions: Vec<Function>,
    /// Global variables, in file order.
    pub globals: Vec<Global>,
    /// Named struct types (`%struct.x = type {...}`); `None` for `opaque`.
    pub struct_types: BTreeMap<String, Option<Type>>,
    /// Numbered metadata nodes (`!7 = ...`).
    pub metadata: BTreeMap<MdId, MdNode>,
    /// Named metadata (`!nvvm.annotations = !{!8, !9}`).
    pub named_metadata: BTreeMap<String, Vec<MdId>>,
}

impl Module {
    /// The function called `name`, defined or declared.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The global called `name`.
    pub fn global(&self, name: &str) -> Option<&Global> {
        self.globals.iter().find(|g| g.name == name)
    }

    /// The kernels' definitions (a kernel only declared is left out).
    pub fn kernel_functions(&self) -> impl Iterator<Item = &Function> {
        self.kernels
            .iter()
            .filter_map(|k| self.function(k))
            .filter(|f| !f.is_declaration())
    }

    /// Instructions in all defined functions, terminators included.
    pub fn instruction_count(&self) -> usize {
        self.functions
            .iter()
            .map(|f| f.instructions().count())
            .sum()
    }
}

/// A function: a definition has blocks, a declaration none.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Its name without the `@`.
    pub name: String,
    /// The return type.
    pub ret: Type,
    /// Its parameters in order.
    pub params: Vec<Param>,
    /// Whether it takes `...`.
    pub varargs: bool,
    /// The body; empty for a declaration.
    pub blocks: Vec<Block>,
    /// Its `!dbg` (a DISubprogram), if any.
    pub dbg: Option<MdId>,
    /// The 1-based `.ll` line of its `define`/`declare`.
    pub line: usize,
}

impl Function {
    /// Whether this is a `declare` (no body).
    pub fn is_declaration(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Every instruction of the body, each block's terminator last.
    pub fn instructions(&self) -> impl Iterator<Item = &Instr> {
        self.blocks
            .iter()
            .flat_map(|b| b.instrs.iter().chain(std::iter::once(&b.terminator)))
    }

    /// The block labelled `name`.
    pub fn block(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name == name)
    }
}

/// A formal parameter: its type, its `%name` (numbered ones as digits) and
/// the type of a `byval`/`sret`-like attribute, if one names a type.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The parameter's type.
    pub ty: Type,
    /// Its name without `%`; `None` in a declaration.
    pub name: Option<String>,
    /// `byval(T)`: the pointee passed by value.
    pub byval: Option<Type>,
}

/// A basic block: a label, straight-line instructions and one terminator.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The label without `%` (numbered labels as digits).
    pub name: String,
    /// The non-terminator instructions, phis first.
    pub instrs: Vec<Instr>,
    /// `br`, `switch`, `ret` or `unreachable`.
    pub terminator: Instr,
}

/// One instruction: `result = kind operands`, with its result type and the
/// `!dbg` location it carries.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// The `%name` it defines (without `%`), if any.
    pub result: Option<String>,
    /// The opcode and what is specific to it.
    pub kind: InstrKind,
    /// The type of the result (`void` when there is none).
    pub ty: Type,
    /// The value operands, typed, in the order the text gives them (see
    /// each `InstrKind` for which is which).
    pub operands: Vec<Operand>,
    /// The `!dbg` attachment (a DILocation).
    pub dbg: Option<MdId>,
    /// Flagged `contract` (or `fast`): a floating-point operation the back
    /// end may fuse with a multiply into one `fma`.
    pub contract: bool,
    /// The 1-based `.ll` line it is written on.
    pub line: usize,
}

/// A typed value as an operand.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// Its type.
    pub ty: Type,
    /// The value.
    pub value: Value,
}

/// A type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void`.
    Void,
    /// `iN`.
    Int(u32),
    /// `half`.
    Half,
    /// `bfloat`.
    BFloat,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `ptr` (address space 0) or `ptr addrspace(N)`.
    Ptr(u32),
    /// `[N x T]`.
    Array(u64, Box<Type>),
    /// `<N x T>`.
    Vector(u64, Box<Type>),
    /// `{ T, ... }` or, packed, `<{ T, ... }>`.
    Struct { fields: Vec<Type>, packed: bool },
    /// `%name`: a named struct type, see `Module::struct_types`.
    Named(String),
    /// `label` (only in `label %bb` operands).
    Label,
    /// `metadata` (intrinsics' metadata arguments).
    Metadata,
    /// `token`.
    Token,
    /// `RET (ARGS...)`: a function type, as a call may spell it.
    Function {
        ret: Box<Type>,
        params: Vec<Type>,
        varargs: bool,
    },
}

/// A value: a name, a constant, or a constant expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `%name` (an instruction's result, a parameter, or a block label).
    Local(String),
    /// `@name` (a global or a function).
    Global(String),
    /// An integer constant (`true`/`false` are 1/0), sign as written.
    Int(i128),
    /// A floating-point constant as written (`1.000000e+00`, `0x3FF0...`).
    Float(String),
    /// `null`.
    Null,
    /// `undef`.
    Undef,
    /// `poison`.
    Poison,
    /// `zeroinitializer`.
    Zero,
    /// `none` (a `token` constant).
    NoneToken,
    /// `{...}`, `[...]`, `<...>` constants.
    Aggregate(Vec<Operand>),
    /// `c"..."`: a byte array.
    Bytes(Vec<u8>),
    /// A constant expression (`getelementptr (...)`, `addrspacecast (...)`).
    Expr(Box<ConstExpr>),
    /// `metadata !N` or `metadata !{...}` arguments (the node, if numbered).
    Metadata(Option<MdId>),
    /// `blockaddress(@f, %bb)`.
    BlockAddress(String, String),
}

/// A constant expression: an opcode over constant operands.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstExpr {
    /// `GetElementPtr`, `Cast`, `Binary`, `ICmp`...; as for instructions.
    pub kind: InstrKind,
    /// The result type (for casts, the `to` type; for gep, a pointer).
    pub ty: Type,
    /// The operands.
    pub operands: Vec<Operand>,
}

/// Memory orderings of atomics, fences, and atomic loads/stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ordering {
    Unordered,
    Monotonic,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// `atomicrmw` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    FMax,
    FMin,
    UIncWrap,
    UDecWrap,
}

/// Binary operators (integer and floating point).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

/// Conversions (`trunc`, `zext`, ..., `addrspacecast`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FPTrunc,
    FPExt,
    FPToUI,
    FPToSI,
    UIToFP,
    SIToFP,
    PtrToInt,
    IntToPtr,
    BitCast,
    AddrSpaceCast,
}

/// An atomic access's ordering and `syncscope` (`None`: the system scope,
/// LLVM's default).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Atomic {
    /// The ordering.
    pub ordering: Ordering,
    /// `syncscope("...")`, if written.
    pub scope: Option<String>,
}

/// What a call calls.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// `@name`: a function (an intrinsic, a libdevice function, or ours).
    Function(String),
    /// `asm [sideeffect] "template", "constraints"`: inline PTX.
    Asm {
        template: String,
        constraints: String,
        sideeffect: bool,
    },
    /// Any other value (an indirect call through a pointer).
    Indirect(Value),
}

/// The opcode of an instruction and what is specific to it. Unless said
/// otherwise, the operands are the instruction's value operands as
/// written, left to right.
#[derive(Clone, Debug, PartialEq)]
pub enum InstrKind {
    /// `ret` (operand: the value, if any).
    Ret,
    /// `br label %dest`.
    Br { dest: String },
    /// `br i1 %c, label %then, label %else` (operand: the condition).
    CondBr { then: String, els: String },
    /// `switch` (operand: the value) with its default and cases.
    Switch {
        default: String,
        cases: Vec<(i128, String)>,
    },
    /// `unreachable`.
    Unreachable,
    /// A binary operator (operands: left, right).
    Binary(BinOp),
    /// `fneg` (operand: the value).
    FNeg,
    /// `icmp PRED` (operands: left, right).
    ICmp(String),
    /// `fcmp PRED` (operands: left, right).
    FCmp(String),
    /// A conversion (operand: the value; `Instr::ty` is the target type).
    Cast(CastOp),
    /// `phi` (operands: the incoming values, one per block in `blocks`).
    Phi { blocks: Vec<String> },
    /// `select` (operands: condition, then, else).
    Select,
    /// `freeze` (operand: the value).
    Freeze,
    /// `alloca T` (operand: the element count, if written).
    Alloca { allocated: Type, align: Option<u64> },
    /// `load` (operand: the address).
    Load {
        volatile: bool,
        atomic: Option<Atomic>,
        align: Option<u64>,
    },
    /// `store` (operands: the value, the address).
    Store {
        volatile: bool,
        atomic: Option<Atomic>,
        align: Option<u64>,
    },
    /// `atomicrmw` (operands: the address, the value).
    AtomicRmw {
        op: RmwOp,
        volatile: bool,
        atomic: Atomic,
        align: Option<u64>,
    },
    /// `cmpxchg` (operands: the address, the expected value, the new value);
    /// the result is `{ T, i1 }`.
    CmpXchg {
        weak: bool,
        volatile: bool,
        success: Atomic,
        failure: Ordering,
        align: Option<u64>,
    },
    /// `fence`.
    Fence(Atomic),
    /// `getelementptr [inbounds] T, ...` (operands: the base, the indices).
    GetElementPtr { source: Type, inbounds: bool },
    /// `extractvalue` (operand: the aggregate).
    ExtractValue { indices: Vec<u32> },
    /// `insertvalue` (operands: the aggregate, the value).
    InsertValue { indices: Vec<u32> },
    /// `extractelement` (operands: the vector, the index).
    ExtractElement,
    /// `insertelement` (operands: the vector, the value, the index).
    InsertElement,
    /// `shufflevector` (operands: the two vectors, the mask).
    ShuffleVector,
    /// `call` (operands: the arguments).
    Call { callee: Callee },
}

impl Instr {
    /// Whether it calls `llvm.memcpy.*` (a struct copy).
    pub fn is_memcpy(&self) -> bool {
        matches!(&self.kind, InstrKind::Call { callee: Callee::Function(f) } if f.starts_with("llvm.memcpy."))
    }
}

impl InstrKind {
    /// The opcode as the `.ll` text spells it.
    pub fn opcode(&self) -> &'static str {
        match self {
            InstrKind::Ret => "ret",
            InstrKind::Br { .. } | InstrKind::CondBr { .. } => "br",
            InstrKind::Switch { .. } => "switch",
            InstrKind::Unreachable => "unreachable",
            InstrKind::Binary(op) => op.name(),
            InstrKind::FNeg => "fneg",
            InstrKind::ICmp(_) => "icmp",
            InstrKind::FCmp(_) => "fcmp",
            InstrKind::Cast(op) => op.name(),
            InstrKind::Phi { .. } => "phi",
            InstrKind::Select => "select",
            InstrKind::Freeze => "freeze",
            InstrKind::Alloca { .. } => "alloca",
            InstrKind::Load { .. } => "load",
            InstrKind::Store { .. } => "store",
            InstrKind::AtomicRmw { .. } => "atomicrmw",
            InstrKind::CmpXchg { .. } => "cmpxchg",
            InstrKind::Fence(_) => "fence",
            InstrKind::GetElementPtr { .. } => "getelementptr",
            InstrKind::ExtractValue { .. } => "extractvalue",
            InstrKind::InsertValue { .. } => "insertvalue",
            InstrKind::ExtractElement => "extractelement",
            InstrKind::InsertElement => "insertelement",
            InstrKind::ShuffleVector => "shufflevector",
            InstrKind::Call { .. } => "call",
        }
    }

    /// Whether it ends a block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstrKind::Ret
                | InstrKind::Br { .. }
                | InstrKind::CondBr { .. }
                | InstrKind::Switch { .. }
                | InstrKind::Unreachable
        )
    }
}

macro_rules! named {
    ($ty:ident { $($v:ident = $s:literal),* $(,)? }) => {
        impl $ty {
            /// The keyword as the `.ll` text spells it.
            pub fn name(self) -> &'static str {
                match self { $($ty::$v => $s),* }
            }
            /// The value the keyword `s` names.
            pub fn from_name(s: &str) -> Option<Self> {
                match s { $($s => Some($ty::$v),)* _ => None }
            }
        }
    };
}

named!(Ordering {
    Unordered = "unordered",
    Monotonic = "monotonic",
    Acquire = "acquire",
    Release = "release",
    AcqRel = "acq_rel",
    SeqCst = "seq_cst",
});

named!(RmwOp {
    Xchg = "xchg",
    Add = "add",
    Sub = "sub",
    And = "and",
    Nand = "nand",
    Or = "or",
    Xor = "xor",
    Max = "max",
    Min = "min",
    UMax = "umax",
    UMin = "umin",
    FAdd = "fadd",
    FSub = "fsub",
    FMax = "fmax",
    FMin = "fmin",
    UIncWrap = "uinc_wrap",
    UDecWrap = "udec_wrap",
});

named!(BinOp {
    Add = "add",
    Sub = "sub",
    Mul = "mul",
    UDiv = "udiv",
    SDiv = "sdiv",
    URem = "urem",
    SRem = "srem",
    Shl = "shl",
    LShr = "lshr",
    AShr = "ashr",
    And = "and",
    Or = "or",
    Xor = "xor",
    FAdd = "fadd",
    FSub = "fsub",
    FMul = "fmul",
    FDiv = "fdiv",
    FRem = "frem",
});

named!(CastOp {
    Trunc = "trunc",
    ZExt = "zext",
    SExt = "sext",
    FPTrunc = "fptrunc",
    FPExt = "fpext",
    FPToUI = "fptoui",
    FPToSI = "fptosi",
    UIToFP = "uitofp",
    SIToFP = "sitofp",
    PtrToInt = "ptrtoint",
    IntToPtr = "inttoptr",
    BitCast = "bitcast",
    AddrSpaceCast = "addrspacecast",
});

/// A global variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    /// Its name without `@`.
    pub name: String,
    /// Its address space (1 global, 3 shared, 4 constant, 0 generic).
    pub addrspace: u32,
    /// The type of the value it holds.
    pub ty: Type,
    /// `constant` rather than `global`.
    pub constant: bool,
    /// The initialiser; `None` for an external declaration.
    pub init: Option<Value>,
    /// `align N`.
    pub align: Option<u64>,
    /// The 1-based `.ll` line.
    pub line: usize,
}

/// A metadata node.
#[derive(Clone, Debug, PartialEq)]
pub enum MdNode {
    /// `!{...}`: a tuple of operands.
    Tuple(Vec<MdOperand>),
    /// `!DIKind(field: value, ...)`: a specialised node (debug info).
    Special {
        kind: String,
        fields: Vec<(String, MdField)>,
    },
}

impl MdNode {
    /// The field `name` of a specialised node.
    pub fn field(&self, name: &str) -> Option<&MdField> {
        match self {
            MdNode::Special { fields, .. } => {
                fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
            }
            MdNode::Tuple(_) => None,
        }
    }

    /// The kind of a specialised node (`DILocation`...).
    pub fn kind(&self) -> Option<&str> {
        match self {
            MdNode::Special { kind, .. } => Some(kind),
            MdNode::Tuple(_) => None,
        }
    }
}

/// An element of a metadata tuple.
#[derive(Clone, Debug, PartialEq)]
pub enum MdOperand {
    /// `!N`.
    Ref(MdId),
    /// `!"text"`.
    Str(String),
    /// `T value` (`ptr @kernel`, `i32 1`).
    Value(Operand),
    /// `null`.
    Null,
    /// An inline node (`!{...}` or `!DIExpression()` inside a tuple).
    Inline(Box<MdNode>),
}

/// A field value of a specialised metadata node.
#[derive(Clone, Debug, PartialEq)]
pub enum MdField {
    /// `!N`.
    Ref(MdId),
    /// `"text"`.
    Str(String),
    /// An integer.
    Int(i128),
    /// `null`.
    Null,
    /// Anything else as written (flags `A | B`, `DW_LANG_...`, `true`, inline nodes).
    Other(String),
}
