//! Reading an input file (a spec, a litmus test, a saved counterexample):
//! bounded in size, so that `check /dev/zero` stops at once instead of
//! reading until memory runs out, and UTF-8, with the first bad byte located.

use std::io::Read;
use std::path::Path;

/// The largest input read. Specs and litmus tests are a few KiB and saved
/// counterexamples a few tens of KiB; 16 MiB leaves room for generated ones.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// The text of `path`; the error names the file (and, for text that is not
/// UTF-8, the line and column of the first bad byte).
pub fn read_text(path: &Path) -> Result<String, String> {
    read_text_capped(path, MAX_INPUT_BYTES)
}

fn read_text_capped(path: &Path, cap: u64) -> Result<String, String> {
    let name = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "{name} is larger than {} (the most an input file may hold); is it the right file?",
            size_text(cap)
        ));
    }
    decode(&name.to_string(), bytes)
}

/// The text of the bytes read from `name`; for bytes that are not UTF-8,
/// the error names the line and column of the first bad byte.
pub fn decode(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        let bad = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let (line, col) = line_col(&bytes[..bad]);
        format!(
            "{name}:{line}:{col}: the file is not UTF-8 text (byte 0x{:02x} at offset {bad})",
            bytes[bad]
        )
    })
}

/// 1-based line and column just after `valid` (columns count characters).
fn line_col(valid: &[u8]) -> (usize, usize) {
    // `valid` is the UTF-8 prefix before the first bad byte.
    let text = std::str::from_utf8(valid).unwrap_or("");
    let line = text.matches('\n').count() + 1;
    let line_start = text.rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..].chars().count() + 1)
}

fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("gsync-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn names_line_and_column_of_the_first_bad_byte() {
        let path = temp("latin1.gsync", b"x = 1;\n// caf\xe9 au lait\n");
        let err = read_text(&path).unwrap_err();
        assert!(
            err.ends_with("latin1.gsync:2:7: the file is not UTF-8 text (byte 0xe9 at offset 13)"),
            "{err}"
        );
        // Columns count characters, not bytes.
        let path = temp("after_utf8.gsync", b"\xc3\xa9ab\xff");
        let err = read_text(&path).unwrap_err();
        assert!(err.contains("after_utf8.gsync:1:4:"), "{err}");
    }

    #[test]
    fn refuses_what_is_over_the_cap_without_reading_it_all() {
        let path = temp("big.gsync", &[b'x'; 100]);
        assert_eq!(read_text_capped(&path, 100).unwrap().len(), 100);
        let err = read_text_capped(&path, 99).unwrap_err();
        assert!(err.contains("big.gsync is larger than 99 bytes"), "{err}");
        // An endless device: stops at the cap.
        if Path::new("/dev/zero").exists() {
            let err = read_text_capped(Path::new("/dev/zero"), 1 << 20).unwrap_err();
            assert!(err.contains("/dev/zero is larger than 1 MiB"), "{err}");
        }
    }

    #[test]
    fn missing_file() {
        let err = read_text(Path::new("/nonexistent/x.gsync")).unwrap_err();
        assert!(
            err.starts_with("cannot read /nonexistent/x.gsync: "),
            "{err}"
        );
    }
}
