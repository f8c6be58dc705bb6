//! A shell script with a YAML name (`deploy.yaml` that is `#!/bin/bash` or
//! `cat <<EOF | kubectl apply -f -`). It is told from broken YAML by its
//! content and is never a parse error. The manifests its heredocs write
//! are read, with spans into the heredoc bodies, when every variable they
//! expand is set in the script itself; a body with a variable set nowhere
//! in it (the caller's environment, a Terraform `local-exec`) is unknown,
//! and the file is skipped with a note that says why.

use super::{load_parsed, UnitOutput};
use crate::source::{SourceFile, Span};
use crate::tree::{self, Limits, Node, NodeKind, Parsed};
use std::collections::HashMap;
use std::ops::Range;

/// What a script's text says about the manifests it writes.
#[derive(Debug, PartialEq)]
pub struct Script {
    /// Heredocs whose body may be a manifest, in order.
    pub heredocs: Vec<Heredoc>,
}

/// One heredoc of a script.
#[derive(Debug, PartialEq)]
pub struct Heredoc {
    /// The command line that feeds it (`cat <<EOF | kubectl apply -f -`).
    pub command: Range<usize>,
    /// Its body, up to the line of its delimiter.
    pub body: Range<usize>,
    /// `kubectl delete`: what it describes is removed, not created.
    pub deletes: bool,
    /// The body as the command reads it, or the first variable that is set
    /// nowhere in the script.
    pub text: Result<Expanded, String>,
}

/// A body after expansion, and where each part of it was written.
#[derive(Debug, PartialEq)]
pub struct Expanded {
    /// The text the command reads.
    pub text: String,
    /// `(offset in text, offset in the file, bytes in the file)`, in
    /// order: a piece copied as written has as many bytes in both; a
    /// variable's value stands for its reference.
    pieces: Vec<(usize, usize, usize, bool)>,
}

impl Expanded {
    fn push_copy(&mut self, file_at: usize, s: &str) {
        if s.is_empty() {
            return;
        }
        self.pieces.push((self.text.len(), file_at, s.len(), true));
        self.text.push_str(s);
    }

    fn push_value(&mut self, file_at: usize, reference: usize, value: &str) {
        self.pieces
            .push((self.text.len(), file_at, reference, false));
        self.text.push_str(value);
    }

    /// The file offset of an offset of the expanded text: inside a value,
    /// its reference's start (or end, for the end of a span).
    fn to_file(&self, at: usize, end: bool) -> usize {
        let i = self.pieces.partition_point(|p| p.0 <= at).saturating_sub(1);
        let Some(&(text_at, file_at, len, copied)) = self.pieces.get(i) else {
            return 0;
        };
        let within = at - text_at.min(at);
        if copied {
            file_at + within.min(len)
        } else if end && within > 0 {
            file_at + len
        } else {
            file_at
        }
    }
}

/// Whether `text` is a shell script rather than YAML: a shebang naming a
/// shell, or a first line (past comments) that is a command, not a key,
/// list item or document marker.
pub fn is_script(text: &str) -> bool {
    if let Some(first) = text.lines().next() {
        if let Some(interp) = first.strip_prefix("#!") {
            let shell = interp
                .split_whitespace()
                .flat_map(|w| w.rsplit('/').next())
                .any(|w| matches!(w, "sh" | "bash" | "zsh" | "ksh" | "dash" | "ash"));
            if shell {
                return true;
            }
        }
    }
    let Some(line) = text
        .lines()
        .map(str::trim_end)
        .find(|l| !l.trim_start().is_empty() && !l.trim_start().starts_with('#'))
    else {
        return false;
    };
    if line.starts_with(char::is_whitespace) {
        return false;
    }
    let word_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
        .unwrap_or(line.len());
    let (word, rest) = line.split_at(word_end);
    if word.is_empty() || word.starts_with('-') || word.starts_with('.') {
        return false;
    }
    // `NAME=value`: an assignment.
    if rest.starts_with('=') {
        return !word.contains(['/', '.', '-'])
            && !rest.starts_with("= ")
            && !line.contains(": ")
            && !line.ends_with(':');
    }
    // A key (`kind: Pod`), or a plain scalar alone.
    if rest.starts_with(':') || rest.is_empty() && !COMMANDS.contains(&word) {
        return false;
    }
    if !rest.starts_with(char::is_whitespace) && !rest.is_empty() {
        return false;
    }
    COMMANDS.contains(&word) || !heredoc_markers(line, 0).is_empty()
}

/// Commands a deployment script starts with.
const COMMANDS: &[&str] = &[
    "set",
    "export",
    "cat",
    "echo",
    "printf",
    "kubectl",
    "eksctl",
    "helm",
    "aws",
    "envsubst",
    "tee",
    "cd",
    "mkdir",
    "source",
    "if",
    "for",
    "while",
    "until",
    "case",
    "function",
    "sed",
    "curl",
    "terraform",
    "readonly",
    "declare",
    "trap",
    "sleep",
];

/// The heredoc markers of a command line: (delimiter, quoted, strip tabs).
fn heredoc_markers(line: &str, base: usize) -> Vec<(String, bool, bool, usize)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let (mut single, mut double) = (false, false);
    while i < b.len() {
        match b[i] {
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            b'#' if !single && !double && (i == 0 || b[i - 1].is_ascii_whitespace()) => break,
            b'<' if !single && !double && b.get(i + 1) == Some(&b'<') => {
                if b.get(i + 2) == Some(&b'<') {
                    i += 3;
                    continue;
                }
                let mut j = i + 2;
                let strip = b.get(j) == Some(&b'-');
                if strip {
                    j += 1;
                }
                while b.get(j).is_some_and(|c| *c == b' ' || *c == b'\t') {
                    j += 1;
                }
                let quote = match b.get(j) {
                    Some(q @ (b'\'' | b'"')) => Some(*q),
                    Some(b'\\') => Some(b'\\'),
                    _ => None,
                };
                if quote.is_some() {
                    j += 1;
                }
                let start = j;
                while b
                    .get(j)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-')
                {
                    j += 1;
                }
                if j > start {
                    let word = line[start..j].to_string();
                    if matches!(quote, Some(b'\'' | b'"')) && b.get(j).copied() == quote {
                        j += 1;
                    }
                    out.push((word, quote.is_some(), strip, base + i));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Read a script's heredocs. `None` when the text is not a script.
pub fn read(text: &str) -> Option<Script> {
    if !is_script(text) {
        return None;
    }
    let lines = line_ranges(text);
    let mut vars: HashMap<String, Option<(String, bool)>> = HashMap::new();
    let mut depth = 0usize;
    let mut heredocs = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        let range = lines[n].clone();
        let line = &text[range.clone()];
        n += 1;
        let markers = heredoc_markers(line, range.start);
        let before = depth;
        depth = nesting(line, depth);
        assignments(line, before.max(depth) == 0, &mut vars);
        for (delim, quoted, strip, _) in markers {
            let start = lines.get(n).map_or(text.len(), |r| r.start);
            let mut end = text.len();
            let mut body_lines = Vec::new();
            while n < lines.len() {
                let r = lines[n].clone();
                n += 1;
                let l = &text[r.clone()];
                let l = if strip { l.trim_start_matches('\t') } else { l };
                if l.trim_end_matches('\r') == delim {
                    end = r.start;
                    break;
                }
                body_lines.push(r);
            }
            let envsubst = line.contains("envsubst");
            let expanded = if quoted && !envsubst {
                Ok(copy(text, &body_lines, strip))
            } else {
                expand(text, &body_lines, strip, &vars, quoted)
            };
            heredocs.push(Heredoc {
                command: range.clone(),
                body: start..end.max(start),
                deletes: line.contains("kubectl delete"),
                text: expanded,
            });
        }
    }
    Some(Script { heredocs })
}

/// Each line's range, without its newline.
fn line_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.bytes().enumerate() {
        if c == b'\n' {
            out.push(start..i);
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// The depth of compound commands after a line: an assignment inside one
/// may or may not run.
fn nesting(line: &str, depth: usize) -> usize {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .collect();
    let mut d = depth;
    for w in &words {
        match *w {
            "if" | "for" | "while" | "until" | "case" | "{" | "(" => d += 1,
            "fi" | "done" | "esac" | "}" | ")" => d = d.saturating_sub(1),
            w if w.ends_with("(){") || w.ends_with("()") => d += 1,
            _ => {}
        }
    }
    d
}

/// Record a line's assignments: a plain one at the top level sets a known
/// value; any other that names a variable makes it unknown from here on.
fn assignments(line: &str, top: bool, vars: &mut HashMap<String, Option<(String, bool)>>) {
    let trimmed = line.trim();
    let indented = line.len() != line.trim_start().len();
    let (exported, rest) = match trimmed.split_once(char::is_whitespace) {
        Some(("export" | "readonly" | "declare", r)) => (true, r.trim_start()),
        _ => (false, trimmed),
    };
    if let Some((name, value)) = rest.split_once('=') {
        if is_name(name) {
            let known = (top && !indented)
                .then(|| literal_value(value))
                .flatten()
                .map(|v| (v, exported));
            vars.insert(name.to_string(), known);
            return;
        }
    }
    // `export NAME` exports what is set; `read NAME`, `for NAME in` and
    // the like set it from elsewhere.
    if exported && is_name(rest) {
        if let Some(Some((_, e))) = vars.get_mut(rest) {
            *e = true;
        }
        return;
    }
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    if let Some(first) = words.first() {
        if matches!(*first, "read" | "for" | "local" | "getopts" | "mapfile") {
            for w in &words[1..] {
                let w = w.split('=').next().unwrap_or_default();
                if is_name(w) {
                    vars.insert(w.to_string(), None);
                }
            }
        }
    }
    // `NAME=value` after another word on the line.
    for w in words.iter().skip(1) {
        if let Some((name, _)) = w.split_once('=') {
            if is_name(name) && !w.starts_with('-') {
                vars.insert(name.to_string(), None);
            }
        }
    }
}

fn is_name(s: &str) -> bool {
    let mut b = s.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// A value the shell reads as written: one word with no expansion, or a
/// quoted string with none.
fn literal_value(value: &str) -> Option<String> {
    let v = value.trim_end();
    if let Some(inner) = v.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        return (!inner.contains('\'')).then(|| inner.to_string());
    }
    if let Some(inner) = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        return (!inner.contains(['"', '$', '`', '\\'])).then(|| inner.to_string());
    }
    let special = |c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '$' | '`'
                    | '\\'
                    | '\''
                    | '"'
                    | ';'
                    | '&'
                    | '|'
                    | '<'
                    | '>'
                    | '('
                    | ')'
                    | '*'
                    | '?'
                    | '['
                    | '~'
                    | '{'
            )
    };
    (!v.contains(special)).then(|| v.to_string())
}

/// A body copied as written (a quoted delimiter: no expansion).
fn copy(text: &str, lines: &[Range<usize>], strip: bool) -> Expanded {
    let mut e = Expanded {
        text: String::new(),
        pieces: Vec::new(),
    };
    for r in lines {
        let l = &text[r.clone()];
        let from = if strip {
            r.start + (l.len() - l.trim_start_matches('\t').len())
        } else {
            r.start
        };
        e.push_copy(from, &text[from..r.end]);
        // The newline itself, where the file has one.
        if text.as_bytes().get(r.end) == Some(&b'\n') {
            e.push_copy(r.end, "\n");
        }
    }
    e
}

/// A body as the shell expands it: `$NAME` and `${NAME}` from the script's
/// own assignments (exported ones only when `envsubst` does it), `\$` as a
/// dollar; anything else that expands (`$(...)`, `${NAME:-x}`, `$1`, a
/// variable set nowhere) makes the body unknown.
fn expand(
    text: &str,
    lines: &[Range<usize>],
    strip: bool,
    vars: &HashMap<String, Option<(String, bool)>>,
    envsubst_only: bool,
) -> Result<Expanded, String> {
    let mut e = Expanded {
        text: String::new(),
        pieces: Vec::new(),
    };
    for r in lines {
        let l = &text[r.clone()];
        let from = if strip {
            r.start + (l.len() - l.trim_start_matches('\t').len())
        } else {
            r.start
        };
        let end = if text.as_bytes().get(r.end) == Some(&b'\n') {
            r.end + 1
        } else {
            r.end
        };
        let b = text.as_bytes();
        let mut copied = from;
        let mut i = from;
        while i < end {
            match b[i] {
                b'\\' if !envsubst_only && matches!(b.get(i + 1), Some(b'$' | b'`' | b'\\')) => {
                    e.push_copy(copied, &text[copied..i]);
                    copied = i + 1;
                    i += 2;
                }
                b'`' if !envsubst_only => return Err("`...`".into()),
                b'$' => {
                    let (name, len) = match b.get(i + 1) {
                        Some(b'{') => {
                            let close = text[i..end].find('}').map(|c| i + c);
                            match close {
                                Some(c) if is_name(&text[i + 2..c]) => {
                                    (Some(&text[i + 2..c]), c + 1 - i)
                                }
                                Some(c) if !envsubst_only => return Err(text[i..=c].to_string()),
                                _ => (None, 1),
                            }
                        }
                        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
                            let n = text[i + 1..end]
                                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                                .unwrap_or(end - i - 1);
                            (Some(&text[i + 1..i + 1 + n]), n + 1)
                        }
                        Some(c) if !envsubst_only && !c.is_ascii_whitespace() && *c != b'"' => {
                            return Err(match *c {
                                b'(' => "$(...)".to_string(),
                                c if c.is_ascii() => format!("${}", c as char),
                                _ => "$".to_string(),
                            });
                        }
                        _ => (None, 1),
                    };
                    let Some(name) = name else {
                        i += len;
                        continue;
                    };
                    match vars.get(name) {
                        Some(Some((value, exported))) if !envsubst_only || *exported => {
                            e.push_copy(copied, &text[copied..i]);
                            e.push_value(i, len, value);
                            i += len;
                            copied = i;
                        }
                        _ => return Err(format!("${name}")),
                    }
                }
                _ => i += 1,
            }
        }
        e.push_copy(copied, &text[copied..end.max(copied)]);
    }
    Ok(e)
}

/// Model a script's manifests. `None` when the text is not a script.
pub fn load(file: &SourceFile, limits: Limits) -> Option<UnitOutput> {
    let script = read(&file.text)?;
    let mut out = UnitOutput::default();
    let mut parsed = Parsed {
        documents: Vec::new(),
        duplicates: Vec::new(),
        error: None,
    };
    let mut unknown = None;
    for h in script.heredocs.iter().filter(|h| !h.deletes) {
        match &h.text {
            Ok(body) => {
                let mut p = tree::yaml::parse(&body.text, file.id, limits);
                let recognised = p.documents.iter().any(|d| super::recognise(d).is_some());
                if !recognised && !super::looks_recognised(&body.text) {
                    continue;
                }
                let at = |s: &mut Span| {
                    let (a, b) = (s.start as usize, s.end as usize);
                    let start = body.to_file(a, false);
                    *s = Span::new(file.id, start, body.to_file(b, true).max(start));
                };
                for d in &mut p.documents {
                    each_span(d, &mut |s| at(s));
                }
                for d in &mut p.duplicates {
                    at(&mut d.first);
                    at(&mut d.second);
                }
                if let Some(err) = &mut p.error {
                    at(&mut err.span);
                }
                parsed.documents.append(&mut p.documents);
                parsed.duplicates.append(&mut p.duplicates);
                if parsed.error.is_none() {
                    parsed.error = p.error;
                }
            }
            Err(what) => {
                let body = &file.text[h.body.clone()];
                if unknown.is_none() && super::looks_recognised(body) {
                    unknown = Some((h.command.clone(), what.clone()));
                }
            }
        }
    }
    if !parsed.documents.is_empty() || parsed.error.is_some() {
        out = load_parsed(file, parsed);
    }
    out.script = Some(match unknown {
        Some((command, what)) => ScriptNote {
            span: Span::new(file.id, command.start, command.end),
            reason: format!(
                "a shell script, not YAML: the manifest its heredoc writes expands `{what}`, which the script does not set, so it was not linted"
            ),
            always: true,
        },
        None => ScriptNote {
            span: Span::new(file.id, 0, 0),
            reason: "a shell script, not YAML".into(),
            always: false,
        },
    });
    Some(out)
}

/// What a frontend says of a script it read instead of YAML.
#[derive(Debug, Clone)]
pub struct ScriptNote {
    /// The command whose heredoc was not read, or the file's start.
    pub span: Span,
    /// Why its manifests were not linted.
    pub reason: String,
    /// Said of a walked file too: a manifest in it was not linted.
    pub always: bool,
}

fn each_span(n: &mut Node, f: &mut impl FnMut(&mut Span)) {
    f(&mut n.span);
    match &mut n.kind {
        NodeKind::Scalar(..) => {}
        NodeKind::Seq(items) => items.iter_mut().for_each(|i| each_span(i, f)),
        NodeKind::Map(entries) => {
            for e in entries {
                each_span(&mut e.key, f);
                each_span(&mut e.value, f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_told_from_yaml_by_their_first_line() {
        for s in [
            "#!/bin/bash\nkubectl get pods\n",
            "#!/usr/bin/env bash\n",
            "cat <<EOF | kubectl apply -f -\napiVersion: v1\nEOF\n",
            "kubectl apply -f - <<'EOF'\nkind: x\nEOF\n",
            "# deploy\nset -euo pipefail\n",
            "NAMESPACE=demo\ncat <<EOF > ns.yaml\nEOF\n",
            "export NAMESPACE=demo\n",
        ] {
            assert!(is_script(s), "{s}");
        }
        for s in [
            "apiVersion: v1\nkind: Pod\n",
            "# a comment\nkind: Pod\n",
            "---\napiVersion: v1\n",
            "- a\n- b\n",
            "cat: meow\n",
            "hello world\n",
            "{\"a\": 1}\n",
            "#!/usr/bin/python\nprint(1)\n",
            "<<: *defaults\n",
            "  indented: x\n",
            "key=value=x: 1\n",
        ] {
            assert!(!is_script(s), "{s}");
        }
    }

    fn body(text: &str) -> Result<String, String> {
        let s = read(text).expect("a script");
        s.heredocs[0]
            .text
            .as_ref()
            .map(|e| e.text.clone())
            .map_err(Clone::clone)
    }

    #[test]
    fn variables_set_in_the_script_are_known_and_others_are_not() {
        let t = "NS=demo\nexport APP='web'\ncat <<EOF | kubectl apply -f -\nns: $NS\napp: ${APP}\ncost: \\$5\nEOF\n";
        assert_eq!(body(t), Ok("ns: demo\napp: web\ncost: $5\n".into()));
        let t = "cat <<EOF | kubectl apply -f -\nns: ${NAMESPACE}\nEOF\n";
        assert_eq!(body(t), Err("$NAMESPACE".into()));
        // Set only inside a branch: it may not be.
        let t = "if true; then\n  NS=a\nfi\ncat <<EOF\nns: $NS\nEOF\n";
        assert_eq!(body(t), Err("$NS".into()));
        // Set from a command or read: unknown.
        let t = "NS=$(whoami)\ncat <<EOF\nns: $NS\nEOF\n";
        assert_eq!(body(t), Err("$NS".into()));
        let t = "cat <<EOF\nns: $(whoami)\nEOF\n";
        assert_eq!(body(t), Err("$(...)".into()));
        let t = "cat <<EOF\nns: ${NS:-demo}\nEOF\n";
        assert_eq!(body(t), Err("${NS:-demo}".into()));
        // A quoted delimiter: written as it is.
        let t = "cat <<'EOF' > x.yaml\nns: $NS\nEOF\n";
        assert_eq!(body(t), Ok("ns: $NS\n".into()));
        // ... unless envsubst fills it from the environment.
        let t = "cat <<'EOF' | envsubst | kubectl apply -f -\nns: $NS\nEOF\n";
        assert_eq!(body(t), Err("$NS".into()));
        let t = "export NS=a\ncat <<'EOF' | envsubst | kubectl apply -f -\nns: $NS\nEOF\n";
        assert_eq!(body(t), Ok("ns: a\n".into()));
        // `<<-` strips leading tabs.
        let t = "cat <<-EOF\n\tns: a\n\tEOF\n";
        assert_eq!(body(t), Ok("ns: a\n".into()));
    }

    #[test]
    fn offsets_map_back_into_the_body() {
        let t = "NS=demo\ncat <<EOF\nns: $NS\nx: 1\nEOF\n";
        let s = read(t).expect("a script");
        let Ok(e) = &s.heredocs[0].text else {
            panic!("known")
        };
        let ns_ref = t.find("$NS").unwrap_or_default();
        let value = e.text.find("demo").unwrap_or_default();
        assert_eq!(e.to_file(value, false), ns_ref);
        assert_eq!(e.to_file(value + 4, true), ns_ref + 3);
        let x = e.text.find("x: 1").unwrap_or_default();
        assert_eq!(e.to_file(x, false), t.find("x: 1").unwrap_or_default());
    }
}
