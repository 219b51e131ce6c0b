//! A spec parsed, checked against its configuration and lowered: what
//! every command that reads a spec starts from.

use super::{check_param_value, CheckConfig, Error, SpecSource};
use crate::diag::{Diagnostic, Source};
use crate::ir::Program;
use crate::model::lockbits;
use crate::model::{MemoryModel, SimtMode};
use crate::spec::ast::{Item, SpecFile};
use crate::spec::lower;
use std::path::PathBuf;

/// Texts of imported CUDA files that stand in for what is on disk, by
/// canonical path: how `relax` checks an edited `.cu` without writing it.
pub type Overlay = [(PathBuf, String)];

/// A spec parsed and lowered for one configuration.
pub struct Prepared {
    pub spec: SpecSource,
    pub file: SpecFile,
    pub program: Program,
    pub config: CheckConfig,
}

/// Parses a spec (errors located in it).
pub fn parse(spec: &SpecSource) -> Result<SpecFile, Error> {
    let source = spec.source();
    crate::spec::parse(&source).map_err(|d| Error::Spec(Box::new(d), Box::new(source)))
}

/// Parses a spec and, for a harness whose header names CUDA files
/// (`//! cuda: FILE.cu`), adds their device functions; returns the file
/// and the source every span points into (the harness, then the CUDA).
pub fn load(spec: &SpecSource) -> Result<(SpecFile, Source), Error> {
    load_with(spec, &[])
}

/// [`load`], reading the imported CUDA files named in `overlay` from it.
#[allow(unused_variables)] // the overlay is read by the CUDA front end only
pub fn load_with(spec: &SpecSource, overlay: &Overlay) -> Result<(SpecFile, Source), Error> {
    #[allow(unused_mut)] // only the CUDA front end adds to them
    let mut file = parse(spec)?;
    #[allow(unused_mut)]
    let mut source = spec.source();
    #[cfg(feature = "cuda-frontend")]
    if crate::clang_front::imports_cuda(&file) {
        let request = crate::clang_front::Request::from_header(
            &file.header,
            std::path::Path::new(&spec.origin),
        )
        .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
        crate::clang_front::attach(&mut file, &mut source, &request, overlay)
            .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    }
    #[cfg(not(feature = "cuda-frontend"))]
    if file.header.cuda.iter().any(|(k, _)| k == "cuda") {
        return Err(Error::Usage(
            "this build of gsync-check has no CUDA front end (libclang): check CUDA harnesses with the command-line tool".into(),
        ));
    }
    Ok((file, source))
}

/// Parses and lowers a spec for `config`, refusing what cannot be checked yet.
pub fn prepare(spec: &SpecSource, config: &CheckConfig) -> Result<Prepared, Error> {
    prepare_with(spec, config, &[])
}

/// [`prepare`], reading the imported CUDA files named in `overlay` from it.
pub fn prepare_with(
    spec: &SpecSource,
    config: &CheckConfig,
    overlay: &Overlay,
) -> Result<Prepared, Error> {
    config.validate()?;
    let (file, source) = load_with(spec, overlay)?;
    let spec = &spec.named_by_header(&file.header);
    check_param_names(&file, &config.params, &spec.name)?;
    let mut config = with_liveness_defaults(&file, config, &spec.name)?;
    config.resolve_simt(&file, spec)?;
    let config = &config;
    let program = lower(&file, &source, config.launch, &config.params)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    if let Some((what, span)) = program.unsupported.first() {
        let d = Diagnostic::new(
            *span,
            format!("`{what}` has no semantics in this version of the checker"),
        )
        .label("not supported yet")
        .hint("the construct is parsed but not modelled yet; remove it to check the rest");
        return Err(Error::Spec(Box::new(d), Box::new(source)));
    }
    let sc_only =
        config.semantics.simt_mode() == SimtMode::Lockstep || lockbits::uses_lock_bits(&program);
    let mut config = config.clone();
    config.resolve_memory_model(sc_only);
    let config = &config;
    if config.semantics.memory_model() == MemoryModel::Ptx {
        if config.semantics.simt_mode() == SimtMode::Lockstep {
            return Err(Error::Usage(
                "--simt lockstep is modelled under --memory-model sc only".into(),
            ));
        }
        if lockbits::uses_lock_bits(&program) {
            return Err(Error::Usage(
                "the lock unit (ldslk/stsul) is modelled under --memory-model sc only".into(),
            ));
        }
    }
    if config.semantics.lock_bits.is_some() && !lockbits::uses_lock_bits(&program) {
        return Err(Error::Usage(format!(
            "--lock-bits applies to specs that use the lock unit (ldslk/stsul); `{}` does not",
            spec.name
        )));
    }
    negative_default(&file, &program, &config.params)
        .map_err(|d| Error::Spec(Box::new(d), Box::new(source.clone())))?;
    if let Some((var, span)) = lockbits::misplaced_lock_bit(&program) {
        let d = Diagnostic::new(span, lockbits::misplaced_message(&var))
            .label("not in shared memory")
            .hint("declare the variable `shared`");
        return Err(Error::Spec(Box::new(d), Box::new(source)));
    }
    Ok(Prepared {
        spec: spec.clone(),
        file,
        program,
        config: config.clone(),
    })
}

/// A parameter whose default (not overridden) is negative, located at its
/// declaration: parameter values are non-negative ([`check_param_value`]).
fn negative_default(
    file: &SpecFile,
    program: &Program,
    overrides: &[(String, i64)],
) -> Result<(), Diagnostic> {
    for (name, value) in &program.params {
        if overrides.iter().any(|(n, _)| n == name) {
            continue;
        }
        let Err(message) = check_param_value(*value) else {
            continue;
        };
        let decl = file.items.iter().find_map(|i| match i {
            Item::Param(p) if &p.name.name == name => Some(p.span),
            _ => None,
        });
        if let Some(span) = decl {
            return Err(
                Diagnostic::new(span, format!("parameter `{name}`: {message}"))
                    .label("negative default")
                    .hint("a parameter counts something or switches it on (0/1)"),
            );
        }
    }
    Ok(())
}

/// The parameters a spec declares, in order.
pub fn declared_params(file: &SpecFile) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|i| match i {
            Item::Param(p) => Some(p.name.name.clone()),
            _ => None,
        })
        .collect()
}

/// Under a progress model, the parameters a spec names in its
/// `//! liveness: NAME=V ...` header line (e.g. `iters=0`: run forever)
/// apply unless the command line sets them: liveness is about executions
/// that never end.
fn with_liveness_defaults(
    file: &SpecFile,
    config: &CheckConfig,
    spec: &str,
) -> Result<CheckConfig, Error> {
    let mut config = config.clone();
    if !config.scheduler.checks_liveness() {
        return Ok(config);
    }
    // The header parser checked the syntax and that each name is a parameter.
    for (name, v) in &file.header.liveness {
        if !config.params.iter().any(|(n, _)| *n == name.name) {
            config.params.push((name.name.clone(), *v));
        }
    }
    check_param_names(file, &config.params, spec)?;
    Ok(config)
}

/// Every override names a parameter `file` declares, with a value the
/// language allows: the one check of parameter names, for every command.
pub fn check_param_names(
    file: &SpecFile,
    overrides: &[(String, i64)],
    spec: &str,
) -> Result<(), Error> {
    let declared = declared_params(file);
    for (name, value) in overrides {
        check_param_value(*value)
            .map_err(|m| Error::Usage(format!("spec `{spec}`: parameter `{name}={value}`: {m}")))?;
        if !declared.contains(name) {
            let known = if declared.is_empty() {
                "it has none".to_string()
            } else {
                format!("it has: {}", declared.join(", "))
            };
            return Err(Error::Usage(format!(
                "spec `{spec}` has no parameter `{name}` ({known})"
            )));
        }
    }
    Ok(())
}
