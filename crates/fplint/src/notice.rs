//! Run-level notices: what a run has to say that is not a finding on a
//! line of a linted file. A named file that was not linted (and why), a path
//! with nothing to lint, workloads that could not be given a cluster or
//! whose cluster's capacity is unknown. Every
//! renderer shows them, so that no run passes silently.

use fplint_core::Severity;
use serde::Serialize;

/// What a run-level note is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoticeKind {
    /// A named file that is almost one of fplint's formats: a warning that
    /// counts toward `--fail-on`, because the user meant it to be checked.
    NotLinted,
    /// A named file fplint cannot lint and was not meant for it (empty,
    /// binary, a Helm template, unrelated YAML): listed, exit code unchanged.
    Skipped,
    /// A named path with no file fplint reads.
    NothingToLint,
    /// Workloads that belong to no cluster, so no workload check ran on them.
    Unassigned,
    /// Files of Helm charts' `templates/` folders named alone: source for
    /// Helm, not manifests, linted as their chart renders them.
    ChartTemplates,
    /// Walked files that are almost one of fplint's formats: one note for
    /// all of them, naming how to see why each was skipped.
    NearMisses,
    /// Workloads whose cluster is known only from a partial config, so
    /// whether it has EC2 nodes is unknown.
    UnknownCapacity,
    /// Files fplint would read that the walk skipped as hidden.
    Hidden,
    /// A program (a CDK app) whose entry point or some of whose constructs
    /// fplint could not follow.
    NotFollowed,
}

impl NoticeKind {
    /// The kind as shown in reports (`not-linted`, `skipped`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeKind::NotLinted => "not-linted",
            NoticeKind::Skipped => "skipped",
            NoticeKind::NothingToLint => "nothing-to-lint",
            NoticeKind::Unassigned => "unassigned-workloads",
            NoticeKind::ChartTemplates => "chart-templates",
            NoticeKind::NearMisses => "near-misses",
            NoticeKind::Hidden => "hidden",
            NoticeKind::UnknownCapacity => "unknown-capacity",
            NoticeKind::NotFollowed => "not-followed",
        }
    }
}

/// One note for a program that fplint read only in part: its entry point
/// was not found, or some of what it declares was not followed (each gap
/// named with its place), so that a partial reading never passes silently.
pub fn program(
    c: &crate::walk::Candidate,
    gaps: &[(fplint_core::Span, String)],
    no_entry: Option<String>,
    sources: &fplint_core::sources::Sources,
) -> Option<Notice> {
    let file = fplint_core::sources::display_path(&c.path);
    if let Some(why) = no_entry {
        let cdk = file.ends_with("cdk.json");
        return Some(
            Notice::new(NoticeKind::NotFollowed, Some(file), format!("program not read: {why}"))
                .with_help(if cdk {
                    "name the entry point in `cdk.json`'s `app` command, e.g. `npx ts-node bin/app.ts` or `python3 app.py`"
                } else {
                    "name the entry point in `Pulumi.yaml`'s `main`, or add the runtime's default (`index.ts`, `__main__.py`)"
                }),
        );
    }
    if gaps.is_empty() {
        return None;
    }
    let mut places: Vec<String> = gaps
        .iter()
        .map(|(span, what)| match sources.get(span.file) {
            Some(f) => format!(
                "{}:{}: {what}",
                f.path,
                f.lines().line_of(span.start as usize) + 1
            ),
            None => what.clone(),
        })
        .collect();
    places.sort();
    places.dedup();
    Some(
        Notice::new(
            NoticeKind::NotFollowed,
            Some(file),
            format!(
                "part of the program was not followed, so no check ran on it: {}",
                places.join("; ")
            ),
        )
        .with_help("checks still ran on everything else the program declares"),
    )
}

/// A note about the run rather than about a place in a file.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Notice {
    /// What it is about.
    pub kind: NoticeKind,
    /// The path as reached from the arguments, `/`-separated.
    pub file: Option<String>,
    /// 1-based line of the node at fault, when there is one.
    pub line: Option<usize>,
    /// What happened.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
}

impl Notice {
    /// A note of this kind, about `file` when it concerns one.
    pub fn new(kind: NoticeKind, file: Option<String>, message: impl Into<String>) -> Notice {
        Notice {
            kind,
            file,
            line: None,
            message: message.into(),
            help: None,
        }
    }

    /// The same note at this 1-based line.
    #[must_use]
    pub fn with_line(mut self, line: usize) -> Notice {
        self.line = Some(line);
        self
    }

    /// The same note with what to do about it.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Notice {
        self.help = Some(help.into());
        self
    }

    /// How much it counts for the exit code.
    pub fn severity(&self) -> Severity {
        match self.kind {
            NoticeKind::NotLinted => Severity::Warning,
            _ => Severity::Info,
        }
    }

    /// Only a near-miss counts toward the exit code: a pre-commit run over
    /// unrelated files must stay green.
    pub fn counts(&self) -> bool {
        self.kind == NoticeKind::NotLinted
    }

    /// `file:line: ` or `file: ` or nothing.
    pub fn place(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}: "),
            (Some(f), None) => format!("{f}: "),
            _ => String::new(),
        }
    }
}

/// How many files shown after a count: the rest are summed up.
const LISTED: usize = 3;

/// `a.yaml, b.yaml and 2 more`.
fn listing(files: &[String]) -> String {
    let shown: Vec<&str> = files.iter().take(LISTED).map(String::as_str).collect();
    match files.len().saturating_sub(LISTED) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The note for templates of Helm charts named alone (or walked from inside
/// their chart): fplint lints what their chart renders, not the file.
pub fn chart_templates(files: &[std::path::PathBuf]) -> Option<Notice> {
    let shown: Vec<String> = files
        .iter()
        .map(|p| fplint_core::sources::display_path(p))
        .collect();
    let file = match shown.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    };
    let what = count(shown.len(), "chart template", "chart templates");
    let message = match &file {
        Some(_) => "a chart template: linted as its chart renders it, with the chart's defaults for any release".into(),
        None => format!(
            "{what} linted as their charts render them, with the charts' defaults for any release ({})",
            listing(&shown)
        ),
    };
    let chart = files
        .first()
        .and_then(|f| crate::walk::chart_of_template(f))
        .map_or_else(
            || "CHART".to_string(),
            |c| fplint_core::sources::display_path(&c),
        );
    (!shown.is_empty()).then(|| {
        Notice::new(NoticeKind::ChartTemplates, file, message)
            .with_help(format!("see what fplint renders: `fplint render {chart}`"))
    })
}

/// Fold the walked files' near-miss notes into one that counts them and
/// names the files, which, named on the command line, say why.
pub fn gather_near_misses(notices: &mut Vec<Notice>) {
    let (mut near, rest): (Vec<Notice>, Vec<Notice>) = std::mem::take(notices)
        .into_iter()
        .partition(|n| n.kind == NoticeKind::NearMisses);
    *notices = rest;
    near.sort();
    let files: Vec<String> = near.iter().filter_map(|n| n.file.clone()).collect();
    if near.len() <= 1 {
        // One file: its own reason says it best.
        notices.append(&mut near);
        return;
    }
    let message = format!(
        "{} almost one of fplint's formats, so not linted: {}",
        count(files.len(), "walked file is", "walked files are"),
        listing(&files)
    );
    let names = files
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    notices.push(
        Notice::new(NoticeKind::NearMisses, None, message).with_help(format!(
            "name a file to see why it was not linted: `fplint check {names}`"
        )),
    );
}
