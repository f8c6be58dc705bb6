//! A baseline: the findings a team has accepted for now, so that a run
//! reports only the ones that are new.
//!
//! `fplint check --write-baseline FILE` writes every current finding;
//! `--baseline FILE` (or `baseline = "FILE"` in `fplint.toml`) hides those
//! again. The file is JSON, sorted, one entry per finding, meant to be
//! committed and reviewed. A finding is recognised by a fingerprint, not by
//! its line: its rule, its file (relative to the baseline's folder), the
//! object it names (its logical path, such as
//! `module.eks.fargate_profiles.apps`) and the text it points at with white
//! space and quotes left out. Lines that move, a file reformatted and edits
//! elsewhere in the file keep it. Two identical findings in one file are
//! counted, not merged. A finding whose object is in the baseline but whose
//! text changed is *updated*, and stays hidden; an entry that matches no
//! finding any more is reported as FP100, as an unused suppression is.

use crate::Report;
use fplint_core::{Diagnostic, Severity, SourceFile, Span};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// The version of the file's layout.
pub const VERSION: u32 = 1;

/// The file's contents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    /// [`VERSION`].
    pub version: u32,
    /// One entry per finding, sorted by file, code and fingerprint.
    pub findings: Vec<Entry>,
}

/// One accepted finding (or several identical ones).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The rule's code.
    pub code: String,
    /// The file, `/`-separated, relative to the baseline's folder.
    pub file: String,
    /// The finding: rule, file, object and the text it points at.
    pub fingerprint: String,
    /// The object alone: rule, file and logical path. A finding with this
    /// and another text is the same finding, updated.
    pub object: String,
    /// How many identical findings it stands for.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub count: usize,
    /// The message when it was written, for the people who review it.
    pub message: String,
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// How a finding stands against the baseline (SARIF's `baselineState`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    /// Not in the baseline: reported.
    New,
    /// In the baseline as it is: hidden.
    Unchanged,
    /// Its object is in the baseline with another text: hidden.
    Updated,
}

impl State {
    /// SARIF's name for it.
    pub fn as_str(self) -> &'static str {
        match self {
            State::New => "new",
            State::Unchanged => "unchanged",
            State::Updated => "updated",
        }
    }
}

/// What applying a baseline did to a report.
#[derive(Clone, Debug, Default)]
pub struct Applied {
    /// The baseline file, as given.
    pub path: PathBuf,
    /// The findings it hides, with their state.
    pub hidden: Vec<(Diagnostic, State)>,
}

/// Why a baseline could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The file could not be read.
    #[error("cannot read baseline {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a baseline fplint wrote.
    #[error("{path} is not an fplint baseline: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The file could not be written.
    #[error("cannot write baseline {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// FNV-1a, 64 bits: stable across platforms, builds and Rust versions,
/// which `std`'s hashers do not promise.
fn fnv(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// The text a finding points at, as it reads with white space and quotes
/// left out: a reformatted file gives the same text.
fn normalised(file: &SourceFile, span: Span) -> String {
    let text = file
        .text
        .get(span.start as usize..span.end as usize)
        .unwrap_or_default();
    text.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '"' | '\''))
        .take(512)
        .collect()
}

/// `path` made relative to `base` (both as reached), `/`-separated; the
/// path as it is when it does not lie under `base`.
fn relative_to(path: &Path, base: &Path) -> String {
    let abs = |p: &Path| {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        let mut out = PathBuf::new();
        for c in p.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    };
    let (p, b) = (abs(path), abs(base));
    let shown = p.strip_prefix(&b).map(Path::to_path_buf).unwrap_or(p);
    shown
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A finding's identity: (fingerprint, object).
pub fn identity(d: &Diagnostic, file: &SourceFile, base: &Path) -> (String, String, String) {
    let shown = relative_to(Path::new(&file.path), base);
    let text = normalised(file, d.span);
    // Without a logical path, the text is all that names the object.
    let object_part = d.path.as_deref().unwrap_or(&text);
    let object = fnv(&[d.code, &shown, object_part]);
    let fingerprint = fnv(&[d.code, &shown, object_part, &text]);
    (shown, fingerprint, object)
}

/// The folder a baseline's paths are relative to.
fn base_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The baseline of every finding in `report`, for a file at `path`.
pub fn of_report(report: &Report, path: &Path) -> Baseline {
    let base = base_of(path);
    let mut counted: HashMap<(String, String, String), Entry> = HashMap::new();
    for d in &report.diagnostics {
        let Some(file) = report.file(d) else { continue };
        let (shown, fingerprint, object) = identity(d, &file, &base);
        counted
            .entry((shown.clone(), d.code.to_string(), fingerprint.clone()))
            .and_modify(|e| e.count += 1)
            .or_insert(Entry {
                code: d.code.to_string(),
                file: shown,
                fingerprint,
                object,
                count: 1,
                message: d.message.clone(),
            });
    }
    let mut findings: Vec<Entry> = counted.into_values().collect();
    findings.sort_by(|a, b| {
        (&a.file, &a.code, &a.fingerprint).cmp(&(&b.file, &b.code, &b.fingerprint))
    });
    Baseline {
        version: VERSION,
        findings,
    }
}

/// The file's text: stable, one field a line, a newline at the end.
pub fn to_text(baseline: &Baseline) -> String {
    let mut text = serde_json::to_string_pretty(baseline).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes every finding of `report` to `path`, atomically; the number of
/// findings written.
pub fn write(report: &Report, path: &Path) -> Result<usize, BaselineError> {
    let baseline = of_report(report, path);
    let failed = |source| BaselineError::Write {
        path: path.to_path_buf(),
        source,
    };
    // A baseline kept beside CI's files may name a folder not made yet.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    crate::fs::write_atomically(path, to_text(&baseline).as_bytes()).map_err(failed)?;
    Ok(baseline.findings.iter().map(|e| e.count).sum())
}

/// Writes every finding of `report` to `path`, as `--write-baseline`
/// does: what to say on stderr (paths not read, then what was written) and
/// the exit code (2 when the run could not do its job, else 0).
pub fn write_and_say(report: &Report, path: &Path) -> Result<(String, u8), BaselineError> {
    let n = write(report, path)?;
    let mut said: String = report
        .errors
        .iter()
        .map(|e| format!("error: {e}\n"))
        .collect();
    said.push_str(&format!(
        "Wrote {n} finding{} to the baseline {}.\n",
        if n == 1 { "" } else { "s" },
        path.display()
    ));
    Ok((said, if report.exit_code() == 2 { 2 } else { 0 }))
}

/// Reads a baseline, and its text (to point at its entries).
pub fn read(path: &Path) -> Result<(Baseline, String), BaselineError> {
    let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let baseline: Baseline = serde_json::from_str(&text).map_err(|e| BaselineError::Invalid {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    if baseline.version != VERSION {
        return Err(BaselineError::Invalid {
            path: path.to_path_buf(),
            reason: format!(
                "version {} (this fplint reads version {VERSION})",
                baseline.version
            ),
        });
    }
    Ok((baseline, text))
}

/// Hides the findings of `report` that `baseline` (read from `path`, whose
/// text is `text`) accepts, and adds an FP100 for each entry that matches
/// nothing any more when `stale` is set; [`Report::baseline`] says what it
/// hid.
pub fn apply(report: &mut Report, baseline: &Baseline, path: &Path, text: &str, stale: bool) {
    let base = base_of(path);
    let mut remaining: Vec<usize> = baseline.findings.iter().map(|e| e.count).collect();
    let mut by_print: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_object: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in baseline.findings.iter().enumerate() {
        by_print.entry(&e.fingerprint).or_default().push(i);
        by_object.entry(&e.object).or_default().push(i);
    }
    let identities: Vec<Option<(String, String)>> = report
        .diagnostics
        .iter()
        .map(|d| {
            let file = report.file(d)?;
            let (_, print, object) = identity(d, &file, &base);
            Some((print, object))
        })
        .collect();
    let mut take = |index: &HashMap<&str, Vec<usize>>, key: &str| -> bool {
        let Some(slots) = index.get(key) else {
            return false;
        };
        match slots.iter().find(|&&i| remaining[i] > 0) {
            Some(&i) => {
                remaining[i] -= 1;
                true
            }
            None => false,
        }
    };
    let mut states = vec![State::New; report.diagnostics.len()];
    // Exact matches first, so that an updated finding takes only what the
    // unchanged ones leave.
    for (i, id) in identities.iter().enumerate() {
        if let Some((print, _)) = id {
            if take(&by_print, print) {
                states[i] = State::Unchanged;
            }
        }
    }
    for (i, id) in identities.iter().enumerate() {
        if let Some((_, object)) = id {
            if states[i] == State::New && take(&by_object, object) {
                states[i] = State::Updated;
            }
        }
    }
    let mut kept = Vec::new();
    let mut hidden = Vec::new();
    for (d, state) in std::mem::take(&mut report.diagnostics)
        .into_iter()
        .zip(states)
    {
        match state {
            State::New => kept.push(d),
            s => hidden.push((d, s)),
        }
    }
    report.diagnostics = kept;
    let stale: Vec<(usize, &Entry)> = baseline
        .findings
        .iter()
        .enumerate()
        .filter(|(i, _)| stale && remaining[*i] > 0)
        .collect();
    if !stale.is_empty() {
        let file = report
            .sources
            .add_text(path.to_string_lossy().replace('\\', "/"), text);
        for (i, e) in stale {
            let needle = format!("\"{}\"", e.fingerprint);
            let span = match text.find(&needle) {
                Some(at) => Span::new(file.id, at, at + needle.len()),
                None => Span::new(file.id, 0, 0),
            };
            let times = match remaining[i] {
                1 => String::new(),
                n => format!(" ({n} of {})", e.count),
            };
            report.diagnostics.push(
                Diagnostic::new(
                    "FP100",
                    Severity::Info,
                    format!(
                        "baseline entry for {} in `{}` matches no finding{times}",
                        e.code, e.file
                    ),
                    span,
                )
                .with_label("accepts a finding that is gone")
                .with_help(
                    "remove the entry, or write the baseline again with `fplint check --write-baseline FILE`",
                ),
            );
        }
    }
    report.baseline = Some(Applied {
        path: path.to_path_buf(),
        hidden,
    });
}

/// A finding's fingerprint as the report's renderers give it (SARIF's
/// `partialFingerprints`): relative to the baseline's folder when one was
/// applied, else to the working folder.
pub fn fingerprint_in(report: &Report, d: &Diagnostic) -> Option<String> {
    let file = report.file(d)?;
    let base = report
        .baseline
        .as_ref()
        .map_or_else(|| PathBuf::from("."), |b| base_of(&b.path));
    Some(identity(d, &file, &base).1)
}

/// How many findings the report's baseline hid: `(count, file)`.
pub fn hidden_count(report: &Report) -> Option<(usize, String)> {
    report
        .baseline
        .as_ref()
        .map(|b| (b.hidden.len(), b.path.to_string_lossy().replace('\\', "/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_fixed() {
        // Fixed values: a change here invalidates every baseline written.
        assert_eq!(fnv(&[]), "cbf29ce484222325");
        assert_eq!(fnv(&["FP005", "main.tf"]), fnv(&["FP005", "main.tf"]));
        assert_ne!(fnv(&["FP005", "main.tf"]), fnv(&["FP005main.tf"]));
    }

    #[test]
    fn paths_are_relative_to_the_baseline_folder() {
        assert_eq!(
            relative_to(Path::new("infra/main.tf"), Path::new(".")),
            "infra/main.tf"
        );
        assert_eq!(
            relative_to(Path::new("infra/main.tf"), Path::new("infra")),
            "main.tf"
        );
        assert_eq!(
            relative_to(Path::new("./infra/../infra/main.tf"), Path::new("./")),
            "infra/main.tf"
        );
    }

    #[test]
    fn reformatting_keeps_the_text() {
        let a = SourceFile::new(
            fplint_core::source::FileId(0),
            "a.tf",
            "x = \"kube-system\"",
        );
        let b = SourceFile::new(fplint_core::source::FileId(0), "a.tf", "x='kube-system'  ");
        assert_eq!(
            normalised(&a, Span::new(a.id, 0, a.text.len())),
            normalised(&b, Span::new(b.id, 0, b.text.len()))
        );
    }
}
