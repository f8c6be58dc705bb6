//! AWS CDK's EKS constructs, as [`cdk synth`] would write them: each stack
//! becomes a CloudFormation template of the resources the constructs
//! declare (`Custom::AWSCDK-EKS-Cluster`, `-FargateProfile`, `-HelmChart`,
//! `-KubernetesResource`, `-KubernetesPatch`, `AWS::EKS::*`), with the
//! logical IDs, release names and `DependsOn` CDK gives them, so the
//! CloudFormation frontend reads them as it reads `cdk.out`. Every value
//! keeps the span it was written at in the program.
//!
//! What CDK itself adds, as pinned in its source (aws-cdk-lib 2.275):
//! - `FargateCluster`: a profile `fargate-profile-default` (or named by
//!   `defaultProfile.fargateProfileName`) selecting `default` and
//!   `kube-system` unless `defaultProfile` gives its selectors, no default
//!   capacity, and the CoreDNS patch.
//! - `Cluster`: two `m5.large` nodes in a managed node group unless
//!   `defaultCapacity` says otherwise (`defaultCapacityType: EC2` makes an
//!   Auto Scaling group); the CoreDNS patch when `coreDnsComputeType` is
//!   `FARGATE`.
//! - Every profile of a cluster waits for the one added before it, and
//!   every chart, manifest and patch waits for the cluster's
//!   `KubectlReadyBarrier`, which waits for all its profiles.
//! - A chart's release is named after its construct path unless `release`
//!   names it.
//!
//! [`cdk synth`]: https://docs.aws.amazon.com/cdk/v2/guide/ref-cli-cmd-synth.html

use super::eval::{camel, number_text, unknown_at, Args, Cx, Host, Object, Val, V};
use crate::source::Span;
use crate::tree::{Entry, Node, NodeKind, ScalarStyle};
use md5::{Digest, Md5};
use std::rc::Rc;

/// What a node of the construct tree is.
#[derive(Clone, Debug)]
enum Kind {
    App,
    Stack,
    /// A construct of the program or one CDK does not model.
    Scope,
    Cluster(ClusterInfo),
    /// A construct that is one resource (a profile, chart, manifest, L1).
    Resource(usize),
    /// A reference to a resource (`cluster.clusterName`), or one of its
    /// attributes.
    Ref(usize, Option<&'static str>),
}

#[derive(Clone, Debug)]
struct ClusterInfo {
    resource: usize,
    barrier: usize,
    last_profile: Option<usize>,
}

#[derive(Clone, Debug)]
struct CNode {
    kind: Kind,
    id: String,
    parent: Option<usize>,
}

/// One resource of a stack's template.
#[derive(Clone, Debug)]
struct Resource {
    stack: usize,
    /// The construct it belongs to: the template lists resources in the
    /// construct tree's order, as CDK does.
    node: usize,
    logical: String,
    ty: &'static str,
    /// The resource's type as written for an L1 construct we do not model.
    props: Vec<Entry>,
    depends: Vec<usize>,
    conditions: Vec<(u32, bool)>,
    span: Span,
}

/// A template for each stack the program declares.
#[derive(Debug)]
pub struct Stack {
    /// The stack's construct id.
    pub id: String,
    /// Its template, as a CloudFormation document.
    pub template: Node,
}

/// What stayed unknown, said once per program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap {
    /// Where.
    pub span: Span,
    /// What.
    pub what: String,
}

/// The CDK host: the construct tree the program builds.
#[derive(Debug, Default)]
pub struct Cdk {
    nodes: Vec<CNode>,
    resources: Vec<Resource>,
    /// What the program does that is not followed.
    pub gaps: Vec<Gap>,
    /// The `context` of `cdk.json`: what `node.tryGetContext` reads unless
    /// the command line says otherwise.
    pub context: Option<Node>,
    /// The program imports EKS's constructs (or EKS Blueprints): finding
    /// no cluster in it is then worth saying.
    uses_eks: std::cell::Cell<Option<Span>>,
    /// What the program made of EKS Blueprints (builders, providers,
    /// add-ons), by handle.
    pub(super) blueprints: super::blueprints::State,
}

impl Cdk {
    fn add(&mut self, kind: Kind, id: &str, parent: Option<usize>) -> usize {
        self.nodes.push(CNode {
            kind,
            id: id.to_string(),
            parent,
        });
        self.nodes.len() - 1
    }

    /// The stack a node is in.
    fn stack_of(&self, mut n: usize) -> Option<usize> {
        for _ in 0..256 {
            let node = self.nodes.get(n)?;
            if matches!(node.kind, Kind::Stack) {
                return Some(n);
            }
            n = node.parent?;
        }
        None
    }

    /// Construct ids from the root (the app's empty id left out) to `n`.
    fn path(&self, mut n: usize) -> Vec<String> {
        let mut out = Vec::new();
        for _ in 0..256 {
            let Some(node) = self.nodes.get(n) else { break };
            if !matches!(node.kind, Kind::App) {
                out.push(node.id.clone());
            }
            match node.parent {
                Some(p) => n = p,
                None => break,
            }
        }
        out.reverse();
        out
    }

    /// The path below the stack `n` is in.
    fn stack_path(&self, n: usize) -> Vec<String> {
        let full = self.path(n);
        let depth = self.stack_of(n).map_or(0, |s| self.path(s).len());
        full[depth.min(full.len())..].to_vec()
    }

    fn resource(
        &mut self,
        scope: usize,
        components: Vec<String>,
        ty: &'static str,
        props: Vec<Entry>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let stack = self.stack_of(scope).unwrap_or(scope);
        let mut path = self.stack_path(scope);
        path.extend(components);
        self.resources.push(Resource {
            stack,
            node: scope,
            logical: unique_id(&path),
            ty,
            props,
            depends: Vec::new(),
            conditions: cx.conditions.clone(),
            span,
        });
        self.resources.len() - 1
    }

    /// The node a scope argument names (`this`, another construct).
    fn scope_of(&self, v: Option<&Val<'_>>) -> Option<usize> {
        match v.map(|v| &v.kind) {
            Some(V::Handle(h)) => Some(*h),
            Some(V::Instance(i)) => i.handle.get(),
            _ => None,
        }
    }

    fn cluster_of(&self, v: Option<&Val<'_>>) -> Option<(usize, ClusterInfo)> {
        let h = self.scope_of(v)?;
        match &self.nodes.get(h)?.kind {
            Kind::Cluster(c) => Some((h, c.clone())),
            _ => None,
        }
    }

    pub(super) fn gap(&mut self, span: Span, what: impl Into<String>) {
        let what = what.into();
        if !self.gaps.iter().any(|g| g.span == span && g.what == what) {
            self.gaps.push(Gap { span, what });
        }
    }

    /// Note an import of the program, read or not: one of EKS's
    /// constructs (or EKS Blueprints) makes finding no cluster worth saying.
    pub fn saw_import(&self, module: &str, span: Span) {
        let eks = library_path(module).is_some_and(|p| {
            p == "cdk.aws_eks"
                || p.starts_with("cdk.aws_eks.")
                || super::blueprints::is_blueprints(&p)
        });
        if eks && self.uses_eks.get().is_none() {
            self.uses_eks.set(Some(span));
        }
    }

    /// Say so when the program imports EKS's constructs but declares no
    /// cluster fplint could read (a cluster behind a
    /// function of another package, or a stack the entry point leaves out).
    pub fn note_missing_cluster(&mut self) {
        let Some(span) = self.uses_eks.get() else {
            return;
        };
        let any = self
            .nodes
            .iter()
            .any(|n| matches!(n.kind, Kind::Cluster(_)))
            || self
                .resources
                .iter()
                .any(|r| r.ty == "AWS::EKS::Cluster" || r.ty == "AWS::EKS::FargateProfile");
        if !any {
            self.gap(
                span,
                "the program imports EKS constructs, but fplint found no cluster it declares",
            );
        }
    }

    /// The templates, one per stack, in the order the stacks were made;
    /// the resources' props move into them.
    pub fn templates(&mut self) -> Vec<Stack> {
        let mut out = Vec::new();
        let order = self.preorder();
        let mut props: Vec<Vec<Entry>> = self
            .resources
            .iter_mut()
            .map(|r| std::mem::take(&mut r.props))
            .collect();
        for (n, node) in self.nodes.iter().enumerate() {
            if !matches!(node.kind, Kind::Stack) {
                continue;
            }
            let span = self.resources.iter().find(|r| r.stack == n).map(|r| r.span);
            let Some(span) = span else { continue };
            let mut ours: Vec<usize> = (0..self.resources.len())
                .filter(|&i| self.resources[i].stack == n)
                .collect();
            ours.sort_by_key(|&i| {
                order
                    .get(self.resources[i].node)
                    .copied()
                    .unwrap_or(usize::MAX)
            });
            let written = ours
                .into_iter()
                .map(|i| (&self.resources[i], std::mem::take(&mut props[i])))
                .map(|(r, props)| Written {
                    logical: &r.logical,
                    ty: r.ty,
                    props,
                    depends: r
                        .depends
                        .iter()
                        .filter_map(|d| self.resources.get(*d))
                        .filter(|d| d.stack == n)
                        .map(|d| d.logical.as_str())
                        .collect(),
                    condition: r.conditions.last().copied(),
                    span: r.span,
                })
                .collect();
            out.push(Stack {
                id: node.id.clone(),
                template: template_of(written, span),
            });
        }
        out
    }

    /// A handle for something of a library that is no construct of the
    /// tree (an EKS Blueprints builder or add-on).
    pub(super) fn detached(&mut self) -> usize {
        self.add(Kind::Scope, "", None)
    }

    /// Something fplint does not read that may give `cluster` nodes: its
    /// capacity is then unknown.
    pub(super) fn unread_capacity(&mut self, cluster: usize, name: &str, cx: &Cx, span: Span) {
        let node = self.add(Kind::Scope, name, Some(cluster));
        let r = self.resource(
            node,
            vec!["Unread".into()],
            "AWS::AutoScaling::AutoScalingGroup",
            Vec::new(),
            cx,
            span,
        );
        self.nodes[node].kind = Kind::Resource(r);
    }

    // ---- constructs ----

    fn new_cluster(
        &mut self,
        scope: usize,
        id: &str,
        props: &Props<'_, '_>,
        fargate: bool,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Scope, id, Some(scope));
        let mut config = Vec::new();
        if let Some(name) = props.get("clusterName") {
            // A name not known is CDK's own as far as fplint can tell.
            if !name.is_unknown() {
                config.push(entry("name", self.to_node(name), name.span));
            }
        }
        match props.get("version") {
            Some(v) => config.push(entry("version", version_node(v), v.span)),
            None if !props.open => {}
            None => {}
        }
        let resource = self.resource(
            node,
            vec!["Resource".into(), "Resource".into()],
            "Custom::AWSCDK-EKS-Cluster",
            vec![entry("Config", map(config, span), span)],
            cx,
            span,
        );
        let barrier = self.resource(
            node,
            vec!["KubectlReadyBarrier".into()],
            "AWS::SSM::Parameter",
            vec![
                entry("Type", scalar("String", span), span),
                entry("Value", scalar("aws:cdk:eks:kubectl-ready", span), span),
            ],
            cx,
            span,
        );
        self.resources[barrier].depends.push(resource);
        let info = ClusterInfo {
            resource,
            barrier,
            last_profile: None,
        };
        self.nodes[node].kind = Kind::Cluster(info);

        if fargate {
            let default = props.get("defaultProfile");
            let dp = default.map(Props::of);
            let name = dp.as_ref().and_then(|p| p.get("fargateProfileName"));
            let id = match name.map(|n| &n.kind) {
                None => Some("default".to_string()),
                Some(V::Str(s)) => Some(s.to_string()),
                _ => None,
            };
            match id {
                Some(pid) => {
                    let mut opts = match &dp {
                        Some(p) => p.clone_props(),
                        None => Props::empty(span),
                    };
                    if opts.get("selectors").is_none() && !opts.open {
                        opts.default_selectors = true;
                    }
                    self.profile(node, &format!("fargate-profile-{pid}"), &opts, cx, span);
                }
                None => self.gap(span, "the default Fargate profile's name is not known"),
            }
            self.coredns_patch(node, cx, span);
        } else {
            match props.get("coreDnsComputeType").map(|v| &v.kind) {
                Some(V::Lib(p)) if p.ends_with("CoreDnsComputeType.FARGATE") => {
                    self.coredns_patch(node, cx, span)
                }
                Some(V::Lib(p)) if p.ends_with("CoreDnsComputeType.EC2") => {}
                None | Some(V::Undefined) => {}
                Some(_) => {
                    let mut cx = cx.clone();
                    cx.conditions.push((u32::MAX, false));
                    self.coredns_patch(node, &cx, span);
                }
            }
            self.default_capacity(node, props, cx, span);
        }
        if let Some(alb) = props.get("albController") {
            self.alb_controller(node, alb, cx, span);
        }
        node
    }

    fn default_capacity(&mut self, cluster: usize, props: &Props<'_, '_>, cx: &Cx, span: Span) {
        let count = props.get("defaultCapacity");
        let (n, mut cx) = match count.map(|v| &v.kind) {
            None | Some(V::Undefined) => (2.0, cx.clone()),
            Some(V::Num(0.0, _)) => return,
            Some(V::Num(n, _)) => (*n, cx.clone()),
            Some(_) => {
                let mut c = cx.clone();
                c.conditions.push((u32::MAX, false));
                (2.0, c)
            }
        };
        let ec2 = match props.get("defaultCapacityType").map(|v| &v.kind) {
            None | Some(V::Undefined) => false,
            Some(V::Lib(p)) if p.ends_with("DefaultCapacityType.NODEGROUP") => false,
            Some(V::Lib(p)) if p.ends_with("DefaultCapacityType.EC2") => true,
            Some(_) => {
                cx.conditions.push((u32::MAX, false));
                false
            }
        };
        let size = Val {
            kind: V::Num(n, None),
            span: count.map_or(span, |c| c.span),
        };
        let instance = props
            .get("defaultCapacityInstance")
            .map(|v| self.to_node(v))
            .unwrap_or_else(|| scalar("m5.large", span));
        let cluster_ref = self.ref_node(cluster, span);
        if ec2 {
            let n = self.to_node(&size);
            let tags = self.owner_tags(cluster, span);
            self.resource(
                cluster,
                vec!["DefaultCapacity".into(), "ASG".into()],
                "AWS::AutoScaling::AutoScalingGroup",
                vec![
                    entry("MinSize", n.clone(), span),
                    entry("MaxSize", n, span),
                    entry("Tags", tags, span),
                ],
                &cx,
                span,
            );
        } else {
            let n = self.to_node(&size);
            let scaling = map(
                vec![
                    entry("DesiredSize", n.clone(), span),
                    entry("MaxSize", n.clone(), span),
                    entry("MinSize", n, span),
                ],
                span,
            );
            self.resource(
                cluster,
                vec!["NodegroupDefaultCapacity".into(), "NodeGroup".into()],
                "AWS::EKS::Nodegroup",
                vec![
                    entry("ClusterName", cluster_ref, span),
                    entry("InstanceTypes", seq(vec![instance], span), span),
                    entry("ScalingConfig", scaling, span),
                ],
                &cx,
                span,
            );
        }
    }

    fn coredns_patch(&mut self, cluster: usize, cx: &Cx, span: Span) {
        let Some(info) = self.cluster_info(cluster) else {
            return;
        };
        let props = vec![
            entry("ResourceName", scalar("deployment/coredns", span), span),
            entry("ResourceNamespace", scalar("kube-system", span), span),
            entry(
                "ApplyPatchJson",
                scalar(
                    r#"{"spec":{"template":{"metadata":{"annotations":{"eks.amazonaws.com/compute-type":"fargate"}}}}}"#,
                    span,
                ),
                span,
            ),
            entry("ClusterName", self.ref_node(cluster, span), span),
            entry("PatchType", scalar("strategic", span), span),
        ];
        let node = self.add(Kind::Scope, "CoreDnsComputeTypePatch", Some(cluster));
        let r = self.resource(
            node,
            vec!["Resource".into()],
            "Custom::AWSCDK-EKS-KubernetesPatch",
            props,
            cx,
            span,
        );
        self.resources[r].depends.push(info.barrier);
        self.join_cluster_stack(r, cluster);
    }

    /// A construct of another stack that acts on `cluster` is written into
    /// the cluster's template: CDK deploys that stack after the cluster's,
    /// so it waits for everything there.
    fn join_cluster_stack(&mut self, r: usize, cluster: usize) {
        let Some(theirs) = self.stack_of(cluster) else {
            return;
        };
        let own = self.resources[r].stack;
        if own == theirs {
            return;
        }
        let before: Vec<usize> = (0..r)
            .filter(|&i| self.resources[i].stack == theirs)
            .collect();
        let prefix: String = self.nodes[own]
            .id
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        let res = &mut self.resources[r];
        res.stack = theirs;
        res.logical = format!("{prefix}{}", res.logical);
        res.depends.extend(before);
    }

    /// The tag CDK gives the nodes it joins to `cluster`.
    fn owner_tags(&self, cluster: usize, span: Span) -> Node {
        owner_tags(self.ref_node(cluster, span), span)
    }

    fn cluster_info(&self, cluster: usize) -> Option<ClusterInfo> {
        match &self.nodes.get(cluster)?.kind {
            Kind::Cluster(c) => Some(c.clone()),
            _ => None,
        }
    }

    fn ref_node(&self, cluster: usize, span: Span) -> Node {
        match self
            .cluster_info(cluster)
            .and_then(|c| self.resources.get(c.resource))
        {
            Some(r) => map(vec![entry("Ref", scalar(&r.logical, span), span)], span),
            None => unknown_node(span),
        }
    }

    /// A profile of `cluster` in the construct `scope` (the cluster for
    /// `addFargateProfile`, the given scope for `new FargateProfile`).
    fn profile_in(
        &mut self,
        scope: usize,
        id: &str,
        cluster: usize,
        opts: &Props<'_, '_>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Scope, id, Some(scope));
        let Some(info) = self.cluster_info(cluster) else {
            return node;
        };
        let mut config = vec![entry("clusterName", self.ref_node(cluster, span), span)];
        if let Some(n) = opts.get("fargateProfileName") {
            config.push(entry("fargateProfileName", self.to_node(n), n.span));
        }
        if let Some(role) = opts.get("podExecutionRole") {
            config.push(entry(
                "podExecutionRoleArn",
                unknown_node(role.span),
                role.span,
            ));
        }
        let selectors = match opts.get("selectors") {
            Some(s) => self.selectors_node(s),
            None if opts.default_selectors => seq(
                vec![
                    map(
                        vec![entry("namespace", scalar("default", span), span)],
                        span,
                    ),
                    map(
                        vec![entry("namespace", scalar("kube-system", span), span)],
                        span,
                    ),
                ],
                span,
            ),
            None if opts.open => unknown_node(span),
            None => seq(Vec::new(), span),
        };
        config.push(entry("selectors", selectors, span));
        if let Some(subnets) = opts.get("subnetSelection") {
            config.push(entry("subnets", unknown_node(subnets.span), subnets.span));
        }
        let r = self.resource(
            node,
            vec!["Resource".into()],
            "Custom::AWSCDK-EKS-FargateProfile",
            vec![entry("Config", map(config, span), span)],
            cx,
            span,
        );
        self.nodes[node].kind = Kind::Resource(r);
        if let Some(prev) = info.last_profile {
            self.resources[r].depends.push(prev);
        }
        self.resources[info.barrier].depends.push(r);
        self.join_cluster_stack(r, cluster);
        if let Kind::Cluster(c) = &mut self.nodes[cluster].kind {
            c.last_profile = Some(r);
        }
        node
    }

    fn profile(
        &mut self,
        cluster: usize,
        id: &str,
        opts: &Props<'_, '_>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        self.profile_in(cluster, id, cluster, opts, cx, span)
    }

    fn selectors_node(&self, v: &Val<'_>) -> Node {
        let V::Array(a) = &v.kind else {
            return unknown_node(v.span);
        };
        let a = a.borrow();
        if a.open {
            return unknown_node(v.span);
        }
        let items = a
            .items
            .iter()
            .map(|s| {
                let p = Props::of(s);
                if !matches!(s.kind, V::Object(_)) {
                    return unknown_node(s.span);
                }
                let mut out = Vec::new();
                match p.get("namespace") {
                    Some(ns) => out.push(entry("namespace", self.to_node(ns), ns.span)),
                    None if p.open => out.push(entry("namespace", unknown_node(s.span), s.span)),
                    None => {}
                }
                match p.get("labels") {
                    Some(l) => out.push(entry("labels", self.to_node(l), l.span)),
                    None if p.open => out.push(entry("labels", unknown_node(s.span), s.span)),
                    None => {}
                }
                map(out, s.span)
            })
            .collect();
        seq(items, v.span)
    }

    fn chart(
        &mut self,
        scope: usize,
        id: &str,
        cluster: usize,
        opts: &Props<'_, '_>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Scope, id, Some(scope));
        let Some(info) = self.cluster_info(cluster) else {
            return node;
        };
        let mut props = vec![entry("ClusterName", self.ref_node(cluster, span), span)];
        let release = match opts.get("release") {
            Some(r) => self.to_node(r),
            None => {
                let path = self.path(node);
                if path.iter().any(|p| p.starts_with(UNKNOWN_ID)) {
                    unknown_node(span)
                } else {
                    let id = unique_id(&path).to_lowercase();
                    let start = id.len().saturating_sub(53);
                    scalar(id.get(start..).unwrap_or(&id), span)
                }
            }
        };
        props.push(entry("Release", release, span));
        for (prop, key) in [
            ("chart", "Chart"),
            ("version", "Version"),
            ("repository", "Repository"),
        ] {
            if let Some(v) = opts.get(prop) {
                props.push(entry(key, self.to_node(v), v.span));
            } else if opts.open {
                props.push(entry(key, unknown_node(span), span));
            }
        }
        if let Some(asset) = opts.get("chartAsset") {
            props.push(entry("ChartAssetURL", unknown_node(asset.span), asset.span));
        }
        match opts.get("values") {
            Some(v) => props.push(entry("Values", self.to_node(v), v.span)),
            None if opts.open => props.push(entry("Values", unknown_node(span), span)),
            None => {}
        }
        match opts.get("namespace") {
            Some(ns) => props.push(entry("Namespace", self.to_node(ns), ns.span)),
            None if opts.open => props.push(entry("Namespace", unknown_node(span), span)),
            None => props.push(entry("Namespace", scalar("default", span), span)),
        }
        self.on_cluster(
            node,
            cluster,
            &info,
            "Custom::AWSCDK-EKS-HelmChart",
            props,
            cx,
            span,
        )
    }

    fn manifest(
        &mut self,
        scope: usize,
        id: &str,
        cluster: usize,
        objects: Node,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Scope, id, Some(scope));
        let Some(info) = self.cluster_info(cluster) else {
            return node;
        };
        let props = vec![
            entry("Manifest", objects, span),
            entry("ClusterName", self.ref_node(cluster, span), span),
        ];
        self.on_cluster(
            node,
            cluster,
            &info,
            "Custom::AWSCDK-EKS-KubernetesResource",
            props,
            cx,
            span,
        )
    }

    fn patch(
        &mut self,
        scope: usize,
        id: &str,
        cluster: usize,
        opts: &Props<'_, '_>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Scope, id, Some(scope));
        let Some(info) = self.cluster_info(cluster) else {
            return node;
        };
        let mut props = Vec::new();
        for (prop, key) in [
            ("resourceName", "ResourceName"),
            ("resourceNamespace", "ResourceNamespace"),
        ] {
            match opts.get(prop) {
                Some(v) => props.push(entry(key, self.to_node(v), v.span)),
                None if prop == "resourceNamespace" => {
                    props.push(entry(key, scalar("default", span), span))
                }
                None => props.push(entry(key, unknown_node(span), span)),
            }
        }
        match opts.get("applyPatch") {
            Some(v) => {
                let n = self.to_node(v);
                let json =
                    json_text(&n).map_or_else(|| unknown_node(v.span), |t| scalar(&t, v.span));
                props.push(entry("ApplyPatchJson", json, v.span));
            }
            None => props.push(entry("ApplyPatchJson", unknown_node(span), span)),
        }
        props.push(entry("ClusterName", self.ref_node(cluster, span), span));
        self.on_cluster(
            node,
            cluster,
            &info,
            "Custom::AWSCDK-EKS-KubernetesPatch",
            props,
            cx,
            span,
        )
    }

    fn nodegroup(
        &mut self,
        cluster: usize,
        id: &str,
        opts: &Props<'_, '_>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Scope, id, Some(cluster));
        let mut props = vec![entry("ClusterName", self.ref_node(cluster, span), span)];
        for (prop, key) in [
            ("nodegroupName", "NodegroupName"),
            ("labels", "Labels"),
            ("instanceTypes", "InstanceTypes"),
        ] {
            if let Some(v) = opts.get(prop) {
                props.push(entry(key, self.to_node(v), v.span));
            }
        }
        if let Some(t) = opts.get("taints") {
            props.push(entry("Taints", pascal(self.to_node(t)), t.span));
        }
        let size = |p: &str| opts.get(p);
        let mut scaling = Vec::new();
        for (prop, key) in [
            ("desiredSize", "DesiredSize"),
            ("maxSize", "MaxSize"),
            ("minSize", "MinSize"),
        ] {
            if let Some(v) = size(prop) {
                scaling.push(entry(key, self.to_node(v), v.span));
            }
        }
        if size("minSize").is_none() && size("desiredSize").is_none() {
            scaling.push(entry("MinSize", scalar_plain("1", span), span));
        }
        props.push(entry("ScalingConfig", map(scaling, span), span));
        // The construct's CloudFormation resource is its child `NodeGroup`.
        let r = self.resource(
            node,
            vec!["NodeGroup".into()],
            "AWS::EKS::Nodegroup",
            props,
            cx,
            span,
        );
        self.nodes[node].kind = Kind::Resource(r);
        node
    }

    fn alb_controller(&mut self, cluster: usize, alb: &Val<'_>, cx: &Cx, span: Span) {
        let opts = Props::of(alb);
        let version = match opts.get("version").map(|v| &v.kind) {
            Some(V::Lib(p)) => p
                .rsplit('.')
                .next()
                .and_then(|v| v.strip_prefix('V'))
                .and_then(alb_chart_version),
            _ => None,
        };
        // A singleton of the stack named after the cluster.
        let Some(info) = self.cluster_info(cluster) else {
            return;
        };
        let id = format!("{}-AlbController", unique_id(&self.path(cluster)));
        let stack = self.stack_of(cluster).unwrap_or(cluster);
        let node = self.add(Kind::Scope, &id, Some(stack));
        let version = version.map_or_else(|| unknown_node(span), |v| scalar(v, span));
        let cluster_name = match self
            .resources
            .get(info.resource)
            .and_then(|r| r.props.first().and_then(|c| c.value.get("name")).cloned())
        {
            Some(n) => n,
            None => unknown_node(span),
        };
        let values = map(
            vec![
                entry("clusterName", cluster_name, span),
                entry(
                    "serviceAccount",
                    map(
                        vec![
                            entry("create", scalar_plain("false", span), span),
                            entry("name", scalar("aws-load-balancer-controller", span), span),
                        ],
                        span,
                    ),
                    span,
                ),
                entry("region", unknown_node(span), span),
                entry("vpcId", unknown_node(span), span),
                entry("image", unknown_node(span), span),
            ],
            span,
        );
        let props = vec![
            entry("ClusterName", self.ref_node(cluster, span), span),
            entry(
                "Release",
                scalar("aws-load-balancer-controller", span),
                span,
            ),
            entry("Chart", scalar("aws-load-balancer-controller", span), span),
            entry("Version", version, span),
            entry("Values", values, span),
            entry("Namespace", scalar("kube-system", span), span),
            entry(
                "Repository",
                scalar("https://aws.github.io/eks-charts", span),
                span,
            ),
        ];
        let r = self.resource(
            node,
            vec!["Resource".into(), "Resource".into()],
            "Custom::AWSCDK-EKS-HelmChart",
            props,
            cx,
            span,
        );
        self.resources[r].depends.push(info.barrier);
        self.join_cluster_stack(r, cluster);
    }

    /// The one resource of a construct that acts on `cluster` through
    /// kubectl (a chart, manifest or patch): it waits for the cluster's
    /// `KubectlReadyBarrier`, and goes where the cluster's stack is.
    #[allow(clippy::too_many_arguments)]
    fn on_cluster(
        &mut self,
        node: usize,
        cluster: usize,
        info: &ClusterInfo,
        ty: &'static str,
        props: Vec<Entry>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let r = self.resource(node, vec!["Resource".into()], ty, props, cx, span);
        self.resources[r].depends.push(info.barrier);
        self.join_cluster_stack(r, cluster);
        self.nodes[node].kind = Kind::Resource(r);
        node
    }

    /// Each construct's place in the tree's depth-first order, children in
    /// the order they were made.
    fn preorder(&self) -> Vec<usize> {
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); self.nodes.len()];
        let mut roots = Vec::new();
        for (i, n) in self.nodes.iter().enumerate() {
            match n.parent {
                Some(p) if p < self.nodes.len() && p != i => children[p].push(i),
                _ => roots.push(i),
            }
        }
        let mut order = vec![usize::MAX; self.nodes.len()];
        let mut next = 0;
        let mut stack: Vec<usize> = roots.into_iter().rev().collect();
        while let Some(n) = stack.pop() {
            if order[n] != usize::MAX {
                continue;
            }
            order[n] = next;
            next += 1;
            stack.extend(children[n].iter().rev());
        }
        order
    }

    /// An L1 construct (`CfnCluster`): its props as CloudFormation
    /// properties, keys in Pascal case.
    fn cfn(
        &mut self,
        scope: usize,
        id: &str,
        ty: &'static str,
        props: &Props<'_, '_>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Scope, id, Some(scope));
        let mut out = Vec::new();
        if let Some(obj) = props.obj.as_deref().or(props.owned.as_ref()) {
            for (k, kspan, v) in &obj.entries {
                let key = pascal_key(&camel(k));
                out.push(entry(&key, pascal(self.to_node(v)), *kspan));
            }
        }
        // An L1's logical ID is its own path.
        let r = self.resource(node, Vec::new(), ty, out, cx, span);
        self.nodes[node].kind = Kind::Resource(r);
        node
    }

    /// A value as a template node; what is not known is a reference to a
    /// value CloudFormation cannot resolve here.
    fn to_node(&self, v: &Val<'_>) -> Node {
        value_node(v, 0, &|h, span| match self.nodes.get(h).map(|n| &n.kind) {
            Some(Kind::Ref(r, None)) => self
                .resources
                .get(*r)
                .map(|res| map(vec![entry("Ref", scalar(&res.logical, span), span)], span)),
            _ => None,
        })
    }
}

/// Whether `n` is `ancestor` or inside it, by `parent`.
pub(super) fn is_below(
    mut n: usize,
    ancestor: usize,
    parent: impl Fn(usize) -> Option<usize>,
) -> bool {
    for _ in 0..256 {
        if n == ancestor {
            return true;
        }
        match parent(n) {
            Some(p) => n = p,
            None => return false,
        }
    }
    false
}

/// A value as a template node: a handle as `handle` writes it; what is not
/// known (an open object, a value not computed) is unknown.
pub(super) fn value_node(
    v: &Val<'_>,
    depth: usize,
    handle: &dyn Fn(usize, Span) -> Option<Node>,
) -> Node {
    let span = v.span;
    if depth > 128 {
        return unknown_node(span);
    }
    match &v.kind {
        V::Str(s) => scalar(s, span),
        V::Num(n, written) => scalar_plain(
            written
                .as_deref()
                .map_or_else(|| number_text(*n), str::to_string)
                .as_str(),
            span,
        ),
        V::Bool(b) => scalar_plain(if *b { "true" } else { "false" }, span),
        V::Null => scalar_plain("null", span),
        V::Array(a) => {
            let a = a.borrow();
            if a.open {
                return unknown_node(span);
            }
            let items = a.items.iter();
            seq(
                items.map(|x| value_node(x, depth + 1, handle)).collect(),
                span,
            )
        }
        V::Object(o) => {
            let o = o.borrow();
            if o.open {
                return unknown_node(span);
            }
            let entries = o
                .entries
                .iter()
                .filter(|(_, _, x)| !matches!(x.kind, V::Undefined))
                .map(|(k, ks, x)| Entry {
                    key: scalar(k, *ks),
                    value: value_node(x, depth + 1, handle),
                });
            map(entries.collect(), span)
        }
        V::Handle(h) => handle(*h, span).unwrap_or_else(|| unknown_node(span)),
        V::Lib(p) => match enum_text(p) {
            Some(t) => scalar(&t, span),
            None => unknown_node(span),
        },
        _ => unknown_node(span),
    }
}

/// A construct's props: the object passed (TypeScript) or the keyword
/// arguments (Python), keys looked up in both spellings.
pub(super) struct Props<'a, 'm> {
    obj: Option<std::cell::Ref<'a, Object<'m>>>,
    pub(super) open: bool,
    pub(super) default_selectors: bool,
    owned: Option<Object<'m>>,
    span: Span,
}

impl<'a, 'm> Props<'a, 'm> {
    pub(super) fn of(v: &'a Val<'m>) -> Props<'a, 'm> {
        match &v.kind {
            V::Object(o) => {
                let b = o.borrow();
                let open = b.open;
                Props {
                    obj: Some(b),
                    open,
                    default_selectors: false,
                    owned: None,
                    span: v.span,
                }
            }
            V::Undefined | V::Null => Props::empty(v.span),
            _ => Props {
                obj: None,
                open: true,
                default_selectors: false,
                owned: None,
                span: v.span,
            },
        }
    }

    pub(super) fn empty(span: Span) -> Props<'a, 'm> {
        Props {
            obj: None,
            open: false,
            default_selectors: false,
            owned: None,
            span,
        }
    }

    fn clone_props(&self) -> Props<'a, 'm> {
        Props {
            obj: None,
            open: self.open,
            default_selectors: self.default_selectors,
            owned: self.obj.as_deref().cloned().or_else(|| self.owned.clone()),
            span: self.span,
        }
    }

    /// The prop, by its camel-case name or its Python spelling; `None` when
    /// absent (or unknown: check `open`).
    pub(super) fn get(&self, key: &str) -> Option<&Val<'m>> {
        let obj = self.obj.as_deref().or(self.owned.as_ref())?;
        let v = obj.get(key).or_else(|| obj.get(&snake(key)))?;
        (!matches!(v.kind, V::Undefined)).then_some(v)
    }
}

/// The props of a construct call: the third positional argument, or the
/// keyword arguments.
pub(super) fn props_arg<'m>(args: &Args<'m>, at: usize) -> Val<'m> {
    if !args.keywords.is_empty() {
        let entries = args
            .keywords
            .iter()
            .map(|(k, s, v)| (camel(k), *s, v.clone()))
            .collect();
        let mut obj = Object {
            entries,
            open: args.open,
        };
        // A props object passed positionally too (rare): merge it first.
        if let Some(V::Object(o)) = args.positional.get(at).map(|v| &v.kind) {
            let mut first = o.borrow().clone();
            first.entries.append(&mut obj.entries);
            obj.entries = first.entries;
            obj.open |= first.open;
        }
        return V::Object(Rc::new(std::cell::RefCell::new(obj))).at(args.span);
    }
    match args.positional.get(at) {
        Some(v) => v.clone(),
        None if args.open => unknown_at(args.span),
        None => V::Undefined.at(args.span),
    }
}

/// A construct's id; one the program computes in a way fplint does not
/// gets a stand-in that no real id has (see [`UNKNOWN_ID`]), so the
/// construct is still read.
fn id_arg(args: &Args<'_>, at: usize) -> Option<String> {
    let v = args.positional.get(at)?;
    Some(
        v.as_str()
            .map_or_else(|| format!("{UNKNOWN_ID}{}", v.span.start), str::to_string),
    )
}

/// Starts the stand-in for an id that is not known: names made from it
/// (a chart's release) are unknown.
const UNKNOWN_ID: char = '\u{0}';

impl<'m> Host<'m> for Cdk {
    fn library_of(&self, module: &str, _span: Span) -> Option<String> {
        library_path(module)
    }

    fn base(&mut self, path: &str, args: Args<'m>, _cx: &Cx) -> Option<usize> {
        let scope = self.scope_of(args.positional.first());
        let id = id_arg(&args, 1);
        let kind = match path {
            "cdk.App" => return Some(self.add(Kind::App, "", None)),
            "cdk.Stack" | "cdk.NestedStack" => Kind::Stack,
            "cdk.Stage" => Kind::Scope,
            "constructs.Construct" | "cdk.Construct" => Kind::Scope,
            _ => {
                self.gap(
                    args.span,
                    format!(
                        "a construct extends `{}`, which fplint does not model",
                        short(path)
                    ),
                );
                Kind::Scope
            }
        };
        let id = id.unwrap_or_else(|| "?".into());
        if scope.is_none() && !matches!(kind, Kind::Stack) {
            return None;
        }
        Some(self.add(kind, &id, scope))
    }

    fn construct(&mut self, path: &str, args: Args<'m>, cx: &Cx) -> Val<'m> {
        if super::blueprints::is_blueprints(path) {
            return super::blueprints::construct(self, path, args, cx);
        }
        let span = args.span;
        let class = path.strip_prefix("cdk.aws_eks.").unwrap_or("");
        let handle = |h: usize| V::Handle(h).at(span);
        match path {
            "cdk.App" => return handle(self.add(Kind::App, "", None)),
            "cdk.Stack" => {
                let scope = self.scope_of(args.positional.first());
                let id = id_arg(&args, 1).unwrap_or_else(|| "?".into());
                return handle(self.add(Kind::Stack, &id, scope));
            }
            _ => {}
        }
        let scope = self.scope_of(args.positional.first());
        let id = id_arg(&args, 1);
        let props = props_arg(&args, 2);
        let (Some(scope), Some(id)) = (scope, id) else {
            // Structs (`eks.Selector(namespace=…)`,
            // `CfnFargateProfile.SelectorProperty(…)`) are their props.
            if path.starts_with("cdk.aws_eks.") && is_construct(class) {
                self.gap(
                    span,
                    format!("`{}` is made in a way fplint does not follow", short(path)),
                );
                return unknown_at(span);
            }
            if !args.keywords.is_empty() && args.positional.is_empty() {
                return props_arg(&args, 0);
            }
            return unknown_at(span);
        };
        let p = Props::of(&props);
        let h = match path {
            "cdk.aws_eks.FargateCluster" => self.new_cluster(scope, &id, &p, true, cx, span),
            "cdk.aws_eks.Cluster" => self.new_cluster(scope, &id, &p, false, cx, span),
            "cdk.aws_eks.FargateProfile" => match self.cluster_of(p.get("cluster")) {
                Some((c, _)) => self.profile_in(scope, &id, c, &p, cx, span),
                None => {
                    self.gap(span, "a Fargate profile's cluster is not known");
                    self.add(Kind::Scope, &id, Some(scope))
                }
            },
            "cdk.aws_eks.HelmChart" => match self.cluster_of(p.get("cluster")) {
                Some((c, _)) => self.chart(scope, &id, c, &p, cx, span),
                None => {
                    self.gap(span, "a Helm chart's cluster is not known");
                    self.add(Kind::Scope, &id, Some(scope))
                }
            },
            "cdk.aws_eks.KubernetesManifest" => match self.cluster_of(p.get("cluster")) {
                Some((c, _)) => {
                    let objects = match p.get("manifest") {
                        Some(m) => self.to_node(m),
                        None => unknown_node(span),
                    };
                    self.manifest(scope, &id, c, objects, cx, span)
                }
                None => {
                    self.gap(span, "a manifest's cluster is not known");
                    self.add(Kind::Scope, &id, Some(scope))
                }
            },
            "cdk.aws_eks.KubernetesPatch" => match self.cluster_of(p.get("cluster")) {
                Some((c, _)) => self.patch(scope, &id, c, &p, cx, span),
                None => {
                    self.gap(span, "a patch's cluster is not known");
                    self.add(Kind::Scope, &id, Some(scope))
                }
            },
            "cdk.aws_eks.CfnCluster" => self.cfn(scope, &id, "AWS::EKS::Cluster", &p, cx, span),
            "cdk.aws_eks.CfnFargateProfile" => {
                self.cfn(scope, &id, "AWS::EKS::FargateProfile", &p, cx, span)
            }
            "cdk.aws_eks.CfnNodegroup" => self.cfn(scope, &id, "AWS::EKS::Nodegroup", &p, cx, span),
            "cdk.aws_eks.CfnAddon" => self.cfn(scope, &id, "AWS::EKS::Addon", &p, cx, span),
            "cdk.aws_eks.CfnPodIdentityAssociation" => {
                self.cfn(scope, &id, "AWS::EKS::PodIdentityAssociation", &p, cx, span)
            }
            // Nodes of no cluster until `connectAutoScalingGroupCapacity`
            // joins them to one.
            "cdk.aws_autoscaling.AutoScalingGroup" => {
                let node = self.add(Kind::Scope, &id, Some(scope));
                let r = self.resource(
                    node,
                    vec!["ASG".into()],
                    "AWS::AutoScaling::AutoScalingGroup",
                    Vec::new(),
                    cx,
                    span,
                );
                self.nodes[node].kind = Kind::Resource(r);
                node
            }
            "cdk.aws_ec2.Instance" => {
                let node = self.add(Kind::Scope, &id, Some(scope));
                let r = self.resource(
                    node,
                    vec!["Resource".into()],
                    "AWS::EC2::Instance",
                    Vec::new(),
                    cx,
                    span,
                );
                self.nodes[node].kind = Kind::Resource(r);
                node
            }
            _ => self.add(Kind::Scope, &id, Some(scope)),
        };
        drop(p);
        handle(h)
    }

    fn call(&mut self, path: &str, args: Args<'m>, cx: &Cx) -> Val<'m> {
        if super::blueprints::is_blueprints(path) {
            return super::blueprints::call(self, path, args, cx);
        }
        match path {
            // `KubernetesVersion.of('1.33')`.
            "cdk.aws_eks.KubernetesVersion.of" => match args.positional.first() {
                Some(
                    v @ Val {
                        kind: V::Str(_), ..
                    },
                ) => v.clone(),
                _ => unknown_at(args.span),
            },
            _ => unknown_at(args.span),
        }
    }

    fn method(&mut self, handle: usize, name: &str, args: Args<'m>, cx: &Cx) -> Val<'m> {
        if self.blueprints.owns(handle) {
            return super::blueprints::method(self, handle, name, args, cx);
        }
        let span = args.span;
        let Some(node) = self.nodes.get(handle).cloned() else {
            return unknown_at(span);
        };
        let is_cluster = matches!(node.kind, Kind::Cluster(_));
        let id = id_arg(&args, 0);
        let h = |h: usize| V::Handle(h).at(span);
        match (name, is_cluster, id) {
            ("addFargateProfile", true, Some(id)) => {
                let props = props_arg(&args, 1);
                let p = Props::of(&props);
                let r = self.profile(handle, &format!("fargate-profile-{id}"), &p, cx, span);
                drop(p);
                h(r)
            }
            ("addHelmChart", true, Some(id)) => {
                let props = props_arg(&args, 1);
                let p = Props::of(&props);
                let r = self.chart(handle, &format!("chart-{id}"), handle, &p, cx, span);
                drop(p);
                h(r)
            }
            ("addManifest", true, Some(id)) => {
                if args.open
                    || args.positional[1..]
                        .iter()
                        .any(|v| !matches!(v.kind, V::Object(_)))
                {
                    self.gap(span, "a manifest's objects are not known");
                }
                let objects: Vec<Node> = args.positional[1..]
                    .iter()
                    .map(|v| self.to_node(v))
                    .collect();
                let objects = if args.open {
                    unknown_node(span)
                } else {
                    seq(objects, span)
                };
                h(self.manifest(handle, &format!("manifest-{id}"), handle, objects, cx, span))
            }
            // `addNodegroup` is CDK v1's name.
            ("addNodegroupCapacity" | "addNodegroup", true, Some(id)) => {
                let props = props_arg(&args, 1);
                let p = Props::of(&props);
                let r = self.nodegroup(handle, &format!("Nodegroup{id}"), &p, cx, span);
                drop(p);
                h(r)
            }
            ("connectAutoScalingGroupCapacity", true, _) => {
                let asg = self.scope_of(args.positional.first());
                match asg.map(|a| self.resources_of(a)).as_deref() {
                    Some([r]) if self.resources[*r].ty == "AWS::AutoScaling::AutoScalingGroup" => {
                        let tags = self.owner_tags(handle, span);
                        self.resources[*r].props.push(entry("Tags", tags, span));
                    }
                    _ => self.gap(
                        span,
                        "the Auto Scaling group joined to the cluster is not known",
                    ),
                }
                V::Undefined.at(span)
            }
            // `addCapacity` is CDK v1's name.
            ("addAutoScalingGroupCapacity" | "addCapacity", true, id) => {
                let props = props_arg(&args, 1);
                let p = Props::of(&props);
                let mut out = Vec::new();
                for (prop, key) in [("minCapacity", "MinSize"), ("maxCapacity", "MaxSize")] {
                    if let Some(v) = p.get(prop) {
                        out.push(entry(key, self.to_node(v), v.span));
                    }
                }
                drop(p);
                out.push(entry("Tags", self.owner_tags(handle, span), span));
                let id = id.unwrap_or_else(|| "Capacity".into());
                let node = self.add(Kind::Scope, &id, Some(handle));
                let r = self.resource(
                    node,
                    vec!["ASG".into()],
                    "AWS::AutoScaling::AutoScalingGroup",
                    out,
                    cx,
                    span,
                );
                self.nodes[node].kind = Kind::Resource(r);
                h(node)
            }
            ("addServiceAccount", true, _) => unknown_at(span),
            ("addCdk8sChart", true, _) => {
                self.gap(span, "a cdk8s chart's objects are not read");
                unknown_at(span)
            }
            // `this.node.tryGetContext('k')`: the value `cdk.json` commits;
            // a key it does not hold may be given on the command line.
            ("tryGetContext", _, Some(key)) => {
                match self.context.as_ref().and_then(|c| c.get(&key)) {
                    Some(v) => node_value(v, 0),
                    None => unknown_at(span),
                }
            }
            ("addDependency", _, _) => {
                self.depend(handle, &args);
                V::Undefined.at(span)
            }
            _ => {
                if is_cluster && !READ_ONLY_CLUSTER_METHODS.contains(&name) {
                    // It may give the cluster nodes: its capacity is unknown.
                    self.gap(span, format!("`{name}` on a cluster is not read"));
                    self.unread_capacity(handle, name, cx, span);
                }
                unknown_at(span)
            }
        }
    }

    fn member(&mut self, handle: usize, name: &str, span: Span) -> Val<'m> {
        let Some(node) = self.nodes.get(handle).cloned() else {
            return unknown_at(span);
        };
        match (&node.kind, name) {
            // `construct.node.addDependency(…)` acts on the construct.
            (_, "node") => V::Handle(handle).at(span),
            (Kind::Cluster(c), "clusterName") => {
                let r = self.add(Kind::Ref(c.resource, None), "", None);
                V::Handle(r).at(span)
            }
            (Kind::Resource(r), "ref") => {
                let r = self.add(Kind::Ref(*r, None), "", None);
                V::Handle(r).at(span)
            }
            _ => unknown_at(span),
        }
    }
}

impl Cdk {
    /// `a.node.addDependency(b)`, `a.addDependency(b)`: `a`'s resources wait
    /// for `b`'s.
    fn depend(&mut self, from: usize, args: &Args<'_>) {
        let from = self.resources_of(from);
        for v in &args.positional {
            let Some(to) = self.scope_of(Some(v)) else {
                continue;
            };
            let to = self.resources_of(to);
            for &f in &from {
                for &t in &to {
                    if f != t && !self.resources[f].depends.contains(&t) {
                        self.resources[f].depends.push(t);
                    }
                }
            }
        }
    }

    /// The resources a construct is, or holds.
    fn resources_of(&self, n: usize) -> Vec<usize> {
        match self.nodes.get(n).map(|n| &n.kind) {
            Some(Kind::Resource(r)) => vec![*r],
            Some(Kind::Cluster(c)) => vec![c.resource],
            Some(Kind::Scope) => {
                // A construct of the program: every resource below it.
                let mut out = Vec::new();
                for (i, node) in self.nodes.iter().enumerate() {
                    if self.is_below(i, n) && i != n {
                        match &node.kind {
                            Kind::Resource(r) => out.push(*r),
                            Kind::Cluster(c) => out.push(c.resource),
                            _ => {}
                        }
                    }
                }
                out
            }
            _ => Vec::new(),
        }
    }

    fn is_below(&self, n: usize, ancestor: usize) -> bool {
        is_below(n, ancestor, |x| self.nodes.get(x).and_then(|x| x.parent))
    }
}

/// A value of `cdk.json` as the program sees it.
pub(super) fn node_value<'m>(n: &Node, depth: usize) -> Val<'m> {
    let span = n.span;
    if depth > 64 {
        return unknown_at(span);
    }
    let kind = match &n.kind {
        NodeKind::Scalar(s, ScalarStyle::Plain) => match &**s {
            "true" => V::Bool(true),
            "false" => V::Bool(false),
            "null" => V::Null,
            t => match t.parse::<f64>() {
                Ok(x) => V::Num(x, Some(t.into())),
                Err(_) => V::Str(t.into()),
            },
        },
        NodeKind::Scalar(s, _) => V::Str(s.as_ref().into()),
        NodeKind::Seq(items) => V::Array(Rc::new(std::cell::RefCell::new(super::eval::Array {
            items: items.iter().map(|i| node_value(i, depth + 1)).collect(),
            open: false,
        }))),
        NodeKind::Map(entries) => V::Object(Rc::new(std::cell::RefCell::new(Object {
            entries: entries
                .iter()
                .map(|e| {
                    (
                        e.key.scalar().unwrap_or_default().to_string(),
                        e.key.span,
                        node_value(&e.value, depth + 1),
                    )
                })
                .collect(),
            open: false,
        }))),
    };
    Val { kind, span }
}

/// Methods of a cluster that declare nothing, or nothing that runs pods
/// or gives the cluster nodes: any other method not read may give it
/// capacity.
const READ_ONLY_CLUSTER_METHODS: &[&str] = &[
    "addServiceAccount",
    "addCdk8sChart",
    "addManifest",
    "addHelmChart",
    "addFargateProfile",
    "addNodegroupCapacity",
    "addAutoScalingGroupCapacity",
    "connectAutoScalingGroupCapacity",
    "grantAccess",
    "grantClusterAdmin",
    "getServiceLoadBalancerAddress",
    "getIngressLoadBalancerAddress",
    "addAlias",
    "toString",
    "tryGetContext",
    "addDependency",
    "synth",
];

/// An EKS construct fplint reads (not a struct of its props).
fn is_construct(class: &str) -> bool {
    matches!(
        class,
        "FargateCluster"
            | "Cluster"
            | "FargateProfile"
            | "HelmChart"
            | "KubernetesManifest"
            | "KubernetesPatch"
    ) || class.starts_with("Cfn") && !class.contains('.')
}

/// The library path a module's import names: AWS CDK v2 and v1 in both
/// languages share one spelling (`cdk`, `cdk.aws_eks`).
pub fn library_path(module: &str) -> Option<String> {
    let m = module.trim();
    if m == "aws-cdk-lib" || m == "aws_cdk" || m == "@aws-cdk/core" || m == "aws_cdk.core" {
        return Some("cdk".into());
    }
    if let Some(rest) = m
        .strip_prefix("aws-cdk-lib/")
        .or_else(|| m.strip_prefix("@aws-cdk/"))
    {
        return Some(format!("cdk.{}", rest.replace('-', "_")));
    }
    if let Some(rest) = m.strip_prefix("aws_cdk.") {
        return Some(format!("cdk.{rest}"));
    }
    if m == "constructs" {
        return Some("constructs".into());
    }
    if m.starts_with('.') {
        return None;
    }
    Some(format!("lib:{m}"))
}

fn short(path: &str) -> &str {
    path.strip_prefix("cdk.").unwrap_or(path)
}

/// The text of a CDK enum member the templates hold.
fn enum_text(path: &str) -> Option<String> {
    let member = path.rsplit('.').next()?;
    if path.contains("KubernetesVersion.V") {
        return Some(member.trim_start_matches('V').replace('_', "."));
    }
    None
}

fn version_node(v: &Val<'_>) -> Node {
    match &v.kind {
        V::Lib(p) => match enum_text(p) {
            Some(t) => scalar(&t, v.span),
            None => unknown_node(v.span),
        },
        V::Str(s) => scalar(s, v.span),
        _ => unknown_node(v.span),
    }
}

/// The Helm chart version CDK installs for a load balancer controller
/// version (`AlbControllerVersion.V2_8_2`), from aws-cdk-lib's table.
fn alb_chart_version(v: &str) -> Option<&'static str> {
    Some(match v {
        "2_0_0" => "1.2.7",
        "2_0_1" => "1.2.7",
        "2_1_0" => "1.3.3",
        "2_1_1" => "1.3.3",
        "2_1_2" => "1.3.3",
        "2_1_3" => "1.3.3",
        "2_2_0" => "1.4.1",
        "2_2_1" => "1.4.1",
        "2_2_2" => "1.4.1",
        "2_2_3" => "1.4.1",
        "2_2_4" => "1.4.1",
        "2_3_0" => "1.4.1",
        "2_3_1" => "1.4.1",
        "2_4_1" => "1.4.1",
        "2_4_2" => "1.4.1",
        "2_4_3" => "1.4.1",
        "2_4_4" => "1.4.1",
        "2_4_5" => "1.4.1",
        "2_4_6" => "1.4.1",
        "2_4_7" => "1.4.1",
        "2_5_1" => "1.4.1",
        "2_6_0" => "1.6.0",
        "2_6_1" => "1.6.1",
        "2_6_2" => "1.6.2",
        "2_7_0" => "1.7.0",
        "2_7_1" => "1.7.1",
        "2_7_2" => "1.7.2",
        "2_8_0" => "1.8.0",
        "2_8_1" => "1.8.1",
        "2_8_2" => "1.8.2",
        _ => return None,
    })
}

/// CDK's logical ID for a construct path below its stack
/// (`makeUniqueId` in aws-cdk-lib's core): the path's ids without
/// `Default` and `Resource`, letters and digits only, and an MD5 hash of
/// the whole path; a top-level id alone is its own ID.
pub fn unique_id(components: &[String]) -> String {
    let comps: Vec<&str> = components
        .iter()
        .map(String::as_str)
        .filter(|c| *c != "Default")
        .collect();
    let alnum = |s: &str| {
        s.chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
    };
    if comps.len() == 1 {
        return alnum(comps[0]);
    }
    let digest = Md5::digest(comps.join("/").as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02X}")).collect();
    let mut human = String::new();
    let mut prev: Option<&str> = None;
    for c in &comps {
        if prev == Some(*c) {
            continue;
        }
        prev = Some(c);
        if *c != "Resource" {
            human.push_str(&alnum(c));
        }
    }
    let cut: String = human.chars().take(240).collect();
    format!("{cut}{hash}")
}

/// The tag that makes an Auto Scaling group's nodes the EC2 capacity of
/// the cluster `cluster` refers to: `kubernetes.io/cluster/<name>: owned`.
pub(super) fn owner_tags(cluster: Node, span: Span) -> Node {
    let key = map(
        vec![entry(
            "Fn::Join",
            seq(
                vec![
                    scalar("", span),
                    seq(vec![scalar("kubernetes.io/cluster/", span), cluster], span),
                ],
                span,
            ),
            span,
        )],
        span,
    );
    seq(
        vec![map(
            vec![
                entry("Key", key, span),
                entry("PropagateAtLaunch", scalar_plain("true", span), span),
                entry("Value", scalar("owned", span), span),
            ],
            span,
        )],
        span,
    )
}

/// One resource as its template writes it.
pub(super) struct Written<'a> {
    pub logical: &'a str,
    pub ty: &'a str,
    pub props: Vec<Entry>,
    pub depends: Vec<&'a str>,
    /// The innermost unknown branch it is declared under.
    pub condition: Option<(u32, bool)>,
    pub span: Span,
}

/// A CloudFormation template of `resources`, in order: each branch not
/// known is a condition (its `else` the condition's negation).
pub(super) fn template_of(resources: Vec<Written<'_>>, span: Span) -> Node {
    let mut out = Vec::new();
    let mut conditions: Vec<(String, bool)> = Vec::new();
    for r in resources {
        let mut body = vec![entry("Type", scalar(r.ty, r.span), r.span)];
        if !r.props.is_empty() {
            body.push(entry("Properties", map(r.props, r.span), r.span));
        }
        let deps: Vec<Node> = r.depends.iter().map(|d| scalar(d, r.span)).collect();
        if !deps.is_empty() {
            body.push(entry("DependsOn", seq(deps, r.span), r.span));
        }
        if let Some((id, otherwise)) = r.condition {
            let name = condition_name(id, otherwise);
            if !conditions.iter().any(|(c, _)| *c == name) {
                conditions.push((name.clone(), otherwise));
            }
            body.push(entry("Condition", scalar(&name, r.span), r.span));
        }
        out.push(Entry {
            key: scalar(r.logical, r.span),
            value: map(body, r.span),
        });
    }
    let mut top = Vec::new();
    if !conditions.is_empty() {
        let mut defs = Vec::new();
        for (name, otherwise) in &conditions {
            // `Cn` is not known here; `CnElse` is its negation.
            let def = if *otherwise {
                let base = name.trim_end_matches("Else");
                let not = map(vec![entry("Condition", scalar(base, span), span)], span);
                map(vec![entry("Fn::Not", seq(vec![not], span), span)], span)
            } else {
                unknown_node(span)
            };
            defs.push(entry(name, def, span));
        }
        // A negation needs what it negates.
        for (name, otherwise) in &conditions {
            let base = name.trim_end_matches("Else");
            if *otherwise && !conditions.iter().any(|(c, _)| c == base) {
                defs.push(entry(base, unknown_node(span), span));
            }
        }
        top.push(entry("Conditions", map(defs, span), span));
    }
    top.push(entry("Resources", map(out, span), span));
    map(top, span)
}

fn condition_name(id: u32, otherwise: bool) -> String {
    let id = if id == u32::MAX {
        "Unknown".to_string()
    } else {
        id.to_string()
    };
    format!("FplintBranch{id}{}", if otherwise { "Else" } else { "" })
}

pub(super) fn snake(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

pub(super) fn pascal_key(k: &str) -> String {
    let mut c = k.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Keys of an L1's nested props in CloudFormation's Pascal case.
pub(super) fn pascal(node: Node) -> Node {
    let span = node.span;
    match node.kind {
        NodeKind::Map(entries) if !is_intrinsic(&entries) => map(
            entries
                .into_iter()
                .map(|e| {
                    let key = e.key.scalar().map(|k| pascal_key(&camel(k)));
                    Entry {
                        key: match key {
                            Some(k) => scalar(&k, e.key.span),
                            None => e.key,
                        },
                        value: pascal(e.value),
                    }
                })
                .collect(),
            span,
        ),
        NodeKind::Seq(items) => seq(items.into_iter().map(pascal).collect(), span),
        kind => Node {
            kind,
            span,
            tag: None,
        },
    }
}

fn is_intrinsic(entries: &[Entry]) -> bool {
    matches!(entries, [e] if e.key.scalar().is_some_and(|k| k == "Ref" || k.starts_with("Fn::")))
}

/// JSON text of a node with no unknown part.
pub(super) fn json_text(n: &Node) -> Option<String> {
    match &n.kind {
        NodeKind::Scalar(s, ScalarStyle::Plain) => Some(s.to_string()),
        NodeKind::Scalar(s, _) => Some(format!(
            "\"{}\"",
            s.replace('\\', "\\\\").replace('"', "\\\"")
        )),
        NodeKind::Seq(items) => {
            let parts: Option<Vec<String>> = items.iter().map(json_text).collect();
            Some(format!("[{}]", parts?.join(",")))
        }
        NodeKind::Map(entries) => {
            if is_intrinsic(entries) {
                return None;
            }
            let parts: Option<Vec<String>> = entries
                .iter()
                .map(|e| Some(format!("\"{}\":{}", e.key.scalar()?, json_text(&e.value)?)))
                .collect();
            Some(format!("{{{}}}", parts?.join(",")))
        }
    }
}

pub(super) fn scalar(s: &str, span: Span) -> Node {
    Node {
        kind: NodeKind::Scalar(s.into(), ScalarStyle::Quoted),
        span,
        tag: None,
    }
}

pub(super) fn scalar_plain(s: &str, span: Span) -> Node {
    Node {
        kind: NodeKind::Scalar(s.into(), ScalarStyle::Plain),
        span,
        tag: None,
    }
}

pub(super) fn seq(items: Vec<Node>, span: Span) -> Node {
    Node {
        kind: NodeKind::Seq(items),
        span,
        tag: None,
    }
}

pub(super) fn map(entries: Vec<Entry>, span: Span) -> Node {
    Node {
        kind: NodeKind::Map(entries),
        span,
        tag: None,
    }
}

pub(super) fn entry(key: &str, value: Node, span: Span) -> Entry {
    Entry {
        key: scalar(key, span),
        value,
    }
}

/// A value the program computes that fplint does not: an import
/// CloudFormation resolves only when deployed, so the template frontend
/// reads it as unknown.
pub fn unknown_node(span: Span) -> Node {
    // Each its own: two values not computed are not the same value.
    let name = format!("fplint:not-computed@{}", span.start);
    map(
        vec![entry("Fn::ImportValue", scalar(&name, span), span)],
        span,
    )
}

#[cfg(test)]
#[path = "cdk_tests.rs"]
pub(super) mod tests;
