//! Paths as Terragrunt's functions give them (absolute), and back as the
//! run reaches them (relative to the working folder), lexically.

use crate::frontend::terraform::normalize;
use std::path::{Component, Path, PathBuf};

/// Folders climbed at most, as Terragrunt bounds `find_in_parent_folders`.
const MAX_CLIMB: usize = 100;

fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"))
}

/// `p` absolute and lexically normalised.
pub(super) fn abs(p: &Path) -> PathBuf {
    if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&cwd().join(p))
    }
}

/// `p` as the run reaches it: relative to the working folder when under it.
pub(super) fn shown(p: &Path) -> PathBuf {
    let c = cwd();
    match p.strip_prefix(&c) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rel) => rel.to_path_buf(),
        Err(_) => relative(&c, p),
    }
}

/// The path from folder `from` to `to`, both absolute.
pub(super) fn relative(from: &Path, to: &Path) -> PathBuf {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..a.len() {
        out.push("..");
    }
    for c in &b[common..] {
        out.push(c);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// The first of `dir` and its parents holding `name` (a file, or a path
/// below the folder), as Terragrunt's `find_in_parent_folders` searches.
pub(super) fn find_up(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut at = Some(dir);
    for _ in 0..MAX_CLIMB {
        let d = at?;
        let p = d.join(name);
        if p.is_file() {
            return Some(p);
        }
        at = d.parent();
    }
    None
}

/// The repository the folder is in: the nearest folder holding `.git`.
pub(super) fn repo_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .take(MAX_CLIMB)
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_then_descend() {
        assert_eq!(
            relative(Path::new("/r/live/prod/eks"), Path::new("/r/modules/eks")),
            PathBuf::from("../../../modules/eks")
        );
        assert_eq!(
            relative(Path::new("/r/live"), Path::new("/r/live/prod/eks")),
            PathBuf::from("prod/eks")
        );
        assert_eq!(
            relative(Path::new("/r/live"), Path::new("/r/live")),
            PathBuf::from(".")
        );
    }
}
