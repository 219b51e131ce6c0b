//! Tokens of the textual LLVM IR, each with its line and column. Comments
//! (`;` to the end of the line) are dropped.

use std::fmt;

/// A refusal of the `.ll` text: where, and what was not understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line in the `.ll` text.
    pub line: usize,
    /// 1-based column (in bytes).
    pub column: usize,
    /// What was expected or not supported.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

/// A token's kind and payload.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `%name`, `%0`, `%"quoted"`.
    Local(String),
    /// `@name`.
    Global(String),
    /// `!name` (`!dbg`, `!DILocation`, `!nvvm.annotations`).
    MetaName(String),
    /// `!12`.
    MetaId(u32),
    /// A lone `!` (before `{` or a string).
    Exclaim,
    /// `#3`.
    AttrGroup(u32),
    /// `#dbg_value` and the other debug records (skipped by the parser).
    DbgRecord(String),
    /// `$name` (comdats).
    Comdat(String),
    /// `"..."`, escapes decoded.
    Str(Vec<u8>),
    /// `c"..."`.
    CStr(Vec<u8>),
    /// `name:`, `12:`, `"quoted":`.
    Label(String),
    /// An integer literal.
    Int(i128),
    /// A floating-point literal as written.
    Float(String),
    /// A keyword or a type name (`define`, `i32`, `seq_cst`).
    Ident(String),
    /// One of `= , ( ) [ ] { } < > * |`.
    Punct(char),
    /// `...`.
    Ellipsis,
    /// The end of the text.
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Local(s) => write!(f, "`%{s}`"),
            Tok::Global(s) => write!(f, "`@{s}`"),
            Tok::MetaName(s) => write!(f, "`!{s}`"),
            Tok::MetaId(n) => write!(f, "`!{n}`"),
            Tok::Exclaim => write!(f, "`!`"),
            Tok::AttrGroup(n) => write!(f, "`#{n}`"),
            Tok::DbgRecord(s) => write!(f, "`#{s}`"),
            Tok::Comdat(s) => write!(f, "`${s}`"),
            Tok::Str(s) => write!(f, "string \"{}\"", String::from_utf8_lossy(s)),
            Tok::CStr(s) => write!(f, "c\"{}\"", String::from_utf8_lossy(s)),
            Tok::Label(s) => write!(f, "label `{s}:`"),
            Tok::Int(n) => write!(f, "`{n}`"),
            Tok::Float(s) => write!(f, "`{s}`"),
            Tok::Ident(s) => write!(f, "`{s}`"),
            Tok::Punct(c) => write!(f, "`{c}`"),
            Tok::Ellipsis => write!(f, "`...`"),
            Tok::Eof => write!(f, "the end of the file"),
        }
    }
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    pub column: usize,
}

/// Splits `text` into tokens, ending with `Tok::Eof`.
pub fn lex(text: &str) -> Result<Vec<Token>, ParseError> {
    let mut lx = Lexer {
        s: text.as_bytes(),
        i: 0,
        line: 1,
        line_start: 0,
    };
    let mut out = Vec::with_capacity(text.len() / 4);
    loop {
        let t = lx.next()?;
        let end = t.tok == Tok::Eof;
        out.push(t);
        if end {
            return Ok(out);
        }
    }
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
    line: usize,
    line_start: usize,
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_')
}

impl Lexer<'_> {
    fn peek(&self, k: usize) -> u8 {
        self.s.get(self.i + k).copied().unwrap_or(0)
    }

    fn err(&self, column: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            line: self.line,
            column,
            message: message.into(),
        }
    }

    fn next(&mut self) -> Result<Token, ParseError> {
        // Whitespace and comments.
        loop {
            match self.peek(0) {
                b'\n' => {
                    self.i += 1;
                    self.line += 1;
                    self.line_start = self.i;
                }
                b' ' | b'\t' | b'\r' => self.i += 1,
                b';' => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
        let line = self.line;
        let column = self.i - self.line_start + 1;
        let tok = self.token(column)?;
        Ok(Token { tok, line, column })
    }

    fn token(&mut self, column: usize) -> Result<Tok, ParseError> {
        if self.i >= self.s.len() {
            return Ok(Tok::Eof);
        }
        let c = self.s[self.i];
        match c {
            b'%' | b'@' | b'$' => {
                self.i += 1;
                let name = self.name(column)?;
                Ok(match c {
                    b'%' => Tok::Local(name),
                    b'@' => Tok::Global(name),
                    _ => Tok::Comdat(name),
                })
            }
            b'!' => {
                self.i += 1;
                let d = self.peek(0);
                if d.is_ascii_digit() {
                    let n = self.digits();
                    n.parse()
                        .map(Tok::MetaId)
                        .map_err(|_| self.err(column, format!("metadata number `!{n}` too large")))
                } else if d.is_ascii_alphabetic() || matches!(d, b'-' | b'$' | b'.' | b'_' | b'\\')
                {
                    let start = self.i;
                    while is_name_char(self.peek(0)) || self.peek(0) == b'\\' {
                        self.i += 1;
                    }
                    Ok(Tok::MetaName(self.text(start)))
                } else {
                    Ok(Tok::Exclaim)
                }
            }
            b'#' => {
                self.i += 1;
                if self.peek(0).is_ascii_alphabetic() {
                    let start = self.i;
                    while is_name_char(self.peek(0)) {
                        self.i += 1;
                    }
                    return Ok(Tok::DbgRecord(self.text(start)));
                }
                let n = self.digits();
                n.parse()
                    .map(Tok::AttrGroup)
                    .map_err(|_| self.err(column, "expected a number after `#`"))
            }
            b'"' => {
                let s = self.string(column)?;
                if self.peek(0) == b':' {
                    self.i += 1;
                    return Ok(Tok::Label(String::from_utf8_lossy(&s).into_owned()));
                }
                Ok(Tok::Str(s))
            }
            b'c' if self.peek(1) == b'"' => {
                self.i += 1;
                Ok(Tok::CStr(self.string(column)?))
            }
            b'.' if self.peek(1) == b'.' && self.peek(2) == b'.' => {
                self.i += 3;
                Ok(Tok::Ellipsis)
            }
            b'=' | b',' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b'*' | b'|' => {
                self.i += 1;
                Ok(Tok::Punct(c as char))
            }
            b'0'..=b'9' | b'-' | b'+' => self.number(column),
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'.' => {
                let start = self.i;
                while is_name_char(self.peek(0)) {
                    self.i += 1;
                }
                let word = self.text(start);
                if self.peek(0) == b':' {
                    self.i += 1;
                    return Ok(Tok::Label(word));
                }
                Ok(Tok::Ident(word))
            }
            _ => Err(self.err(column, format!("unexpected character {:?}", char::from(c)))),
        }
    }

    fn text(&self, start: usize) -> String {
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    fn digits(&mut self) -> String {
        let start = self.i;
        while self.peek(0).is_ascii_digit() {
            self.i += 1;
        }
        self.text(start)
    }

    /// After a sigil: `name`, `12` or `"quoted"`.
    fn name(&mut self, column: usize) -> Result<String, ParseError> {
        if self.peek(0) == b'"' {
            let s = self.string(column)?;
            return Ok(String::from_utf8_lossy(&s).into_owned());
        }
        let start = self.i;
        while is_name_char(self.peek(0)) {
            self.i += 1;
        }
        if self.i == start {
            return Err(self.err(column, "expected a name after the sigil"));
        }
        Ok(self.text(start))
    }

    /// A `"..."` string with `\\` and `\XX` escapes, on one line.
    fn string(&mut self, column: usize) -> Result<Vec<u8>, ParseError> {
        self.i += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            match self.peek(0) {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                0 if self.i >= self.s.len() => return Err(self.err(column, "unterminated string")),
                b'\n' => return Err(self.err(column, "unterminated string")),
                b'\\' => {
                    let (a, b) = (self.peek(1), self.peek(2));
                    if a == b'\\' {
                        out.push(b'\\');
                        self.i += 2;
                    } else if let (Some(h), Some(l)) = (hex(a), hex(b)) {
                        out.push(h * 16 + l);
                        self.i += 3;
                    } else {
                        out.push(b'\\');
                        self.i += 1;
                    }
                }
                c => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }

    /// An integer, a float (`1.5e+00`, `0x3FF0...`, `0xH3C00`), or a numbered label (`12:`).
    fn number(&mut self, column: usize) -> Result<Tok, ParseError> {
        let start = self.i;
        if matches!(self.peek(0), b'-' | b'+') {
            self.i += 1;
        }
        if self.peek(0) == b'0' && self.peek(1) == b'x' {
            self.i += 2;
            if matches!(self.peek(0), b'K' | b'L' | b'M' | b'H' | b'R') {
                self.i += 1;
            }
            while self.peek(0).is_ascii_hexdigit() {
                self.i += 1;
            }
            return Ok(Tok::Float(self.text(start)));
        }
        let int_start = self.i;
        while self.peek(0).is_ascii_digit() {
            self.i += 1;
        }
        if self.i == int_start {
            // `-inf`-like words are not LLVM syntax; a lone sign is an error.
            return Err(self.err(column, "expected a number"));
        }
        let mut float = false;
        if self.peek(0) == b'.' && self.peek(1).is_ascii_digit() {
            float = true;
            self.i += 1;
            while self.peek(0).is_ascii_digit() {
                self.i += 1;
            }
        }
        if matches!(self.peek(0), b'e' | b'E')
            && (self.peek(1).is_ascii_digit()
                || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
        {
            float = true;
            self.i += 2;
            while self.peek(0).is_ascii_digit() {
                self.i += 1;
            }
        }
        let text = self.text(start);
        if float {
            return Ok(Tok::Float(text));
        }
        if self.peek(0) == b':' && !text.starts_with(['-', '+']) {
            self.i += 1;
            return Ok(Tok::Label(text));
        }
        if is_name_char(self.peek(0)) && !text.starts_with(['-', '+']) {
            // A name that starts with digits (a label such as `5.preheader:`).
            while is_name_char(self.peek(0)) {
                self.i += 1;
            }
            let word = self.text(start);
            if self.peek(0) == b':' {
                self.i += 1;
                return Ok(Tok::Label(word));
            }
            return Err(self.err(column, format!("unexpected `{word}`")));
        }
        text.parse()
            .map(Tok::Int)
            .map_err(|_| self.err(column, format!("integer `{text}` out of range")))
    }
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn sigils_labels_and_numbers() {
        assert_eq!(
            toks("%x = add i32 %0, -1 ; comment\n4:\n!dbg !14 #3 \"a\\0Ab\": 1.5e+00 0xH3C00"),
            vec![
                Tok::Local("x".into()),
                Tok::Punct('='),
                Tok::Ident("add".into()),
                Tok::Ident("i32".into()),
                Tok::Local("0".into()),
                Tok::Punct(','),
                Tok::Int(-1),
                Tok::Label("4".into()),
                Tok::MetaName("dbg".into()),
                Tok::MetaId(14),
                Tok::AttrGroup(3),
                Tok::Label("a\nb".into()),
                Tok::Float("1.5e+00".into()),
                Tok::Float("0xH3C00".into()),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn strings_and_metadata_fields() {
        assert_eq!(
            toks("!DILocation(line: 3, scope: !2) !{!\"kernel\"} c\"ab\\00\" @\"q n\""),
            vec![
                Tok::MetaName("DILocation".into()),
                Tok::Punct('('),
                Tok::Label("line".into()),
                Tok::Int(3),
                Tok::Punct(','),
                Tok::Label("scope".into()),
                Tok::MetaId(2),
                Tok::Punct(')'),
                Tok::Exclaim,
                Tok::Punct('{'),
                Tok::Exclaim,
                Tok::Str(b"kernel".to_vec()),
                Tok::Punct('}'),
                Tok::CStr(b"ab\0".to_vec()),
                Tok::Global("q n".into()),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn errors_are_located() {
        let e = lex("define\n  %x = \"open").unwrap_err();
        assert_eq!((e.line, e.column), (2, 8));
        assert!(lex("^")
            .unwrap_err()
            .message
            .contains("unexpected character"));
        assert!(lex("99999999999999999999999999999999999999999999").is_err());
    }
}
