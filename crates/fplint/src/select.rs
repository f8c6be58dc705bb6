//! Rule selectors as people type them: a code (`FP001`), a code prefix
//! (`FP0`) or a rule name (`coredns-selector-labels`), in any case, with the
//! spaces around commas tolerated. An unknown one is answered with the
//! closest known ones.

use fplint_rules::{RuleInfo, REGISTRY};
use std::fmt;

/// A selector that names no rule, with the nearest ones to suggest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct UnknownRule {
    /// What was given, trimmed.
    pub given: String,
    /// `FP001 (coredns-selector-labels)` and so on, closest first.
    pub suggestions: Vec<String>,
    /// Only whole rules fit (`[severity]`, `fplint rule`), not prefixes.
    pub exact: bool,
}

impl fmt::Display for UnknownRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.exact {
            "rule code or name"
        } else {
            "rule code, prefix or name"
        };
        write!(f, "unknown {what} `{}`", self.given)?;
        match self.suggestions.as_slice() {
            [] => Ok(()),
            [one] => write!(f, "; did you mean {one}?"),
            many => write!(f, "; did you mean one of {}?", many.join(", ")),
        }
    }
}

/// The rule a code or name stands for: `FP001`, `fp001` and
/// `coredns-selector-labels` all find FP001.
pub fn rule(s: &str) -> Result<&'static RuleInfo, UnknownRule> {
    let s = s.trim();
    REGISTRY
        .iter()
        .find(|r| r.code.eq_ignore_ascii_case(s) || r.name.eq_ignore_ascii_case(s))
        .ok_or_else(|| unknown(s, true))
}

/// A selector for `select`/`ignore`: the code prefix it stands for, upper
/// case (`fp0` → `FP0`, `coredns-selector-labels` → `FP001`).
pub fn selector(s: &str) -> Result<String, UnknownRule> {
    let s = s.trim();
    let up = s.to_ascii_uppercase();
    if !s.is_empty() && REGISTRY.iter().any(|r| r.code.starts_with(&up)) {
        return Ok(up);
    }
    match REGISTRY.iter().find(|r| r.name.eq_ignore_ascii_case(s)) {
        Some(r) => Ok(r.code.to_string()),
        None => Err(unknown(s, false)),
    }
}

/// `--select` (when given) and `--ignore` as selectors, or the usage error
/// naming the unknown rule.
pub fn select_and_ignore<S: AsRef<str>>(
    select: Option<&[S]>,
    ignore: &[S],
) -> Result<(Option<Vec<String>>, Vec<String>), String> {
    let usage = |e: UnknownRule| format!("{e}\n`fplint rules` lists every rule");
    let select = select.map(selectors).transpose().map_err(usage)?;
    Ok((select, selectors(ignore).map_err(usage)?))
}

/// Selectors from a list whose items may hold commas and spaces
/// (`--select "FP001, FP004"`): empty items are dropped.
pub fn selectors<S: AsRef<str>>(items: &[S]) -> Result<Vec<String>, UnknownRule> {
    items
        .iter()
        .flat_map(|i| i.as_ref().split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(selector)
        .collect()
}

/// Up to three rules near `given`: by edit distance to the code or name, or
/// whose name contains it (`coredns` finds the CoreDNS rules).
fn unknown(given: &str, exact: bool) -> UnknownRule {
    let g = given.to_ascii_lowercase();
    let mut scored: Vec<(usize, &RuleInfo)> = REGISTRY
        .iter()
        .filter_map(|r| {
            let by_code = strsim::levenshtein(&g, &r.code.to_ascii_lowercase());
            let by_name = strsim::levenshtein(&g, r.name);
            let d = by_code.min(by_name);
            let close = d <= (g.chars().count() / 3).max(2);
            let part = g.len() >= 4 && r.name.contains(g.as_str());
            (close || part).then_some((if close { d } else { d + 100 }, r))
        })
        .collect();
    scored.sort_by_key(|(d, r)| (*d, r.code));
    UnknownRule {
        given: given.to_string(),
        suggestions: scored
            .iter()
            .take(3)
            .map(|(_, r)| format!("`{}` ({})", r.code, r.name))
            .collect(),
        exact,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_prefixes_and_names() {
        assert_eq!(selector("fp001").as_deref(), Ok("FP001"));
        assert_eq!(selector(" FP0 ").as_deref(), Ok("FP0"));
        assert_eq!(selector("coredns-selector-labels").as_deref(), Ok("FP001"));
        assert_eq!(rule("Fargate-Pod-Size").map(|r| r.code), Ok("FP015"));
        assert!(rule("FP0").is_err());
    }

    #[test]
    fn lists_trim_and_drop_empty_items() {
        assert_eq!(
            selectors(&["FP001, fargate-pod-size,", " FP01"]),
            Ok(vec!["FP001".into(), "FP015".into(), "FP01".into()])
        );
    }

    #[test]
    fn unknown_names_get_the_closest() {
        let e = selector("coredns-selector-label").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown rule code, prefix or name `coredns-selector-label`; did you mean `FP001` (coredns-selector-labels)?"
        );
        let e = rule("coredns").map(|r| r.code).unwrap_err();
        assert_eq!(e.suggestions.len(), 3, "{e}");
        assert!(e.suggestions[0].contains("FP001"), "{e}");
        let e = selector("FP999").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("unknown rule code, prefix or name `FP999`"));
        let e = rule("zzzzzzzzzzzzzzzz").map(|r| r.code).unwrap_err();
        assert!(e.suggestions.is_empty());
    }
}
