//! A parser for herd litmus tests in the PTX dialect (as in Dat3M's
//! `litmus/PTX` corpus). Every error is a [`Diagnostic`] located in the
//! litmus text.
//!
//! ```text
//! PTX NAME
//! "optional comments, possibly over several lines"
//! { x=0; P1:r1=0; }
//!  P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;
//!  st.weak x, 1   | ld.weak r1, x  ;
//! exists (P1:r1 == 1)
//! ```
//!
//! Instructions are parsed into [`Instr`] with their opcode split into dotted
//! qualifiers; which combinations mean something is decided by the
//! translation, so an instruction the checker cannot express yet is reported
//! as unsupported rather than as a syntax error.

use crate::diag::Diagnostic;
use crate::diag::Span;

/// A parsed litmus test.
#[derive(Clone, Debug)]
pub struct Litmus {
    /// The architecture word (`PTX`).
    pub arch: String,
    pub name: String,
    /// Initial values of memory locations, in order of appearance.
    pub mem_init: Vec<(String, i64, Span)>,
    /// Initial values of registers: (thread, register, value).
    pub reg_init: Vec<(usize, String, i64, Span)>,
    pub threads: Vec<Thread>,
    pub quantifier: Quantifier,
    pub condition: Cond,
    pub condition_span: Span,
}

/// One column of the test.
#[derive(Clone, Debug)]
pub struct Thread {
    /// `n` of `Pn`.
    pub id: usize,
    pub cta: u32,
    pub gpu: u32,
    pub span: Span,
    pub code: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Label(String, Span),
    Instr(Instr),
}

/// An instruction as written: `atom.acquire.gpu.add r1, in, 1` has
/// `opcode = ["atom", "acquire", "gpu", "add"]`.
#[derive(Clone, Debug)]
pub struct Instr {
    pub opcode: Vec<String>,
    pub operands: Vec<Operand>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Reg(String),
    Imm(i64),
    /// A memory location or a label.
    Name(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

impl Quantifier {
    pub fn keyword(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
    }
}

/// The final condition over registers and memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    True,
    False,
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Cmp { eq: bool, lhs: Term, rhs: Term },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Term {
    Int(i64),
    /// `P1:r2` or `1:r2`.
    Reg(usize, String),
    Mem(String),
}

impl Litmus {
    /// The test's CTAs as (gpu, cta) pairs, in order: CTA ids are per GPU.
    pub fn ctas(&self) -> Vec<(u32, u32)> {
        let mut ctas: Vec<(u32, u32)> = self.threads.iter().map(|t| (t.gpu, t.cta)).collect();
        ctas.sort_unstable();
        ctas.dedup();
        ctas
    }
}

impl Cond {
    /// Every register and location the condition reads.
    pub fn terms(&self, out: &mut Vec<Term>) {
        match self {
            Cond::True | Cond::False => {}
            Cond::Not(c) => c.terms(out),
            Cond::And(a, b) | Cond::Or(a, b) => {
                a.terms(out);
                b.terms(out);
            }
            Cond::Cmp { lhs, rhs, .. } => {
                for t in [lhs, rhs] {
                    if !matches!(t, Term::Int(_)) && !out.contains(t) {
                        out.push(t.clone());
                    }
                }
            }
        }
    }
}

fn err(start: usize, end: usize, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Span::new(start, end.max(start + 1)), msg)
}

/// Parses a register name: `r` followed by digits (herd's convention).
pub fn is_register(s: &str) -> bool {
    s.len() > 1 && s.starts_with('r') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let (digits, radix) = match body.strip_prefix("0x") {
        Some(h) => (h, 16),
        None => (body, 10),
    };
    // Digits only after the one sign (`from_str_radix` would take another),
    // and the value in range once negated (`-0x8000000000000000` is).
    if digits.starts_with(['-', '+']) {
        return None;
    }
    let v = i128::from_str_radix(digits, radix).ok()?;
    i64::try_from(if neg { -v } else { v }).ok()
}

/// `P3` or `3` → 3.
fn parse_thread(s: &str) -> Option<usize> {
    let s = s.trim();
    let digits = s.strip_prefix('P').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Trims `s[start..end]`, returning the trimmed byte range (empty, at
/// `end`, where the range is all white space).
fn trim_range(text: &str, start: usize, end: usize) -> (usize, usize) {
    let s = &text[start..end];
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    (start + lead, (end - trail).max(start + lead))
}

/// The start of the first line from `from` on whose text, without its
/// leading blanks, `is` accepts (that text's start).
fn find_line(text: &str, from: usize, is: impl Fn(&str) -> bool) -> Option<usize> {
    let mut line_start = from;
    while line_start < text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        let (ts, _) = trim_range(text, line_start, line_end);
        if is(&text[ts..line_end]) {
            return Some(ts);
        }
        line_start = line_end + 1;
    }
    None
}

/// Parses a whole litmus file.
pub fn parse(text: &str) -> Result<Litmus, Diagnostic> {
    // Header line: `ARCH NAME`.
    let first_end = text.find('\n').unwrap_or(text.len());
    let header = text[..first_end].trim();
    let mut words = header.split_whitespace();
    let arch = words.next().unwrap_or("").to_string();
    let name = words.collect::<Vec<_>>().join(" ");
    if arch.is_empty() {
        return Err(err(0, first_end, "expected `PTX NAME` on the first line"));
    }
    if arch != "PTX" {
        return Err(err(
            0,
            arch.len(),
            format!("`{arch}` litmus tests are not supported"),
        )
        .label("architecture")
        .hint("only herd tests for PTX are understood"));
    }
    // Comments in double quotes (which may themselves contain quotes), then
    // the initial state: the first line that starts with `{`.
    let Some(pos) = find_line(text, first_end, |l| l.starts_with('{')) else {
        return Err(err(
            first_end,
            text.len(),
            "expected a line starting with `{` (the initial state)",
        )
        .label("after the comments"));
    };
    let open = pos;
    let close = match text[open..].find('}') {
        Some(c) => open + c,
        None => return Err(err(open, open + 1, "unterminated initial state").label("opened here")),
    };
    let (mem_init, reg_init) = parse_init(text, open + 1, close)?;
    // The table runs until the line holding the final quantifier.
    let table_start = close + 1;
    let quantifier = |l: &str| {
        ["exists", "~exists", "forall", "~ exists"]
            .iter()
            .any(|q| l.starts_with(q))
    };
    let Some(cond_start) = find_line(text, table_start, quantifier) else {
        return Err(err(
            text.len().saturating_sub(1),
            text.len(),
            "missing final condition (`exists`, `~exists` or `forall`)",
        ));
    };
    let threads = parse_table(text, table_start, cond_start)?;
    let (quantifier, condition, condition_span) = parse_final(text, cond_start, &threads)?;
    Ok(Litmus {
        arch,
        name,
        mem_init,
        reg_init,
        threads,
        quantifier,
        condition,
        condition_span,
    })
}

type Inits = (Vec<(String, i64, Span)>, Vec<(usize, String, i64, Span)>);

fn parse_init(text: &str, start: usize, end: usize) -> Result<Inits, Diagnostic> {
    let mut mem = vec![];
    let mut regs = vec![];
    let mut s = start;
    for piece in text[start..end].split([';', '\n']) {
        let (ps, pe) = trim_range(text, s, s + piece.len());
        s += piece.len() + 1;
        if ps >= pe {
            continue;
        }
        let entry = &text[ps..pe];
        let Some(eq) = entry.find('=') else {
            return Err(
                err(ps, pe, "expected `location=value` or `P0:r0=value`").label("initial value")
            );
        };
        // A type may precede the name (`int x = 0`): the name is the last word.
        let lhs = entry[..eq].split_whitespace().last().unwrap_or("");
        let rhs = &entry[eq + 1..];
        let value = parse_int(rhs).ok_or_else(|| {
            err(ps + eq + 1, pe, "expected an integer initial value").label("not an integer")
        })?;
        let span = Span::new(ps, pe);
        match lhs.split_once(':') {
            Some((t, r)) => {
                let thread = parse_thread(t)
                    .ok_or_else(|| err(ps, ps + eq, format!("`{t}` is not a thread (`P0`)")))?;
                regs.push((thread, r.trim().to_string(), value, span));
            }
            None if !lhs.is_empty() => mem.push((lhs.to_string(), value, span)),
            None => return Err(err(ps, pe, "missing name before `=`")),
        }
    }
    Ok((mem, regs))
}

/// Splits the table into rows (`;`) and cells (`|`), with byte ranges.
fn parse_table(text: &str, start: usize, end: usize) -> Result<Vec<Thread>, Diagnostic> {
    let mut rows: Vec<Vec<(usize, usize)>> = vec![];
    let mut s = start;
    for row in text[start..end].split(';') {
        let row_start = s;
        s += row.len() + 1;
        if row.trim().is_empty() {
            continue;
        }
        let mut cells = vec![];
        let mut c = row_start;
        for cell in row.split('|') {
            cells.push(trim_range(text, c, c + cell.len()));
            c += cell.len() + 1;
        }
        rows.push(cells);
    }
    let Some(head) = rows.first() else {
        return Err(err(
            start,
            end,
            "expected the thread header `P0@cta 0,gpu 0 | ...`",
        ));
    };
    let mut threads = vec![];
    for (i, &(cs, ce)) in head.iter().enumerate() {
        threads.push(parse_thread_header(text, cs, ce, i)?);
    }
    for row in &rows[1..] {
        if row.len() > threads.len() {
            let (cs, ce) = row[threads.len()];
            return Err(err(
                cs,
                ce,
                format!(
                    "this row has {} columns but the test has {} threads",
                    row.len(),
                    threads.len()
                ),
            )
            .label("extra column"));
        }
        for (i, &(cs, ce)) in row.iter().enumerate() {
            if cs >= ce {
                continue;
            }
            threads[i].code.push(parse_stmt(text, cs, ce)?);
        }
    }
    Ok(threads)
}

fn parse_thread_header(
    text: &str,
    start: usize,
    end: usize,
    column: usize,
) -> Result<Thread, Diagnostic> {
    let cell = &text[start..end];
    let (name, placement) = match cell.split_once('@') {
        Some((n, p)) => (n.trim(), Some(p)),
        None => (cell.trim(), None),
    };
    let id = parse_thread(name).ok_or_else(|| {
        err(
            start,
            end,
            format!("expected a thread name `P{column}`, found `{name}`"),
        )
        .label("thread header")
    })?;
    if id != column {
        return Err(
            err(start, end, format!("thread `{name}` is in column {column}")).hint(format!(
                "name the columns P0, P1, ... in order; this one should be P{column}"
            )),
        );
    }
    let (mut cta, mut gpu) = (0, 0);
    if let Some(p) = placement {
        for part in p.split(',') {
            let mut w = part.split_whitespace();
            let key = w.next().unwrap_or("");
            let value = w
                .next()
                .and_then(parse_int)
                .and_then(|v| u32::try_from(v).ok());
            match (key, value) {
                ("cta", Some(v)) => cta = v,
                ("gpu", Some(v)) => gpu = v,
                _ => {
                    return Err(err(
                        start,
                        end,
                        format!("cannot read the placement `{}`", part.trim()),
                    )
                    .label("placement")
                    .hint("write `P0@cta 0,gpu 0`"))
                }
            }
        }
    }
    Ok(Thread {
        id,
        cta,
        gpu,
        span: Span::new(start, end),
        code: vec![],
    })
}

fn parse_stmt(text: &str, start: usize, end: usize) -> Result<Stmt, Diagnostic> {
    let cell = &text[start..end];
    if let Some(label) = cell.strip_suffix(':') {
        let label = label.trim();
        if !label.is_empty() && !label.contains(char::is_whitespace) {
            return Ok(Stmt::Label(label.to_string(), Span::new(start, end)));
        }
    }
    let op_end = cell.find(char::is_whitespace).unwrap_or(cell.len());
    let opcode: Vec<String> = cell[..op_end].split('.').map(str::to_string).collect();
    if opcode.iter().any(String::is_empty) {
        return Err(err(
            start,
            start + op_end,
            format!("malformed opcode `{}`", &cell[..op_end]),
        ));
    }
    let mut operands = vec![];
    let rest = &cell[op_end..];
    if !rest.trim().is_empty() {
        let mut o = start + op_end;
        for piece in rest.split(',') {
            let (ps, pe) = trim_range(text, o, o + piece.len());
            o += piece.len() + 1;
            let p = &text[ps..pe];
            let operand = if p.is_empty() {
                return Err(err(ps, pe, "missing operand").label("expected an operand here"));
            } else if let Some(v) = parse_int(p) {
                Operand::Imm(v)
            } else if is_register(p) {
                Operand::Reg(p.to_string())
            } else if p.chars().all(|c| c.is_alphanumeric() || c == '_') {
                Operand::Name(p.to_string())
            } else {
                return Err(err(ps, pe, format!("cannot read the operand `{p}`")).label("operand"));
            };
            operands.push(operand);
        }
    }
    Ok(Stmt::Instr(Instr {
        opcode,
        operands,
        span: Span::new(start, end),
    }))
}

/// Tokens of the final condition, with their start offsets.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    LParen,
    RParen,
    And,
    Or,
    Not,
    Eq,
    Ne,
    Word(String),
}

fn lex_cond(text: &str, start: usize, end: usize) -> Result<Vec<(Tok, usize, usize)>, Diagnostic> {
    let b = text.as_bytes();
    let mut i = start;
    let mut out = vec![];
    while i < end {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // Bytes: the second may be the start of a character.
        let two = &b[i..(i + 2).min(end)];
        let (tok, len) = match (c, two) {
            (_, b"/\\") => (Tok::And, 2),
            (_, b"\\/") => (Tok::Or, 2),
            (_, b"==") => (Tok::Eq, 2),
            (_, b"!=") => (Tok::Ne, 2),
            (b'=', _) => (Tok::Eq, 1),
            (b'(', _) => (Tok::LParen, 1),
            (b')', _) => (Tok::RParen, 1),
            (b'~', _) => (Tok::Not, 1),
            _ if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b':' => {
                let mut j = i + 1;
                while j < end {
                    let d = b[j];
                    if d.is_ascii_alphanumeric() || d == b'_' || d == b':' {
                        j += 1;
                    } else if d == b' ' && text[i..j].ends_with(':') {
                        // `P3: r0`
                        j += 1;
                    } else {
                        break;
                    }
                }
                let w: String = text[i..j].chars().filter(|c| !c.is_whitespace()).collect();
                let tok = match w.as_str() {
                    "not" => Tok::Not,
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    _ => Tok::Word(w),
                };
                (tok, j - i)
            }
            _ => {
                // Every token is ASCII, so `i` starts a character.
                let ch = text[i..].chars().next().unwrap_or('?');
                return Err(err(
                    i,
                    i + ch.len_utf8(),
                    format!("unexpected `{ch}` in the final condition"),
                ));
            }
        };
        out.push((tok, i, i + len));
        i += len;
    }
    Ok(out)
}

/// The highest condition tree and the deepest nesting of `(` and `~`: the
/// parser builds `a /\ b /\ ...` by a loop, but evaluating, translating and
/// dropping the tree recurse, so its height is bounded with a located error.
/// Herd's conditions are a few levels high.
pub const MAX_COND_HEIGHT: u32 = 256;
const MAX_COND_NESTING: u32 = 100;

struct CondParser<'a> {
    toks: Vec<(Tok, usize, usize)>,
    pos: usize,
    end: usize,
    threads: &'a [Thread],
    /// `(` and `~` open around the current token.
    nesting: u32,
}

impl CondParser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn here(&self) -> (usize, usize) {
        self.toks
            .get(self.pos)
            .map_or((self.end.saturating_sub(1), self.end), |t| (t.1, t.2))
    }

    /// A `/\` or `\/` node over `a` and `b`, or an error at the operator
    /// once the tree would be higher than [`MAX_COND_HEIGHT`].
    fn join(
        &self,
        op: (usize, usize),
        (a, ha): (Cond, u32),
        (b, hb): (Cond, u32),
        and: bool,
    ) -> Result<(Cond, u32), Diagnostic> {
        let height = ha.max(hb) + 1;
        if height > MAX_COND_HEIGHT {
            return Err(err(
                op.0,
                op.1,
                format!("the final condition nests deeper than {MAX_COND_HEIGHT} levels"),
            )
            .label("the limit is reached here"));
        }
        let (a, b) = (Box::new(a), Box::new(b));
        Ok((if and { Cond::And(a, b) } else { Cond::Or(a, b) }, height))
    }

    fn or(&mut self) -> Result<(Cond, u32), Diagnostic> {
        self.chain(Tok::Or, Self::and)
    }

    fn and(&mut self) -> Result<(Cond, u32), Diagnostic> {
        self.chain(Tok::And, Self::atom)
    }

    /// `operand (op operand)*`, joined to the left.
    fn chain(
        &mut self,
        op: Tok,
        operand: fn(&mut Self) -> Result<(Cond, u32), Diagnostic>,
    ) -> Result<(Cond, u32), Diagnostic> {
        let mut c = operand(self)?;
        while self.peek() == Some(&op) {
            let at = self.here();
            self.pos += 1;
            let rhs = operand(self)?;
            c = self.join(at, c, rhs, op == Tok::And)?;
        }
        Ok(c)
    }

    /// Enters a `(` or `~`: an error once they nest too deeply.
    fn enter(&mut self) -> Result<(), Diagnostic> {
        self.nesting += 1;
        if self.nesting > MAX_COND_NESTING {
            let (s, e) = self.here();
            return Err(err(
                s,
                e,
                format!(
                    "the final condition nests deeper than {MAX_COND_NESTING} parentheses or `~`"
                ),
            )
            .label("the limit is reached here"));
        }
        Ok(())
    }

    fn atom(&mut self) -> Result<(Cond, u32), Diagnostic> {
        let (s, e) = self.here();
        match self.peek().cloned() {
            Some(Tok::LParen) => {
                self.pos += 1;
                self.enter()?;
                let c = self.or()?;
                self.nesting -= 1;
                if self.peek() != Some(&Tok::RParen) {
                    let (s2, e2) = self.here();
                    return Err(err(s2, e2, "expected `)`").label("unclosed `(`"));
                }
                self.pos += 1;
                Ok(c)
            }
            Some(Tok::Not) => {
                self.pos += 1;
                self.enter()?;
                let (c, h) = self.atom()?;
                self.nesting -= 1;
                Ok((Cond::Not(Box::new(c)), h + 1))
            }
            Some(Tok::Word(w)) if w == "true" => {
                self.pos += 1;
                Ok((Cond::True, 1))
            }
            Some(Tok::Word(w)) if w == "false" => {
                self.pos += 1;
                Ok((Cond::False, 1))
            }
            Some(Tok::Word(_)) => {
                let lhs = self.term()?;
                let eq = match self.peek() {
                    Some(Tok::Eq) => true,
                    Some(Tok::Ne) => false,
                    _ => {
                        let (s2, e2) = self.here();
                        return Err(err(s2, e2, "expected `==` or `!=`").label("comparison"));
                    }
                };
                self.pos += 1;
                let rhs = self.term()?;
                Ok((Cond::Cmp { eq, lhs, rhs }, 1))
            }
            _ => Err(err(s, e, "expected a comparison, `(` or `~`").label("here")),
        }
    }

    fn term(&mut self) -> Result<Term, Diagnostic> {
        let (s, e) = self.here();
        let Some(Tok::Word(w)) = self.peek().cloned() else {
            return Err(err(s, e, "expected a register, location or integer"));
        };
        self.pos += 1;
        if let Some(v) = parse_int(&w) {
            return Ok(Term::Int(v));
        }
        if let Some((t, r)) = w.split_once(':') {
            let thread = parse_thread(t)
                .ok_or_else(|| err(s, e, format!("`{t}` is not a thread (`P0`)")))?;
            if thread >= self.threads.len() {
                return Err(
                    err(s, e, format!("the test has no thread P{thread}")).label("unknown thread")
                );
            }
            return Ok(Term::Reg(thread, r.to_string()));
        }
        Ok(Term::Mem(w))
    }
}

fn parse_final(
    text: &str,
    start: usize,
    threads: &[Thread],
) -> Result<(Quantifier, Cond, Span), Diagnostic> {
    let rest = &text[start..];
    let (q, kw_len) = if rest.starts_with("~exists") {
        (Quantifier::NotExists, 7)
    } else if rest.starts_with("~ exists") {
        (Quantifier::NotExists, 8)
    } else if rest.starts_with("exists") {
        (Quantifier::Exists, 6)
    } else {
        (Quantifier::Forall, 6)
    };
    let cs = start + kw_len;
    let toks = lex_cond(text, cs, text.len())?;
    let span_end = toks.last().map_or(text.len(), |t| t.2);
    let mut p = CondParser {
        toks,
        pos: 0,
        end: text.len(),
        threads,
        nesting: 0,
    };
    let (cond, _) = p.or()?;
    if p.pos < p.toks.len() {
        let (s, e) = p.here();
        return Err(err(s, e, "unexpected text after the final condition").label("extra"));
    }
    Ok((q, cond, Span::new(start, span_end)))
}
