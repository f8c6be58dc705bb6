//! A git revision's files, read from the repository's objects (not by
//! checking out a work tree) into a folder of their own, so that a run can
//! read the project as it was (`fplint placement --diff REV`).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why a revision could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RevisionError {
    /// git could not be run.
    #[error("cannot run git: {0}")]
    Git(std::io::Error),
    /// git ran and refused.
    #[error("git {args}: {message}")]
    Refused {
        /// The command's arguments.
        args: String,
        /// What git said.
        message: String,
    },
    /// A named path is not inside the repository.
    #[error("{0} is not inside the git repository")]
    Outside(PathBuf),
    /// The folder could not be written.
    #[error("cannot write the revision's files: {0}")]
    Write(std::io::Error),
}

/// A revision's files in a temporary folder, removed when dropped.
#[derive(Debug)]
pub struct Tree {
    /// The folder the repository's root stands at.
    pub root: PathBuf,
    /// The repository's root in the work tree, canonical.
    pub repo: PathBuf,
    /// Files written.
    pub files: usize,
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

impl Tree {
    /// Where a path of the work tree stands in the revision's folder.
    pub fn map(&self, path: &Path) -> Result<PathBuf, RevisionError> {
        let abs = path
            .canonicalize()
            .or_else(|_| std::env::current_dir().map(|d| d.join(path)))
            .map_err(RevisionError::Write)?;
        let rel = abs
            .strip_prefix(&self.repo)
            .map_err(|_| RevisionError::Outside(path.to_path_buf()))?;
        Ok(self.root.join(rel))
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, RevisionError> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(RevisionError::Git)?;
    if !out.status.success() {
        return Err(RevisionError::Refused {
            args: args.join(" "),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out.stdout)
}

/// Reads the files of `rev` in the repository that holds `dir` into a new
/// temporary folder. Files larger than `max_size` bytes, links and
/// submodules are left out, as a run would leave them.
pub fn read(dir: &Path, rev: &str, max_size: u64) -> Result<Tree, RevisionError> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let repo = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let repo = repo.canonicalize().unwrap_or(repo);
    // `REV^{tree}` refuses anything that names no tree, before any file is read.
    let spec = format!("{rev}^{{tree}}");
    git(&repo, &["rev-parse", "--verify", "--quiet", &spec]).map_err(|_| {
        RevisionError::Refused {
            args: format!("rev-parse {rev}"),
            message: format!("`{rev}` names no revision of this repository"),
        }
    })?;
    let listing = git(&repo, &["ls-tree", "-r", "-l", "-z", "--full-tree", &spec])?;
    let mut blobs: Vec<(String, PathBuf)> = Vec::new();
    for entry in listing.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let entry = String::from_utf8_lossy(entry);
        // `<mode> <type> <object> <size>\t<path>`
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let fields: Vec<&str> = meta.split_whitespace().collect();
        let [mode, kind, object, size] = fields.as_slice() else {
            continue;
        };
        let small = size.parse::<u64>().is_ok_and(|s| s <= max_size);
        if *kind != "blob" || *mode == "120000" || !small {
            continue;
        }
        let rel = Path::new(path);
        if rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            continue;
        }
        blobs.push((object.to_string(), rel.to_path_buf()));
    }
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let root = std::env::temp_dir().join(format!("fplint-rev-{}-{stamp}", std::process::id()));
    std::fs::create_dir_all(&root).map_err(RevisionError::Write)?;
    let mut tree = Tree {
        root: root.canonicalize().unwrap_or(root),
        repo: repo.clone(),
        files: 0,
    };
    // Marks the folder as the project root, as the repository's is.
    std::fs::create_dir_all(tree.root.join(".git")).map_err(RevisionError::Write)?;
    tree.files = write_blobs(&repo, &tree, &blobs)?;
    Ok(tree)
}

/// Writes each blob with one `git cat-file --batch`; how many it wrote.
fn write_blobs(
    repo: &Path,
    tree: &Tree,
    blobs: &[(String, PathBuf)],
) -> Result<usize, RevisionError> {
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .current_dir(repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(RevisionError::Git)?;
    let mut stdin = child.stdin.take();
    let requests: String = blobs.iter().map(|(o, _)| format!("{o}\n")).collect();
    // Written from another thread: git answers while it reads.
    let feeder = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(requests.as_bytes());
        }
        drop(stdin);
    });
    let mut written = 0;
    if let Some(out) = child.stdout.take() {
        let mut out = BufReader::new(out);
        for (_, rel) in blobs {
            let mut header = String::new();
            if out.read_line(&mut header).map_err(RevisionError::Git)? == 0 {
                break;
            }
            // `<object> blob <size>`, or `<object> missing`.
            let size = header
                .split_whitespace()
                .nth(2)
                .and_then(|s| s.parse::<usize>().ok());
            let Some(size) = size else { continue };
            let mut body = vec![0; size + 1];
            out.read_exact(&mut body).map_err(RevisionError::Git)?;
            body.pop();
            let path = tree.root.join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(RevisionError::Write)?;
            }
            std::fs::write(&path, &body).map_err(RevisionError::Write)?;
            written += 1;
        }
    }
    let _ = feeder.join();
    let _ = child.wait();
    Ok(written)
}
