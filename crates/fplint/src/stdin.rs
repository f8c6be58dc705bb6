//! Standard input without `--stdin-filename`: the format is told by the
//! text itself, YAML and JSON by their keys, Terraform by its blocks. Text
//! that is none of them is not linted as a clean pass.

use fplint_core::frontend::{self, looks_recognised};
use fplint_core::tree::{self, Limits};

/// The name standard input is linted under when it is Terraform.
pub const TERRAFORM_NAME: &str = "stdin.tf";

/// What standard input is, told by its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guess {
    /// YAML or JSON fplint reads (or text that looks meant for it).
    Document,
    /// Terraform (HCL): lint it as [`TERRAFORM_NAME`].
    Terraform,
    /// Nothing fplint reads: the user must name it.
    Unknown,
}

/// Blocks that start a Terraform file's top-level statements.
const BLOCKS: &[&str] = &[
    "resource",
    "data",
    "module",
    "provider",
    "variable",
    "output",
    "locals",
    "terraform",
    "import",
    "moved",
    "removed",
    "check",
];

/// Whether `line` opens a top-level HCL block: a block type, labels that
/// are quoted strings or names, and `{`.
fn opens_block(line: &str) -> bool {
    if line.starts_with(char::is_whitespace) {
        return false;
    }
    let Some((head, _)) = line.split_once('{') else {
        return false;
    };
    let mut words = head.split_whitespace();
    let Some(kind) = words.next() else {
        return false;
    };
    BLOCKS.contains(&kind)
        && words.all(|w| {
            let quoted = w.len() >= 2 && w.starts_with('"') && w.ends_with('"');
            quoted
                || w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        })
}

/// What `text` read from standard input is.
pub fn guess(text: &str) -> Guess {
    let mut end = text.len().min(64 * 1024);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let json = head.trim_start().starts_with(['{', '[']);
    let file = fplint_core::FileId(0);
    let parsed = if json {
        tree::json::parse(text, file, Limits::default())
    } else {
        tree::yaml::parse(text, file, Limits::default())
    };
    if parsed
        .documents
        .iter()
        .any(|d| frontend::recognise(d).is_some())
    {
        return Guess::Document;
    }
    // Top-level blocks start their lines, unindented.
    if head.lines().any(opens_block) {
        return Guess::Terraform;
    }
    if parsed.error.is_some() && looks_recognised(text) {
        return Guess::Document;
    }
    Guess::Unknown
}

/// The file name stdin's `bytes` stand for: `name` when given, else the one
/// its text tells (`None`: a document, named by its content); an error
/// when text tells none, rather than passing it as clean.
pub fn name_for<'a>(name: Option<&'a str>, bytes: &[u8]) -> Result<Option<&'a str>, String> {
    match (name, std::str::from_utf8(bytes)) {
        (Some(n), _) => Ok(Some(n)),
        (None, Ok(text)) => match guess(text) {
            Guess::Document => Ok(None),
            Guess::Terraform => Ok(Some(TERRAFORM_NAME)),
            Guess::Unknown => Err("stdin is not an eksctl ClusterConfig, CloudFormation template, Kubernetes manifest or Terraform that fplint can tell by its text; name it with `--stdin-filename NAME` (e.g. main.tf, cluster.yaml)".into()),
        },
        (None, Err(_)) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terraform_is_told_by_its_blocks() {
        assert_eq!(
            guess("resource \"aws_eks_cluster\" \"this\" {\n  name = \"x\"\n}\n"),
            Guess::Terraform
        );
        assert_eq!(guess("locals {\n  a = 1\n}\n"), Guess::Terraform);
        assert_eq!(
            guess("module eks {\n  source = \"x\"\n}\n"),
            Guess::Terraform
        );
        // A YAML key of the same name is not a block.
        assert_eq!(guess("resource: {a: 1}\n"), Guess::Unknown);
        assert_eq!(guess("  resource \"a\" \"b\" {\n"), Guess::Unknown);
    }

    #[test]
    fn documents_are_told_by_their_keys() {
        assert_eq!(
            guess("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"),
            Guess::Document
        );
        assert_eq!(
            guess("{\"AWSTemplateFormatVersion\": \"2010-09-09\", \"Resources\": {}}"),
            Guess::Document
        );
        // Broken, but meant for fplint: linted, so the error is reported.
        assert_eq!(
            guess("apiVersion: v1\nkind: Pod\nmetadata: [\n"),
            Guess::Document
        );
        assert_eq!(guess("name: my-values\nreplicas: 2\n"), Guess::Unknown);
        assert_eq!(guess(""), Guess::Unknown);
    }
}
