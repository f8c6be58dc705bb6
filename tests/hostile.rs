//! Hostile input against the real binary. Every case lints a folder holding
//! one bad file next to a good one, and checks the exit code, where FP000
//! points, that the good file's finding is still reported, and that no
//! panic reached the last line of defence ("internal error").

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const GOOD: &str = "apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
fargateProfiles:
  - name: fp-system
    selectors:
      - namespace: kube-system
        labels:
          k8s-app: kube-dns
availabilityZones: [eu-west-1a, eu-west-1b]
";

struct Run {
    code: i32,
    diags: Vec<Value>,
}

impl Run {
    /// The FP000 diagnostics of one file, as (line, column, message).
    fn fp000(&self, file: &str) -> Vec<(u64, u64, String)> {
        self.diags
            .iter()
            .filter(|d| d["code"] == "FP000" && d["file"] == file)
            .map(|d| {
                (
                    d["line"].as_u64().unwrap_or(0),
                    d["column"].as_u64().unwrap_or(0),
                    d["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    fn assert_good_reported(&self) {
        assert!(
            self.diags
                .iter()
                .any(|d| d["code"] == "FP001" && d["file"] == "good.yaml"),
            "the good file's finding is lost: {:#?}",
            self.diags
        );
        for d in &self.diags {
            let m = d["message"].as_str().unwrap_or("");
            assert!(!m.contains("internal error"), "a panic was caught: {m}");
        }
    }

    /// Exactly one FP000 in `file`, at `line` (and `column` when given),
    /// whose message contains `needle`.
    fn assert_fp000(&self, file: &str, line: u64, column: Option<u64>, needle: &str) {
        let found = self.fp000(file);
        assert!(
            found.iter().any(|(l, c, m)| *l == line
                && column.is_none_or(|col| col == *c)
                && m.contains(needle)),
            "expected FP000 `{needle}` at {file}:{line}:{column:?}, got {found:?}"
        );
    }
}

fn tmp() -> tempfile::TempDir {
    match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("tempdir: {e}"),
    }
}

fn write(dir: &Path, name: &str, bytes: impl AsRef<[u8]>) {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    if let Err(e) = std::fs::write(&p, bytes) {
        panic!("write {}: {e}", p.display());
    }
}

fn check(dir: &Path, extra: &[&str]) -> Run {
    check_env(dir, extra, &[])
}

fn check_env(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fplint"));
    cmd.args(["check", "--format", "json"])
        .args(extra)
        .arg(".")
        .current_dir(dir)
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run fplint: {e}"),
    };
    let code = out.status.code().unwrap_or(-1);
    let json: Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => panic!(
            "not JSON ({e}), exit {code}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    };
    let diags = json["diagnostics"].as_array().cloned().unwrap_or_default();
    Run { code, diags }
}

/// A folder with the good file and the given hostile files.
fn case(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let d = tmp();
    write(d.path(), "good.yaml", GOOD);
    for (name, bytes) in files {
        write(d.path(), name, bytes);
    }
    d
}

/// Deterministic noise (xorshift), so a failure can be replayed.
fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn truncated_files() {
    let d = case(&[
        (
            "t.json",
            br#"{"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"P": {"Type": "AWS::EKS::Fargate"#,
        ),
        (
            "t.yaml",
            b"AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties: {Selectors: [{Namespace: a",
        ),
        (
            "t.tf",
            b"resource \"aws_eks_fargate_profile\" \"p\" {\n  cluster_name = \"a",
        ),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    r.assert_fp000("t.json", 1, None, "invalid JSON");
    r.assert_fp000("t.yaml", 5, None, "invalid YAML");
    r.assert_fp000("t.tf", 2, None, "invalid HCL");
    r.assert_good_reported();
}

#[test]
fn random_bytes() {
    let d = case(&[
        ("r.yaml", &noise(1, 4096)),
        ("r.json", &noise(2, 4096)),
        ("r.tf", &noise(3, 4096)),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    // Binary YAML/JSON that does not look like ours is someone else's file.
    assert!(r.fp000("r.yaml").is_empty() && r.fp000("r.json").is_empty());
    // A .tf file is always ours: noise with NUL bytes is binary.
    r.assert_fp000("r.tf", 1, Some(1), "`r.tf` is a binary file, not text");
    r.assert_good_reported();
}

#[test]
fn binary_terraform_is_not_text_and_never_shown() {
    // An ELF header named main.tf: FP000 says binary, and no byte of it is printed.
    let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0\x1b]0;x\x07".to_vec();
    elf.extend(noise(7, 256));
    let d = case(&[("main.tf", &elf)]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    r.assert_fp000(
        "main.tf",
        1,
        Some(1),
        "`main.tf` is a binary file, not text",
    );
    r.assert_good_reported();
    let o = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--no-config", "--color", "never", "main.tf"])
        .current_dir(d.path())
        .output()
        .expect("runs");
    let out = String::from_utf8(o.stdout).expect("the report is UTF-8");
    assert!(out.contains("FP000 parse-error"), "{out}");
    assert!(
        out.contains("`main.tf` is a binary file, not text"),
        "{out}"
    );
    assert!(!out.contains("ELF") && !out.contains('\u{fffd}'), "{out}");
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
}

#[test]
fn random_text() {
    // Printable noise is valid UTF-8: parsed, maybe rejected, never fatal.
    const ALPHABET: &[u8] = b"abc:-[]{}#&*!|>'\"\n  ,?%@`=$";
    let text = |seed| {
        noise(seed, 8192)
            .into_iter()
            .map(|b| ALPHABET[b as usize % ALPHABET.len()])
            .collect::<Vec<u8>>()
    };
    let d = case(&[
        ("n.yaml", &text(4)),
        ("n.json", &text(5)),
        ("n.tf", &text(6)),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert!(r.code == 1 || r.code == 2, "exit {}", r.code);
    r.assert_good_reported();
}

#[test]
fn latin1_text() {
    let d = case(&[(
        "l.yaml",
        b"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: caf\xe9\n",
    )]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    r.assert_fp000("l.yaml", 4, Some(12), "not UTF-8");
    r.assert_good_reported();
}

#[test]
fn deep_nesting() {
    const N: usize = 200_000;
    let yaml = format!(
        "apiVersion: v1\nkind: ConfigMap\ndata: {}{}\n",
        "[".repeat(N),
        "]".repeat(N)
    );
    let json = format!(
        "{{\"AWSTemplateFormatVersion\": \"2010-09-09\", \"Resources\": {}{}}}",
        "[".repeat(N),
        "]".repeat(N)
    );
    let hcl = format!("locals {{\n  x = {}{}\n}}\n", "[".repeat(N), "]".repeat(N));
    let d = case(&[
        ("deep.yaml", yaml.as_bytes()),
        ("deep.json", json.as_bytes()),
        ("deep.tf", hcl.as_bytes()),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    // saphyr's own recursion bound or ours, whichever comes first.
    let yaml = r.fp000("deep.yaml");
    assert!(
        yaml.iter()
            .any(|(l, _, m)| *l == 3 && (m.contains("nesting") || m.contains("recursion"))),
        "{yaml:?}"
    );
    r.assert_fp000("deep.json", 1, None, "nesting deeper than 512 levels");
    r.assert_fp000("deep.tf", 2, None, "nesting depth");
    r.assert_good_reported();
}

#[test]
fn alias_bomb() {
    let mut t = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    t.push_str("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        let p = i - 1;
        t.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{p}"); 10].join(", ")
        ));
    }
    // Many small bombs in one stream are one big bomb.
    let mut many = String::new();
    for _ in 0..200 {
        many.push_str(
            "---\napiVersion: v1\nkind: ConfigMap\nb0: &b0 [x, x, x, x, x, x, x, x, x, x]\n",
        );
        for i in 1..4 {
            let p = i - 1;
            many.push_str(&format!(
                "b{i}: &b{i} [{}]\n",
                vec![format!("*b{p}"); 10].join(", ")
            ));
        }
    }
    let d = case(&[("bomb.yaml", t.as_bytes()), ("many.yaml", many.as_bytes())]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    r.assert_fp000("bomb.yaml", 9, None, "alias expansion exceeds");
    assert!(
        r.fp000("many.yaml")
            .iter()
            .any(|(_, _, m)| m.contains("alias expansion exceeds")),
        "{:?}",
        r.fp000("many.yaml")
    );
    r.assert_good_reported();
}

#[test]
fn duplicate_keys_and_unknown_tags() {
    let d = case(&[
        (
            "dup.yaml",
            b"apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: a\nmetadata:\n  name: b\n",
        ),
        (
            "tags.yaml",
            b"AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  P:\n    Type: AWS::EKS::FargateProfile\n    Properties:\n      ClusterName: !Frobnicate x\n",
        ),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    r.assert_fp000("dup.yaml", 5, Some(1), "duplicate key `metadata`");
    r.assert_fp000("tags.yaml", 6, Some(20), "unknown CloudFormation tag");
    r.assert_good_reported();
}

#[test]
fn empty_and_separator_only_files() {
    let d = case(&[
        ("empty.yaml", b""),
        ("empty.json", b""),
        ("empty.tf", b""),
        ("dashes.yaml", b"---\n"),
        ("dashes3.yaml", b"---\n---\n...\n"),
        ("bom.yaml", b"\xef\xbb\xbf"),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 1, "{:#?}", r.diags);
    assert!(r.diags.iter().all(|d| d["code"] != "FP000"));
    r.assert_good_reported();
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_links_out_of_the_tree() {
    let outside = tmp();
    write(outside.path(), "secret.yaml", GOOD);
    let d = case(&[]);
    let link = |target: &Path, name: &str| {
        if let Err(e) = std::os::unix::fs::symlink(target, d.path().join(name)) {
            panic!("symlink: {e}");
        }
    };
    link(Path::new("."), "self");
    link(Path::new("b"), "a.yaml");
    link(Path::new("a.yaml"), "b");
    link(outside.path(), "out");
    link(&outside.path().join("secret.yaml"), "out.yaml");
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 1, "{:#?}", r.diags);
    assert!(
        r.diags.iter().all(|d| d["file"] == "good.yaml"),
        "read outside the tree or through a loop: {:#?}",
        r.diags
    );
    r.assert_good_reported();
}

#[test]
fn directories_named_like_files() {
    let d = case(&[]);
    for name in ["dir.yaml", "dir.json", "dir.tf"] {
        if let Err(e) = std::fs::create_dir(d.path().join(name)) {
            panic!("mkdir: {e}");
        }
    }
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 1, "{:#?}", r.diags);
    r.assert_good_reported();
}

#[test]
fn hundred_thousand_profiles() {
    let mut t = String::from(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: big, region: eu-west-1}\nfargateProfiles:\n",
    );
    for i in 0..100_000 {
        t.push_str(&format!(
            "- {{name: p{i}, selectors: [{{namespace: n{i}}}]}}\n"
        ));
    }
    let d = case(&[("many.yaml", t.as_bytes())]);
    let r = check(d.path(), &["--no-config", "--select", "FP000,FP001,FP004"]);
    assert_eq!(r.code, 2);
    // The 1001st profile is on line 4 + 1001.
    r.assert_fp000("many.yaml", 1005, None, "over the limit of 1000");
    r.assert_good_reported();
}

#[test]
fn configured_limits_end_in_fp000() {
    let big = format!(
        "apiVersion: v1\nkind: ConfigMap\ndata:\n{}",
        "  k: v\n".repeat(400)
    );
    let d = case(&[
        ("big.yaml", big.as_bytes()),
        (
            "nested.json",
            br#"{"AWSTemplateFormatVersion": "2010-09-09", "Resources": {"A": {"Type": "AWS::S3::Bucket", "Properties": {"T": [[[[[[1]]]]]]}}}}"#,
        ),
        (
            "fplint.toml",
            b"[limits]\nmax-file-size = 1000\nmax-depth = 8\n",
        ),
    ]);
    let r = check(d.path(), &[]);
    assert_eq!(r.code, 2);
    r.assert_fp000("big.yaml", 1, Some(1), "over the limit of 1000 bytes");
    r.assert_fp000("nested.json", 1, None, "nesting deeper than 8 levels");
    r.assert_good_reported();
}

/// `fplint check .` in `dir` exits 2 with `needle` on stderr.
fn assert_usage_error(dir: &Path, needle: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "."])
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output();
    let Ok(out) = out else {
        panic!("cannot run fplint")
    };
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(needle));
}

#[test]
fn bad_limits_config_is_a_usage_error() {
    let d = case(&[("fplint.toml", b"[limits]\nmax-depth = -1\n")]);
    assert_usage_error(d.path(), "between 1 and 1000");
}

#[test]
fn terraform_work_is_bounded() {
    let d = case(&[
        (
            "tf/range.tf",
            b"locals {\n  many = range(1e9)\n}\nresource \"aws_eks_cluster\" \"a\" {\n  name = \"c${length(local.many)}\"\n  role_arn = \"r\"\n}\n",
        ),
        (
            "copies/main.tf",
            b"locals {\n  big = join(\"\", [for i in range(10000) : \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"])\n  copies = [for i in range(10000) : local.big]\n}\nresource \"aws_eks_cluster\" \"a\" {\n  name = \"c${length(local.copies)}\"\n  role_arn = \"r\"\n}\n",
        ),
        (
            "self/main.tf",
            b"module \"again\" {\n  source = \"./\"\n}\n",
        ),
        (
            "escape/main.tf",
            b"locals {\n  x = yamldecode(file(\"../../../../../../etc/passwd\"))\n}\n",
        ),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    r.assert_fp000("tf/range.tf", 2, Some(10), "more than 10000 elements");
    r.assert_fp000("copies/main.tf", 3, None, "evaluation stopped after");
    r.assert_fp000("self/main.tf", 1, Some(1), "nest deeper than 4 levels");
    assert!(r.fp000("escape/main.tf").is_empty());
    r.assert_good_reported();
}

#[test]
fn a_panic_on_one_file_is_reported_and_the_rest_still_linted() {
    if !cfg!(debug_assertions) {
        return;
    }
    let d = case(&[("boom.yaml", b"apiVersion: v1\nkind: ConfigMap\n")]);
    let r = check_env(
        d.path(),
        &["--no-config"],
        &[("FPLINT_DEBUG_PANIC_ON", "boom.yaml")],
    );
    assert_eq!(r.code, 2);
    let found = r.fp000("boom.yaml");
    assert!(
        found
            .iter()
            .any(|(_, _, m)| m.contains("internal error while reading `boom.yaml`")),
        "{found:?}"
    );
    assert!(r
        .diags
        .iter()
        .any(|d| d["code"] == "FP001" && d["file"] == "good.yaml"));
}

#[test]
fn nested_anchors_count_against_the_alias_budget() {
    // Each anchored level keeps a copy of everything below it: 100 levels
    // over 20,000 items would copy 2 million nodes without a single alias.
    let mut t = String::new();
    for i in 0..100 {
        t.push_str(&format!("&a{i} ["));
    }
    t.push_str(&vec!["x"; 20_000].join(", "));
    t.push_str(&"]".repeat(100));
    let parsed = fplint_core::tree::yaml::parse(
        &t,
        fplint_core::FileId(0),
        fplint_core::tree::Limits::default(),
    );
    let err = parsed.error.map(|e| e.message).unwrap_or_default();
    assert!(err.contains("alias expansion exceeds"), "{err}");
}

#[test]
fn merge_keys_of_large_maps_stay_linear() {
    let mut t = String::from("base: &b\n");
    for i in 0..20_000 {
        t.push_str(&format!("  k{i}: v\n"));
    }
    t.push_str("m:\n  <<: *b\n");
    for i in 0..20_000 {
        t.push_str(&format!("  j{i}: v\n"));
    }
    let start = std::time::Instant::now();
    let parsed = fplint_core::tree::yaml::parse(
        &t,
        fplint_core::FileId(0),
        fplint_core::tree::Limits::default(),
    );
    assert!(parsed.error.is_none());
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn huge_wildcard_namespaces_and_string_amplification() {
    let long = "x".repeat(200_000);
    let yaml = format!(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {{name: w, region: eu-west-1}}\nfargateProfiles:\n- name: a\n  selectors: [{{namespace: \"{long}*\"}}]\n- name: b\n  selectors: [{{namespace: \"*{long}\"}}]\n"
    );
    let tf = format!(
        "locals {{\n  s = join(\"\", [for i in range(5000) : \"xxxxxxxxxx\"])\n  r = replace(local.s, \"x\", \"{}\")\n}}\nresource \"aws_eks_cluster\" \"a\" {{\n  name = \"c${{length(local.r)}}\"\n  role_arn = \"r\"\n}}\n",
        "y".repeat(1000)
    );
    let d = case(&[
        ("wide.yaml", yaml.as_bytes()),
        ("amp/main.tf", tf.as_bytes()),
    ]);
    let r = check(d.path(), &["--no-config"]);
    assert!(r.code == 1 || r.code == 2, "exit {}", r.code);
    r.assert_good_reported();
}

/// A gzip member holding `head` then `zeros` zero bytes: `head` in a
/// stored block, the zeros as fixed-Huffman copies of 258 bytes (13 bits
/// each), so a few kilobytes expand to any size, as a bomb does.
fn gzip_bomb(head: &[u8], zeros: usize) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u32,
        n: u32,
    }
    impl Bits {
        fn put(&mut self, v: u32, n: u32) {
            for i in 0..n {
                self.acc |= ((v >> i) & 1) << self.n;
                self.n += 1;
                if self.n == 8 {
                    self.out.push(self.acc as u8);
                    self.acc = 0;
                    self.n = 0;
                }
            }
        }
        // Huffman codes go most significant bit first.
        fn code(&mut self, c: u32, n: u32) {
            for i in (0..n).rev() {
                self.put((c >> i) & 1, 1);
            }
        }
    }
    assert!(head.len() < 65536 && head.last() == Some(&0));
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    // Stored, not final; the header's 3 bits then padding to a byte.
    out.push(0);
    let len = head.len() as u16;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(head);
    let mut b = Bits {
        out: Vec::new(),
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // final
    b.put(1, 2); // fixed Huffman
    for _ in 0..zeros / 258 {
        b.code(0b1100_0101, 8); // length 258
        b.code(0, 5); // distance 1
    }
    for _ in 0..zeros % 258 {
        b.code(0b0011_0000, 8); // literal 0
    }
    b.code(0, 7); // end of block
    b.put(0, 7);
    out.extend(b.out);
    out.extend_from_slice(&[0; 4]); // CRC, not checked
    out.extend_from_slice(&((head.len() + zeros) as u32).to_le_bytes());
    out
}

fn tar_entry(path: &str, data: &[u8]) -> Vec<u8> {
    let mut h = [0u8; 512];
    h[..path.len()].copy_from_slice(path.as_bytes());
    h[100..107].copy_from_slice(b"0000644");
    h[124..135].copy_from_slice(format!("{:011o}", data.len()).as_bytes());
    h[156] = b'0';
    h[257..262].copy_from_slice(b"ustar");
    let mut out = h.to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

const CHART: &str = "apiVersion: v2\nname: NAME\nversion: 0.1.0\n";

#[test]
fn hostile_charts_end_in_fp000_at_their_place() {
    let chart = |name: &str| CHART.replace("NAME", name);
    // A tar of Chart.yaml and the header of a 100 MB values.yaml whose
    // bytes are zeros: 50 kB on disk.
    let mut head = tar_entry("sub/Chart.yaml", chart("sub").as_bytes());
    let values = tar_entry("sub/values.yaml", b"");
    head.extend_from_slice(&values[..124]);
    head.extend_from_slice(format!("{:011o}", 100_000_000).as_bytes());
    head.extend_from_slice(&values[135..]);
    let deep = format!("x: {}1{}\n", "[".repeat(150), "]".repeat(150));
    let d = case(&[
        ("loop/Chart.yaml", chart("loop").as_bytes()),
        (
            "loop/templates/_h.tpl",
            b"{{- define \"loop\" -}}{{ include \"loop\" . }}{{- end -}}\n",
        ),
        (
            "loop/templates/cm.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: {{ include \"loop\" . | quote }}\n",
        ),
        ("tpl/Chart.yaml", chart("tpl").as_bytes()),
        ("tpl/values.yaml", b"x: \"{{ tpl .Values.x . }}\"\n"),
        (
            "tpl/templates/cm.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\ndata:\n  x: {{ tpl .Values.x . | quote }}\n",
        ),
        ("rep/Chart.yaml", chart("rep").as_bytes()),
        (
            "rep/templates/cm.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: {{ repeat 100000000 \"abcdefgh\" | quote }}\n",
        ),
        ("deep/Chart.yaml", chart("deep").as_bytes()),
        ("deep/values.yaml", deep.as_bytes()),
        ("bomb/Chart.yaml", chart("bomb").as_bytes()),
        ("bomb/charts/sub-0.1.0.tgz", &gzip_bomb(&head, 100_000_000)),
    ]);
    let r = check(d.path(), &[]);
    assert_eq!(r.code, 2);
    r.assert_fp000(
        "loop/templates/_h.tpl",
        1,
        Some(25),
        "include, template or tpl nested deeper than 100 levels",
    );
    // Text given to tpl is in no file: the finding is at the tpl call.
    r.assert_fp000(
        "tpl/templates/cm.yaml",
        6,
        Some(9),
        "include, template or tpl nested deeper than 100 levels",
    );
    r.assert_fp000(
        "rep/templates/cm.yaml",
        6,
        Some(9),
        "repeat would make 800000000 bytes, more than 16777216",
    );
    r.assert_fp000(
        "deep/values.yaml",
        1,
        None,
        "chart cannot be read: values nested deeper than 100 levels",
    );
    r.assert_fp000(
        "bomb/Chart.yaml",
        1,
        Some(1),
        "chart cannot be read: charts/sub-0.1.0.tgz: archive expands beyond 67108864 bytes",
    );
    let helps: Vec<&str> = r
        .diags
        .iter()
        .filter(|d| d["code"] == "FP000")
        .filter_map(|d| d["help"].as_str())
        .collect();
    for want in [
        "the render stopped at `[limits] helm-include-depth`",
        "the render stopped at `[limits] helm-string-bytes`",
        "the read stopped at `[limits] helm-values-depth`",
        "the read stopped at `[limits] helm-chart-bytes`",
    ] {
        assert!(helps.contains(&want), "no help `{want}` in {helps:?}");
    }
    assert_eq!(r.fp000("loop/Chart.yaml"), vec![], "one finding per cause");
    r.assert_good_reported();
}

#[test]
fn chart_limits_are_set_in_the_config() {
    let d = case(&[
        ("c/Chart.yaml", CHART.replace("NAME", "c").as_bytes()),
        (
            "c/templates/cm.yaml",
            b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  x: {{ repeat 1000 \"abcdefgh\" | quote }}\n",
        ),
        ("fplint.toml", b"[limits]\nhelm-string-bytes = 4096\n"),
    ]);
    let r = check(d.path(), &[]);
    assert_eq!(r.code, 2);
    r.assert_fp000(
        "c/templates/cm.yaml",
        6,
        Some(9),
        "repeat would make 8000 bytes, more than 4096",
    );
    r.assert_good_reported();
    write(
        d.path(),
        "fplint.toml",
        "[limits]\nhelm-include-depth = 0\n",
    );
    assert_usage_error(d.path(), "between 1 and 1000");
}

/// A file the process may not read is a path the run could not read, not
/// a parse error: no FP000, the path in `errors`, exit 2, and the summary
/// counts it. `FPLINT_DEBUG_UNREADABLE` refuses the read as the file system
/// refuses a file without permission (tests often run as root, who may
/// read anything).
#[test]
fn unreadable_is_not_a_parse_error() {
    let d = case(&[
        ("secret.yaml", GOOD.as_bytes()),
        ("main.tf", b"locals {}\n"),
    ]);
    let env = [("FPLINT_DEBUG_UNREADABLE", "secret.yaml")];
    let r = check_env(d.path(), &["--no-config"], &env);
    assert_eq!(r.code, 2);
    assert!(r.fp000("secret.yaml").is_empty(), "{:#?}", r.diags);
    r.assert_good_reported();
    let json = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--no-config", "--format", "json", "."])
        .env("FPLINT_DEBUG_UNREADABLE", "secret.yaml")
        .current_dir(d.path())
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&json.stdout).expect("JSON");
    assert_eq!(
        v["errors"],
        serde_json::json!(["cannot read `secret.yaml`: Permission denied (os error 13)"])
    );
    // Two unreadable files, one of them Terraform: the summary counts both.
    let human = Command::new(env!("CARGO_BIN_EXE_fplint"))
        .args(["check", "--no-config", "--color", "never", "."])
        .env("FPLINT_DEBUG_UNREADABLE", "secret.yaml,main.tf")
        .current_dir(d.path())
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&human.stdout);
    assert_eq!(human.status.code(), Some(2));
    assert!(!out.contains("parse-error"), "{out}");
    assert!(
        out.contains("error: cannot read `main.tf`: Permission denied (os error 13)\n"),
        "{out}"
    );
    assert!(
        out.contains("fplint could not read 2 paths: the results are incomplete.\n"),
        "{out}"
    );
}

/// The same with the file system's own refusal, where it refuses: a file
/// of mode 000, unless the tests run as root.
#[cfg(unix)]
#[test]
fn a_file_without_permission_is_unreadable() {
    use std::os::unix::fs::PermissionsExt;
    let d = case(&[("secret.yaml", GOOD.as_bytes())]);
    let p = d.path().join("secret.yaml");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&p).is_ok() {
        eprintln!("skipped: this process may read a file of mode 000 (root)");
        return;
    }
    let r = check(d.path(), &["--no-config"]);
    assert_eq!(r.code, 2);
    assert!(r.fp000("secret.yaml").is_empty(), "{:#?}", r.diags);
    r.assert_good_reported();
}
