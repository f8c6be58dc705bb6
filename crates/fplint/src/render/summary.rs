//! `--format summary`: Markdown for a GitHub Actions job summary
//! (`$GITHUB_STEP_SUMMARY`): the findings in one table per rule, each linked
//! to its line, and the placement diagram as a Mermaid block.

use super::{place, rule_name};
use crate::lint::Report;
use fplint_core::Severity;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// Rows shown per rule; a summary is capped at 1 MiB by GitHub.
const MAX_ROWS_PER_RULE: usize = 100;
/// Findings stop here; GitHub drops a step's summary over 1 MiB whole.
const MAX_FINDINGS_BYTES: usize = 800_000;
/// Mermaid refuses a diagram longer than this (its `maxTextSize`).
const MAX_MERMAID: usize = 50_000;

/// Where links point.
#[derive(Clone, Debug, Default)]
pub struct SummaryOptions {
    /// `https://github.com/OWNER/REPO/blob/SHA`: files link to their lines
    /// when set.
    pub blob_url: Option<String>,
    /// The repository's checkout; absolute paths under it get links.
    pub workspace: Option<PathBuf>,
    /// The working folder relative to the checkout, prefixed to relative paths.
    pub cwd_in_workspace: PathBuf,
}

impl SummaryOptions {
    /// Links from the variables GitHub Actions sets (`GITHUB_SERVER_URL`,
    /// `GITHUB_REPOSITORY`, `GITHUB_SHA`, `GITHUB_WORKSPACE`); none outside it.
    pub fn from_env() -> SummaryOptions {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let server = var("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into());
        let blob_url = match (var("GITHUB_REPOSITORY"), var("GITHUB_SHA")) {
            (Some(repo), Some(sha)) => Some(format!(
                "{}/{repo}/blob/{sha}",
                server.trim_end_matches('/')
            )),
            _ => None,
        };
        let workspace = var("GITHUB_WORKSPACE").map(PathBuf::from);
        let cwd_in_workspace = match (&workspace, std::env::current_dir()) {
            (Some(w), Ok(cwd)) => cwd
                .strip_prefix(w)
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            _ => PathBuf::new(),
        };
        SummaryOptions {
            blob_url,
            workspace,
            cwd_in_workspace,
        }
    }

    /// The repository-relative path of a file as shown, `/`-separated;
    /// `None` when it is outside the checkout.
    fn repo_path(&self, file: &str) -> Option<String> {
        let p = Path::new(file);
        let full = if p.is_absolute() {
            p.strip_prefix(self.workspace.as_ref()?).ok()?.to_path_buf()
        } else {
            self.cwd_in_workspace.join(p)
        };
        let mut parts: Vec<String> = Vec::new();
        for c in full.components() {
            match c {
                Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
                Component::CurDir => {}
                Component::ParentDir => {
                    parts.pop()?;
                }
                Component::RootDir | Component::Prefix(_) => return None,
            }
        }
        (!parts.is_empty()).then(|| parts.join("/"))
    }

    fn link(&self, file: &str, line: usize) -> Option<String> {
        let base = self.blob_url.as_ref()?;
        let path = self.repo_path(file)?;
        Some(format!("{base}/{}#L{line}", url_path(&path)))
    }
}

/// Percent-encoding for a URL path: all but unreserved characters and `/`.
fn url_path(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Plain text for Markdown: every character Markdown or HTML would read as
/// syntax is escaped.
fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            // Text never starts a line here, so line-start syntax (`#`, `-`) is safe.
            '\\' | '*' | '_' | '[' | ']' | '~' | '|' | '`' => {
                out.push('\\');
                out.push(ch);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A table cell: text, with the message's `code` spans kept as code.
fn md_cell(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    // An odd number of backticks leaves the last one as text.
    let paired = if parts.len() % 2 == 1 {
        parts.len()
    } else {
        parts.len() - 1
    };
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        if i >= paired {
            out.push_str("\\`");
            out.push_str(&md_text(part));
        } else if i % 2 == 1 && !part.is_empty() {
            // Inside a code span only `|` needs escaping (GitHub tables).
            let code = part.replace(['\n', '\r'], " ").replace('|', "\\|");
            out.push('`');
            out.push_str(&code);
            out.push('`');
        } else if i % 2 == 1 {
            out.push_str("\\`\\`");
        } else {
            out.push_str(&md_text(part));
        }
    }
    out
}

fn word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn location(opts: &SummaryOptions, file: &str, line: usize) -> String {
    let text = md_text(&format!("{file}:{line}"));
    match opts.link(file, line) {
        Some(url) => format!("[{text}]({url})"),
        None => text,
    }
}

/// The job summary of one run.
pub fn render(outcome: &Report, opts: &SummaryOptions) -> String {
    crate::render::escape_controls(&render_unescaped(outcome, opts)).into_owned()
}

/// The job summary of one run.
fn render_unescaped(outcome: &Report, opts: &SummaryOptions) -> String {
    let mut s = String::from("## fplint\n\n");
    let count = |sev| {
        outcome
            .diagnostics
            .iter()
            .filter(|d| d.severity == sev)
            .count()
    };
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let files = plural(outcome.files_scanned, "file", "files");
    if outcome.diagnostics.is_empty() {
        s.push_str(&format!("No findings in {files}.\n\n"));
    } else {
        let counts: Vec<String> = [
            (errors, "error", "errors"),
            (warnings, "warning", "warnings"),
            (infos, "info", "infos"),
        ]
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, one, many)| plural(*n, one, many))
        .collect();
        s.push_str(&format!(
            "{} in {files}: {}.\n\n",
            plural(outcome.diagnostics.len(), "finding", "findings"),
            counts.join(", ")
        ));
    }
    if let Some((n, file)) = crate::baseline::hidden_count(outcome) {
        s.push_str(&super::hidden_note(n, &file));
        s.push_str("\n\n");
    }
    let mut by_rule: BTreeMap<&str, Vec<&fplint_core::Diagnostic>> = BTreeMap::new();
    for d in &outcome.diagnostics {
        by_rule.entry(d.code).or_default().push(d);
    }
    if !by_rule.is_empty() {
        s.push_str("| Rule | Name | Findings |\n|---|---|---:|\n");
        for (code, list) in &by_rule {
            s.push_str(&format!(
                "| {code} | {} | {} |\n",
                md_text(rule_name(code)),
                list.len()
            ));
        }
        s.push('\n');
    }
    for (code, list) in &by_rule {
        if s.len() > MAX_FINDINGS_BYTES {
            s.push_str("The summary stops here to stay under GitHub's size limit; the annotations and `fplint check` list every finding.\n\n");
            break;
        }
        s.push_str(&format!("### {code} {}\n\n", md_text(rule_name(code))));
        s.push_str("| Severity | Where | Message |\n|---|---|---|\n");
        for d in list.iter().take(MAX_ROWS_PER_RULE) {
            let p = place(outcome, d);
            let mut message = md_cell(&super::shorten(&d.message));
            if let Some(h) = &d.help {
                message.push_str("<br>help: ");
                message.push_str(&md_cell(&super::shorten(h)));
            }
            s.push_str(&format!(
                "| {} | {} | {message} |\n",
                word(d.severity),
                location(opts, &p.file, p.start.line)
            ));
        }
        if list.len() > MAX_ROWS_PER_RULE {
            s.push_str(&format!(
                "\n{} more: `fplint check --select {code}` lists them all.\n",
                list.len() - MAX_ROWS_PER_RULE
            ));
        }
        s.push('\n');
    }
    if !outcome.notices.is_empty() {
        s.push_str("### Notes\n\n| Severity | Where | Note |\n|---|---|---|\n");
        for n in &outcome.notices {
            let at = match (&n.file, n.line) {
                (Some(f), Some(l)) => location(opts, f, l),
                (Some(f), None) => md_text(f),
                _ => String::new(),
            };
            let mut note = md_cell(&super::shorten(&n.message));
            if let Some(h) = &n.help {
                note.push_str("<br>help: ");
                note.push_str(&md_cell(&super::shorten(h)));
            }
            s.push_str(&format!("| {} | {at} | {note} |\n", word(n.severity())));
        }
        s.push('\n');
    }
    if !outcome.errors.is_empty() {
        s.push_str("### Paths fplint could not read\n\n");
        for e in &outcome.errors {
            s.push_str(&format!("- {}\n", md_text(e)));
        }
        s.push('\n');
    }
    let p = &outcome.project;
    if !p.clusters.is_empty() || !p.workloads.is_empty() {
        s.push_str("### Placement\n\n");
        let diagram = super::diagram::mermaid(p, &outcome.sources);
        if diagram.len() > MAX_MERMAID {
            s.push_str(&format!(
                "The diagram is too large for GitHub to draw ({} characters); `fplint placement --format dot` draws it with Graphviz.\n",
                diagram.len()
            ));
        } else {
            s.push_str("```mermaid\n");
            s.push_str(&diagram);
            s.push_str("```\n");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_keep_code_and_escape_the_rest() {
        assert_eq!(
            md_cell("label `a|b` on *x* <y>"),
            "label `a\\|b` on \\*x\\* &lt;y&gt;"
        );
        assert_eq!(md_cell("odd ` tick"), "odd \\` tick");
        assert_eq!(md_cell("a | b\nc"), "a \\| b c");
    }

    #[test]
    fn links_stay_inside_the_checkout() {
        let o = SummaryOptions {
            blob_url: Some("https://github.com/o/r/blob/abc".into()),
            workspace: Some(PathBuf::from("/w")),
            cwd_in_workspace: PathBuf::from("sub"),
        };
        assert_eq!(
            o.link("./a dir/ü.yaml", 3).as_deref(),
            Some("https://github.com/o/r/blob/abc/sub/a%20dir/%C3%BC.yaml#L3")
        );
        assert_eq!(
            o.link("/w/x/y.tf", 9).as_deref(),
            Some("https://github.com/o/r/blob/abc/x/y.tf#L9")
        );
        assert_eq!(o.link("/elsewhere/y.tf", 9), None);
        assert_eq!(o.link("../../y.tf", 9), None);
        assert_eq!(SummaryOptions::default().link("a.yaml", 1), None);
    }
}
