//! Metadata: numbered nodes (`!7 = [distinct] !{...}` tuples and
//! `!DIKind(field: value, ...)` specialised nodes), named metadata, and
//! attachments (`!dbg !14`).

use super::Parser;
use crate::llvm::ir::{MdField, MdId, MdNode, MdOperand, Operand, Value};
use crate::llvm::lexer::{ParseError, Tok};

impl Parser {
    /// After `!N =`: `[distinct] !{...}` or `[distinct] !DIKind(...)`.
    pub(super) fn metadata_definition(&mut self) -> Result<MdNode, ParseError> {
        self.eat_ident("distinct");
        self.md_node()
    }

    /// `!{...}` or `!Kind(...)`.
    fn md_node(&mut self) -> Result<MdNode, ParseError> {
        self.enter()?;
        let n = self.md_node_inner();
        self.leave();
        n
    }

    fn md_node_inner(&mut self) -> Result<MdNode, ParseError> {
        match self.peek().clone() {
            Tok::Exclaim if *self.peek_at(1) == Tok::Punct('{') => {
                self.bump();
                self.bump();
                let mut ops = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        ops.push(self.md_operand()?);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(MdNode::Tuple(ops))
            }
            Tok::MetaName(kind) if *self.peek_at(1) == Tok::Punct('(') => {
                self.bump();
                self.bump();
                let mut fields = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        let name = match self.peek().clone() {
                            Tok::Label(l) => {
                                self.bump();
                                l
                            }
                            _ => String::new(),
                        };
                        fields.push((name, self.md_field()?));
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(MdNode::Special { kind, fields })
            }
            t => self.err(format!("expected a metadata node, found {t}")),
        }
    }

    /// An element of a tuple.
    fn md_operand(&mut self) -> Result<MdOperand, ParseError> {
        match self.peek().clone() {
            Tok::MetaId(n) => {
                self.bump();
                Ok(MdOperand::Ref(n))
            }
            Tok::Exclaim => match self.peek_at(1).clone() {
                Tok::Str(s) => {
                    self.bump();
                    self.bump();
                    Ok(MdOperand::Str(String::from_utf8_lossy(&s).into_owned()))
                }
                _ => Ok(MdOperand::Inline(Box::new(self.md_node()?))),
            },
            Tok::MetaName(_) => Ok(MdOperand::Inline(Box::new(self.md_node()?))),
            Tok::Ident(w) if w == "null" => {
                self.bump();
                Ok(MdOperand::Null)
            }
            _ => {
                let ty = self.ty()?;
                let value = self.value(&ty)?;
                Ok(MdOperand::Value(Operand { ty, value }))
            }
        }
    }

    /// A specialised node's field value, up to the next `,` or `)`.
    fn md_field(&mut self) -> Result<MdField, ParseError> {
        let simple = match self.peek().clone() {
            Tok::MetaId(n) => Some(MdField::Ref(n)),
            Tok::Str(s) => Some(MdField::Str(String::from_utf8_lossy(&s).into_owned())),
            Tok::Int(n) => Some(MdField::Int(n)),
            Tok::Ident(w) if w == "null" => Some(MdField::Null),
            _ => None,
        };
        if let Some(f) = simple {
            if matches!(self.peek_at(1), Tok::Punct(',' | ')')) {
                self.bump();
                return Ok(f);
            }
        }
        let mut text = String::new();
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Tok::Punct(',' | ')') if depth == 0 => break,
                Tok::Punct('(' | '{' | '[' | '<') => depth += 1,
                Tok::Punct(')' | '}' | ']' | '>') => {
                    if depth == 0 {
                        return self.err(format!("unbalanced {} in a metadata field", self.peek()));
                    }
                    depth -= 1;
                }
                Tok::Eof => return self.err("unterminated metadata node"),
                _ => {}
            }
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(&tok_text(self.peek()));
            self.bump();
        }
        if text.is_empty() {
            return self.expected("a metadata field value");
        }
        Ok(MdField::Other(text))
    }

    /// After `!name =`: `!{!0, !1, ...}`.
    pub(super) fn named_metadata(&mut self) -> Result<Vec<MdId>, ParseError> {
        if *self.peek() != Tok::Exclaim {
            return self.expected("`!{`");
        }
        self.bump();
        self.expect_punct('{')?;
        let mut ids = Vec::new();
        if !self.eat_punct('}') {
            loop {
                match self.bump() {
                    Tok::MetaId(n) => ids.push(n),
                    t => return self.err(format!("expected `!N` in named metadata, found {t}")),
                }
                if self.eat_punct('}') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(ids)
    }

    /// After an attachment's `!name`: `!N` (returned) or an inline node.
    pub(super) fn metadata_attachment_value(&mut self) -> Result<Option<MdId>, ParseError> {
        match self.peek().clone() {
            Tok::MetaId(n) => {
                self.bump();
                Ok(Some(n))
            }
            _ => {
                self.md_node()?;
                Ok(None)
            }
        }
    }

    /// A `metadata` argument: `!N`, `!{...}`, `!"s"`, `!DIKind(...)` or `T v`.
    pub(super) fn metadata_value(&mut self) -> Result<Value, ParseError> {
        match self.peek().clone() {
            Tok::MetaId(n) => {
                self.bump();
                Ok(Value::Metadata(Some(n)))
            }
            Tok::Exclaim | Tok::MetaName(_) => {
                self.md_operand()?;
                Ok(Value::Metadata(None))
            }
            _ => {
                let ty = self.ty()?;
                self.value(&ty)?;
                Ok(Value::Metadata(None))
            }
        }
    }
}

/// A token as the `.ll` text would spell it (for `MdField::Other`).
fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Local(s) => format!("%{s}"),
        Tok::Global(s) => format!("@{s}"),
        Tok::MetaName(s) => format!("!{s}"),
        Tok::MetaId(n) => format!("!{n}"),
        Tok::Exclaim => "!".into(),
        Tok::AttrGroup(n) => format!("#{n}"),
        Tok::DbgRecord(s) => format!("#{s}"),
        Tok::Comdat(s) => format!("${s}"),
        Tok::Str(s) => format!("\"{}\"", String::from_utf8_lossy(s)),
        Tok::CStr(s) => format!("c\"{}\"", String::from_utf8_lossy(s)),
        Tok::Label(s) => format!("{s}:"),
        Tok::Int(n) => n.to_string(),
        Tok::Float(s) | Tok::Ident(s) => s.clone(),
        Tok::Punct(c) => c.to_string(),
        Tok::Ellipsis => "...".into(),
        Tok::Eof => String::new(),
    }
}
