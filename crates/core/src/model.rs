//! The cluster model every frontend produces and every rule reads.
//!
//! Types carry domain names, never format names. A value the frontend could
//! not resolve is [`Known::Unknown`], and rules never fire on an unknown.

use crate::source::Span;

/// A value that was resolved, or could not be.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Known<T> {
    /// Resolved to this value.
    Known(T),
    /// Could not be resolved; never fires a rule on its own.
    #[default]
    Unknown,
}

impl<T> Known<T> {
    /// The value, if known.
    pub fn known(&self) -> Option<&T> {
        match self {
            Known::Known(v) => Some(v),
            Known::Unknown => None,
        }
    }

    /// Whether the value is known.
    pub fn is_known(&self) -> bool {
        matches!(self, Known::Known(_))
    }

    /// The known value mapped by `f`; unknown stays unknown.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Known<U> {
        match self {
            Known::Known(v) => Known::Known(f(v)),
            Known::Unknown => Known::Unknown,
        }
    }
}

impl<T> From<Option<T>> for Known<T> {
    fn from(v: Option<T>) -> Self {
        match v {
            Some(v) => Known::Known(v),
            None => Known::Unknown,
        }
    }
}

/// Where a model node came from: its span and its logical path in the document.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Loc {
    /// The bytes it was read from.
    pub span: Span,
    /// `fargateProfiles[0].selectors[1].labels`, `Resources.ProfileB.DependsOn`.
    /// Shared: the same paths recur in every file of a kind.
    pub path: std::sync::Arc<str>,
}

impl Loc {
    /// A location at `span` with this logical path.
    pub fn new(span: Span, path: impl AsRef<str>) -> Loc {
        Loc {
            span,
            path: intern(path.as_ref()),
        }
    }
}

/// Paths kept per thread for sharing; past this many the table starts
/// again, so a long-running server does not keep every path it ever saw.
const INTERNED: usize = 1 << 15;

thread_local! {
    static PATHS: std::cell::RefCell<rustc_hash::FxHashSet<std::sync::Arc<str>>> =
        std::cell::RefCell::default();
}

/// The shared copy of `path`: a large tree has millions of locations but
/// few distinct paths.
fn intern(path: &str) -> std::sync::Arc<str> {
    PATHS.with(|paths| {
        let mut paths = paths.borrow_mut();
        if let Some(p) = paths.get(path) {
            return p.clone();
        }
        if paths.len() >= INTERNED {
            paths.clear();
        }
        let p: std::sync::Arc<str> = path.into();
        paths.insert(p.clone());
        p
    })
}

/// A possibly unknown value with its location.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Located<T> {
    /// The value, or unknown.
    pub value: Known<T>,
    /// Where it was written (or would be).
    pub loc: Loc,
}

impl<T> Located<T> {
    /// A value at a location.
    pub fn new(value: Known<T>, loc: Loc) -> Self {
        Located { value, loc }
    }

    /// The value, if known.
    pub fn known(&self) -> Option<&T> {
        self.value.known()
    }
}

/// The tool that creates the cluster's resources. Rules use it for facts that
/// belong to the tool (eksctl patches CoreDNS; CloudFormation creates in parallel).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Provisioner {
    /// eksctl, from a `ClusterConfig`.
    Eksctl,
    /// AWS CloudFormation, including CDK output.
    CloudFormation,
    /// Terraform.
    Terraform,
    /// An AWS CDK app read as source (what it declares is the
    /// CloudFormation `cdk synth` writes).
    Cdk,
    /// A Pulumi program read as source.
    Pulumi,
}

impl Provisioner {
    /// The name used in messages (`eksctl`, `CloudFormation`, `Terraform`).
    pub fn as_str(self) -> &'static str {
        match self {
            Provisioner::Eksctl => "eksctl",
            Provisioner::CloudFormation => "cloudformation",
            Provisioner::Terraform => "terraform",
            Provisioner::Cdk => "cdk",
            Provisioner::Pulumi => "pulumi",
        }
    }
}

/// Whether EC2 capacity (node groups) serves the cluster.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Capacity {
    /// Node groups are declared; the first one is here.
    Declared(Loc),
    /// No node group is declared anywhere in the linted code.
    None,
    /// Node groups come from a value that could not be resolved, or the
    /// cluster is only referenced, not defined, in the linted code.
    #[default]
    Unknown,
}

/// The model of everything linted, in every format: what the rules read.
#[derive(Clone, Debug, Default)]
pub struct Project {
    /// Boxed, like workloads: these lists grow by doubling while a large tree
    /// is absorbed, and the spare half should be pointers, not whole items.
    pub clusters: Vec<Box<Cluster>>,
    /// One dependency graph per unit; [`ResourceRef::graph`] indexes it.
    pub graphs: Vec<DependencyGraph>,
    /// Workloads from manifests and IaC, for any cluster.
    pub workloads: Vec<Box<crate::workload::Workload>>,
    /// `aws-auth` ConfigMaps written in the code, for any cluster.
    pub aws_auth: Vec<crate::workload::AwsAuth>,
    /// EKS Pod Identity associations, for any cluster.
    pub pod_identities: Vec<crate::workload::PodIdentityAssociation>,
    /// Karpenter NodePools and node classes, for any cluster.
    pub karpenter: crate::workload::KarpenterObjects,
    /// Files the user named, and files read only for context (the sibling
    /// `.tf` files of a named one, local modules): findings located only in
    /// context files are not reported.
    pub given_files: Vec<crate::source::FileId>,
    /// Files read only for context; see [`Project::given_files`].
    pub context_files: Vec<crate::source::FileId>,
    /// Files read as the code of a Terraform module call, with the call.
    pub module_calls: Vec<ModuleCall>,
    /// Keys and values outside what their format defines.
    pub schema_findings: Vec<crate::schema::SchemaFinding>,
    /// Terraform blocks as written, and the resources of plans: a finding
    /// in a plan moves to the block its resource comes from.
    pub terraform_blocks: Vec<TerraformBlock>,
    pub planned: Vec<PlannedResource>,
    /// Some EKS add-on's cluster could not be told (a cluster name from a
    /// variable or a data source, often in a root module of its own): it
    /// may be any cluster's CoreDNS add-on.
    pub stray_addons: bool,
    /// EC2 capacity whose cluster could not be told (Karpenter installed
    /// through a provider configured elsewhere, a node group naming a
    /// cluster by an unknown value): every cluster of the run it could
    /// serve may have nodes.
    pub stray_capacity: Vec<StrayCapacity>,
    /// Helm releases declared outside any cluster's unit (Argo CD, Flux,
    /// helmfile), until the run assigns them and copies each into its
    /// cluster's [`Cluster::helm_releases`].
    pub releases: Vec<HelmRelease>,
    /// Folders of manifests a controller applies (an Argo CD directory
    /// source, a Flux `Kustomization`), with the namespace it gives them.
    pub directory_sources: Vec<DirectorySource>,
    /// Workloads by cluster key, built on first use.
    pub workload_index: WorkloadIndex,
}

/// A file read as the code of a module call: findings inside it relate the
/// call, or move to it when the file is not the user's to edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleCall {
    pub file: crate::source::FileId,
    /// The `module` block's header in the caller.
    pub call: crate::source::Span,
    /// `module.NAME`, with the caller's own module address before it.
    pub address: String,
    /// The call in the root module's own files this call is reached
    /// through (`call` itself for a call the root makes): calls of one
    /// module from two roots differ here even where the module that makes
    /// them is shared.
    pub outer: crate::source::Span,
}

/// A `resource` or `module` block of a Terraform root module, by its
/// address in the configuration (module instance keys left out).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TerraformBlock {
    /// The root module's folder as shown to the user.
    pub root: String,
    /// `module.eks.aws_eks_fargate_profile.this`.
    pub address: String,
    /// `resource "type" "name"`, up to its brace.
    pub header: crate::source::Span,
    pub whole: crate::source::Span,
}

/// A resource of a Terraform plan (`terraform show -json`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedResource {
    /// `module.eks.aws_eks_fargate_profile.this["system"]`.
    pub address: String,
    /// The same without instance keys: the block's address.
    pub config: String,
    /// The resource's object in the plan.
    pub span: crate::source::Span,
}

/// Workload indices by cluster key, built on first use (after the run has
/// assigned clusters) so rules do not scan every workload for every cluster.
#[derive(Clone, Debug, Default)]
pub struct WorkloadIndex(std::sync::OnceLock<std::collections::HashMap<String, Vec<usize>>>);

impl Project {
    /// The workloads that run on the cluster with this key.
    pub fn workloads_for<'a>(
        &'a self,
        key: &str,
    ) -> impl Iterator<Item = &'a crate::workload::Workload> + 'a {
        let index = self.workload_index.0.get_or_init(|| {
            let mut m: std::collections::HashMap<String, Vec<usize>> =
                std::collections::HashMap::new();
            for (i, w) in self.workloads.iter().enumerate() {
                if let Some(k) = &w.cluster_key {
                    m.entry(k.clone()).or_default().push(i);
                }
            }
            m
        });
        index
            .get(key)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|&i| self.workloads.get(i).map(|w| &**w))
    }

    /// A change of CoreDNS's Deployment that reaches `cluster`: one its own
    /// code makes ([`Cluster::coredns_patch`]), or a workload that runs on
    /// it (a Job or Helm hook running `kubectl patch`); unknown when one of
    /// them may be.
    pub fn coredns_patch(&self, cluster: &Cluster) -> Known<Option<Loc>> {
        let mut out = cluster.coredns_patch.clone();
        for w in self.workloads_for(&cluster.key) {
            match (&w.coredns_patch, &out) {
                (_, Known::Known(Some(_))) => break,
                (Known::Known(true), _) => out = Known::Known(Some(w.loc.clone())),
                (Known::Unknown, _) => out = Known::Unknown,
                (Known::Known(false), _) => {}
            }
        }
        out
    }

    /// Whether a file was read only for context, never named by the user.
    pub fn is_context_only(&self, file: crate::source::FileId) -> bool {
        self.context_files.contains(&file) && !self.given_files.contains(&file)
    }

    /// Whether `from` depends on `to`, directly or transitively.
    pub fn depends_on(&self, from: ResourceRef, to: ResourceRef) -> bool {
        from.graph == to.graph
            && self
                .graphs
                .get(from.graph as usize)
                .is_some_and(|g| g.reaches(from.node, to.node))
    }

    /// Whether `a` and `b` can never both exist in one deployment.
    pub fn mutually_exclusive(&self, a: ResourceRef, b: ResourceRef) -> bool {
        a.graph == b.graph
            && self
                .graphs
                .get(a.graph as usize)
                .is_some_and(|g| g.exclusive(a.node, b.node))
    }

    /// Add a unit's graph and return its index for [`ResourceRef::graph`].
    pub fn add_graph(&mut self, graph: DependencyGraph) -> u32 {
        self.graphs.push(graph);
        u32::try_from(self.graphs.len() - 1).unwrap_or(u32::MAX)
    }
}

/// An EKS cluster, defined or referenced by the linted code.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// Resolved name; unknown when it comes from an unresolved parameter.
    pub name: Located<String>,
    /// Identity for grouping profiles of one cluster when the name is unknown
    /// (e.g. `Ref:ClusterName`); equals the name when known.
    pub key: String,
    /// Where the cluster is defined (or first referenced).
    pub loc: Loc,
    /// Defined in the linted code, not only referenced by its profiles.
    pub defined: bool,
    /// The other files that describe this cluster (a second copy of its
    /// config, a profile-only file), joined into it by [`crate::join`].
    pub also_described_at: Vec<Loc>,
    /// The tool that creates it.
    pub provisioner: Provisioner,
    /// The AWS region, when written.
    pub region: Option<Located<String>>,
    /// The Kubernetes version, when written.
    pub version: Option<Located<String>>,
    /// Whether EC2 capacity serves it.
    pub capacity: Capacity,
    /// Node groups declared for it.
    pub node_groups: Vec<NodeGroup>,
    /// EKS add-ons declared for it.
    pub addons: Vec<Addon>,
    /// Its Fargate profiles, in the order written.
    pub fargate_profiles: Vec<FargateProfile>,
    /// Some profiles could not be enumerated (a `for_each` over an unknown value).
    pub profiles_incomplete: bool,
    /// Karpenter version the provisioner installs (eksctl `karpenter.version`).
    pub karpenter_version: Option<Located<String>>,
    /// Helm releases declared next to the cluster that install into it.
    pub helm_releases: Vec<HelmRelease>,
    /// Pod execution roles defined in the linted code, with the profiles using them.
    pub execution_roles: Vec<ExecutionRole>,
    /// How the cluster authenticates IAM principals (`CONFIG_MAP`, `API`,
    /// `API_AND_CONFIG_MAP`): as written, or the default of the tool that
    /// creates it; unknown when neither can be told.
    pub authentication_mode: Known<String>,
    /// The file that defines it, as the run shows it; set once the run's
    /// files are known (`None` in a model built alone).
    pub shown_file: Option<String>,
    /// Another cluster of the run has the same name (two regions, two
    /// versions of one config).
    pub name_shared: bool,
    /// Some add-ons could not be enumerated (a `for_each` over an unknown
    /// value, an add-on whose cluster cannot be told).
    pub addons_incomplete: bool,
    /// Whether EKS installs its own CoreDNS, kube-proxy and VPC CNI when it
    /// creates the cluster (`bootstrapSelfManagedAddons`, true unless set).
    pub self_managed_addons: Known<bool>,
    /// A change of CoreDNS's Deployment written in the code that moves it
    /// onto Fargate without the add-on (a CDK patch, `kubectl patch` run by
    /// Terraform): `Known(None)` when the code certainly has none, unknown
    /// when something fplint cannot read might be one.
    pub coredns_patch: Known<Option<Loc>>,
    /// The module calls the root module (or Terragrunt unit) that
    /// described it makes, at the root's own files ([`ModuleCall::outer`]):
    /// a finding inside module code several roots share is told apart by
    /// the root it came from.
    pub calls: Vec<crate::source::Span>,
    /// For a cluster a Terraform root only refers to: how it names a
    /// cluster defined in another root of the run, which it then joins.
    pub root_reference: Option<RootReference>,
    /// For such a cluster: the root that refers to it may add nodes to it
    /// (a module it does not read is given the cluster), so the joined
    /// cluster's capacity is unknown.
    pub root_may_add_nodes: bool,
}

/// EC2 capacity declared for a cluster the code does not tell.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrayCapacity {
    /// The name of the cluster it serves, when something known says it
    /// (Karpenter's `settings.clusterName`); any cluster when `None`.
    pub cluster: Option<String>,
    /// What declares it.
    pub loc: Loc,
}

impl StrayCapacity {
    /// Whether it may serve `cluster`.
    pub fn may_serve(&self, cluster: &Cluster) -> bool {
        match (&self.cluster, cluster.name.known()) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
    }
}

/// How a Terraform root names a cluster that another root defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RootReference {
    /// By its name alone: it joins the one defined cluster of that name
    /// (and region), and stays apart when two have it.
    Name,
    /// Through the other root's outputs, read from its code: the cluster
    /// defined there, by the place of its definition.
    Definition(crate::source::Span),
}

/// The labels of the CoreDNS pods EKS runs, before any `podLabels` the
/// add-on's configuration adds.
pub const COREDNS_POD_LABELS: &[(&str, &str)] = &[
    ("k8s-app", "kube-dns"),
    ("eks.amazonaws.com/component", "coredns"),
];

impl Cluster {
    /// A cluster with nothing known of it but its name, key and place.
    pub fn new(name: Located<String>, key: String, loc: Loc, provisioner: Provisioner) -> Cluster {
        Cluster {
            name,
            key,
            loc,
            defined: true,
            also_described_at: Vec::new(),
            provisioner,
            region: None,
            version: None,
            capacity: Capacity::Unknown,
            node_groups: Vec::new(),
            addons: Vec::new(),
            fargate_profiles: Vec::new(),
            profiles_incomplete: false,
            karpenter_version: None,
            helm_releases: Vec::new(),
            execution_roles: Vec::new(),
            authentication_mode: Known::Unknown,
            shown_file: None,
            name_shared: false,
            addons_incomplete: false,
            self_managed_addons: Known::Known(true),
            coredns_patch: Known::Unknown,
            calls: Vec::new(),
            root_reference: None,
            root_may_add_nodes: false,
        }
    }

    /// The cluster as a message names it, "`shop-prod`", followed by the
    /// file that defines it, "(eksctl/fixed/cluster.yaml)", where a finding
    /// in file `at` does not show that file already or where another
    /// cluster of the run has the same name.
    pub fn reference(&self, at: crate::source::FileId) -> String {
        match &self.shown_file {
            Some(file)
                if (self.name_shared || at != self.loc.span.file)
                    && !(self.name.known().is_none()
                        && crate::path::under(
                            std::path::Path::new(file),
                            std::path::Path::new(self.display_name()),
                        )) =>
            {
                format!("`{}` ({file})", self.display_name())
            }
            _ => format!("`{}`", self.display_name()),
        }
    }

    /// The CoreDNS add-on declared for the cluster: `Known(None)` when
    /// every add-on is known and none is CoreDNS.
    pub fn coredns_addon(&self) -> Known<Option<&Addon>> {
        let mut unknown = self.addons_incomplete;
        for a in &self.addons {
            match a.name.known().map(String::as_str) {
                Some("coredns") => return Known::Known(Some(a)),
                Some(_) => {}
                None => unknown = true,
            }
        }
        if unknown {
            Known::Unknown
        } else {
            Known::Known(None)
        }
    }

    /// The labels CoreDNS pods carry: EKS's own and the `podLabels` of the
    /// CoreDNS add-on's configuration. Unknown when the add-on's
    /// configuration, or whether there is one, cannot be read.
    pub fn coredns_labels(&self) -> Known<Vec<(String, String)>> {
        use crate::value::ValueKind;
        let mut labels: Vec<(String, String)> = COREDNS_POD_LABELS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let Known::Known(addon) = self.coredns_addon() else {
            return Known::Unknown;
        };
        let Some(cfg) = addon.and_then(|a| a.configuration.as_ref()) else {
            return Known::Known(labels);
        };
        let Some(v) = cfg.known().filter(|v| !v.is_unknown()) else {
            return Known::Unknown;
        };
        match v.get("podLabels").map(|p| &p.kind) {
            None | Some(ValueKind::Null) => {}
            Some(ValueKind::Map(entries)) => {
                for (k, x) in entries {
                    let value = match &x.kind {
                        ValueKind::String(s) | ValueKind::Number(s) => s.clone(),
                        ValueKind::Bool(b) => b.to_string(),
                        _ => return Known::Unknown,
                    };
                    // Which of two values for one key the pods get is not known.
                    match labels.iter().find(|(lk, _)| *lk == k.name) {
                        Some((_, lv)) if *lv != value => return Known::Unknown,
                        Some(_) => {}
                        None => labels.push((k.name.clone(), value)),
                    }
                }
            }
            Some(_) => return Known::Unknown,
        }
        Known::Known(labels)
    }

    /// The CoreDNS add-on's `computeType`, when the add-on and its
    /// configuration are known: `Known(None)` when not set.
    pub fn coredns_compute_type(&self) -> Known<Option<String>> {
        let Known::Known(Some(addon)) = self.coredns_addon() else {
            return Known::Unknown;
        };
        let Some(cfg) = &addon.configuration else {
            return Known::Known(None);
        };
        let Some(v) = cfg.known().filter(|v| !v.is_unknown()) else {
            return Known::Unknown;
        };
        match v.get("computeType") {
            None => Known::Known(None),
            Some(ct) => ct.as_str().map(|s| Some(s.to_string())).into(),
        }
    }

    /// Known true when no EC2 capacity is declared; unknown when it cannot be told.
    pub fn fargate_only(&self) -> Known<bool> {
        match self.capacity {
            Capacity::Declared(_) => Known::Known(false),
            Capacity::None => Known::Known(true),
            Capacity::Unknown => Known::Unknown,
        }
    }

    /// Whether Karpenter provisions EC2 nodes for the cluster: eksctl's
    /// `karpenter` block, or a Helm release of the `karpenter` chart. Unknown
    /// when a release's chart cannot be read.
    pub fn karpenter(&self) -> Known<bool> {
        if self.karpenter_version.is_some() {
            return Known::Known(true);
        }
        let mut unknown = false;
        for r in &self.helm_releases {
            match r.chart_name() {
                Some("karpenter") => return Known::Known(true),
                Some(_) => {}
                None => unknown = true,
            }
        }
        if unknown {
            Known::Unknown
        } else {
            Known::Known(false)
        }
    }

    /// A name for messages: the known name, or the grouping key; for a
    /// Terraform cluster whose name is unknown, the folder of the root or
    /// Terragrunt unit that runs it (`envs/prod`), not the address of the
    /// module code (`module.terragrunt.module.eks.module.eks`), which every
    /// unit of that code shares.
    pub fn display_name(&self) -> &str {
        match self.name.known() {
            Some(n) => n,
            // Terraform keys are `terraform:<folder>:<address>`.
            None => {
                // A key made distinct by `crate::join` carries a suffix.
                let key = self
                    .key
                    .split(crate::join::KEY_SEPARATOR)
                    .next()
                    .unwrap_or(&self.key);
                match key
                    .strip_prefix("terraform:")
                    .and_then(|r| r.rsplit_once(':'))
                {
                    Some((folder, _)) if !folder.is_empty() && folder != "." => folder,
                    Some((_, address)) => address
                        .strip_prefix("module.terragrunt.")
                        .unwrap_or(address),
                    None => key,
                }
            }
        }
    }
}

/// An IAM role defined in the linted code and used as a pod execution role.
#[derive(Clone, Debug)]
pub struct ExecutionRole {
    /// Indices into [`Cluster::fargate_profiles`] of the profiles that use it.
    pub profiles: Vec<usize>,
    /// The role as a whole (its resource header).
    pub loc: Loc,
    /// The role's name, when written.
    pub name: Option<Located<String>>,
    /// The IAM path; `/` when not written.
    pub path: Located<String>,
    /// Managed policy ARNs attached to the role; unknown when an attachment
    /// cannot be resolved.
    pub policies: Known<Vec<Located<String>>>,
    /// Service principals its trust policy allows (`eks-fargate-pods.amazonaws.com`);
    /// unknown when the policy cannot be read.
    pub trusted_services: Known<Vec<Located<String>>>,
    /// The statements of the policy documents written in the code for the
    /// role: its inline policies, and policies defined next to it that name
    /// it. Unknown when one cannot be read.
    pub statements: Known<Vec<PolicyStatement>>,
}

/// One statement of an IAM policy document, reduced to what it does to
/// which actions. Conditions and resources are not read: a statement that
/// allows an action is taken to allow it.
#[derive(Clone, Debug)]
pub struct PolicyStatement {
    pub allow: bool,
    /// Action patterns as written (`ecr:Get*`, `*`).
    pub actions: Vec<String>,
    pub loc: Loc,
}

/// `Allow`/`Deny` statements of a policy document; unknown when a part that
/// decides what is allowed cannot be read (`NotAction`, a computed action).
pub fn policy_statements(doc: &crate::value::Value, path: &str) -> Known<Vec<PolicyStatement>> {
    use crate::value::ValueKind;
    let stmts: Vec<&crate::value::Value> = match doc.get("Statement").map(|s| &s.kind) {
        None => return Known::Known(Vec::new()),
        Some(ValueKind::List(items)) => items.iter().collect(),
        Some(ValueKind::Map(_)) => doc.get("Statement").into_iter().collect(),
        Some(_) => return Known::Unknown,
    };
    let mut out = Vec::new();
    for (i, s) in stmts.into_iter().enumerate() {
        if s.get("NotAction").is_some() {
            return Known::Unknown;
        }
        let allow = match s.get("Effect").and_then(|e| e.as_str()) {
            Some("Allow") => true,
            Some("Deny") => false,
            _ => return Known::Unknown,
        };
        let actions = match s.get("Action").map(|a| (a, &a.kind)) {
            None => Vec::new(),
            Some((_, ValueKind::List(items))) => {
                match items
                    .iter()
                    .map(|a| a.as_str().map(str::to_string))
                    .collect()
                {
                    Some(v) => v,
                    None => return Known::Unknown,
                }
            }
            Some((a, _)) => match a.as_str() {
                Some(x) => vec![x.to_string()],
                None => return Known::Unknown,
            },
        };
        out.push(PolicyStatement {
            allow,
            actions,
            loc: Loc::new(s.span.unwrap_or_default(), format!("{path}.Statement[{i}]")),
        });
    }
    Known::Known(out)
}

/// Both lists known: their concatenation; otherwise unknown.
pub fn join_statements(
    a: Known<Vec<PolicyStatement>>,
    b: Known<Vec<PolicyStatement>>,
) -> Known<Vec<PolicyStatement>> {
    match (a, b) {
        (Known::Known(mut a), Known::Known(b)) => {
            a.extend(b);
            Known::Known(a)
        }
        _ => Known::Unknown,
    }
}

/// A Helm chart installed into a cluster: by the IaC (Terraform
/// `helm_release`, CDK's chart resource) or by an in-cluster controller from
/// a declaration (an Argo CD `Application`, a Flux `HelmRelease`, a helmfile).
#[derive(Clone, Debug)]
pub struct HelmRelease {
    /// The release name.
    pub name: Located<String>,
    /// The chart name (`karpenter`, `oci://.../karpenter` as written).
    pub chart: Located<String>,
    /// The chart repository, when written.
    pub repository: Option<Located<String>>,
    /// The chart version, when written.
    pub version: Option<Located<String>>,
    /// Where the release's pods run; `default` when not written.
    pub namespace: Located<String>,
    /// The values Helm merges, in its order; unknown when any part of the
    /// merge could not be read.
    pub values: Known<crate::value::Value>,
    /// Each place a value came from, in merge order.
    pub value_sources: Vec<ValueSource>,
    /// The release's node in its unit's dependency graph.
    pub resource: Option<ResourceRef>,
    /// The release as a whole (its resource header).
    pub loc: Loc,
    /// What applies the release, and so what it can be ordered against.
    pub applied_by: AppliedBy,
    /// The chart is a folder of this repository: what it deploys is not
    /// known from its name.
    pub local_chart: bool,
    /// The local chart's folder, as a path from the working directory, when
    /// it holds a `Chart.yaml`: the chart is rendered for the release.
    pub chart_dir: Option<std::path::PathBuf>,
    /// The cluster it runs on, by [`Cluster::key`], once told; releases
    /// declared outside any cluster's unit are assigned by the run.
    pub cluster_key: Option<String>,
    /// Another cluster the declaration names (Argo CD's `destination.name`
    /// or `server`, Flux's `kubeConfig`): the release runs there, not where
    /// its file lies.
    pub destination: Option<Located<String>>,
    /// The declaration's values in merge order when some part lies in
    /// another file (a values file, a ConfigMap): `values` stays unknown
    /// until the run reads those files
    /// ([`crate::frontend::shared::release::read_values_parts`]).
    pub values_parts: Vec<ValuesPart>,
    /// A source object of the repository that says which chart this is
    /// (Flux's `chartRef`): `chart` stays unknown until the run finds it
    /// ([`crate::frontend::shared::release::resolve_chart_ref`]).
    pub chart_ref: Option<ChartRef>,
    /// A post-renderer patches what the chart renders (Flux's
    /// `postRenderers`), which fplint does not follow: the release's pods
    /// are unknown, labels and scheduling included.
    pub post_rendered: bool,
}

/// A Flux `chartRef`: an `OCIRepository` or `HelmChart` object, looked for in
/// the YAML files of `folder`.
#[derive(Clone, Debug)]
pub struct ChartRef {
    /// `OCIRepository` or `HelmChart`.
    pub kind: String,
    pub name: String,
    pub namespace: Option<String>,
    /// The folder of the declaring file.
    pub folder: std::path::PathBuf,
    /// Where the declaration names it.
    pub at: Span,
}

/// One part of a release's values, in the declaration's merge order.
#[derive(Clone, Debug)]
pub enum ValuesPart {
    /// Values the declaration writes itself, with their spans.
    Given(Known<crate::value::Value>),
    /// A values file of the repository (a path from the working directory),
    /// named at `at`; `skip_missing` when the declaration skips a missing one.
    File {
        path: std::path::PathBuf,
        at: Span,
        skip_missing: bool,
    },
    /// A key of a ConfigMap or Secret of the repository, looked for in the
    /// YAML files of `folder`; with `target_path`, one value set at that
    /// dotted path.
    Object {
        secret: bool,
        name: String,
        namespace: Option<String>,
        key: String,
        target_path: Option<String>,
        folder: std::path::PathBuf,
        at: Span,
    },
    /// One `--set`-style value at a dotted path, named at `at`.
    Set {
        path: String,
        leaf: crate::value::Value,
        at: Option<Span>,
    },
}

/// A folder of this repository whose manifests a controller applies.
#[derive(Clone, Debug)]
pub struct DirectorySource {
    /// The folder, as a path from the working directory.
    pub folder: std::path::PathBuf,
    /// Manifests in subfolders too.
    pub recurse: bool,
    /// Globs of file paths (relative to the folder) to apply; all when empty.
    pub include: Vec<String>,
    /// Globs of file paths to leave out.
    pub exclude: Vec<String>,
    /// The namespace it gives objects.
    pub namespace: Located<String>,
    /// Whether the namespace replaces one the object sets (Flux's
    /// `targetNamespace`), or only fills in a missing one (Argo CD).
    pub override_namespace: bool,
    /// Another cluster the declaration names; see [`HelmRelease::destination`].
    pub destination: Option<Located<String>>,
    /// The declaration patches or labels what it applies (Flux's
    /// `patches` and `commonMetadata`, Argo CD's `kustomize.patches` and
    /// `commonLabels`), which fplint does not follow: the pods there are
    /// unknown, their labels too.
    pub changes_pods: bool,
}

/// What applies a Helm release to its cluster.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum AppliedBy {
    /// The deployment that creates the cluster's resources (Terraform,
    /// CloudFormation): it may create the release before a profile.
    #[default]
    Deployment,
    /// A controller in the cluster (Argo CD, Flux, or a helmfile run by
    /// hand): it applies once the cluster and its profiles exist.
    Controller,
}

impl HelmRelease {
    /// A release of `chart` with nothing else known, at `loc`.
    pub fn new(chart: Located<String>, loc: Loc, applied_by: AppliedBy) -> HelmRelease {
        HelmRelease {
            name: Located::new(Known::Unknown, loc.clone()),
            chart,
            repository: None,
            version: None,
            namespace: Located::new(Known::Known("default".to_string()), loc.clone()),
            values: Known::Known(crate::value::Value::new(
                crate::value::ValueKind::Map(Vec::new()),
                None,
            )),
            value_sources: Vec::new(),
            resource: None,
            loc,
            applied_by,
            local_chart: false,
            chart_dir: None,
            cluster_key: None,
            destination: None,
            values_parts: Vec::new(),
            chart_ref: None,
            post_rendered: false,
        }
    }

    /// The chart's own name: the last path segment, without a version suffix.
    pub fn chart_name(&self) -> Option<&str> {
        let c = self.chart.known()?;
        let last = c.rsplit('/').next().unwrap_or(c);
        let last = last.split(':').next().unwrap_or(last);
        // A packaged chart: `keda-2.14.0.tgz`.
        match last.strip_suffix(".tgz") {
            Some(pkg) => Some(
                pkg.rsplit_once('-')
                    .filter(|(_, v)| v.starts_with(|c: char| c.is_ascii_digit()))
                    .map_or(pkg, |(n, _)| n),
            ),
            None => Some(last),
        }
    }
}

/// How a Helm value entered the release.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueSourceKind {
    /// A string literal or heredoc of YAML.
    Text,
    /// `yamlencode(...)`/`jsonencode(...)` of HCL data.
    Encoded,
    /// A values file read with `file()`/`templatefile()`.
    File,
    /// A `set`/`set_list`/`set_sensitive` entry.
    Set,
}

/// One place the values of a Helm release came from.
#[derive(Clone, Debug)]
pub struct ValueSource {
    /// How the values were written.
    pub kind: ValueSourceKind,
    /// The entry in the IaC (the `file(...)` call, the heredoc, the `set`).
    pub loc: Loc,
    /// The text the values were read from when it is elsewhere (a values file).
    pub origin: Option<Span>,
}

/// An EC2 node group (managed or self-managed).
#[derive(Clone, Debug)]
pub struct NodeGroup {
    /// Its name.
    pub name: Located<String>,
    /// Where it is declared.
    pub loc: Loc,
    /// `managed` (EKS managed node group) or `self-managed`.
    pub managed: bool,
}

/// An EKS add-on (`coredns`, `vpc-cni`, ...).
#[derive(Clone, Debug)]
pub struct Addon {
    /// The add-on's name.
    pub name: Located<String>,
    /// Where it is declared.
    pub loc: Loc,
    /// The add-on version, when written.
    pub version: Option<Located<String>>,
    /// The add-on's configuration values, parsed; `None` when not set.
    pub configuration: Option<Located<crate::value::Value>>,
    /// Installed before any compute exists (terraform-aws-eks `before_compute`).
    pub before_compute: bool,
    /// The add-on's node in its unit's dependency graph.
    pub resource: Option<ResourceRef>,
}

/// An EKS Fargate profile.
#[derive(Clone, Debug)]
pub struct FargateProfile {
    /// The profile's name.
    pub name: Located<String>,
    /// The profile as a whole (its name key, or its resource header).
    pub loc: Loc,
    /// Its selectors; unknown when they cannot be enumerated.
    pub selectors: Known<Vec<Selector>>,
    /// Where the selectors are written, for findings about their number.
    pub selectors_loc: Loc,
    /// The subnets its pods run in; unknown when they cannot be read.
    pub subnets: Known<Vec<SubnetRef>>,
    /// The pod execution role's ARN, when written.
    pub pod_execution_role: Option<Located<String>>,
    /// What in the code defines the pod execution role when its ARN is only
    /// known at deployment (`aws_iam_role.fargate`, `module.fargate`, the
    /// CloudFormation logical id): a profile and an `aws-auth` entry with the
    /// same reference name the same role.
    pub role_ref: Option<String>,
    /// The profile's node in its unit's dependency graph.
    pub resource: Option<ResourceRef>,
    /// The deployment engine may create this profile at the same time as
    /// another profile of the cluster unless a dependency orders them.
    pub created_concurrently: bool,
}

impl FargateProfile {
    /// A name for messages: the known name, or where the profile is defined
    /// (`aws_eks_fargate_profile.this`, the CloudFormation logical id).
    pub fn display_name(&self) -> &str {
        match self.name.known() {
            Some(n) => n,
            None => self
                .loc
                .path
                .strip_prefix("Resources.")
                .unwrap_or(&self.loc.path),
        }
    }
}

/// One Fargate profile selector: a namespace and optional labels.
#[derive(Clone, Debug)]
pub struct Selector {
    /// Where the selector is written.
    pub loc: Loc,
    /// The namespace it selects (may hold `*` and `?` wildcards).
    pub namespace: Located<String>,
    /// The labels a pod must carry, all of them.
    pub labels: Known<Vec<Label>>,
    /// The labels node, when written.
    pub labels_loc: Option<Loc>,
}

impl Selector {
    /// Known label pairs as `(key, value)`, `None` if any part is unknown.
    pub fn known_labels(&self) -> Option<Vec<(&str, &str)>> {
        let labels = self.labels.known()?;
        labels
            .iter()
            .map(|l| Some((l.key.known()?.as_str(), l.value.known()?.as_str())))
            .collect()
    }
}

/// One label of a selector.
#[derive(Clone, Debug)]
pub struct Label {
    /// The label key.
    pub key: Known<String>,
    /// The label value.
    pub value: Known<String>,
    /// Where the pair is written.
    pub loc: Loc,
}

/// Whether a subnet routes to the internet directly.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SubnetVisibility {
    /// Routes to an internet gateway, or maps public IPs.
    Public,
    /// Does neither.
    Private,
}

/// A subnet a Fargate profile uses.
#[derive(Clone, Debug)]
pub struct SubnetRef {
    /// The subnet id or reference as written.
    pub id: Located<String>,
    /// Public or private; unknown when it cannot be told.
    pub visibility: Known<SubnetVisibility>,
    /// What shows the visibility (a route to an internet gateway, `MapPublicIpOnLaunch`).
    pub evidence: Option<Loc>,
}

/// A resource in a unit's dependency graph: which graph, which node.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResourceRef {
    /// Index into [`Project::graphs`].
    pub graph: u32,
    /// Index into the graph's [`DependencyGraph::nodes`].
    pub node: u32,
}

/// "A depends on B" edges between the resources of one template or module.
#[derive(Clone, Debug, Default)]
pub struct DependencyGraph {
    /// Every resource, by index.
    pub nodes: Vec<GraphNode>,
    edges: Vec<Vec<u32>>,
    /// Pairs of resources that never exist together (mutually exclusive
    /// CloudFormation conditions), so they cannot race each other.
    exclusive: Vec<(u32, u32)>,
    /// For the graph of one run among several that a tool orders (a
    /// Terragrunt unit): that run and the runs it waits for.
    pub run: Option<RunOrder>,
}

/// Where a deployment run is, and the runs it starts after. Runs that do
/// not wait for each other, directly or through others, may overlap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOrder {
    /// The run's folder, absolute.
    pub dir: std::path::PathBuf,
    /// The folders of the runs it waits for, absolute.
    pub after: Vec<std::path::PathBuf>,
}

/// One resource of a dependency graph.
#[derive(Clone, Debug)]
pub struct GraphNode {
    /// Logical name (`ProfileA`, `aws_eks_fargate_profile.a`).
    pub name: String,
    /// Where it is declared.
    pub loc: Loc,
}

impl crate::compact::Compact for DependencyGraph {
    fn compact(&mut self) {
        let DependencyGraph {
            nodes,
            edges,
            exclusive,
            run: _,
        } = self;
        nodes.compact();
        edges.compact();
        exclusive.compact();
    }
}

impl DependencyGraph {
    /// Add a resource and return its index.
    pub fn add_node(&mut self, name: impl Into<String>, loc: Loc) -> u32 {
        self.nodes.push(GraphNode {
            name: name.into(),
            loc,
        });
        self.edges.push(Vec::new());
        u32::try_from(self.nodes.len() - 1).unwrap_or(u32::MAX)
    }

    /// Record that `from` depends on `to`.
    pub fn add_edge(&mut self, from: u32, to: u32) {
        if let Some(e) = self.edges.get_mut(from as usize) {
            if !e.contains(&to) {
                e.push(to);
            }
        }
    }

    /// What `from` depends on directly.
    pub fn direct(&self, from: u32) -> &[u32] {
        self.edges.get(from as usize).map_or(&[], Vec::as_slice)
    }

    /// Record that `a` and `b` never exist together.
    pub fn add_exclusive(&mut self, a: u32, b: u32) {
        if a != b && !self.exclusive(a, b) {
            self.exclusive.push((a.min(b), a.max(b)));
        }
    }

    /// Whether `a` and `b` never exist together.
    pub fn exclusive(&self, a: u32, b: u32) -> bool {
        self.exclusive.contains(&(a.min(b), a.max(b)))
    }

    /// Whether a path of dependencies leads from `from` to `to`.
    pub fn reaches(&self, from: u32, to: u32) -> bool {
        if from == to {
            return false;
        }
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for &m in self.direct(n) {
                if m == to {
                    return true;
                }
                if let Some(s) = seen.get_mut(m as usize) {
                    if !*s {
                        *s = true;
                        stack.push(m);
                    }
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chart_names() {
        let rel = |c: &str| {
            HelmRelease::new(
                Located::new(Known::Known(c.to_string()), Loc::default()),
                Loc::default(),
                AppliedBy::Deployment,
            )
        };
        assert_eq!(rel("karpenter").chart_name(), Some("karpenter"));
        assert_eq!(
            rel("oci://public.ecr.aws/karpenter/karpenter").chart_name(),
            Some("karpenter")
        );
        assert_eq!(rel("kedacore/keda").chart_name(), Some("keda"));
        assert_eq!(
            rel("https://x/charts/keda-2.14.0.tgz").chart_name(),
            Some("keda")
        );
        assert_eq!(rel("./charts/my-app").chart_name(), Some("my-app"));
    }

    #[test]
    fn coredns_labels_take_the_addons_pod_labels() {
        let mut c = Cluster::new(
            Located::default(),
            "c".into(),
            Loc::default(),
            Provisioner::Terraform,
        );
        let addon = |name: Option<&str>, cfg: Option<&str>| Addon {
            name: Located::new(name.map(str::to_string).into(), Loc::default()),
            loc: Loc::default(),
            version: None,
            configuration: cfg
                .map(|t| Located::new(crate::value::Value::parse_embedded(t), Loc::default())),
            before_compute: false,
            resource: None,
        };
        let base = |extra: &[(&str, &str)]| -> Known<Vec<(String, String)>> {
            Known::Known(
                COREDNS_POD_LABELS
                    .iter()
                    .chain(extra)
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )
        };
        assert_eq!(c.coredns_labels(), base(&[]));
        c.addons = vec![addon(Some("coredns"), Some("podLabels:\n  team: dns\n"))];
        assert_eq!(c.coredns_labels(), base(&[("team", "dns")]));
        c.addons = vec![addon(
            Some("coredns"),
            Some(r#"{"podLabels": {"team": "dns"}}"#),
        )];
        assert_eq!(c.coredns_labels(), base(&[("team", "dns")]));
        // A second value for one of CoreDNS's own labels: which wins is unknown.
        c.addons = vec![addon(
            Some("coredns"),
            Some(r#"{"podLabels": {"k8s-app": "dns"}}"#),
        )];
        assert_eq!(c.coredns_labels(), Known::Unknown);
        // An add-on whose name is unknown may be CoreDNS.
        c.addons = vec![addon(None, None)];
        assert_eq!(c.coredns_labels(), Known::Unknown);
        assert_eq!(c.coredns_addon().map(|a| a.is_some()), Known::Unknown);
        c.addons = vec![addon(Some("vpc-cni"), None)];
        assert_eq!(c.coredns_addon().map(|a| a.is_some()), Known::Known(false));
        c.addons_incomplete = true;
        assert_eq!(c.coredns_addon().map(|a| a.is_some()), Known::Unknown);
    }

    #[test]
    fn reachability_is_transitive_and_directed() {
        let mut g = DependencyGraph::default();
        let a = g.add_node("a", Loc::default());
        let b = g.add_node("b", Loc::default());
        let c = g.add_node("c", Loc::default());
        g.add_edge(c, b);
        g.add_edge(b, a);
        assert!(g.reaches(c, a));
        assert!(!g.reaches(a, c));
        assert!(!g.reaches(a, a));
    }
}
