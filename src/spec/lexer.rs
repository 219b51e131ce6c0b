//! Lexer: spec text → tokens, plus the `//!` header lines that precede the
//! first token (they are handed to the header parser, not to the grammar).

use super::ast::Span;
use crate::diag::{Diagnostic, SpecResult};

/// Declares a token enum and its table of spellings from one list, so
/// that the two cannot drift apart, with `as_str` to spell a token.
macro_rules! spelled_enum {
    ($(#[$doc:meta])* $vis:vis enum $name:ident, $table:ident {
        $($variant:ident = $text:literal,)*
    }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($variant,)*
        }

        const $table: &[(&str, $name)] = &[$(($text, $name::$variant),)*];

        impl $name {
            $vis fn as_str(self) -> &'static str {
                $table
                    .iter()
                    .find(|(_, k)| *k == self)
                    .map_or("?", |(s, _)| s)
            }
        }
    };
}

spelled_enum! {
    /// Reserved words. Type names are keywords too, so `u32 x` is recognisably a
    /// declaration wherever it appears.
    pub(crate) enum Kw, KEYWORDS {
        // Items and storage.
        Param = "param", Global = "global", Shared = "shared", Local = "local",
        Volatile = "volatile", Fn = "fn", Harness = "harness", Master = "master", All = "all",
        Check = "check",
        // Statements.
        If = "if", Else = "else", While = "while", For = "for", Break = "break",
        Continue = "continue", Return = "return", Assert = "assert",
        Critical = "critical", Phase = "phase", Progress = "progress",
        // Values and types.
        True = "true", False = "false",
        Bool = "bool", U8 = "u8", U16 = "u16", U32 = "u32", I8 = "i8", I16 = "i16", I32 = "i32", U64 = "u64", I64 = "i64",
        Int = "int", Unsigned = "unsigned",
    }
}

impl Kw {
    fn from_str(s: &str) -> Option<Kw> {
        KEYWORDS.iter().find(|(w, _)| *w == s).map(|(_, k)| *k)
    }
}

spelled_enum! {
    /// Operators and punctuation. The table lists the longest spellings
    /// first, so `<<` wins over `<`.
    pub(crate) enum Sym, SYMBOLS {
        // Two characters.
        Arrow = "->", PlusEq = "+=", MinusEq = "-=", PlusPlus = "++", MinusMinus = "--",
        AndAnd = "&&", OrOr = "||", EqEq = "==", Ne = "!=", Le = "<=", Ge = ">=",
        Shl = "<<", Shr = ">>",
        // One character: operators, then punctuation.
        Plus = "+", Minus = "-", Star = "*", Slash = "/", Percent = "%",
        Bang = "!", Tilde = "~", Amp = "&", Pipe = "|", Caret = "^", Lt = "<", Gt = ">",
        Assign = "=", Question = "?", Colon = ":",
        Semi = ";", Comma = ",", Dot = ".",
        LParen = "(", RParen = ")", LBracket = "[", RBracket = "]", LBrace = "{", RBrace = "}",
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    Ident(String),
    Int(i64),
    Str(String),
    Kw(Kw),
    Sym(Sym),
    Eof,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    pub tok: Tok,
    pub span: Span,
}

/// One `//!` line: the text after `//!`, where that text starts, and its line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderLine {
    pub text: String,
    pub start: usize,
    /// 1-based.
    pub line: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct Lexed {
    /// Always ends with exactly one `Tok::Eof`.
    pub tokens: Vec<Token>,
    pub header: Vec<HeaderLine>,
}

pub(crate) fn lex(text: &str) -> SpecResult<Lexed> {
    let mut lexer = Lexer {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
        header: Vec::new(),
    };
    lexer.run()?;
    Ok(Lexed {
        tokens: lexer.tokens,
        header: lexer.header,
    })
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    header: Vec<HeaderLine>,
}

impl<'a> Lexer<'a> {
    fn byte_at(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    /// Advances over the bytes `pred` accepts.
    fn skip_while(&mut self, pred: impl Fn(u8) -> bool) {
        while self.byte_at(self.pos).is_some_and(&pred) {
            self.pos += 1;
        }
    }

    /// Advances over letters, digits and `_` (a word or a number with its
    /// suffix); returns where they start and their text.
    fn word_chars(&mut self) -> (usize, &'a str) {
        let start = self.pos;
        self.skip_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        let text: &'a str = self.text;
        (start, &text[start..self.pos])
    }

    fn run(&mut self) -> SpecResult<()> {
        loop {
            self.skip_while(|b| b.is_ascii_whitespace());
            let start = self.pos;
            let Some(b) = self.byte_at(start) else {
                self.push(Tok::Eof, start);
                return Ok(());
            };
            match (b, self.byte_at(start + 1)) {
                (b'/', Some(b'/')) => self.line_comment(),
                (b'/', Some(b'*')) => self.block_comment()?,
                (b'"', _) => self.string()?,
                (b'0'..=b'9', _) => self.number()?,
                (b'a'..=b'z' | b'A'..=b'Z' | b'_', _) => self.word(),
                _ => self.symbol()?,
            }
        }
    }

    fn push(&mut self, tok: Tok, start: usize) {
        let span = Span::new(start, self.pos);
        self.tokens.push(Token { tok, span });
    }

    fn line_comment(&mut self) {
        let start = self.pos;
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        self.pos = end;
        // Header lines only count before the first token; later they are comments.
        if self.tokens.is_empty() && self.text[start..end].starts_with("//!") {
            let line = self.text[..start].matches('\n').count() as u32 + 1;
            self.header.push(HeaderLine {
                text: self.text[start + 3..end].to_string(),
                start: start + 3,
                line,
            });
        }
    }

    fn block_comment(&mut self) -> SpecResult<()> {
        let start = self.pos;
        match self.text[start + 2..].find("*/") {
            Some(i) => {
                self.pos = start + 2 + i + 2;
                Ok(())
            }
            None => Err(
                Diagnostic::new(Span::new(start, start + 2), "unterminated block comment")
                    .label("comment starts here")
                    .hint("close the comment with `*/`"),
            ),
        }
    }

    fn string(&mut self) -> SpecResult<()> {
        let start = self.pos;
        let mut value = String::new();
        let mut i = start + 1;
        let mut chunk = i;
        loop {
            match self.byte_at(i) {
                Some(b'"') => {
                    value.push_str(&self.text[chunk..i]);
                    self.pos = i + 1;
                    self.push(Tok::Str(value), start);
                    return Ok(());
                }
                Some(b'\\') => {
                    value.push_str(&self.text[chunk..i]);
                    match self.byte_at(i + 1) {
                        Some(c @ (b'"' | b'\\')) => value.push(c as char),
                        _ => {
                            let end = self.text[i + 1..]
                                .chars()
                                .next()
                                .map_or(i + 1, |c| i + 1 + c.len_utf8());
                            return Err(Diagnostic::new(
                                Span::new(i, end),
                                "unknown escape in string",
                            )
                            .label("unknown escape")
                            .hint("only `\\\"` and `\\\\` are supported"));
                        }
                    }
                    i += 2;
                    chunk = i;
                }
                Some(b'\n') | None => {
                    return Err(Diagnostic::new(
                        Span::new(start, start + 1),
                        "unterminated string",
                    )
                    .label("string starts here")
                    .hint("close the string with `\"` on the same line"));
                }
                Some(_) => i += 1,
            }
        }
    }

    fn number(&mut self) -> SpecResult<()> {
        let (start, text) = self.word_chars();
        let span = Span::new(start, self.pos);
        let (digits, radix) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            Some(hex) => (hex, 16),
            None => (text, 10),
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return Err(
                Diagnostic::new(span, format!("invalid integer literal `{text}`"))
                    .label("not a number")
                    .hint("integers are decimal (`42`) or hexadecimal (`0x2A`), without suffixes"),
            );
        }
        match i64::from_str_radix(digits, radix) {
            Ok(value) => {
                self.push(Tok::Int(value), start);
                Ok(())
            }
            Err(_) => Err(
                Diagnostic::new(span, format!("integer literal `{text}` is too large"))
                    .label("does not fit in 64 bits")
                    .hint(format!("integer literals must be at most {}", i64::MAX)),
            ),
        }
    }

    fn word(&mut self) {
        let (start, text) = self.word_chars();
        let tok = match Kw::from_str(text) {
            Some(kw) => Tok::Kw(kw),
            None => Tok::Ident(text.to_string()),
        };
        self.push(tok, start);
    }

    fn symbol(&mut self) -> SpecResult<()> {
        let start = self.pos;
        let rest = &self.text[start..];
        if let Some((text, sym)) = SYMBOLS.iter().find(|(t, _)| rest.starts_with(t)) {
            self.pos += text.len();
            self.push(Tok::Sym(*sym), start);
            return Ok(());
        }
        let c = rest.chars().next().unwrap_or('\u{fffd}');
        let span = Span::new(start, start + c.len_utf8());
        let diag = Diagnostic::new(span, format!("unexpected character `{}`", c.escape_debug()))
            .label("not part of the language");
        Err(match c {
            '#' => diag.hint("there is no preprocessor; use `param` for constants"),
            '\'' => diag.hint("character literals do not exist; use integers"),
            _ => diag,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(text: &str) -> Vec<Tok> {
        lex(text)
            .expect("lexes")
            .tokens
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    fn err(text: &str) -> Diagnostic {
        lex(text).expect_err("should fail")
    }

    #[test]
    fn operators_longest_match() {
        use Sym::*;
        let expected: Vec<Tok> = [
            PlusEq, MinusEq, PlusPlus, MinusMinus, AndAnd, OrOr, EqEq, Ne, Le, Ge, Shl, Shr,
            Question, Colon, Arrow, Lt, Tilde, Caret, Percent,
        ]
        .into_iter()
        .map(Tok::Sym)
        .chain([Tok::Eof])
        .collect();
        assert_eq!(
            toks("+= -= ++ -- && || == != <= >= << >> ? : -> < ~ ^ %"),
            expected
        );
    }

    #[test]
    fn literals_and_words() {
        assert_eq!(
            toks("x_1 0x7FFFFFFF 42 true unsigned \"a\\\"b\\\\\""),
            vec![
                Tok::Ident("x_1".into()),
                Tok::Int(0x7FFF_FFFF),
                Tok::Int(42),
                Tok::Kw(Kw::True),
                Tok::Kw(Kw::Unsigned),
                Tok::Str("a\"b\\".into()),
                Tok::Eof,
            ]
        );
    }

    #[test]
    fn comments_and_spans() {
        let lexed = lex("a /* x\ny */ // c\n  b").unwrap();
        assert_eq!(lexed.tokens[0].span, Span::new(0, 1));
        assert_eq!(lexed.tokens[1].span, Span::new(19, 20));
        assert_eq!(lexed.tokens[2].tok, Tok::Eof);
    }

    #[test]
    fn header_lines_only_before_first_token() {
        let lexed =
            lex("//! name: a\n// plain\n//!family: b\nparam x = 1;\n//! note: late\n").unwrap();
        let texts: Vec<(&str, u32)> = lexed
            .header
            .iter()
            .map(|h| (h.text.as_str(), h.line))
            .collect();
        assert_eq!(texts, vec![(" name: a", 1), ("family: b", 3)]);
        assert_eq!(lexed.header[1].start, 24);
    }

    #[test]
    fn literal_overflow() {
        let d = err("x = 9223372036854775808;");
        assert!(d.message.contains("too large"), "{}", d.message);
        assert_eq!(d.span, Span::new(4, 23));
        assert!(err("0x10000000000000000").message.contains("too large"));
        assert_eq!(toks("9223372036854775807")[0], Tok::Int(i64::MAX));
    }

    #[test]
    fn bad_literals_and_characters() {
        assert!(err("12ab")
            .message
            .contains("invalid integer literal `12ab`"));
        assert!(err("0x").message.contains("invalid integer literal"));
        let d = err("a\n  @b");
        assert_eq!(d.message, "unexpected character `@`");
        assert_eq!(d.span, Span::new(4, 5));
        assert_eq!(err("é").span, Span::new(0, 2));
    }

    #[test]
    fn unterminated() {
        let d = err("a /* b \n c");
        assert_eq!(
            (d.message.as_str(), d.span),
            ("unterminated block comment", Span::new(2, 4))
        );
        let d = err("assert(x, \"abc\n);");
        assert_eq!(
            (d.message.as_str(), d.span),
            ("unterminated string", Span::new(10, 11))
        );
        assert!(err("\"\\n\"").message.contains("unknown escape"));
        assert!(err("\"\\").message.contains("unknown escape"));
    }
}
