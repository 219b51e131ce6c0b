//! A thin, safe layer over libclang's C API (through `clang-sys`, loaded at
//! run time): parse one translation unit, walk its cursors, read types,
//! locations, tokens and constant values. Nothing here knows CUDA; the
//! rest of the front end never touches a raw libclang handle.

use clang_sys::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_uint, c_void};
use std::sync::{Arc, Mutex, OnceLock};

/// The oldest libclang with the operator-kind queries the front end uses.
pub(crate) const MIN_MAJOR: u32 = 17;

static LIBRARY: OnceLock<Result<Arc<SharedLibrary>, String>> = OnceLock::new();
/// libclang is loaded once; each thread that parses installs it for itself
/// (clang-sys keeps the library per thread).
static INSTALL: Mutex<()> = Mutex::new(());

/// Makes libclang usable on this thread, or says why it cannot be.
pub(crate) fn ensure_loaded() -> Result<(), String> {
    let _guard = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let library = LIBRARY.get_or_init(|| {
        let library = Arc::new(load_manually().map_err(|e| {
            format!("the CUDA front end needs libclang {MIN_MAJOR} or newer ({e}); on Debian: apt-get install libclang1-19 libclang-common-19-dev")
        })?);
        set_library(Some(library.clone()));
        let version = version_string();
        match major_version(&version) {
            Some(major) if major >= MIN_MAJOR => Ok(library),
            _ => Err(format!(
                "the CUDA front end needs libclang {MIN_MAJOR} or newer, found `{version}` at {}; on Debian: apt-get install libclang1-19 libclang-common-19-dev (or set LIBCLANG_PATH)",
                library.path().display()
            )),
        }
    });
    match library {
        Ok(l) => {
            set_library(Some(l.clone()));
            Ok(())
        }
        Err(e) => Err(e.clone()),
    }
}

fn version_string() -> String {
    // SAFETY: the library is installed on this thread.
    unsafe { take(clang_getClangVersion()) }
}

/// `Debian clang version 19.1.7 (3~deb12u1)` → 19.
fn major_version(version: &str) -> Option<u32> {
    let rest = &version[version.find("version ")? + 8..];
    rest.split('.').next()?.trim().parse().ok()
}

/// Converts and frees a libclang string.
unsafe fn take(s: CXString) -> String {
    let p = clang_getCString(s);
    let out = if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    };
    clang_disposeString(s);
    out
}

/// A problem libclang reports while parsing.
#[derive(Clone, Debug)]
pub(crate) struct Problem {
    pub error: bool,
    pub message: String,
    pub at: Option<Location>,
}

/// A point in a file: the file's path and the byte offset in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Location {
    pub file: String,
    pub offset: u32,
}

/// A parsed translation unit; cursors borrow from it.
pub(crate) struct Unit {
    index: CXIndex,
    tu: CXTranslationUnit,
}

impl Drop for Unit {
    fn drop(&mut self) {
        // SAFETY: both handles were created by `parse` and are disposed once.
        unsafe {
            clang_disposeTranslationUnit(self.tu);
            clang_disposeIndex(self.index);
        }
    }
}

impl Unit {
    /// Parses `main` (given as text, an unsaved file) with compiler `args`;
    /// `unsaved` are further in-memory files (path, text).
    pub(crate) fn parse(
        main: (&str, &str),
        args: &[String],
        unsaved: &[(String, String)],
    ) -> Result<Unit, String> {
        ensure_loaded()?;
        let c_args: Vec<CString> = args
            .iter()
            .map(|a| CString::new(a.as_str()).map_err(|_| "NUL in an argument".to_string()))
            .collect::<Result<_, _>>()?;
        let arg_ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        let mut files: Vec<(CString, CString)> = vec![cstrings(main.0, main.1)?];
        for (p, t) in unsaved {
            files.push(cstrings(p, t)?);
        }
        let mut unsaved_files: Vec<CXUnsavedFile> = files
            .iter()
            .map(|(p, t)| CXUnsavedFile {
                Filename: p.as_ptr(),
                Contents: t.as_ptr(),
                Length: t.as_bytes().len() as _,
            })
            .collect();
        // SAFETY: every pointer stays alive for the call; the index and unit
        // are owned by the returned `Unit`.
        unsafe {
            let index = clang_createIndex(0, 0);
            let mut tu: CXTranslationUnit = std::ptr::null_mut();
            let code = clang_parseTranslationUnit2(
                index,
                files[0].0.as_ptr(),
                arg_ptrs.as_ptr(),
                arg_ptrs.len() as i32,
                unsaved_files.as_mut_ptr(),
                unsaved_files.len() as c_uint,
                CXTranslationUnit_None,
                &mut tu,
            );
            if code != CXError_Success || tu.is_null() {
                clang_disposeIndex(index);
                return Err(format!("libclang could not parse the CUDA (error {code})"));
            }
            Ok(Unit { index, tu })
        }
    }

    /// Warnings are dropped: only errors and fatal errors stop the front end.
    pub(crate) fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        // SAFETY: the unit is alive; each diagnostic is disposed after use.
        unsafe {
            for i in 0..clang_getNumDiagnostics(self.tu) {
                let d = clang_getDiagnostic(self.tu, i);
                let severity = clang_getDiagnosticSeverity(d);
                if severity >= CXDiagnostic_Error {
                    out.push(Problem {
                        error: true,
                        message: take(clang_getDiagnosticSpelling(d)),
                        at: file_location(clang_getDiagnosticLocation(d)),
                    });
                }
                clang_disposeDiagnostic(d);
            }
        }
        out
    }

    pub(crate) fn root(&self) -> Cursor<'_> {
        // SAFETY: the unit is alive.
        Cursor {
            raw: unsafe { clang_getTranslationUnitCursor(self.tu) },
            unit: self,
        }
    }
}

fn cstrings(path: &str, text: &str) -> Result<(CString, CString), String> {
    Ok((
        CString::new(path).map_err(|_| "NUL in a path".to_string())?,
        CString::new(text).map_err(|_| format!("{path} contains a NUL byte"))?,
    ))
}

unsafe fn file_location(loc: CXSourceLocation) -> Option<Location> {
    let mut file: CXFile = std::ptr::null_mut();
    let (mut line, mut col, mut offset) = (0, 0, 0);
    clang_getFileLocation(loc, &mut file, &mut line, &mut col, &mut offset);
    if file.is_null() {
        return None;
    }
    Some(Location {
        file: take(clang_getFileName(file)),
        offset,
    })
}

/// One token of the source text.
#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub text: String,
    pub at: Option<Location>,
}

/// A node of the syntax tree.
#[derive(Clone, Copy)]
pub(crate) struct Cursor<'u> {
    raw: CXCursor,
    unit: &'u Unit,
}

impl<'u> Cursor<'u> {
    fn wrap(&self, raw: CXCursor) -> Option<Cursor<'u>> {
        // SAFETY: `raw` comes from this unit.
        (unsafe { clang_Cursor_isNull(raw) } == 0).then_some(Cursor {
            raw,
            unit: self.unit,
        })
    }

    pub(crate) fn kind(&self) -> CXCursorKind {
        // SAFETY: the cursor belongs to a live unit (as for every method below).
        unsafe { clang_getCursorKind(self.raw) }
    }

    /// The kind's name (`IfStmt`, `CallExpr`), for messages.
    pub(crate) fn kind_name(&self) -> String {
        unsafe { take(clang_getCursorKindSpelling(self.kind())) }
    }

    pub(crate) fn spelling(&self) -> String {
        unsafe { take(clang_getCursorSpelling(self.raw)) }
    }

    pub(crate) fn children(&self) -> Vec<Cursor<'u>> {
        extern "C" fn visit(c: CXCursor, _: CXCursor, data: CXClientData) -> CXChildVisitResult {
            // SAFETY: `data` is the Vec passed below.
            let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
            out.push(c);
            CXChildVisit_Continue
        }
        let mut raw: Vec<CXCursor> = Vec::new();
        unsafe {
            clang_visitChildren(
                self.raw,
                visit,
                &mut raw as *mut Vec<CXCursor> as *mut c_void,
            );
        }
        raw.into_iter()
            .map(|raw| Cursor {
                raw,
                unit: self.unit,
            })
            .collect()
    }

    pub(crate) fn ty(&self) -> Ty {
        Ty(unsafe { clang_getCursorType(self.raw) })
    }

    pub(crate) fn result_type(&self) -> Ty {
        Ty(unsafe { clang_getCursorResultType(self.raw) })
    }

    /// The start and end of the cursor's text, where they are in a file
    /// (macro expansions are placed where the macro was used).
    pub(crate) fn extent(&self) -> Option<(Location, Location)> {
        unsafe {
            let range = clang_getCursorExtent(self.raw);
            let start = file_location(clang_getRangeStart(range))?;
            let end = file_location(clang_getRangeEnd(range))?;
            Some((start, end))
        }
    }

    /// Where the cursor's name is (a declaration's identifier).
    pub(crate) fn location(&self) -> Option<Location> {
        unsafe { file_location(clang_getCursorLocation(self.raw)) }
    }

    /// The declaration a reference or call refers to.
    pub(crate) fn referenced(&self) -> Option<Cursor<'u>> {
        self.wrap(unsafe { clang_getCursorReferenced(self.raw) })
    }

    /// The first declaration of the entity (the same for every redeclaration).
    pub(crate) fn canonical(&self) -> Cursor<'u> {
        Cursor {
            raw: unsafe { clang_getCanonicalCursor(self.raw) },
            unit: self.unit,
        }
    }

    pub(crate) fn binary_op(&self) -> CXBinaryOperatorKind {
        unsafe { clang_getCursorBinaryOperatorKind(self.raw) }
    }

    pub(crate) fn unary_op(&self) -> CXUnaryOperatorKind {
        unsafe { clang_getCursorUnaryOperatorKind(self.raw) }
    }

    pub(crate) fn storage_class(&self) -> CX_StorageClass {
        unsafe { clang_Cursor_getStorageClass(self.raw) }
    }

    pub(crate) fn is_definition(&self) -> bool {
        unsafe { clang_isCursorDefinition(self.raw) != 0 }
    }

    /// The value of an integer constant expression, if it is one.
    pub(crate) fn evaluate_int(&self) -> Option<i64> {
        unsafe {
            let r = clang_Cursor_Evaluate(self.raw);
            if r.is_null() {
                return None;
            }
            let value = (clang_EvalResult_getKind(r) == CXEval_Int).then(|| {
                if clang_EvalResult_isUnsignedInt(r) != 0 {
                    clang_EvalResult_getAsUnsigned(r) as i64
                } else {
                    clang_EvalResult_getAsLongLong(r)
                }
            });
            clang_EvalResult_dispose(r);
            value
        }
    }

    /// The value of a floating-point constant expression, if it is one.
    pub(crate) fn evaluate_float(&self) -> Option<f64> {
        unsafe {
            let r = clang_Cursor_Evaluate(self.raw);
            if r.is_null() {
                return None;
            }
            let value = (clang_EvalResult_getKind(r) == CXEval_Float)
                .then(|| clang_EvalResult_getAsDouble(r));
            clang_EvalResult_dispose(r);
            value
        }
    }

    /// The tokens of the cursor's text: spelling and where each starts.
    pub(crate) fn tokens(&self) -> Vec<Token> {
        let mut out = Vec::new();
        unsafe {
            let range = clang_getCursorExtent(self.raw);
            let mut tokens: *mut CXToken = std::ptr::null_mut();
            let mut n: c_uint = 0;
            clang_tokenize(self.unit.tu, range, &mut tokens, &mut n);
            for i in 0..n as usize {
                let t = *tokens.add(i);
                out.push(Token {
                    text: take(clang_getTokenSpelling(self.unit.tu, t)),
                    at: file_location(clang_getTokenLocation(self.unit.tu, t)),
                });
            }
            if !tokens.is_null() {
                clang_disposeTokens(self.unit.tu, tokens, n);
            }
        }
        out
    }

    /// Arguments of a call expression (without the callee).
    pub(crate) fn call_arguments(&self) -> Vec<Cursor<'u>> {
        let n = unsafe { clang_Cursor_getNumArguments(self.raw) };
        (0..n.max(0) as c_uint)
            .filter_map(|i| self.wrap(unsafe { clang_Cursor_getArgument(self.raw, i) }))
            .collect()
    }
}

/// A type.
#[derive(Clone, Copy)]
pub(crate) struct Ty(CXType);

impl Ty {
    pub(crate) fn kind(&self) -> CXTypeKind {
        self.0.kind
    }

    pub(crate) fn spelling(&self) -> String {
        unsafe { take(clang_getTypeSpelling(self.0)) }
    }

    /// Typedefs and elaborations resolved.
    pub(crate) fn canonical(&self) -> Ty {
        Ty(unsafe { clang_getCanonicalType(self.0) })
    }

    pub(crate) fn pointee(&self) -> Ty {
        Ty(unsafe { clang_getPointeeType(self.0) })
    }

    pub(crate) fn element(&self) -> Ty {
        Ty(unsafe { clang_getArrayElementType(self.0) })
    }

    pub(crate) fn array_len(&self) -> i64 {
        unsafe { clang_getArraySize(self.0) }
    }

    pub(crate) fn is_volatile(&self) -> bool {
        unsafe { clang_isVolatileQualifiedType(self.0) != 0 }
    }

    pub(crate) fn template_arg_types(&self) -> Vec<Ty> {
        let n = unsafe { clang_Type_getNumTemplateArguments(self.0) };
        (0..n.max(0) as c_uint)
            .map(|i| Ty(unsafe { clang_Type_getTemplateArgumentAsType(self.0, i) }))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::major_version;

    #[test]
    fn reads_the_major_version() {
        assert_eq!(
            major_version("Debian clang version 19.1.7 (3~deb12u1)"),
            Some(19)
        );
        assert_eq!(major_version("clang version 14.0.6"), Some(14));
        assert_eq!(major_version("something else"), None);
    }
}
