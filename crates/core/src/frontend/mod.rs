//! Format frontends: each reads its files into the cluster model and knows
//! nothing of rules.

pub mod appset;
pub mod argocd;
pub mod chart;
pub mod cloudformation;
pub mod eksctl;
pub mod flux;
pub mod helmfile;
pub mod kubernetes;
pub mod kustomize;
pub mod near_miss;
pub mod program;
pub mod script;
pub mod shared;
pub mod terraform;
pub mod terragrunt;

use crate::diagnostic::Diagnostic;
use crate::model::{Cluster, DependencyGraph, Project};
use crate::source::{SourceFile, Span};
use crate::tree::{self, Limits, Node, Parsed};
use crate::value::Value;

/// An object that declares what a controller in the cluster applies, and
/// the frontend that reads it: one row per kind of declaration.
struct Declaration {
    recognise: fn(api: &str, kind: &str) -> bool,
    load: fn(&SourceFile, &Value, &str, &mut UnitOutput),
}

const DECLARATIONS: [Declaration; 4] = [
    Declaration {
        recognise: argocd::recognise,
        load: argocd::load,
    },
    Declaration {
        recognise: appset::recognise,
        load: appset::load,
    },
    Declaration {
        recognise: flux::recognise,
        load: flux::load,
    },
    Declaration {
        recognise: flux::recognise_kustomization,
        load: flux::load_kustomization,
    },
];

/// Whether an object with this `apiVersion` and `kind` is a declaration
/// [`load_declaration`] reads.
pub(crate) fn declares(api: &str, kind: &str) -> bool {
    DECLARATIONS.iter().any(|d| (d.recognise)(api, kind))
}

/// Read a declaration of what a controller in the cluster applies (an Argo
/// CD `Application` or `ApplicationSet`, a Flux `HelmRelease` or
/// `Kustomization`); `false` for any other object.
pub fn load_declaration(file: &SourceFile, value: &Value, out: &mut UnitOutput) -> bool {
    let text = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
    let (api, kind) = (text("apiVersion"), text("kind"));
    match DECLARATIONS.iter().find(|d| (d.recognise)(api, kind)) {
        Some(d) => {
            (d.load)(file, value, "", out);
            true
        }
        None => false,
    }
}

/// The kinds of input fplint recognises.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// eksctl `ClusterConfig`.
    Eksctl,
    /// AWS CloudFormation.
    CloudFormation,
    /// Terraform.
    Terraform,
    /// Kubernetes manifests.
    Kubernetes,
    /// An infrastructure program (a CDK app) read as source.
    Program,
}

impl Format {
    /// The name used in the JSON output and docs.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Eksctl => "eksctl",
            Format::CloudFormation => "cloudformation",
            Format::Terraform => "terraform",
            Format::Kubernetes => "kubernetes",
            Format::Program => "program",
        }
    }
}

/// What one unit (a file, or a Terraform module folder) contributes.
#[derive(Clone, Debug, Default)]
pub struct UnitOutput {
    /// Clusters defined or referenced.
    pub clusters: Vec<Cluster>,
    /// The unit's dependency graph; its [`crate::model::ResourceRef`]s use graph 0
    /// until [`absorb`] places the graph in the project.
    pub graph: Option<DependencyGraph>,
    /// Parse errors and other findings of the frontend.
    pub diagnostics: Vec<Diagnostic>,
    /// The formats recognised.
    pub formats: Vec<Format>,
    /// Workloads.
    pub workloads: Vec<crate::workload::Workload>,
    /// `aws-auth` ConfigMaps.
    pub aws_auth: Vec<crate::workload::AwsAuth>,
    /// EKS Pod Identity associations.
    pub pod_identities: Vec<crate::workload::PodIdentityAssociation>,
    pub karpenter: crate::workload::KarpenterObjects,
    /// Suppressions declared in the data itself (CloudFormation `Metadata`).
    pub suppressions: Vec<Suppression>,
    /// See [`Project::given_files`]: the unit's named files and the files it
    /// read only for context.
    pub given_files: Vec<crate::source::FileId>,
    /// Files read only for context.
    pub context_files: Vec<crate::source::FileId>,
    pub module_calls: Vec<crate::model::ModuleCall>,
    /// Keys and values outside the format's schema.
    pub schema: Vec<crate::schema::SchemaFinding>,
    /// See [`Project::terraform_blocks`].
    pub terraform_blocks: Vec<crate::model::TerraformBlock>,
    pub planned: Vec<crate::model::PlannedResource>,
    /// See [`Project::stray_addons`].
    pub stray_addons: bool,
    /// See [`Project::stray_capacity`].
    pub stray_capacity: Vec<crate::model::StrayCapacity>,
    /// Helm releases declared outside a cluster's unit; see [`Project::releases`].
    pub releases: Vec<crate::model::HelmRelease>,
    /// Folders of manifests a controller applies; see [`Project::directory_sources`].
    pub directory_sources: Vec<crate::model::DirectorySource>,
    /// Set when the file was a shell script with a YAML name.
    pub script: Option<script::ScriptNote>,
}

/// Codes silenced for a part of a file (`scope`) or all of it (`None`).
#[derive(Debug, Clone)]
pub struct Suppression {
    /// The file.
    pub file: crate::source::FileId,
    /// The part of it; the whole file when `None`.
    pub scope: Option<Span>,
    /// The codes silenced, each with where it is written.
    pub codes: Vec<(String, Span)>,
}

impl crate::compact::Compact for UnitOutput {
    /// Give back the spare capacity the unit's model was built with; done
    /// where the unit was modelled, in parallel, before it is absorbed.
    fn compact(&mut self) {
        self.clusters.compact();
        self.workloads.compact();
        self.aws_auth.compact();
        self.pod_identities.compact();
        self.karpenter.compact();
        self.graph.compact();
    }
}

/// Point every graph reference of a unit's clusters and workloads at the
/// project's graph `index`, where its own graph goes.
pub fn renumber_graph(unit: &mut UnitOutput, index: u32) {
    for c in &mut unit.clusters {
        let refs = c
            .fargate_profiles
            .iter_mut()
            .filter_map(|p| p.resource.as_mut())
            .chain(c.addons.iter_mut().filter_map(|a| a.resource.as_mut()))
            .chain(
                c.helm_releases
                    .iter_mut()
                    .filter_map(|h| h.resource.as_mut()),
            );
        for r in refs {
            r.graph = index;
        }
    }
    for w in &mut unit.workloads {
        if let Some(r) = w.resource.as_mut() {
            r.graph = index;
        }
    }
}

/// Move a unit into the project, renumbering its graph references.
pub fn absorb(project: &mut Project, mut unit: UnitOutput) -> Vec<Diagnostic> {
    if let Some(graph) = unit.graph.take() {
        let index = project.add_graph(graph);
        renumber_graph(&mut unit, index);
    }
    project
        .clusters
        .extend(unit.clusters.drain(..).map(Box::new));
    project
        .workloads
        .extend(unit.workloads.drain(..).map(Box::new));
    project.aws_auth.append(&mut unit.aws_auth);
    project.pod_identities.append(&mut unit.pod_identities);
    project.karpenter.append(&mut unit.karpenter);
    project.given_files.append(&mut unit.given_files);
    project.context_files.append(&mut unit.context_files);
    project.module_calls.append(&mut unit.module_calls);
    project.schema_findings.append(&mut unit.schema);
    project.terraform_blocks.append(&mut unit.terraform_blocks);
    project.planned.append(&mut unit.planned);
    project.stray_addons |= unit.stray_addons;
    project.stray_capacity.append(&mut unit.stray_capacity);
    project.releases.append(&mut unit.releases);
    project
        .directory_sources
        .append(&mut unit.directory_sources);
    unit.diagnostics
}

/// The first 64 KiB of a text, cut at a character boundary.
fn head(text: &str) -> &str {
    let mut end = text.len().min(64 * 1024);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Whether a file's text looks like one fplint reads, so that a file that
/// fails to parse is reported (FP000) rather than skipped as someone else's.
pub fn looks_recognised(text: &str) -> bool {
    let head = head(text);
    // Helm chart templates and Jinja files are not valid until rendered.
    // (CloudFormation's own `{{resolve:...}}` references are not templating.)
    if head.replace("{{resolve:", "").contains("{{") || head.contains("{%") {
        return false;
    }
    head.contains("eksctl.io/v1alpha5")
        || head.contains("AWSTemplateFormatVersion")
        || (head.contains("Resources") && head.contains("AWS::"))
        || (head.contains("apiVersion") && head.contains("kind"))
}

/// Whether text that does not parse is a Terraform template: it has a
/// `%{ for }`/`%{ if }` directive, or `${...}` interpolations outside
/// CloudFormation (whose `!Sub` strings use `${...}` too).
pub fn terraform_template(text: &str) -> bool {
    let head = head(text);
    let directive = head.match_indices("%{").any(|(i, _)| {
        let rest = head[i + 2..].trim_start_matches('~').trim_start();
        ["for ", "if ", "else", "endfor", "endif"]
            .iter()
            .any(|k| rest.starts_with(k))
    });
    let cloudformation = head.contains("AWSTemplateFormatVersion") || head.contains("AWS::");
    directive || (!cloudformation && head.contains("${"))
}

/// Read a YAML or JSON file and hand each recognised document to its frontend.
pub fn load_document_file(file: &SourceFile, limits: Limits) -> UnitOutput {
    let json = file.path.ends_with(".json");
    // A shell script named `.yaml` is never broken YAML.
    if !json {
        if let Some(out) = script::load(file, limits) {
            return out;
        }
    }
    let parsed = if json {
        tree::json::parse(&file.text, file.id, limits)
    } else {
        tree::yaml::parse(&file.text, file.id, limits)
    };
    // `terraform show -json` of a plan.
    if let (true, None, [doc]) = (json, &parsed.error, parsed.documents.as_slice()) {
        if terraform::is_plan(doc) {
            return terraform::load_plan(file, doc, limits);
        }
    }
    load_parsed(file, parsed)
}

fn load_parsed(file: &SourceFile, mut parsed: Parsed) -> UnitOutput {
    let mut out = UnitOutput::default();
    if helmfile::is_helmfile(&file.path) {
        helmfile::load(file, &parsed, &mut out);
        return out;
    }
    // Terraform renders it (`templatefile()`); nobody applies it as written.
    if parsed.error.is_some() && terraform_template(&file.text) {
        return out;
    }
    let mut recognised = false;
    for doc in &mut parsed.documents {
        if let Some(format) = recognise(doc) {
            recognised = true;
            out.formats.push(format);
            match format {
                Format::Eksctl => eksctl::load(file, doc, &mut out),
                Format::CloudFormation => {
                    // Read from the template as written, before its short
                    // forms are rewritten in place.
                    let ignores = cloudformation::metadata_ignores(doc);
                    cloudformation::load_mut(file, doc, &mut out);
                    out.suppressions
                        .extend(ignores.into_iter().map(|m| Suppression {
                            file: file.id,
                            scope: m.scope,
                            codes: m.codes,
                        }));
                }
                Format::Kubernetes => kubernetes::load(file, doc, &mut out),
                Format::Terraform | Format::Program => {}
            }
        }
    }
    if let Some(err) = parsed.error {
        if recognised || looks_recognised(&file.text) {
            let help = parse_help(
                &err.message,
                "fix the syntax error; fplint checks the rest of the file once it parses",
            );
            out.diagnostics.push(
                Diagnostic::parse_error(err.message, err.span)
                    .with_label("here")
                    .with_help(help),
            );
        }
    }
    if recognised {
        // The same value written twice is untidy but unambiguous.
        for d in parsed.duplicates.into_iter().filter(|d| !d.same_value) {
            out.diagnostics
                .push(duplicate_key(&d.key, d.second, d.first));
        }
    }
    out
}

/// The help of a parse error: a limit fplint sets against hostile input
/// (its message names `limits.KEY`) is raised in the configuration, not
/// fixed in the file; any other error gets `syntax`.
pub fn parse_help(message: &str, syntax: &str) -> String {
    match limit_key(message) {
        Some(key) => format!(
            "the file is over fplint's `{key}` limit, which guards against hostile input; if the file is genuine, raise `{key}` in the `[limits]` table of fplint.toml"
        ),
        None => syntax.to_string(),
    }
}

/// The `[limits]` key a message names as `(limits.KEY`.
pub fn limit_key(message: &str) -> Option<&str> {
    let at = message.find("(limits.")? + "(limits.".len();
    let rest = &message[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

fn duplicate_key(key: &str, second: Span, first: Span) -> Diagnostic {
    Diagnostic::parse_error(format!("duplicate key `{key}`"), second)
        .with_label("defined again here")
        .with_related(first, "first defined here")
        .with_help("remove one of the two entries; tools disagree on which one wins")
}

/// Which format a document is, if any.
pub fn recognise(doc: &Node) -> Option<Format> {
    if eksctl::recognise(doc) {
        return Some(Format::Eksctl);
    }
    if cloudformation::recognise(doc) {
        return Some(Format::CloudFormation);
    }
    if kubernetes::recognise(doc) {
        return Some(Format::Kubernetes);
    }
    None
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_as_the_patterns_say() {
        for s in [
            "${A}",
            "$A",
            "a-${b}",
            "{{ .Values.x }}",
            "x{{y",
            "$",
            "<your-namespace>",
        ] {
            assert!(super::shared::is_placeholder(s), "{s}");
        }
        for s in [
            "",
            "a",
            "{a}",
            "a$",
            "a$b",
            "}{",
            "{ {",
            "kube-system",
            "<>",
            "a<b>",
        ] {
            assert!(!super::shared::is_placeholder(s), "{s}");
        }
    }

    use super::terraform_template;

    #[test]
    fn terraform_templates() {
        assert!(terraform_template(
            "tags:\n  %{ for k, v in tags ~}\n  ${k}: ${v}\n  %{ endfor ~}\n"
        ));
        assert!(terraform_template(
            "a:\n  %{~ if x ~}\n  b: 1\n  %{ endif }\n"
        ));
        assert!(terraform_template("kind: Deployment\nspec: ${spec}: x\n"));
        // CloudFormation's `!Sub` uses `${...}` as well.
        assert!(!terraform_template(
            "AWSTemplateFormatVersion: x\nA: !Sub '${AWS::Region}'\n"
        ));
        // A curl format string is not a directive.
        assert!(!terraform_template(
            "args: [\"curl -w '%{http_code}' x\"]\n"
        ));
        assert!(!terraform_template("kind: Deployment\n"));
        // A multi-byte character across the 64 KiB cut.
        let long = format!("{}é${{x}}", "a".repeat(64 * 1024 - 1));
        assert!(!terraform_template(&long));
    }
}
