//! A tuned spec written where the user asks (`--output FILE.gsync`). A
//! harness that imports CUDA gets each changed CUDA file written beside
//! it (`STEM.FILE.cu`, never over the original, which may be third-party
//! code) and its `//! cuda:` lines pointed at those copies; every other
//! CUDA path of its header is made absolute, so the written harness
//! reads the same files from its new folder.

use super::report::Tuned;
use crate::api::{self, Error, SpecSource};
use crate::clang_front::{Request, CUDA_KEY, INCLUDE_KEY};
use std::path::{Path, PathBuf};

/// Writes the tuned spec to `path` (and its changed CUDA files beside
/// it); returns every file written.
pub fn write(tuned: &Tuned, path: &Path) -> Result<Vec<PathBuf>, Error> {
    let io = |p: &Path, e: std::io::Error| Error::Usage(format!("{}: {e}", p.display()));
    let mut written = Vec::new();
    let mut text = tuned.text.clone();
    // A harness written elsewhere must find its CUDA from there too.
    if !tuned.cuda.is_empty() {
        let copies = cuda_copies(tuned, path);
        for (f, copy) in tuned.cuda.iter().zip(&copies) {
            if let Some(copy) = copy {
                std::fs::write(copy, &f.text).map_err(|e| io(copy, e))?;
                written.push(copy.clone());
            }
        }
        text = repoint_header(tuned, &copies)?;
    }
    std::fs::write(path, text).map_err(|e| io(path, e))?;
    written.insert(0, path.to_path_buf());
    Ok(written)
}

/// Where each changed CUDA file of `tuned` goes when the spec is written
/// to `path`: beside it, named after it (`None`: unchanged, not written).
pub fn cuda_copies(tuned: &Tuned, path: &Path) -> Vec<Option<PathBuf>> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("tuned");
    tuned
        .cuda
        .iter()
        .map(|f| {
            let name = Path::new(&f.path).file_name()?.to_str()?;
            f.changed.then(|| dir.join(format!("{stem}.{name}")))
        })
        .collect()
}

/// The tuned spec's text with its `//! cuda:` lines naming the copies
/// (where a file changed) or the originals by absolute path, its
/// `cuda-include:` folders absolute, and each copied file's original
/// folder added as an include folder (for the files it includes).
fn repoint_header(tuned: &Tuned, copies: &[Option<PathBuf>]) -> Result<String, Error> {
    let spec = SpecSource {
        name: tuned.spec.clone(),
        origin: tuned.origin.clone(),
        text: tuned.text.clone(),
    };
    let file = api::parse(&spec)?;
    let request = Request::from_header(&file.header, Path::new(&spec.origin))
        .map_err(|d| Error::Spec(Box::new(d), Box::new(spec.source())))?;
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let (mut files, mut dirs) = (request.files.iter(), request.include_dirs.iter());
    let mut last_line_end = 0;
    for (key, value) in &file.header.cuda {
        let resolved = match key.as_str() {
            CUDA_KEY => files.next().map(|(p, _)| {
                let k = request.files.iter().position(|(q, _)| q == p);
                match k.and_then(|k| copies.get(k).cloned().flatten()) {
                    Some(copy) => file_name(&copy),
                    None => p.display().to_string(),
                }
            }),
            INCLUDE_KEY => dirs.next().map(|d| d.display().to_string()),
            _ => None,
        };
        let range = value.span.start as usize..value.span.end as usize;
        let range = range.start..range.start + spec.text[range.clone()].trim_end().len();
        last_line_end = last_line_end.max(range.end);
        if let Some(r) = resolved {
            edits.push((range, r));
        }
    }
    let mut extra = String::new();
    let mut added: Vec<PathBuf> = Vec::new();
    for ((path, _), copy) in request.files.iter().zip(copies) {
        let dir = path.parent().map(Path::to_path_buf);
        if let Some(dir) = dir.filter(|d| copy.is_some() && !added.contains(d)) {
            extra += &format!("\n//! {INCLUDE_KEY}: {}", dir.display());
            added.push(dir);
        }
    }
    edits.push((last_line_end..last_line_end, extra));
    let mut text = spec.text.clone();
    edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
    for (range, with) in edits {
        text.replace_range(range, &with);
    }
    Ok(text)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
}
