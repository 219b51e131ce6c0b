//! Source locations of instructions: a `!dbg` DILocation, walked outward
//! through its `inlinedAt` chain, gives the frames from the innermost
//! inlined body (often a CUDA or clang header) to the kernel; the location
//! shown to a user is the innermost frame in one of the user's files,
//! i.e. not under a system root (the CUDA tree, clang's resource folder,
//! `/usr/include`...): see `UserFiles`.

use super::ir::{MdField, MdId, MdNode, Module};
use std::fmt;
use std::path::{Component, Path, PathBuf};

/// Longest `inlinedAt` chain or scope chain followed (cycles in bad input).
const MAX_CHAIN: usize = 512;

/// A position in a source file (`column` 0: unknown).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLoc {
    /// The file: the DIFile's directory joined with its name, normalised.
    pub file: PathBuf,
    /// 1-based line (0: none, as clang writes for compiler-made code).
    pub line: u32,
    /// 1-based column, 0 when unknown.
    pub column: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file.display(), self.line)?;
        if self.column > 0 {
            write!(f, ":{}", self.column)?;
        }
        Ok(())
    }
}

/// One frame of an instruction's location chain: where, and in which
/// function (the DISubprogram's name) that code was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The position.
    pub loc: SourceLoc,
    /// The source function's name, if the scope chain names one.
    pub function: Option<String>,
}

/// An instruction's location: the frames innermost first, and the
/// innermost one in a user's file (what a counterexample shows).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Located {
    /// The innermost frame in one of the user's files, if any.
    pub user: Option<SourceLoc>,
    /// Every frame, from the instruction's own location outward.
    pub chain: Vec<Frame>,
}

/// Which files are the user's: those under none of the system roots.
#[derive(Clone, Debug, Default)]
pub struct UserFiles {
    system: Vec<PathBuf>,
}

impl UserFiles {
    /// Files under any of `roots` (and, for roots that exist, under their
    /// canonical paths) are system files; all others are the user's.
    pub fn new(roots: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut system = Vec::new();
        for r in roots {
            let n = normalize(&r);
            if let Ok(c) = std::fs::canonicalize(&n) {
                if c != n {
                    system.push(c);
                }
            }
            system.push(n);
        }
        UserFiles { system }
    }

    /// Whether `file` is the user's.
    pub fn is_user(&self, file: &Path) -> bool {
        let n = normalize(file);
        if self.system.iter().any(|r| n.starts_with(r)) {
            return false;
        }
        match std::fs::canonicalize(&n) {
            Ok(c) => !self.system.iter().any(|r| c.starts_with(r)),
            Err(_) => true,
        }
    }

    /// The system roots.
    pub fn system_roots(&self) -> &[PathBuf] {
        &self.system
    }
}

/// Resolves debug metadata of one module.
pub struct DebugInfo<'m> {
    module: &'m Module,
}

impl<'m> DebugInfo<'m> {
    /// Over `module`'s metadata.
    pub fn new(module: &'m Module) -> Self {
        DebugInfo { module }
    }

    fn node(&self, id: MdId) -> Option<&'m MdNode> {
        self.module.metadata.get(&id)
    }

    fn field(&self, id: MdId, name: &str) -> Option<&'m MdField> {
        self.node(id)?.field(name)
    }

    fn int(&self, id: MdId, name: &str) -> u32 {
        match self.field(id, name) {
            Some(MdField::Int(n)) => u32::try_from(*n).unwrap_or(0),
            _ => 0,
        }
    }

    fn reference(&self, id: MdId, name: &str) -> Option<MdId> {
        match self.field(id, name) {
            Some(MdField::Ref(r)) => Some(*r),
            _ => None,
        }
    }

    fn string(&self, id: MdId, name: &str) -> Option<&'m str> {
        match self.field(id, name) {
            Some(MdField::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The path a DIFile names.
    pub fn file(&self, difile: MdId) -> Option<PathBuf> {
        if self.node(difile)?.kind() != Some("DIFile") {
            return None;
        }
        let name = self.string(difile, "filename")?;
        let dir = self.string(difile, "directory").unwrap_or("");
        Some(normalize(&Path::new(dir).join(name)))
    }

    /// The file a scope (DISubprogram, DILexicalBlock[File], ...) is in.
    pub fn scope_file(&self, scope: MdId) -> Option<PathBuf> {
        let mut s = scope;
        for _ in 0..MAX_CHAIN {
            if self.node(s)?.kind() == Some("DIFile") {
                return self.file(s);
            }
            if let Some(f) = self.reference(s, "file") {
                return self.file(f);
            }
            s = self.reference(s, "scope")?;
        }
        None
    }

    /// The name of the DISubprogram enclosing a scope.
    pub fn scope_function(&self, scope: MdId) -> Option<String> {
        let mut s = scope;
        for _ in 0..MAX_CHAIN {
            if self.node(s)?.kind() == Some("DISubprogram") {
                return self.string(s, "name").map(str::to_string);
            }
            s = self.reference(s, "scope")?;
        }
        None
    }

    /// The frames of the DILocation `dbg`, innermost first.
    pub fn chain(&self, dbg: MdId) -> Vec<Frame> {
        let mut out = Vec::new();
        let mut at = Some(dbg);
        while let Some(id) = at {
            if out.len() >= MAX_CHAIN || self.node(id).and_then(MdNode::kind) != Some("DILocation")
            {
                break;
            }
            let scope = self.reference(id, "scope");
            let file = scope.and_then(|s| self.scope_file(s)).unwrap_or_default();
            out.push(Frame {
                loc: SourceLoc {
                    file,
                    line: self.int(id, "line"),
                    column: self.int(id, "column"),
                },
                function: scope.and_then(|s| self.scope_function(s)),
            });
            at = self.reference(id, "inlinedAt");
        }
        out
    }

    /// `dbg`'s frames and the innermost one in a user's file (with a line).
    pub fn locate(&self, dbg: Option<MdId>, files: &UserFiles) -> Located {
        let chain = dbg.map(|d| self.chain(d)).unwrap_or_default();
        let user = chain
            .iter()
            .find(|f| {
                f.loc.line > 0 && !f.loc.file.as_os_str().is_empty() && files.is_user(&f.loc.file)
            })
            .map(|f| f.loc.clone());
        Located { user, chain }
    }
}

/// The text of line `line` (1-based) of `file`, without its line end.
pub fn source_line(file: &Path, line: u32) -> Option<String> {
    let text = std::fs::read(file).ok()?;
    let text = String::from_utf8_lossy(&text);
    let l = text
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    Some(l.trim_end().to_string())
}

/// `path` with `.` and `a/..` removed, lexically (symlinks untouched).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module() -> Module {
        crate::llvm::parse(crate::llvm::parse::tests::SAMPLE).unwrap()
    }

    #[test]
    fn the_chain_walks_inlined_at_outward() {
        let m = module();
        let d = DebugInfo::new(&m);
        let chain = d.chain(15);
        let got: Vec<_> = chain
            .iter()
            .map(|f| (f.loc.to_string(), f.function.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "/usr/local/cuda/include/device_atomic_functions.hpp:112:10".to_string(),
                    Some("atomicAdd".to_string())
                ),
                // A lexical block inside the kernel: its file, the kernel's name.
                (
                    "/home/user/proj/kernel.cu:5:3".to_string(),
                    Some("kernel".to_string())
                ),
            ]
        );
    }

    #[test]
    fn the_user_location_skips_system_headers() {
        let m = module();
        let d = DebugInfo::new(&m);
        let files = UserFiles::new([PathBuf::from("/usr/local/cuda")]);
        let l = d.locate(Some(15), &files);
        assert_eq!(l.user.unwrap().to_string(), "/home/user/proj/kernel.cu:5:3");
        assert_eq!(l.chain.len(), 2);
        // Nothing is a system file: the innermost frame is the user's.
        let l = d.locate(Some(15), &UserFiles::default());
        assert_eq!(l.user.unwrap().line, 112);
        // A location without column, in a lexical block.
        let l = d.locate(Some(17), &files);
        assert_eq!(l.user.unwrap().to_string(), "/home/user/proj/kernel.cu:6");
        assert_eq!(d.locate(None, &files), Located::default());
        // Not a DILocation: no frames.
        assert!(d.chain(2).is_empty());
    }

    #[test]
    fn cycles_end() {
        let m = crate::llvm::parse(
            "!0 = !DILocation(line: 1, scope: !1, inlinedAt: !0)\n!1 = !DILexicalBlock(scope: !1)",
        )
        .unwrap();
        let chain = DebugInfo::new(&m).chain(0);
        assert_eq!(chain.len(), MAX_CHAIN);
        assert_eq!(chain[0].loc.file, PathBuf::new());
    }

    #[test]
    fn paths_and_source_lines() {
        assert_eq!(normalize(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize(Path::new("../x")), PathBuf::from("../x"));
        let dir = std::env::temp_dir().join(format!("gsync-llvm-debug-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("k.cu");
        std::fs::write(&f, "one\r\n  two  \nthree").unwrap();
        assert_eq!(source_line(&f, 2).as_deref(), Some("  two"));
        assert_eq!(source_line(&f, 0), None);
        assert_eq!(source_line(&f, 9), None);
        let files = UserFiles::new([dir.clone()]);
        assert!(!files.is_user(&f));
        assert!(files.is_user(Path::new("/elsewhere/k.cu")));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
