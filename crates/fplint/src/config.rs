//! `fplint.toml` / `.fplint.toml`: found in the linted folder or its
//! ancestors (closest wins). Unknown keys and bad values are errors that point
//! at the key.

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The names a configuration file can have, in the order they are looked for.
pub const FILE_NAMES: &[&str] = &["fplint.toml", ".fplint.toml"];

/// `fplint.toml` as written, with the byte range of every value for errors.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawConfig {
    /// `select = [...]`: rule code prefixes to run.
    pub select: Option<Spanned<Vec<Spanned<String>>>>,
    /// `ignore = [...]`: rule code prefixes not to run.
    pub ignore: Option<Spanned<Vec<Spanned<String>>>>,
    /// `fail-on`: the lowest severity that fails the run.
    pub fail_on: Option<Spanned<String>>,
    /// `exclude = [...]`: globs of paths not to walk.
    pub exclude: Option<Vec<Spanned<String>>>,
    /// `[severity]`: a severity per rule code.
    pub severity: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    /// `[quotas]`: raised AWS quotas.
    pub quotas: Option<RawQuotas>,
    /// `[[per-file-ignores]]`.
    pub per_file_ignores: Option<Vec<RawPerFileIgnore>>,
    /// `[clusters.NAME]`.
    pub clusters: Option<BTreeMap<String, RawCluster>>,
    /// `[limits]`.
    pub limits: Option<RawLimits>,
    /// `[tools]`: versions of the tools that deploy the code.
    pub tools: Option<RawTools>,
    /// `baseline = "FILE"`: the findings accepted for now.
    pub baseline: Option<Spanned<String>>,
}

/// `[tools]`: the versions of the tools that deploy the linted files.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawTools {
    /// `eksctl-version`.
    pub eksctl_version: Option<Spanned<String>>,
    /// `karpenter-version`.
    pub karpenter_version: Option<Spanned<String>>,
}

/// `[limits]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawLimits {
    /// `max-file-size`, bytes.
    pub max_file_size: Option<Spanned<i64>>,
    /// `max-depth`: nesting of YAML/JSON documents.
    pub max_depth: Option<Spanned<i64>>,
    /// `max-alias-nodes`: nodes YAML aliases may expand to.
    pub max_alias_nodes: Option<Spanned<i64>>,
    /// `terraform-eval-steps`: evaluation steps per Terraform module.
    pub terraform_eval_steps: Option<Spanned<i64>>,
    /// `terraform-max-collection`: items in one evaluated Terraform collection.
    pub terraform_max_collection: Option<Spanned<i64>>,
    /// `terraform-module-depth`: nesting of local Terraform modules.
    pub terraform_module_depth: Option<Spanned<i64>>,
    /// `max-list-items`: profiles, selectors or labels checked in one list.
    pub max_list_items: Option<Spanned<i64>>,
    /// `helm-include-depth`: `include`/`template`/`tpl` nesting in a chart render.
    pub helm_include_depth: Option<Spanned<i64>>,
    /// `helm-steps`: evaluation steps of one chart render.
    pub helm_steps: Option<Spanned<i64>>,
    /// `helm-output-bytes`: bytes one chart render may write.
    pub helm_output_bytes: Option<Spanned<i64>>,
    /// `helm-string-bytes`: largest string a chart function may build.
    pub helm_string_bytes: Option<Spanned<i64>>,
    /// `helm-list-items`: largest list `until`/`untilStep`/`seq` may build.
    pub helm_list_items: Option<Spanned<i64>>,
    /// `helm-values-depth`: nesting of chart values.
    pub helm_values_depth: Option<Spanned<i64>>,
    /// `helm-values-nodes`: YAML nodes of one chart values file.
    pub helm_values_nodes: Option<Spanned<i64>>,
    /// `helm-chart-bytes`: bytes of a chart after decompression.
    pub helm_chart_bytes: Option<Spanned<i64>>,
    /// `helm-chart-files`: files in a chart archive.
    pub helm_chart_files: Option<Spanned<i64>>,
    /// `helm-subchart-depth`: subcharts within subcharts.
    pub helm_subchart_depth: Option<Spanned<i64>>,
}

/// `[limits]`: each set value overrides the built-in bound.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigLimits {
    /// Largest file read, in bytes.
    pub max_file_size: Option<u64>,
    /// Deepest YAML/JSON nesting parsed.
    pub max_depth: Option<usize>,
    /// Most nodes YAML aliases may expand to.
    pub max_alias_nodes: Option<usize>,
    /// Most evaluation steps per Terraform module.
    pub terraform_eval_steps: Option<u64>,
    /// Most items in one evaluated Terraform collection.
    pub terraform_max_collection: Option<usize>,
    /// Deepest nesting of local Terraform modules.
    pub terraform_module_depth: Option<usize>,
    /// Most profiles, selectors or labels checked in one list.
    pub max_list_items: Option<usize>,
    /// `include`/`template`/`tpl` nesting in a chart render.
    pub helm_include_depth: Option<usize>,
    /// Evaluation steps of one chart render.
    pub helm_steps: Option<u64>,
    /// Bytes one chart render may write.
    pub helm_output_bytes: Option<usize>,
    /// Largest string a chart function may build.
    pub helm_string_bytes: Option<usize>,
    /// Largest list `until`/`untilStep`/`seq` may build.
    pub helm_list_items: Option<usize>,
    /// Nesting of chart values.
    pub helm_values_depth: Option<usize>,
    /// YAML nodes of one chart values file.
    pub helm_values_nodes: Option<usize>,
    /// Bytes of a chart after decompression.
    pub helm_chart_bytes: Option<usize>,
    /// Files in a chart archive.
    pub helm_chart_files: Option<usize>,
    /// Subcharts within subcharts.
    pub helm_subchart_depth: Option<usize>,
}

impl ConfigLimits {
    /// `l` with every bound set here in its place.
    pub fn apply(&self, mut l: fplint_core::tree::Limits) -> fplint_core::tree::Limits {
        if let Some(v) = self.max_depth {
            l.max_depth = v;
        }
        if let Some(v) = self.max_alias_nodes {
            l.max_alias_nodes = v;
        }
        if let Some(v) = self.terraform_eval_steps {
            l.max_eval_steps = v;
        }
        if let Some(v) = self.terraform_max_collection {
            l.max_collection = v;
        }
        if let Some(v) = self.terraform_module_depth {
            l.max_module_depth = v;
        }
        if let Some(v) = self.max_list_items {
            l.max_list_items = v;
        }
        if let Some(v) = self.helm_include_depth {
            l.helm.max_include_depth = v;
        }
        if let Some(v) = self.helm_steps {
            l.helm.max_steps = v;
        }
        if let Some(v) = self.helm_output_bytes {
            l.helm.max_output_bytes = v;
        }
        if let Some(v) = self.helm_string_bytes {
            l.helm.max_string_bytes = v;
        }
        if let Some(v) = self.helm_list_items {
            l.helm.max_list_items = v;
        }
        if let Some(v) = self.helm_values_depth {
            l.helm.max_values_depth = v;
        }
        if let Some(v) = self.helm_values_nodes {
            l.helm.max_values_nodes = v;
        }
        if let Some(v) = self.helm_chart_bytes {
            l.helm.max_chart_bytes = v;
        }
        if let Some(v) = self.helm_chart_files {
            l.helm.max_chart_files = v;
        }
        if let Some(v) = self.helm_subchart_depth {
            l.helm.max_subchart_depth = v;
        }
        l
    }
}

/// `[quotas]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawQuotas {
    /// `profiles-per-cluster`.
    pub profiles_per_cluster: Option<Spanned<i64>>,
    /// `selectors-per-profile`.
    pub selectors_per_profile: Option<Spanned<i64>>,
    /// `labels-per-selector`.
    pub labels_per_selector: Option<Spanned<i64>>,
}

/// One `[[per-file-ignores]]` entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawPerFileIgnore {
    /// The glob of paths it applies to.
    pub path: Spanned<String>,
    /// The rule code prefixes silenced there.
    pub ignore: Vec<Spanned<String>>,
}

/// One `[clusters.NAME]` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawCluster {
    /// `ec2-capacity`: whether the cluster has nodes besides Fargate.
    pub ec2_capacity: Option<bool>,
    /// `paths`: globs of manifests that run on this cluster.
    pub paths: Option<Vec<Spanned<String>>>,
}

/// A config error with the byte range of the offending key or value.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    /// The configuration file.
    pub path: PathBuf,
    /// Its text, to show the offending line; empty if it could not be read.
    pub text: String,
    /// What is wrong.
    pub message: String,
    /// The byte range of the offending key or value, when known.
    pub span: Option<std::ops::Range<usize>>,
}

/// Rule codes silenced for the paths a glob matches.
#[derive(Debug, Clone)]
pub struct PerFileIgnore {
    /// The paths, relative to the configuration's folder.
    pub glob: GlobSet,
    /// Rule code prefixes.
    pub codes: Vec<String>,
}

/// What the configuration says of one cluster, by name.
#[derive(Debug, Clone, Default)]
pub struct ClusterOverride {
    /// `Some` overrides what the code says of the cluster's EC2 capacity.
    pub ec2_capacity: Option<bool>,
    /// Globs of manifests that run on this cluster.
    pub paths: Vec<String>,
}

/// The validated configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it came from; globs are relative to its folder.
    pub file: Option<PathBuf>,
    /// Rule code prefixes to run; all when `None`.
    pub select: Option<Vec<String>>,
    /// Rule code prefixes not to run.
    pub ignore: Vec<String>,
    /// The lowest severity that fails the run (default: warning).
    pub fail_on: Option<fplint_core::Severity>,
    /// `fail-on = "never"`: findings never fail the run.
    pub fail_never: bool,
    /// Paths not walked.
    pub exclude: Option<GlobSet>,
    /// Severities that replace the rules' defaults, by code.
    pub severity: BTreeMap<String, fplint_core::Severity>,
    /// The AWS quotas FP004 checks against.
    pub quotas: fplint_rules::Quotas,
    /// `[[per-file-ignores]]`, in file order.
    pub per_file_ignores: Vec<PerFileIgnore>,
    /// `[clusters.NAME]`, by name.
    pub clusters: BTreeMap<String, ClusterOverride>,
    /// `[limits]`.
    pub limits: ConfigLimits,
    /// `[tools]`: the versions rules take as known.
    pub tools: fplint_rules::Tools,
    /// `baseline`: the baseline file, relative to the config file's folder
    /// as written; `--baseline` on the command line wins.
    pub baseline: Option<PathBuf>,
}

impl Config {
    /// The folder of the configuration file, canonical: where relative globs
    /// start. `None` for the default configuration.
    pub fn base_dir(&self) -> Option<PathBuf> {
        let f = self.file.as_ref()?;
        let dir = f.parent().unwrap_or(Path::new("."));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        Some(dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()))
    }
}

/// The closest config file at or above `start`.
pub fn discover(start: &Path) -> Option<PathBuf> {
    let start = start.canonicalize().ok()?;
    let mut dir = if start.is_file() {
        start.parent()?.to_path_buf()
    } else {
        start
    };
    loop {
        for name in FILE_NAMES {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
        if !dir.pop() {
            return None;
        }
    }
}

/// A selector such as `FP0`, `FP001` or `coredns-selector-labels` names
/// some rule (see [`crate::select`]).
pub fn is_known_selector(s: &str) -> bool {
    crate::select::selector(s).is_ok()
}

/// Read and validate a configuration file.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        text: String::new(),
        message: format!("cannot read config file {}: {e}", path.display()),
        span: None,
    })?;
    parse(path, &text)
}

/// Validate a configuration file's text; `path` is for errors.
pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let err = |message: String, span: Option<std::ops::Range<usize>>| ConfigError {
        path: path.to_path_buf(),
        text: text.to_string(),
        message,
        span,
    };
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let msg = e.message().trim().to_string();
        err(msg, e.span())
    })?;
    let codes = |list: &[Spanned<String>]| -> Result<Vec<String>, ConfigError> {
        list.iter()
            .map(|c| {
                crate::select::selector(c.get_ref()).map_err(|e| err(e.to_string(), Some(c.span())))
            })
            .collect()
    };
    let severity_of = |s: &Spanned<String>| {
        fplint_core::Severity::parse(s.get_ref()).ok_or_else(|| {
            err(
                format!(
                    "unknown severity `{}`: expected error, warning or info",
                    s.get_ref()
                ),
                Some(s.span()),
            )
        })
    };
    let glob = |g: &Spanned<String>| -> Result<Glob, ConfigError> {
        Glob::new(g.get_ref()).map_err(|e| err(format!("bad glob: {e}"), Some(g.span())))
    };
    let mut cfg = Config {
        file: Some(path.to_path_buf()),
        ..Config::default()
    };
    if let Some(sel) = &raw.select {
        cfg.select = Some(codes(sel.get_ref())?);
    }
    if let Some(ign) = &raw.ignore {
        cfg.ignore = codes(ign.get_ref())?;
    }
    if let Some(b) = &raw.baseline {
        if b.get_ref().trim().is_empty() {
            return Err(err("`baseline` names no file".into(), Some(b.span())));
        }
        let dir = path.parent().unwrap_or(Path::new(""));
        cfg.baseline = Some(dir.join(b.get_ref()));
    }
    if let Some(f) = &raw.fail_on {
        match f.get_ref().as_str() {
            "never" => cfg.fail_never = true,
            _ => {
                cfg.fail_on = Some(fplint_core::Severity::parse(f.get_ref()).ok_or_else(|| {
                    err(
                        format!(
                            "unknown severity `{}`: expected error, warning, info or never",
                            f.get_ref()
                        ),
                        Some(f.span()),
                    )
                })?)
            }
        }
    }
    if let Some(ex) = &raw.exclude {
        let mut b = GlobSetBuilder::new();
        for g in ex {
            b.add(glob(g)?);
        }
        cfg.exclude = Some(b.build().map_err(|e| err(format!("bad glob: {e}"), None))?);
    }
    if let Some(sev) = &raw.severity {
        for (code, level) in sev {
            let rule = crate::select::rule(code.get_ref())
                .map_err(|e| err(e.to_string(), Some(code.span())))?;
            cfg.severity
                .insert(rule.code.to_string(), severity_of(level)?);
        }
    }
    if let Some(q) = &raw.quotas {
        let positive = |v: &Option<Spanned<i64>>, default: usize| -> Result<usize, ConfigError> {
            match v {
                None => Ok(default),
                Some(n) if *n.get_ref() >= 1 => usize::try_from(*n.get_ref())
                    .map_err(|_| err("quota out of range".into(), Some(n.span()))),
                Some(n) => Err(err("a quota must be at least 1".into(), Some(n.span()))),
            }
        };
        let d = fplint_rules::Quotas::default();
        cfg.quotas = fplint_rules::Quotas {
            profiles_per_cluster: positive(&q.profiles_per_cluster, d.profiles_per_cluster)?,
            selectors_per_profile: positive(&q.selectors_per_profile, d.selectors_per_profile)?,
            labels_per_selector: positive(&q.labels_per_selector, d.labels_per_selector)?,
        };
    }
    for pfi in raw.per_file_ignores.iter().flatten() {
        let mut b = GlobSetBuilder::new();
        b.add(glob(&pfi.path)?);
        cfg.per_file_ignores.push(PerFileIgnore {
            glob: b
                .build()
                .map_err(|e| err(format!("bad glob: {e}"), Some(pfi.path.span())))?,
            codes: codes(&pfi.ignore)?,
        });
    }
    if let Some(l) = &raw.limits {
        // Each bound has a floor: a limit of 0 would reject every file, and
        // the stack-bound ones have a ceiling that the stacks are sized for.
        let bounded =
            |v: &Option<Spanned<i64>>, min: i64, max: i64| -> Result<Option<u64>, ConfigError> {
                match v {
                    None => Ok(None),
                    Some(n) if (min..=max).contains(n.get_ref()) => {
                        Ok(u64::try_from(*n.get_ref()).ok())
                    }
                    Some(n) => Err(err(
                        format!("a limit here must be between {min} and {max}"),
                        Some(n.span()),
                    )),
                }
            };
        let size = |v: Option<u64>| v.and_then(|v| usize::try_from(v).ok());
        cfg.limits = ConfigLimits {
            max_file_size: bounded(&l.max_file_size, 1, i64::MAX)?,
            max_depth: size(bounded(&l.max_depth, 1, 1_000)?),
            max_alias_nodes: size(bounded(&l.max_alias_nodes, 0, i64::MAX)?),
            terraform_eval_steps: bounded(&l.terraform_eval_steps, 1, i64::MAX)?,
            terraform_max_collection: size(bounded(&l.terraform_max_collection, 1, i64::MAX)?),
            terraform_module_depth: size(bounded(&l.terraform_module_depth, 0, 64)?),
            max_list_items: size(bounded(&l.max_list_items, 1, i64::MAX)?),
            helm_include_depth: size(bounded(&l.helm_include_depth, 1, 1000)?),
            helm_steps: bounded(&l.helm_steps, 1, i64::MAX)?,
            helm_output_bytes: size(bounded(&l.helm_output_bytes, 1, i64::MAX)?),
            helm_string_bytes: size(bounded(&l.helm_string_bytes, 1, i64::MAX)?),
            helm_list_items: size(bounded(&l.helm_list_items, 1, i64::MAX)?),
            helm_values_depth: size(bounded(&l.helm_values_depth, 1, 1000)?),
            helm_values_nodes: size(bounded(&l.helm_values_nodes, 1, i64::MAX)?),
            helm_chart_bytes: size(bounded(&l.helm_chart_bytes, 1, i64::MAX)?),
            helm_chart_files: size(bounded(&l.helm_chart_files, 1, i64::MAX)?),
            helm_subchart_depth: size(bounded(&l.helm_subchart_depth, 0, 64)?),
        };
    }
    if let Some(t) = &raw.tools {
        // A version is `1.4.2`, `v0.208.0` or `1.5`: anything else would
        // silently turn a version-dependent rule off.
        let version = |v: &Option<Spanned<String>>| -> Result<Option<String>, ConfigError> {
            match v {
                None => Ok(None),
                Some(s) if fplint_rules::common::parse_version(s.get_ref()).is_some() => {
                    Ok(Some(s.get_ref().trim().to_string()))
                }
                Some(s) => Err(err(
                    format!(
                        "`{}` is not a version: expected MAJOR.MINOR[.PATCH]",
                        s.get_ref()
                    ),
                    Some(s.span()),
                )),
            }
        };
        cfg.tools = fplint_rules::Tools {
            eksctl_version: version(&t.eksctl_version)?,
            karpenter_version: version(&t.karpenter_version)?,
        };
    }
    for (name, c) in raw.clusters.iter().flatten() {
        let mut paths = Vec::new();
        for p in c.paths.iter().flatten() {
            glob(p)?;
            paths.push(p.get_ref().clone());
        }
        cfg.clusters.insert(
            name.clone(),
            ClusterOverride {
                ec2_capacity: c.ec2_capacity,
                paths,
            },
        );
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_on_never_and_unknown_levels() {
        let c = parse(Path::new("fplint.toml"), "fail-on = \"never\"\n").unwrap();
        assert!(c.fail_never);
        assert_eq!(c.fail_on, None);
        let e = parse(Path::new("fplint.toml"), "fail-on = \"loud\"\n").unwrap_err();
        assert!(
            e.to_string()
                .contains("unknown severity `loud`: expected error, warning, info or never"),
            "{e}"
        );
    }

    #[test]
    fn full_config_parses() {
        let text = r#"
select = ["FP"]
ignore = ["FP004"]
fail-on = "error"
exclude = ["legacy/**"]
[severity]
FP004 = "warning"
[quotas]
profiles-per-cluster = 20
[[per-file-ignores]]
path = "old/**"
ignore = ["FP001"]
[clusters.shop]
ec2-capacity = true
[tools]
eksctl-version = "0.207.0"
karpenter-version = "v1.4.2"
"#;
        let c = parse(Path::new("fplint.toml"), text).unwrap();
        assert_eq!(c.quotas.profiles_per_cluster, 20);
        assert_eq!(c.quotas.selectors_per_profile, 5);
        assert_eq!(c.fail_on, Some(fplint_core::Severity::Error));
        assert!(!c.fail_never);
        assert_eq!(c.clusters["shop"].ec2_capacity, Some(true));
        assert_eq!(c.tools.eksctl_version.as_deref(), Some("0.207.0"));
        assert_eq!(c.tools.karpenter_version.as_deref(), Some("v1.4.2"));
    }

    #[test]
    fn tool_versions_are_checked() {
        let text = "[tools]\nkarpenter-version = \"latest\"\n";
        let e = parse(Path::new("fplint.toml"), text).unwrap_err();
        assert_eq!(&text[e.span.unwrap()], "\"latest\"");
        let text = "[tools]\nhelm-version = \"3.0.0\"\n";
        let e = parse(Path::new("fplint.toml"), text).unwrap_err();
        assert_eq!(&text[e.span.unwrap()], "helm-version");
    }

    #[test]
    fn unknown_key_points_at_it() {
        let text = "select = [\"FP\"]\nfial-on = \"error\"\n";
        let e = parse(Path::new("fplint.toml"), text).unwrap_err();
        assert!(
            e.message.contains("unknown field `fial-on`"),
            "{}",
            e.message
        );
        assert_eq!(&text[e.span.unwrap()], "fial-on");
    }

    #[test]
    fn limits_parse_and_validate() {
        let text = "[limits]\nmax-file-size = 1000\nmax-depth = 64\nterraform-eval-steps = 5000\n";
        let c = parse(Path::new("fplint.toml"), text).unwrap();
        assert_eq!(c.limits.max_file_size, Some(1000));
        let l = c.limits.apply(fplint_core::tree::Limits::default());
        assert_eq!(l.max_depth, 64);
        assert_eq!(l.max_eval_steps, 5000);
        assert_eq!(l.max_alias_nodes, 1_000_000);
        let text = "[limits]\nmax-depth = 0\n";
        let e = parse(Path::new("fplint.toml"), text).unwrap_err();
        assert_eq!(&text[e.span.unwrap()], "0");
        let text = "[limits]\nmax-size = 1\n";
        let e = parse(Path::new("fplint.toml"), text).unwrap_err();
        assert_eq!(&text[e.span.unwrap()], "max-size");
    }

    #[test]
    fn bad_values_point_at_them() {
        let text = "[severity]\nFP001 = \"fatal\"\n";
        let e = parse(Path::new("fplint.toml"), text).unwrap_err();
        assert_eq!(&text[e.span.unwrap()], "\"fatal\"");
        let text = "ignore = [\"XX1\"]\n";
        let e = parse(Path::new("fplint.toml"), text).unwrap_err();
        assert!(e.message.contains("XX1"));
    }
}
