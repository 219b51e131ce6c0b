//! What a search edits, loaded: the spec's own points and, for a harness
//! that imports CUDA (`//! cuda: FILE.cu`), the points the CUDA front end
//! finds in those files (`clang_front::sites`), each file one more
//! document of the variant.

use super::expect::Variant;
use super::points::{cuda_point, points, Point};
use crate::api::{self, Error, SpecSource};
use crate::clang_front::{self, sites, Request};
use crate::spec::ast::SpecFile;
use std::path::Path;

/// A spec ready for a search.
pub(super) struct Loaded {
    pub file: SpecFile,
    pub original: Variant,
    pub points: Vec<Point>,
}

/// Parses `spec` and finds its points (with `insertions`, also where a
/// fence may be inserted), those of its imported CUDA included.
pub(super) fn load(spec: &SpecSource, insertions: bool) -> Result<Loaded, Error> {
    let file = api::parse(spec)?;
    let mut points = points(&spec.text, &file, insertions);
    let mut original = Variant {
        spec: spec.text.clone(),
        cuda: Vec::new(),
    };
    if clang_front::imports_cuda(&file) {
        let mut source = spec.source();
        let located = |d, source| Error::Spec(Box::new(d), Box::new(source));
        let request = Request::from_header(&file.header, Path::new(&spec.origin))
            .map_err(|d| located(d, source.clone()))?;
        let found = sites::find(&file, &mut source, &request, insertions)
            .map_err(|d| located(d, source.clone()))?;
        for site in &found.sites {
            let doc = site.file + 1;
            points.push(cuda_point(&found.files[site.file].1, doc, site));
        }
        original.cuda = found.files;
    }
    points.sort_by_key(|p| (p.doc, p.line, p.column));
    Ok(Loaded {
        file,
        original,
        points,
    })
}
