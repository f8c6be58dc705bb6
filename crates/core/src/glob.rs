//! Fargate selector patterns: `*` matches any run of characters, `?` one.

/// Pattern length times text length beyond which matching is literal: the
/// work is quadratic, and real namespaces and labels are at most 63 characters.
pub const MAX_WORK: usize = 1 << 20;

/// Whether `pattern` matches the whole of `text`.
pub fn matches(pattern: &str, text: &str) -> bool {
    if pattern.len().saturating_mul(text.len()) > MAX_WORK {
        return pattern == text;
    }
    // Most selectors name a namespace outright; most names are ASCII.
    if !is_pattern(pattern) {
        return pattern == text;
    }
    if pattern.is_ascii() && text.is_ascii() {
        return wild(pattern.as_bytes(), text.as_bytes(), b'*', b'?');
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    wild(&p, &t, '*', '?')
}

/// `*` and `?` matching over characters (or ASCII bytes).
fn wild<T: PartialEq + Copy>(p: &[T], t: &[T], any: T, one: T) -> bool {
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match p.get(pi) {
            Some(&c) if c == any => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(&c) if c == one || c == t[ti] => {
                pi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == any)
}

/// Whether the pattern has a wildcard.
pub fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?'])
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn wildcards() {
        assert!(matches("*", "kube-system"));
        assert!(matches("kube-*", "kube-system"));
        assert!(matches("kube-syste?", "kube-system"));
        assert!(matches("*-system", "kube-system"));
        assert!(!matches("kube-?", "kube-system"));
        assert!(!matches("app-*", "kube-system"));
        assert!(matches("kube-system", "kube-system"));
        assert!(!matches("kube-system", "kube-system2"));
        assert!(matches("a*b*c", "aXXbYYc"));
        assert!(!matches("a*b*c", "aXXbYY"));
        // Other scripts go by characters, not bytes.
        assert!(matches("n?", "n\u{e9}"));
        assert!(matches("\u{e9}*", "\u{e9}t\u{e9}"));
        assert!(!matches("n??", "n\u{e9}"));
        assert!(matches("", ""));
        assert!(!matches("", "a"));
    }
}
