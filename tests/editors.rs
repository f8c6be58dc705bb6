//! docs/editors.md shows the editor set-ups that .ci/editors.sh runs: each
//! snippet under a `<!-- path -->` marker must be that file, word for word.

use std::path::Path;

/// (path in the marker, fenced text below it)
fn snippets(doc: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        let Some(path) = line
            .strip_prefix("<!-- ")
            .and_then(|rest| rest.strip_suffix(" -->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "the marker for {path} must be followed by a fenced block, found {fence:?}"
        );
        let mut text = String::new();
        for body in lines.by_ref() {
            if body == "```" {
                break;
            }
            text.push_str(body);
            text.push('\n');
        }
        found.push((path.to_string(), text));
    }
    found
}

#[test]
fn editor_snippets_in_the_docs_are_the_tested_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/editors.md")).unwrap();
    let found = snippets(&doc);
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "editors/nvim/init.lua",
            "editors/helix/languages.toml",
            "editors/emacs/fplint.el"
        ]
    );
    for (path, text) in &found {
        let file = std::fs::read_to_string(root.join(path)).unwrap();
        assert_eq!(
            text, &file,
            "docs/editors.md shows a different {path}; copy the file into the doc"
        );
    }
}

#[test]
fn the_server_section_comes_first() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/editors.md")).unwrap();
    let headings: Vec<&str> = doc.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(headings.first(), Some(&"## The server"), "{headings:?}");
}

#[test]
fn a_changed_snippet_is_noticed() {
    let doc = "<!-- a.lua -->\n```lua\nlocal x = 1\n```\n";
    assert_eq!(
        snippets(doc),
        [("a.lua".to_string(), "local x = 1\n".to_string())]
    );
}
