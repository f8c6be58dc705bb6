//! Logical paths of locations (`fargateProfiles[0].selectors`), built
//! without the formatting machinery: frontends make one for nearly every
//! node they read, and most are never shown.

/// `path.key`, or the one that is not empty.
pub fn child(path: &str, key: &str) -> String {
    if path.is_empty() {
        return key.to_string();
    }
    if key.is_empty() {
        return path.to_string();
    }
    dot(path, key)
}

/// `path.key`, always (`.key` under an empty path).
pub fn dot(path: &str, key: &str) -> String {
    let mut s = String::with_capacity(path.len() + 1 + key.len());
    s.push_str(path);
    s.push('.');
    s.push_str(key);
    s
}

/// The parts one after another, in one allocation.
pub fn concat(parts: &[&str]) -> String {
    let mut s = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        s.push_str(p);
    }
    s
}

/// `path[i]`.
pub fn index(path: &str, i: usize) -> String {
    let mut s = String::with_capacity(path.len() + 6);
    s.push_str(path);
    s.push('[');
    push_decimal(&mut s, i);
    s.push(']');
    s
}

/// Whether `path` is `root` or below it, as `Path::starts_with` answers:
/// a byte prefix that ends at a separator says yes without splitting
/// either path into components; anything else asks `Path::starts_with`.
pub fn under(path: &std::path::Path, root: &std::path::Path) -> bool {
    let (p, r) = (
        path.as_os_str().as_encoded_bytes(),
        root.as_os_str().as_encoded_bytes(),
    );
    let at_separator = |i: usize| p.get(i).is_none_or(|b| std::path::is_separator(*b as char));
    if cfg!(unix)
        && !r.is_empty()
        && p.starts_with(r)
        && (r.ends_with(b"/") || at_separator(r.len()))
    {
        return true;
    }
    path.starts_with(root)
}

/// The bytes of `Path::file_name`, without splitting the path into
/// components when it ends in a plain name.
pub fn file_name_bytes(path: &std::path::Path) -> Option<&[u8]> {
    let b = path.as_os_str().as_encoded_bytes();
    match b.last() {
        // `a/`, `a/.`, `..`: let `Path` say what they name.
        Some(b'/' | b'.') | None => path.file_name().map(std::ffi::OsStr::as_encoded_bytes),
        Some(_) if cfg!(unix) => Some(match memchr::memrchr(b'/', b) {
            Some(i) => &b[i + 1..],
            None => b,
        }),
        Some(_) => path.file_name().map(std::ffi::OsStr::as_encoded_bytes),
    }
}

fn push_decimal(s: &mut String, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        s.push(d as char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_format_writes_them() {
        for i in [0usize, 7, 10, 99, 12345, usize::MAX] {
            assert_eq!(index("a.b", i), format!("a.b[{i}]"));
        }
        assert_eq!(index("", 3), "[3]");
        assert_eq!(
            concat(&["mod.", "", "aws_eks_cluster", ".", "x"]),
            "mod.aws_eks_cluster.x"
        );
        assert_eq!(concat(&[]), "");
        assert_eq!(child("spec", "template"), "spec.template");
        assert_eq!(child("", "spec"), "spec");
        assert_eq!(child("spec", ""), "spec");
        assert_eq!(dot("", "spec"), ".spec");
        assert_eq!(dot("a", "b"), "a.b");
    }

    #[test]
    fn under_and_file_name_answer_as_path_does() {
        use std::path::Path;
        let paths = [
            "", "/", "/a", "/a/", "/a/b", "/ab", "/a/b/", "/a/./b", "/a//b", "a", "a/b", "./a",
            "a/.", "a/..", "..", ".", "/a/b.tf", "x.tf/", "/a/b/c.d",
        ];
        for p in paths {
            assert_eq!(
                file_name_bytes(Path::new(p)),
                Path::new(p).file_name().map(|n| n.as_encoded_bytes()),
                "{p}"
            );
            for r in paths {
                assert_eq!(
                    under(Path::new(p), Path::new(r)),
                    Path::new(p).starts_with(r),
                    "{p} under {r}"
                );
            }
        }
    }
}
