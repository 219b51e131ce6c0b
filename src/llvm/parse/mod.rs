//! A recursive-descent parser for the textual LLVM IR that clang-19 and
//! opt-19 emit for CUDA device code: module-level items here, types in
//! `types.rs`, values and constant expressions in `values.rs`, function
//! bodies in `instr.rs`, metadata in `metadata.rs`. What is outside that
//! subset is refused with a `ParseError` naming the construct and the line;
//! no input makes it panic (nesting is bounded by `MAX_DEPTH`).

mod instr;
mod metadata;
mod types;
mod values;

use super::ir::{Function, Global, MdNode, MdOperand, Module, Type, Value};
use super::lexer::{lex, ParseError, Tok, Token};
use std::collections::BTreeMap;

/// Deepest nesting of types, constants and metadata accepted.
const MAX_DEPTH: usize = 200;

/// Parses a whole `.ll` text.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    let mut p = Parser {
        toks: lex(text)?,
        pos: 0,
        depth: 0,
        types: BTreeMap::new(),
    };
    let mut m = Module::default();
    let mut ptx_kernels = Vec::new();
    while *p.peek() != Tok::Eof {
        p.item(&mut m, &mut ptx_kernels)?;
    }
    m.kernels = kernels(&m);
    for k in ptx_kernels {
        if !m.kernels.contains(&k) {
            m.kernels.push(k);
        }
    }
    Ok(m)
}

/// The functions `!nvvm.annotations` marks with `!"kernel", i32 1`.
fn kernels(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    for id in m
        .named_metadata
        .get("nvvm.annotations")
        .into_iter()
        .flatten()
    {
        let Some(MdNode::Tuple(ops)) = m.metadata.get(id) else {
            continue;
        };
        let mut name = None;
        for pair in ops.windows(2) {
            if let [MdOperand::Str(k), MdOperand::Value(v)] = pair {
                if k == "kernel" && v.value == Value::Int(1) {
                    if let Some(MdOperand::Value(f)) = ops.first() {
                        if let Value::Global(g) = &f.value {
                            name = Some(g.clone());
                        }
                    }
                }
            }
        }
        if let Some(n) = name {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

pub(super) struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    /// The named types read so far (for `extractvalue`'s result type).
    types: BTreeMap<String, Option<Type>>,
}

/// Words that start a top-level item (they end a declaration's attributes).
const TOP_LEVEL: &[&str] = &[
    "define",
    "declare",
    "attributes",
    "target",
    "source_filename",
    "module",
    "uselistorder",
    "uselistorder_bb",
];

impl Parser {
    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, k: usize) -> &Tok {
        self.toks
            .get(self.pos + k)
            .or(self.toks.last())
            .map_or(&Tok::Eof, |t| &t.tok)
    }

    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(0, |t| t.line)
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn error(&self, message: impl Into<String>) -> ParseError {
        let (line, column) = self
            .toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or((0, 0), |t| (t.line, t.column));
        ParseError {
            line,
            column,
            message: message.into(),
        }
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(self.error(message))
    }

    /// An error "expected WHAT, found TOKEN".
    fn expected<T>(&self, what: &str) -> Result<T, ParseError> {
        self.err(format!("expected {what}, found {}", self.peek()))
    }

    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Tok::Punct(c)
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let yes = self.is_punct(c);
        if yes {
            self.bump();
        }
        yes
    }

    fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.expected(&format!("`{c}`"))
        }
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(w) if w == s)
    }

    fn eat_ident(&mut self, s: &str) -> bool {
        let yes = self.is_ident(s);
        if yes {
            self.bump();
        }
        yes
    }

    fn expect_ident(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat_ident(s) {
            Ok(())
        } else {
            self.expected(&format!("`{s}`"))
        }
    }

    fn ident(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Tok::Ident(w) => {
                let w = w.clone();
                self.bump();
                Ok(w)
            }
            _ => self.expected("a keyword"),
        }
    }

    fn int(&mut self) -> Result<i128, ParseError> {
        match *self.peek() {
            Tok::Int(n) => {
                self.bump();
                Ok(n)
            }
            _ => self.expected("an integer"),
        }
    }

    fn u64(&mut self) -> Result<u64, ParseError> {
        let n = self.int()?;
        u64::try_from(n).map_err(|_| self.error(format!("{n} is out of range")))
    }

    fn u32(&mut self) -> Result<u32, ParseError> {
        let n = self.int()?;
        u32::try_from(n).map_err(|_| self.error(format!("{n} is out of range")))
    }

    fn string(&mut self) -> Result<String, ParseError> {
        match self.peek() {
            Tok::Str(s) => {
                let s = String::from_utf8_lossy(s).into_owned();
                self.bump();
                Ok(s)
            }
            _ => self.expected("a string"),
        }
    }

    /// Skips a balanced `( ... )` group, if one is next.
    fn skip_parens(&mut self) -> Result<(), ParseError> {
        if !self.is_punct('(') {
            return Ok(());
        }
        let mut depth = 0usize;
        loop {
            match self.bump() {
                Tok::Punct('(') => depth += 1,
                Tok::Punct(')') => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Tok::Eof => return self.err("unbalanced `(`"),
                _ => {}
            }
        }
    }

    /// Counts one level of nesting; refuses input nested too deeply.
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err(format!("nested more than {MAX_DEPTH} levels deep"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// One top-level item.
    fn item(&mut self, m: &mut Module, ptx_kernels: &mut Vec<String>) -> Result<(), ParseError> {
        match self.peek().clone() {
            Tok::Ident(w) => match w.as_str() {
                "source_filename" => {
                    self.bump();
                    self.expect_punct('=')?;
                    m.source_filename = Some(self.string()?);
                }
                "target" => {
                    self.bump();
                    self.ident()?; // datalayout, triple
                    self.expect_punct('=')?;
                    self.string()?;
                }
                "attributes" => {
                    self.bump();
                    if !matches!(self.bump(), Tok::AttrGroup(_)) {
                        return self.err("expected `#N` after `attributes`");
                    }
                    self.expect_punct('=')?;
                    self.skip_braces()?;
                }
                "define" | "declare" => {
                    let f = self.function(w == "define", ptx_kernels)?;
                    m.functions.push(f);
                }
                "module" => {
                    self.bump();
                    self.expect_ident("asm")?;
                    self.string()?;
                }
                _ => return self.err(format!("unsupported top-level item `{w}`")),
            },
            Tok::Local(name) => {
                self.bump();
                self.expect_punct('=')?;
                self.expect_ident("type")?;
                let ty = if self.eat_ident("opaque") {
                    None
                } else {
                    Some(self.ty()?)
                };
                self.types.insert(name.clone(), ty.clone());
                m.struct_types.insert(name, ty);
            }
            Tok::Comdat(_) => {
                self.bump();
                self.expect_punct('=')?;
                self.expect_ident("comdat")?;
                self.ident()?;
            }
            Tok::Global(name) => {
                let g = self.global(name)?;
                m.globals.push(g);
            }
            Tok::MetaId(id) => {
                self.bump();
                self.expect_punct('=')?;
                let node = self.metadata_definition()?;
                m.metadata.insert(id, node);
            }
            Tok::MetaName(name) => {
                self.bump();
                self.expect_punct('=')?;
                let ids = self.named_metadata()?;
                m.named_metadata.insert(name, ids);
            }
            t => return self.err(format!("unexpected {t} at the top level")),
        }
        Ok(())
    }

    /// Skips `{ ... }` (an attribute group's body).
    fn skip_braces(&mut self) -> Result<(), ParseError> {
        self.expect_punct('{')?;
        loop {
            match self.bump() {
                Tok::Punct('}') => return Ok(()),
                Tok::Punct('{') => return self.err("`{` inside an attribute group"),
                Tok::Eof => return self.err("unterminated attribute group"),
                _ => {}
            }
        }
    }

    /// `@name = [linkage...] [addrspace(N)] global|constant T [init] [, ...]`.
    fn global(&mut self, name: String) -> Result<Global, ParseError> {
        let line = self.line();
        self.bump();
        self.expect_punct('=')?;
        let mut addrspace = 0;
        let mut external = false;
        let constant = loop {
            match self.peek().clone() {
                Tok::Ident(w) if w == "global" || w == "constant" => {
                    self.bump();
                    break w == "constant";
                }
                Tok::Ident(w) if w == "addrspace" => {
                    self.bump();
                    addrspace = self.addrspace_parens()?;
                }
                Tok::Ident(w) => {
                    external |= w == "external" || w == "extern_weak";
                    self.bump();
                    self.skip_parens()?;
                }
                _ => return self.expected("`global` or `constant`"),
            }
        };
        let ty = self.ty()?;
        let init = if external || self.is_punct(',') || self.at_item_start() {
            None
        } else {
            Some(self.value(&ty)?)
        };
        let mut align = None;
        while self.eat_punct(',') {
            match self.peek().clone() {
                Tok::Ident(w) if w == "align" => {
                    self.bump();
                    align = Some(self.u64()?);
                }
                Tok::Ident(w) if w == "comdat" => {
                    self.bump();
                    if self.eat_punct('(') {
                        self.bump();
                        self.expect_punct(')')?;
                    }
                }
                Tok::Ident(w) if matches!(w.as_str(), "section" | "partition" | "code_model") => {
                    self.bump();
                    self.string()?;
                }
                Tok::MetaName(_) => {
                    self.bump();
                    self.metadata_attachment_value()?;
                }
                t => return self.err(format!("unsupported global attribute {t}")),
            }
        }
        Ok(Global {
            name,
            addrspace,
            ty,
            constant,
            init,
            align,
            line,
        })
    }

    /// Whether the next token starts a top-level item (after a global with no initialiser).
    fn at_item_start(&self) -> bool {
        match self.peek() {
            Tok::Eof | Tok::Global(_) | Tok::MetaId(_) | Tok::Comdat(_) => true,
            Tok::Ident(w) => TOP_LEVEL.contains(&w.as_str()),
            Tok::MetaName(_) => *self.peek_at(1) == Tok::Punct('='),
            Tok::Local(_) => *self.peek_at(1) == Tok::Punct('='),
            _ => false,
        }
    }

    /// `(N)` after `addrspace`.
    fn addrspace_parens(&mut self) -> Result<u32, ParseError> {
        self.expect_punct('(')?;
        let n = self.u32()?;
        self.expect_punct(')')?;
        Ok(n)
    }

    /// A function's header and, for a definition, its body.
    fn function(
        &mut self,
        define: bool,
        ptx_kernels: &mut Vec<String>,
    ) -> Result<Function, ParseError> {
        let line = self.line();
        self.bump();
        // Linkage, visibility, calling convention, return attributes.
        let mut kernel = false;
        while !self.at_type_start() {
            match self.peek().clone() {
                Tok::Ident(w) => {
                    kernel |= w == "ptx_kernel";
                    self.bump();
                    self.skip_parens()?;
                }
                Tok::Int(_) => {
                    self.bump(); // `align N` among the return attributes
                }
                _ => return self.expected("the return type"),
            }
        }
        let ret = self.ty()?;
        let name = match self.bump() {
            Tok::Global(n) => n,
            t => return self.err(format!("expected the function's `@name`, found {t}")),
        };
        let (params, varargs) = self.parameter_list(|p| {
            let ty = p.ty()?;
            let byval = p.param_attributes()?;
            let name = match p.peek().clone() {
                Tok::Local(n) => {
                    p.bump();
                    Some(n)
                }
                _ => None,
            };
            Ok(super::ir::Param { ty, name, byval })
        })?;
        let dbg = self.function_attributes()?;
        let mut f = Function {
            name,
            ret,
            params,
            varargs,
            blocks: Vec::new(),
            dbg,
            line,
        };
        if define {
            self.body(&mut f)?;
            if f.blocks.is_empty() {
                return self.err(format!("function `@{}` has no blocks", f.name));
            }
        }
        if kernel {
            ptx_kernels.push(f.name.clone());
        }
        Ok(f)
    }

    /// A parameter's or argument's attributes; returns the type of
    /// `byval(T)` if there is one.
    fn param_attributes(&mut self) -> Result<Option<Type>, ParseError> {
        let mut byval = None;
        loop {
            match self.peek().clone() {
                Tok::Ident(w) if !self.at_type_start() || w == "align" => {
                    self.bump();
                    match w.as_str() {
                        "align" => {
                            if self.is_punct('(') {
                                self.skip_parens()?;
                            } else {
                                self.int()?;
                            }
                        }
                        "byval" | "sret" | "byref" | "inalloca" | "preallocated"
                        | "elementtype" => {
                            if self.eat_punct('(') {
                                let t = self.ty()?;
                                self.expect_punct(')')?;
                                if w == "byval" {
                                    byval = Some(t);
                                }
                            }
                        }
                        // Words that are values, not attributes: let the caller read them.
                        "true" | "false" | "null" | "undef" | "poison" | "zeroinitializer"
                        | "none" => {
                            self.pos -= 1;
                            return Ok(byval);
                        }
                        _ if is_const_expr_word(&w) => {
                            self.pos -= 1;
                            return Ok(byval);
                        }
                        _ => self.skip_parens()?,
                    }
                }
                _ => return Ok(byval),
            }
        }
    }

    /// After a function's `)`: attributes, section, comdat, `!dbg`; up to
    /// the body's `{` or the next item. Returns the `!dbg` node.
    fn function_attributes(&mut self) -> Result<Option<u32>, ParseError> {
        let mut dbg = None;
        loop {
            match self.peek().clone() {
                Tok::AttrGroup(_) | Tok::Str(_) | Tok::Int(_) | Tok::Comdat(_) => {
                    self.bump();
                }
                Tok::Ident(w) if !TOP_LEVEL.contains(&w.as_str()) => {
                    self.bump();
                    if w == "personality" {
                        let t = self.ty()?;
                        self.value(&t)?;
                    } else {
                        self.skip_parens()?;
                    }
                }
                Tok::MetaName(n) if *self.peek_at(1) != Tok::Punct('=') => {
                    self.bump();
                    let id = self.metadata_attachment_value()?;
                    if n == "dbg" {
                        dbg = id;
                    }
                }
                _ => return Ok(dbg),
            }
        }
    }
}

/// Constant-expression keywords (a value, where an attribute might be).
fn is_const_expr_word(w: &str) -> bool {
    matches!(
        w,
        "getelementptr"
            | "addrspacecast"
            | "bitcast"
            | "ptrtoint"
            | "inttoptr"
            | "trunc"
            | "blockaddress"
            | "dso_local_equivalent"
            | "no_cfi"
            | "add"
            | "sub"
            | "mul"
            | "xor"
            | "shl"
            | "asm"
    )
}

#[cfg(test)]
pub(crate) mod tests;
