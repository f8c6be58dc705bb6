//! Pulumi's EKS and Kubernetes resources, written as the CloudFormation
//! template that declares the same, so the CloudFormation frontend reads
//! them into the model as it reads a CDK app's.
//!
//! What is read: `aws.eks.Cluster`, `FargateProfile`, `NodeGroup` and
//! `Addon`; `@pulumi/eks`'s `Cluster` (with `fargate`), `ManagedNodeGroup`,
//! `NodeGroup`/`NodeGroupV2` and `Addon`; `kubernetes.Provider`,
//! `kubernetes.helm.v3.Release`, `helm.v3.Chart`, `helm.v4.Chart`, and
//! typed objects (`kubernetes.apps.v1.Deployment`).
//!
//! Pulumi creates resources in parallel, each once what it depends on
//! exists: the outputs it reads (`cluster.name`), `dependsOn`, its
//! provider's own inputs, and for a component (such as `@pulumi/eks`'s
//! `Cluster`) every resource inside it. Those are the `DependsOn` of the
//! template, so a release that waits for the cluster but not for its
//! profile is seen as racing it.
//!
//! What `@pulumi/eks` adds, as pinned in its source (4.x):
//! - `fargate: true` (or `{selectors}`): a profile `<name>-fargateProfile`
//!   selecting `default` and `kube-system` unless `selectors` says
//!   otherwise, no default node group, and the CoreDNS add-on with
//!   `computeType: Fargate` created after the profile.
//! - Otherwise a default node group (an Auto Scaling group of two nodes)
//!   unless `skipDefaultNodeGroup` or `autoMode` says otherwise.
//! - Everything that reads the cluster's `kubeconfig` or `provider` waits
//!   for the whole component.

use super::cdk::{
    entry, is_below, json_text, map, node_value, owner_tags, pascal, props_arg, scalar,
    scalar_plain, seq, template_of, unknown_node, value_node, Gap, Props, Stack, Written,
};
use super::eval::{camel, unknown_at, Args, Cx, Host, Object, Val, V};
use crate::source::Span;
use crate::tree::{Entry, Node};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

const CLUSTER: &str = "AWS::EKS::Cluster";

/// What a handle the program holds is.
#[derive(Clone, Debug)]
enum Kind {
    /// A resource of the template.
    Resource(usize),
    /// `@pulumi/eks`'s `Cluster`: the AWS cluster in it and all its resources.
    Component {
        cluster: usize,
        resources: Vec<usize>,
    },
    /// A component of the program (a class extending `ComponentResource`):
    /// its resources are those made with it as `parent`, which use its
    /// provider unless they name their own.
    Scope { provider: Option<usize> },
    /// A Kubernetes provider: the cluster its kubeconfig reads, what it
    /// waits for, and its default namespace (`None`: `default`).
    Provider {
        cluster: Option<usize>,
        deps: Vec<usize>,
        namespace: Option<Node>,
    },
    /// An output: the name of a resource (`of`), or the resource itself
    /// (`whole`: `cluster.eksCluster`), and what it waits for.
    Output {
        of: Option<usize>,
        whole: Option<usize>,
        deps: Vec<usize>,
        cluster: Option<usize>,
    },
    /// `new pulumi.Config(namespace)`.
    Config(String),
    /// A resource fplint does not model (a role, a VPC): what it waits for.
    Other(Vec<usize>),
}

#[derive(Clone, Debug)]
struct PNode {
    kind: Kind,
    parent: Option<usize>,
}

#[derive(Clone, Debug)]
struct Resource {
    node: usize,
    logical: String,
    ty: &'static str,
    props: Vec<Entry>,
    depends: Vec<usize>,
    conditions: Vec<(u32, bool)>,
    span: Span,
    /// A Kubernetes object's `metadata` as the program wrote it.
    metadata: Option<Node>,
}

/// The Pulumi host: the resources a program registers.
#[derive(Debug, Default)]
pub struct Pulumi {
    nodes: Vec<PNode>,
    resources: Vec<Resource>,
    /// What the program does that is not followed.
    pub gaps: Vec<Gap>,
    /// The project's name (`Pulumi.yaml`): `new pulumi.Config()` reads its keys.
    pub project: String,
    /// The `config` of each committed stack (`Pulumi.<stack>.yaml`).
    pub stacks: Vec<Node>,
    uses_eks: Cell<Option<Span>>,
    /// The first resource of a package fplint does not read.
    foreign: Option<(Span, String)>,
}

/// A resource's options: its parent, what it waits for, its provider.
struct Opts {
    parent: Option<usize>,
    deps: Vec<usize>,
    provider: Option<usize>,
}

impl Pulumi {
    /// A host for the project `project`, whose committed stacks hold
    /// `stacks` (each a `config` mapping).
    pub fn new(project: String, stacks: Vec<Node>) -> Self {
        Pulumi {
            project,
            stacks,
            ..Default::default()
        }
    }

    fn add(&mut self, kind: Kind, parent: Option<usize>) -> usize {
        self.nodes.push(PNode { kind, parent });
        self.nodes.len() - 1
    }

    fn handle<'m>(&mut self, kind: Kind, parent: Option<usize>, span: Span) -> Val<'m> {
        V::Handle(self.add(kind, parent)).at(span)
    }

    fn gap(&mut self, span: Span, what: impl Into<String>) {
        let what = what.into();
        if !self.gaps.iter().any(|g| g.span == span && g.what == what) {
            self.gaps.push(Gap { span, what });
        }
    }

    /// Note an import: `@pulumi/eks` makes finding no cluster worth saying.
    pub fn saw_import(&self, module: &str, span: Span) {
        let eks = library_path(module).is_some_and(|p| p == "eks" || p.starts_with("eks."));
        if eks && self.uses_eks.get().is_none() {
            self.uses_eks.set(Some(span));
        }
    }

    /// Say so when the program imports `@pulumi/eks` but declares no
    /// cluster fplint could read.
    pub fn note_missing_cluster(&mut self) {
        let Some(span) = self.uses_eks.get() else {
            return;
        };
        if !self.resources.iter().any(|r| r.ty == CLUSTER) {
            self.gap(
                span,
                "the program imports `@pulumi/eks`, but fplint found no cluster it declares",
            );
        }
    }

    /// Say so when the program declares no cluster and no workload fplint
    /// could read, but makes resources of a package it does not read.
    pub fn note_foreign(&mut self) {
        if !self.resources.is_empty() {
            return;
        }
        if let Some((span, lib)) = self.foreign.clone() {
            self.gap(
                span,
                format!("the program declares its resources through `{lib}`, which fplint does not read"),
            );
        }
    }

    /// The program's resources as one template, in the order registered;
    /// their props move into it.
    pub fn templates(&mut self) -> Vec<Stack> {
        let Some(first) = self.resources.first().map(|r| r.span) else {
            return Vec::new();
        };
        let mut props: Vec<Vec<Entry>> = self
            .resources
            .iter_mut()
            .map(|r| std::mem::take(&mut r.props))
            .collect();
        let written = self
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| Written {
                logical: &r.logical,
                ty: r.ty,
                props: std::mem::take(&mut props[i]),
                depends: r
                    .depends
                    .iter()
                    .filter(|&&d| d != i)
                    .filter_map(|d| self.resources.get(*d))
                    .map(|d| d.logical.as_str())
                    .collect(),
                condition: r.conditions.last().copied(),
                span: r.span,
            })
            .collect();
        vec![Stack {
            id: self.project.clone(),
            template: template_of(written, first),
        }]
    }

    /// A resource of the template, named after the program's name for it
    /// (made unique: Pulumi's names are unique per type only).
    #[allow(clippy::too_many_arguments)]
    fn resource(
        &mut self,
        parent: Option<usize>,
        name: &str,
        ty: &'static str,
        props: Vec<Entry>,
        depends: Vec<usize>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let node = self.add(Kind::Other(Vec::new()), parent);
        let mut logical = name.to_string();
        let short = ty.rsplit(&[':', '-'][..]).next().unwrap_or(ty);
        let mut n = 1;
        while self.resources.iter().any(|r| r.logical == logical) {
            n += 1;
            logical = if n == 2 {
                format!("{name}-{short}")
            } else {
                format!("{name}-{short}{n}")
            };
        }
        let mut deps = Vec::new();
        for d in depends {
            if !deps.contains(&d) {
                deps.push(d);
            }
        }
        self.resources.push(Resource {
            node,
            logical,
            ty,
            props,
            depends: deps,
            conditions: cx.conditions.clone(),
            span,
            metadata: None,
        });
        let r = self.resources.len() - 1;
        self.nodes[node].kind = Kind::Resource(r);
        r
    }

    /// The node a value is (a handle, or an instance of the program's own
    /// component class).
    fn node_of(&self, v: Option<&Val<'_>>) -> Option<usize> {
        match v.map(|v| &v.kind) {
            Some(V::Handle(h)) => Some(*h),
            Some(V::Instance(i)) => i.handle.get(),
            _ => None,
        }
    }

    /// The template resources node `h` stands for, or waits for.
    fn deps_of_node(&self, h: usize) -> Vec<usize> {
        match self.nodes.get(h).map(|n| &n.kind) {
            Some(Kind::Resource(r)) => vec![*r],
            Some(Kind::Component { resources, .. }) => resources.clone(),
            Some(Kind::Provider { deps, .. } | Kind::Output { deps, .. } | Kind::Other(deps)) => {
                deps.clone()
            }
            Some(Kind::Scope { .. }) => self
                .resources
                .iter()
                .enumerate()
                .filter(|(_, r)| self.is_below(r.node, h))
                .map(|(i, _)| i)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn is_below(&self, n: usize, ancestor: usize) -> bool {
        is_below(n, ancestor, |x| self.nodes.get(x).and_then(|x| x.parent))
    }

    /// Every resource a value waits for: the outputs in it.
    fn deps_in(&self, v: &Val<'_>, out: &mut Vec<usize>, depth: usize) {
        if depth > 64 {
            return;
        }
        match &v.kind {
            V::Handle(_) | V::Instance(_) => {
                if let Some(h) = self.node_of(Some(v)) {
                    for d in self.deps_of_node(h) {
                        if !out.contains(&d) {
                            out.push(d);
                        }
                    }
                }
            }
            V::Object(o) => {
                for (_, _, x) in &o.borrow().entries {
                    self.deps_in(x, out, depth + 1);
                }
            }
            V::Array(a) => {
                for x in &a.borrow().items {
                    self.deps_in(x, out, depth + 1);
                }
            }
            _ => {}
        }
    }

    /// The cluster a value reads (a kubeconfig built from its outputs).
    fn cluster_in(&self, v: &Val<'_>, depth: usize) -> Option<usize> {
        if depth > 64 {
            return None;
        }
        match &v.kind {
            V::Handle(_) | V::Instance(_) => match &self.nodes.get(self.node_of(Some(v))?)?.kind {
                Kind::Resource(r) => (self.resources.get(*r)?.ty == CLUSTER).then_some(*r),
                Kind::Component { cluster, .. } => Some(*cluster),
                Kind::Provider { cluster, .. } | Kind::Output { cluster, .. } => *cluster,
                _ => None,
            },
            V::Object(o) => o
                .borrow()
                .entries
                .iter()
                .find_map(|(_, _, x)| self.cluster_in(x, depth + 1)),
            V::Array(a) => a
                .borrow()
                .items
                .iter()
                .find_map(|x| self.cluster_in(x, depth + 1)),
            _ => None,
        }
    }

    fn output<'m>(&mut self, from: &[&Val<'m>], span: Span) -> Val<'m> {
        let mut deps = Vec::new();
        let mut cluster = None;
        for v in from {
            self.deps_in(v, &mut deps, 0);
            cluster = cluster.or_else(|| self.cluster_in(v, 0));
        }
        self.handle(
            Kind::Output {
                of: None,
                whole: None,
                deps,
                cluster,
            },
            None,
            span,
        )
    }

    fn options(&self, opts: &Val<'_>) -> Opts {
        let p = Props::of(opts);
        let parent = self.node_of(p.get("parent"));
        let mut deps = Vec::new();
        if let Some(d) = p.get("dependsOn") {
            self.deps_in(d, &mut deps, 0);
        }
        let mut provider = self.node_of(p.get("provider"));
        if let Some(ps) = p.get("providers") {
            let mut all = Vec::new();
            match &ps.kind {
                V::Object(o) => all.extend(o.borrow().entries.iter().map(|(_, _, v)| v.clone())),
                V::Array(a) => all.extend(a.borrow().items.iter().cloned()),
                _ => {}
            }
            provider = provider.or_else(|| {
                all.iter()
                    .filter_map(|v| self.node_of(Some(v)))
                    .find(|h| matches!(self.nodes[*h].kind, Kind::Provider { .. }))
            });
        }
        // A component's children use its provider.
        let mut up = parent;
        for _ in 0..64 {
            if provider.is_some() {
                break;
            }
            let Some(n) = up.and_then(|u| self.nodes.get(u)) else {
                break;
            };
            if let Kind::Scope { provider: p } = n.kind {
                provider = p;
            }
            up = n.parent;
        }
        Opts {
            parent,
            deps,
            provider,
        }
    }

    /// What a resource waits for: its inputs' outputs, `dependsOn`, and
    /// its provider's inputs.
    fn waits_for(&self, props: &Val<'_>, opts: &Opts) -> Vec<usize> {
        let mut deps = opts.deps.clone();
        self.deps_in(props, &mut deps, 0);
        if let Some(p) = opts.provider {
            deps.extend(self.deps_of_node(p));
        }
        deps
    }

    /// A value as a template node: a cluster's name is a `Ref` to it; what
    /// is not known is unknown.
    fn to_node(&self, v: &Val<'_>) -> Node {
        value_node(v, 0, &|h, span| match self.nodes.get(h).map(|n| &n.kind) {
            Some(Kind::Output { of: Some(r), .. }) => Some(self.ref_to(*r, span)),
            _ => None,
        })
    }

    fn ref_to(&self, r: usize, span: Span) -> Node {
        match self.resources.get(r) {
            Some(res) => map(vec![entry("Ref", scalar(&res.logical, span), span)], span),
            None => unknown_node(span),
        }
    }

    /// The `ClusterName` of a resource: the cluster named, or read through
    /// its provider.
    fn cluster_name(&self, v: Option<&Val<'_>>, span: Span) -> Node {
        match v {
            Some(v) => match self.cluster_in(v, 0) {
                Some(c) if !matches!(v.kind, V::Str(_)) => self.ref_to(c, v.span),
                _ => self.to_node(v),
            },
            None => unknown_node(span),
        }
    }

    fn selectors(&self, v: &Val<'_>) -> Node {
        let V::Array(a) = &v.kind else {
            return unknown_node(v.span);
        };
        let a = a.borrow();
        if a.open {
            return unknown_node(v.span);
        }
        let items = a.items.iter().map(|s| {
            if !matches!(s.kind, V::Object(_)) {
                return unknown_node(s.span);
            }
            let p = Props::of(s);
            let mut out = Vec::new();
            match p.get("namespace") {
                Some(ns) => out.push(entry("Namespace", self.to_node(ns), ns.span)),
                None if p.open => out.push(entry("Namespace", unknown_node(s.span), s.span)),
                None => {}
            }
            match p.get("labels") {
                Some(l) => out.push(entry("Labels", self.label_list(l), l.span)),
                None if p.open => out.push(entry("Labels", unknown_node(s.span), s.span)),
                None => {}
            }
            map(out, s.span)
        });
        seq(items.collect(), v.span)
    }

    /// Labels given as a map, as CloudFormation's list of `Key`/`Value`.
    fn label_list(&self, v: &Val<'_>) -> Node {
        let V::Object(o) = &v.kind else {
            return unknown_node(v.span);
        };
        let o = o.borrow();
        if o.open {
            return unknown_node(v.span);
        }
        let items = o.entries.iter().map(|(k, ks, x)| {
            map(
                vec![
                    entry("Key", scalar(k, *ks), *ks),
                    entry("Value", self.to_node(x), x.span),
                ],
                x.span,
            )
        });
        seq(items.collect(), v.span)
    }

    // ---- resources ----

    fn aws_cluster(
        &mut self,
        name: &str,
        p: &Props<'_, '_>,
        w: Wait,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let mut props = Vec::new();
        for (prop, key) in [("name", "Name"), ("version", "Version")] {
            if let Some(v) = p.get(prop) {
                props.push(entry(key, self.to_node(v), v.span));
            }
        }
        if let Some(c) = p.get("computeConfig") {
            props.push(entry("ComputeConfig", pascal(self.to_node(c)), c.span));
        }
        self.resource(w.parent, name, CLUSTER, props, w.deps, cx, span)
    }

    #[allow(clippy::too_many_arguments)]
    fn profile(
        &mut self,
        parent: Option<usize>,
        name: &str,
        cluster: Node,
        p: &Props<'_, '_>,
        defaults: bool,
        deps: Vec<usize>,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let mut props = vec![entry("ClusterName", cluster, span)];
        // Pulumi generates the name from the resource's: `apps-*`.
        match p.get("fargateProfileName") {
            Some(n) => props.push(entry("FargateProfileName", self.to_node(n), n.span)),
            None => props.push(entry(
                "FargateProfileName",
                scalar(&format!("{name}-*"), span),
                span,
            )),
        }
        let selectors = match p.get("selectors") {
            Some(s) => self.selectors(s),
            None if defaults && !p.open => {
                let ns = |n: &str| map(vec![entry("Namespace", scalar(n, span), span)], span);
                seq(vec![ns("default"), ns("kube-system")], span)
            }
            None if p.open => unknown_node(span),
            None => seq(Vec::new(), span),
        };
        props.push(entry("Selectors", selectors, span));
        props.push(entry("PodExecutionRoleArn", unknown_node(span), span));
        self.resource(
            parent,
            name,
            "AWS::EKS::FargateProfile",
            props,
            deps,
            cx,
            span,
        )
    }

    fn nodegroup(
        &mut self,
        name: &str,
        cluster: Node,
        p: &Props<'_, '_>,
        w: Wait,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let mut props = vec![entry("ClusterName", cluster, span)];
        for (prop, key) in [
            ("nodeGroupName", "NodegroupName"),
            ("instanceTypes", "InstanceTypes"),
        ] {
            if let Some(v) = p.get(prop) {
                props.push(entry(key, self.to_node(v), v.span));
            }
        }
        if let Some(l) = p.get("labels") {
            props.push(entry("Labels", self.to_node(l), l.span));
        }
        if let Some(t) = p.get("taints") {
            props.push(entry("Taints", pascal(self.to_node(t)), t.span));
        }
        match p.get("scalingConfig") {
            Some(s) => props.push(entry("ScalingConfig", pascal(self.to_node(s)), s.span)),
            None => {
                let one = scalar_plain("1", span);
                props.push(entry(
                    "ScalingConfig",
                    map(vec![entry("MinSize", one, span)], span),
                    span,
                ));
            }
        }
        self.resource(
            w.parent,
            name,
            "AWS::EKS::Nodegroup",
            props,
            w.deps,
            cx,
            span,
        )
    }

    /// Self-managed nodes of `cluster`: an Auto Scaling group carrying the
    /// cluster's owner tag.
    fn asg(
        &mut self,
        name: &str,
        cluster: usize,
        min: Node,
        w: Wait,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let props = vec![
            entry("MinSize", min, span),
            entry("Tags", owner_tags(self.ref_to(cluster, span), span), span),
        ];
        self.resource(
            w.parent,
            name,
            "AWS::AutoScaling::AutoScalingGroup",
            props,
            w.deps,
            cx,
            span,
        )
    }

    /// Nodes fplint cannot attribute to a cluster: an Auto Scaling group
    /// without the owner tag leaves every cluster's capacity unknown.
    fn unread_nodes(&mut self, name: &str, w: Wait, cx: &Cx, span: Span) -> usize {
        self.resource(
            w.parent,
            name,
            "AWS::AutoScaling::AutoScalingGroup",
            Vec::new(),
            w.deps,
            cx,
            span,
        )
    }

    fn addon(
        &mut self,
        name: &str,
        cluster: Node,
        p: &Props<'_, '_>,
        w: Wait,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let mut props = vec![entry("ClusterName", cluster, span)];
        if let Some(a) = p.get("addonName") {
            props.push(entry("AddonName", self.to_node(a), a.span));
        }
        if let Some(c) = p.get("configurationValues") {
            let n = self.to_node(c);
            let value = match &c.kind {
                // `@pulumi/eks`'s `Addon` takes an object.
                V::Object(_) => {
                    json_text(&n).map_or_else(|| unknown_node(c.span), |t| scalar(&t, c.span))
                }
                _ => n,
            };
            props.push(entry("ConfigurationValues", value, c.span));
        }
        self.resource(w.parent, name, "AWS::EKS::Addon", props, w.deps, cx, span)
    }

    /// `@pulumi/eks`'s `Cluster`.
    fn eks_cluster(
        &mut self,
        name: &str,
        p: &Props<'_, '_>,
        w: Wait,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let parent = w.parent;
        let component = self.add(Kind::Scope { provider: None }, parent);
        let inner = Wait {
            parent: Some(component),
            deps: w.deps.clone(),
        };
        let cluster = self.aws_cluster(&format!("{name}-eksCluster"), p, inner, cx, span);
        let cluster_ref = self.ref_to(cluster, span);
        let within = |deps: Vec<usize>| Wait {
            parent: Some(component),
            deps,
        };
        let auto_mode = p
            .get("autoMode")
            .map(|a| Props::of(a).get("enabled").map(|e| e.kind.clone()));
        let auto_mode = match auto_mode {
            None | Some(None) => Some(false),
            Some(Some(V::Bool(b))) => Some(b),
            Some(Some(V::Undefined)) => Some(false),
            Some(_) => None,
        };
        let fargate = p.get("fargate").map(|f| (f.kind.clone(), f.clone()));
        let mut fargate_cx = cx.clone();
        let fargate_opts: Option<Val<'_>> = match &fargate {
            None => None,
            Some((V::Bool(false) | V::Undefined | V::Null, _)) => None,
            Some((V::Bool(true), v)) => Some(V::Object(Rc::default()).at(v.span)),
            Some((V::Object(_), v)) => Some(v.clone()),
            Some((_, v)) => {
                fargate_cx.conditions.push((u32::MAX, false));
                Some(unknown_at(v.span))
            }
        };
        if let Some(f) = &fargate_opts {
            let fp = Props::of(f);
            let profile_name = if name.eq_ignore_ascii_case("eks")
                || name
                    .get(..4)
                    .is_some_and(|s| s.eq_ignore_ascii_case("eks-"))
            {
                format!("{}fargateProfile", name.replacen('-', "_", 1))
            } else {
                format!("{name}-fargateProfile")
            };
            let profile = self.profile(
                Some(component),
                &profile_name,
                cluster_ref.clone(),
                &fp,
                true,
                vec![cluster],
                &fargate_cx,
                span,
            );
            drop(fp);
            let coredns = p.get("corednsAddonOptions").map(Props::of);
            let enabled = coredns
                .as_ref()
                .and_then(|c| c.get("enabled"))
                .map(|e| e.kind.clone());
            if !matches!(enabled, Some(V::Bool(false))) {
                let mut cx = fargate_cx.clone();
                if enabled.is_some() && !matches!(enabled, Some(V::Bool(true))) {
                    cx.conditions.push((u32::MAX, false));
                }
                let props = vec![
                    entry("ClusterName", cluster_ref.clone(), span),
                    entry("AddonName", scalar("coredns", span), span),
                    entry(
                        "ConfigurationValues",
                        scalar(r#"{"computeType":"Fargate"}"#, span),
                        span,
                    ),
                ];
                self.resource(
                    Some(component),
                    &format!("{name}-coredns"),
                    "AWS::EKS::Addon",
                    props,
                    vec![cluster, profile],
                    &cx,
                    span,
                );
            }
        }
        // The default node group, unless Fargate or Auto Mode replaces it.
        let skip = p.get("skipDefaultNodeGroup").map(|s| s.kind.clone());
        let skipped = match (&fargate_opts, &skip, auto_mode) {
            (Some(_), _, _) if fargate_cx.conditions.len() == cx.conditions.len() => Some(true),
            (_, Some(V::Bool(true)), _) | (_, _, Some(true)) => Some(true),
            (None, None | Some(V::Bool(false) | V::Undefined), Some(false)) => Some(false),
            _ => None,
        };
        if skipped != Some(true) {
            let mut cx = cx.clone();
            if skipped.is_none() {
                cx.conditions.push((u32::MAX, true));
            }
            let min = match p.get("minSize").or_else(|| p.get("desiredCapacity")) {
                Some(v) => self.to_node(v),
                None => scalar_plain("1", span),
            };
            self.asg(
                &format!("{name}-defaultNodeGroup"),
                cluster,
                min,
                within(vec![cluster]),
                &cx,
                span,
            );
        }
        let resources = self.deps_of_node(component);
        self.nodes[component].kind = Kind::Component { cluster, resources };
        component
    }

    /// A Helm release (`helm.v3.Release`, `helm.v3.Chart`, `helm.v4.Chart`).
    #[allow(clippy::too_many_arguments)]
    fn release(
        &mut self,
        path: &str,
        name: &Name,
        p: &Props<'_, '_>,
        opts: &Opts,
        w: Wait,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let (cluster, namespace) = self.provider_of(opts, span);
        let mut props = vec![entry("ClusterName", cluster, span)];
        // A v3 `Release` is named by `name` or generated; a `Chart` is
        // the release its resource name says.
        // Pulumi names an unnamed `Release` after its resource with a
        // random suffix: `podinfo-*` matches no selector a program writes.
        let generated = name
            .known
            .as_deref()
            .map(|n| scalar(&format!("{n}-*"), span));
        let release = if path.ends_with("Release") {
            p.get("name").map(|n| self.to_node(n)).or(generated)
        } else {
            name.known.as_deref().map(|n| scalar(n, span))
        };
        props.push(entry(
            "Release",
            release.unwrap_or_else(|| unknown_node(span)),
            span,
        ));
        let chart = p.get("chart").or_else(|| p.get("path"));
        let local = p.get("path").is_some()
            || chart
                .and_then(Val::as_str)
                .is_some_and(|c| c.starts_with('.') || c.starts_with('/'));
        match chart {
            Some(c) => props.push(entry("Chart", self.to_node(c), c.span)),
            None => props.push(entry("Chart", unknown_node(span), span)),
        }
        if let Some(v) = p.get("version") {
            props.push(entry("Version", self.to_node(v), v.span));
        }
        let repo = ["repositoryOpts", "fetchOpts"]
            .iter()
            .find_map(|k| p.get(k))
            .map(|r| (Props::of(r).get("repo").cloned(), r.span));
        match repo {
            Some((Some(r), _)) => props.push(entry("Repository", self.to_node(&r), r.span)),
            Some((None, s)) => props.push(entry("Repository", unknown_node(s), s)),
            None => {}
        }
        if local {
            props.push(entry("ChartAssetURL", unknown_node(span), span));
        }
        match p.get("values") {
            Some(v) => props.push(entry("Values", self.to_node(v), v.span)),
            None if p.open => props.push(entry("Values", unknown_node(span), span)),
            None => {}
        }
        let ns = match p.get("namespace") {
            Some(n) => self.to_node(n),
            None if p.open => unknown_node(span),
            None => namespace,
        };
        props.push(entry("Namespace", ns, span));
        self.resource(
            w.parent,
            &name.logical,
            "Custom::AWSCDK-EKS-HelmChart",
            props,
            w.deps,
            cx,
            span,
        )
    }

    /// The cluster a Kubernetes resource goes to, through its provider, and
    /// the namespace that provider puts objects in.
    fn provider_of(&mut self, opts: &Opts, span: Span) -> (Node, Node) {
        match opts
            .provider
            .and_then(|p| self.nodes.get(p))
            .map(|n| n.kind.clone())
        {
            Some(Kind::Provider {
                cluster, namespace, ..
            }) => (
                cluster.map_or_else(|| unknown_node(span), |c| self.ref_to(c, span)),
                namespace.unwrap_or_else(|| scalar("default", span)),
            ),
            Some(_) => {
                self.gap(span, "a Kubernetes resource's provider is not known");
                (unknown_node(span), unknown_node(span))
            }
            None => {
                self.gap(
                    span,
                    "a Kubernetes resource uses the default provider: its cluster is not known",
                );
                (unknown_node(span), scalar("default", span))
            }
        }
    }

    /// A typed Kubernetes object (`k8s.apps.v1.Deployment`) as a manifest.
    #[allow(clippy::too_many_arguments)]
    fn object(
        &mut self,
        api_version: &str,
        kind: &str,
        name: &Name,
        props: &Val<'_>,
        opts: &Opts,
        w: Wait,
        cx: &Cx,
        span: Span,
    ) -> usize {
        let (cluster, namespace) = self.provider_of(opts, span);
        let mut entries = vec![
            entry("apiVersion", scalar(api_version, span), span),
            entry("kind", scalar(kind, span), span),
        ];
        let mut metadata = None;
        match (&props.kind, self.to_node(props).kind) {
            (V::Undefined | V::Null, _) => {}
            (V::Object(_), crate::tree::NodeKind::Map(es)) if !is_unknown_map(&es) => {
                for e in es {
                    match e.key.scalar() {
                        Some("apiVersion" | "kind") => {}
                        Some("metadata") => metadata = Some(e.value),
                        _ => entries.push(e),
                    }
                }
            }
            _ => entries.push(entry("spec", unknown_node(span), span)),
        }
        let written = metadata.clone();
        let mut meta = match metadata {
            Some(Node {
                kind: crate::tree::NodeKind::Map(es),
                ..
            }) => es,
            Some(other) => vec![entry("name", other, span)],
            None => Vec::new(),
        };
        // Pulumi names an object after its resource, with a random suffix:
        // `api-*` is no name Kubernetes accepts, so it matches none.
        if !meta.iter().any(|e| e.key.scalar() == Some("name")) {
            let auto = match &name.known {
                Some(n) => scalar(&format!("{n}-*"), span),
                None => unknown_node(span),
            };
            meta.push(entry("name", auto, span));
        }
        if !meta.iter().any(|e| e.key.scalar() == Some("namespace")) && !is_cluster_scoped(kind) {
            meta.push(entry("namespace", namespace, span));
        }
        entries.insert(2, entry("metadata", map(meta, span), span));
        let props = vec![
            entry("Manifest", seq(vec![map(entries, span)], span), span),
            entry("ClusterName", cluster, span),
        ];
        let r = self.resource(
            w.parent,
            &name.logical,
            "Custom::AWSCDK-EKS-KubernetesResource",
            props,
            w.deps,
            cx,
            span,
        );
        self.resources[r].metadata = written;
        r
    }

    fn config_value<'m>(&self, ns: &str, method: &str, args: &Args<'m>) -> Val<'m> {
        let span = args.span;
        let Some(key) = args.positional.first().and_then(Val::as_str) else {
            return unknown_at(span);
        };
        let full = if key.contains(':') {
            key.to_string()
        } else {
            format!("{ns}:{key}")
        };
        if self.stacks.is_empty() {
            return unknown_at(span);
        }
        let mut found: Option<&Node> = None;
        let mut absent = false;
        for stack in &self.stacks {
            match stack.get(&full) {
                Some(v) if v.get("secure").is_some() => return unknown_at(span),
                Some(v) => match found {
                    Some(f) if json_text(f) != json_text(v) || json_text(v).is_none() => {
                        return unknown_at(span)
                    }
                    _ => found = Some(v),
                },
                None => absent = true,
            }
        }
        let required = method.starts_with("require");
        match (found, absent) {
            (Some(v), false) => {
                let val = node_value(v, 0);
                let typed = |m: &str| method.ends_with(m);
                match (&val.kind, typed("Number") || typed("Int") || typed("Float")) {
                    (V::Str(s), true) => match s.trim().parse::<f64>() {
                        Ok(n) => V::Num(n, Some(s.trim().into())).at(span),
                        Err(_) => unknown_at(span),
                    },
                    _ if typed("Boolean") || typed("Bool") => match val.as_str() {
                        Some("true") => V::Bool(true).at(span),
                        Some("false") => V::Bool(false).at(span),
                        _ if matches!(val.kind, V::Bool(_)) => val.kind.clone().at(span),
                        _ => unknown_at(span),
                    },
                    _ if typed("Object") && val.as_str().is_some() => unknown_at(span),
                    _ => val.kind.clone().at(span),
                }
            }
            // No committed stack sets it: `get` gives nothing.
            (None, true) if !required => V::Undefined.at(span),
            _ => unknown_at(span),
        }
    }
}

/// What a new resource waits for and is inside.
struct Wait {
    parent: Option<usize>,
    deps: Vec<usize>,
}

/// A resource's name: as written when known, and the template's name for it.
struct Name {
    known: Option<String>,
    logical: String,
}

/// The entries of [`unknown_node`]: an object not known.
fn is_unknown_map(entries: &[Entry]) -> bool {
    matches!(entries, [e] if e.key.scalar() == Some("Fn::ImportValue"))
}

/// Kinds whose objects have no namespace.
fn is_cluster_scoped(kind: &str) -> bool {
    matches!(
        kind,
        "Namespace"
            | "ClusterRole"
            | "ClusterRoleBinding"
            | "CustomResourceDefinition"
            | "StorageClass"
            | "PersistentVolume"
            | "PriorityClass"
            | "IngressClass"
            | "RuntimeClass"
            | "Node"
            | "MutatingWebhookConfiguration"
            | "ValidatingWebhookConfiguration"
    )
}

/// The API group of a typed object's module (`k8s.networking.v1` is
/// `networking.k8s.io/v1`).
fn api_version(group: &str, version: &str) -> String {
    match group {
        "core" => version.to_string(),
        "apps" | "batch" | "policy" | "autoscaling" => format!("{group}/{version}"),
        g => format!("{g}.k8s.io/{version}"),
    }
}

/// A resource call's name, props and options: `(name, args, opts)` in
/// TypeScript; Python passes the props as keywords and `opts=`.
fn split<'m>(args: &Args<'m>) -> (Name, Val<'m>, Val<'m>) {
    let mut name = args.positional.first().cloned();
    let mut props = args.positional.get(1).cloned();
    let mut opts = args.positional.get(2).cloned();
    let mut entries = Vec::new();
    for (k, s, v) in &args.keywords {
        match k.as_str() {
            "opts" => opts = Some(v.clone()),
            "resource_name" => name = Some(v.clone()),
            "args" => props = Some(v.clone()),
            _ => entries.push((camel(k), *s, v.clone())),
        }
    }
    let props = if entries.is_empty() {
        props.unwrap_or_else(|| {
            if args.open {
                unknown_at(args.span)
            } else {
                V::Undefined.at(args.span)
            }
        })
    } else {
        let mut obj = Object {
            entries,
            open: args.open,
        };
        if let Some(V::Object(o)) = props.as_ref().map(|v| &v.kind) {
            let mut first = o.borrow().clone();
            first.entries.append(&mut obj.entries);
            obj.entries = first.entries;
            obj.open |= first.open;
        }
        V::Object(Rc::new(RefCell::new(obj))).at(args.span)
    };
    let known = name.as_ref().and_then(|n| n.as_str().map(str::to_string));
    let logical = known
        .clone()
        .unwrap_or_else(|| format!("fplint-unnamed-{}", args.span.start));
    (
        Name { known, logical },
        props,
        opts.unwrap_or_else(|| V::Undefined.at(args.span)),
    )
}

/// The library path of a module the program imports: `aws`, `eks`, `k8s`,
/// `pulumi`, `awsx` and their submodules.
pub fn library_path(module: &str) -> Option<String> {
    let m = module.trim();
    for (prefix, name) in [
        ("@pulumi/pulumi", "pulumi"),
        ("@pulumi/aws", "aws"),
        ("@pulumi/eks", "eks"),
        ("@pulumi/kubernetes", "k8s"),
        ("@pulumi/awsx", "awsx"),
        ("pulumi_aws", "aws"),
        ("pulumi_eks", "eks"),
        ("pulumi_kubernetes", "k8s"),
        ("pulumi_awsx", "awsx"),
        ("pulumi", "pulumi"),
    ] {
        if m == prefix {
            return Some(name.into());
        }
        if let Some(rest) = m
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('/').or_else(|| r.strip_prefix('.')))
        {
            return Some(format!("{name}.{}", rest.replace('/', ".")));
        }
    }
    if m.starts_with('.') {
        return None;
    }
    Some(format!("lib:{m}"))
}

impl<'m> Host<'m> for Pulumi {
    fn library_of(&self, module: &str, _span: Span) -> Option<String> {
        library_path(module)
    }

    fn base(&mut self, _path: &str, args: Args<'m>, _cx: &Cx) -> Option<usize> {
        // `super(type, name, args, opts)`: a component of the program.
        let opts = args
            .keywords
            .iter()
            .find(|(k, _, _)| k == "opts")
            .map(|(_, _, v)| v.clone())
            .or_else(|| args.positional.get(3).cloned())
            .unwrap_or_else(|| V::Undefined.at(args.span));
        let o = self.options(&opts);
        Some(self.add(
            Kind::Scope {
                provider: o.provider,
            },
            o.parent,
        ))
    }

    fn construct(&mut self, path: &str, args: Args<'m>, cx: &Cx) -> Val<'m> {
        let span = args.span;
        // Argument and option classes (`ChartOpts`, `FetchOpts`) are their props.
        if path.ends_with("Args")
            || path.ends_with("Opts")
            || matches!(
                path,
                "pulumi.ResourceOptions"
                    | "pulumi.CustomResourceOptions"
                    | "pulumi.ComponentResourceOptions"
                    | "pulumi.InvokeOptions"
            )
        {
            return props_arg(&args, 0);
        }
        if path == "pulumi.Config" {
            let ns = args
                .positional
                .first()
                .and_then(Val::as_str)
                .map_or_else(|| self.project.clone(), str::to_string);
            return self.handle(Kind::Config(ns), None, span);
        }
        let lib = path.split('.').next().unwrap_or("");
        if !matches!(lib, "aws" | "eks" | "k8s" | "awsx" | "pulumi") {
            if let (Some(pkg), None) = (path.strip_prefix("lib:"), &self.foreign) {
                let pkg = pkg.split('.').next().unwrap_or(pkg).to_string();
                self.foreign = Some((span, pkg));
            }
            return unknown_at(span);
        }
        let (name, props, opts) = split(&args);
        let o = self.options(&opts);
        let deps = self.waits_for(&props, &o);
        let w = Wait {
            parent: o.parent,
            deps: deps.clone(),
        };
        let p = Props::of(&props);
        let resource = |this: &mut Self, r: usize| V::Handle(this.resources[r].node).at(span);
        let out = match path {
            "aws.eks.Cluster" => {
                let r = self.aws_cluster(&name.logical, &p, w, cx, span);
                resource(self, r)
            }
            "aws.eks.FargateProfile" => {
                let cluster = self.cluster_name(p.get("clusterName"), span);
                let r = self.profile(o.parent, &name.logical, cluster, &p, false, deps, cx, span);
                resource(self, r)
            }
            "aws.eks.NodeGroup" => {
                let cluster = self.cluster_name(p.get("clusterName"), span);
                let r = self.nodegroup(&name.logical, cluster, &p, w, cx, span);
                resource(self, r)
            }
            "aws.eks.Addon" => {
                let cluster = self.cluster_name(p.get("clusterName"), span);
                let r = self.addon(&name.logical, cluster, &p, w, cx, span);
                resource(self, r)
            }
            "eks.Cluster" => {
                let c = self.eks_cluster(&name.logical, &p, w, cx, span);
                V::Handle(c).at(span)
            }
            "eks.ManagedNodeGroup" => {
                let cluster = self.cluster_name(p.get("cluster"), span);
                let r = self.nodegroup(&name.logical, cluster, &p, w, cx, span);
                resource(self, r)
            }
            "eks.NodeGroup" | "eks.NodeGroupV2" => {
                match p.get("cluster").and_then(|c| self.cluster_in(c, 0)) {
                    Some(c) => {
                        let min = match p.get("minSize").or_else(|| p.get("desiredCapacity")) {
                            Some(v) => self.to_node(v),
                            None => scalar_plain("1", span),
                        };
                        let r = self.asg(&name.logical, c, min, w, cx, span);
                        resource(self, r)
                    }
                    None => {
                        self.gap(span, "a node group's cluster is not known");
                        self.handle(Kind::Other(deps), o.parent, span)
                    }
                }
            }
            "eks.Addon" => {
                let cluster = self.cluster_name(p.get("cluster"), span);
                let r = self.addon(&name.logical, cluster, &p, w, cx, span);
                resource(self, r)
            }
            "k8s.Provider" => {
                let cluster = self.cluster_in(&props, 0);
                let namespace = p.get("namespace").map(|n| self.to_node(n));
                let namespace = match namespace {
                    None if p.open => Some(unknown_node(span)),
                    n => n,
                };
                self.handle(
                    Kind::Provider {
                        cluster,
                        deps,
                        namespace,
                    },
                    o.parent,
                    span,
                )
            }
            "k8s.helm.v3.Release" | "k8s.helm.v3.Chart" | "k8s.helm.v4.Chart" => {
                let r = self.release(path, &name, &p, &o, w, cx, span);
                resource(self, r)
            }
            "k8s.apiextensions.CustomResource" => {
                let api = p
                    .get("apiVersion")
                    .and_then(Val::as_str)
                    .map(str::to_string);
                let kind = p.get("kind").and_then(Val::as_str).map(str::to_string);
                match (api, kind) {
                    (Some(a), Some(k)) => {
                        let r = self.object(&a, &k, &name, &props, &o, w, cx, span);
                        resource(self, r)
                    }
                    _ => self.handle(Kind::Other(deps), o.parent, span),
                }
            }
            // Nodes fplint does not attribute: every cluster's capacity is
            // then unknown.
            "aws.autoscaling.Group" | "aws.ec2.Instance" | "aws.ec2.SpotFleetRequest" => {
                let r = self.unread_nodes(&name.logical, w, cx, span);
                resource(self, r)
            }
            // `@pulumi/eks` has more ways to add nodes than fplint reads.
            _ if path.starts_with("eks.") => {
                self.gap(span, format!("`{path}` is not read"));
                let r = self.unread_nodes(&name.logical, w, cx, span);
                resource(self, r)
            }
            _ => {
                let parts: Vec<&str> = path.split('.').collect();
                match parts.as_slice() {
                    ["k8s", group, version, kind]
                        if !matches!(*group, "helm" | "yaml" | "kustomize" | "meta")
                            && version.starts_with('v')
                            && !kind.ends_with("Patch")
                            && !kind.ends_with("List") =>
                    {
                        let api = api_version(group, version);
                        let r = self.object(&api, kind, &name, &props, &o, w, cx, span);
                        resource(self, r)
                    }
                    _ => self.handle(Kind::Other(deps), o.parent, span),
                }
            }
        };
        drop(p);
        out
    }

    fn call(&mut self, path: &str, args: Args<'m>, cx: &Cx) -> Val<'m> {
        let span = args.span;
        if path == "eks.createManagedNodeGroup" || path == "eks.create_managed_node_group" {
            return self.construct("eks.ManagedNodeGroup", args, cx);
        }
        if path.starts_with("eks.") {
            // A function that may add nodes (`createNodeGroup`).
            let (name, _, opts) = split(&args);
            let o = self.options(&opts);
            self.gap(span, format!("`{path}` is not read"));
            let w = Wait {
                parent: o.parent,
                deps: o.deps,
            };
            let r = self.unread_nodes(&name.logical, w, cx, span);
            return V::Handle(self.resources[r].node).at(span);
        }
        let all: Vec<&Val<'m>> = args
            .positional
            .iter()
            .chain(args.keywords.iter().map(|(_, _, v)| v))
            .collect();
        match path {
            // A value made an output is the value, when nothing in it waits.
            "pulumi.output"
            | "pulumi.Output.create"
            | "pulumi.Output.from_input"
            | "pulumi.secret"
            | "pulumi.Output.secret" => match args.positional.first() {
                Some(v) => {
                    let mut deps = Vec::new();
                    self.deps_in(v, &mut deps, 0);
                    if deps.is_empty() && self.cluster_in(v, 0).is_none() {
                        v.clone()
                    } else {
                        self.output(&all, span)
                    }
                }
                None => unknown_at(span),
            },
            "pulumi.all"
            | "pulumi.Output.all"
            | "pulumi.interpolate"
            | "pulumi.concat"
            | "pulumi.Output.concat"
            | "pulumi.Output.format"
            | "pulumi.jsonStringify"
            | "pulumi.Output.json_dumps" => self.output(&all, span),
            "pulumi.getProject" | "pulumi.get_project" => {
                V::Str(self.project.as_str().into()).at(span)
            }
            _ => unknown_at(span),
        }
    }

    fn method(&mut self, handle: usize, name: &str, args: Args<'m>, cx: &Cx) -> Val<'m> {
        let span = args.span;
        let Some(node) = self.nodes.get(handle).cloned() else {
            return unknown_at(span);
        };
        match (&node.kind, name) {
            (Kind::Config(ns), m) if m.starts_with("get") || m.starts_with("require") => {
                self.config_value(ns, m, &args)
            }
            (Kind::Component { cluster, .. }, "createNodeGroup") => {
                let (n, props, opts) = split(&args);
                let o = self.options(&opts);
                let deps = self.waits_for(&props, &o);
                let p = Props::of(&props);
                let min = match p.get("minSize").or_else(|| p.get("desiredCapacity")) {
                    Some(v) => self.to_node(v),
                    None => scalar_plain("1", span),
                };
                drop(p);
                let w = Wait {
                    parent: Some(handle),
                    deps,
                };
                let r = self.asg(&n.logical, *cluster, min, w, cx, span);
                V::Handle(self.resources[r].node).at(span)
            }
            _ => {
                let this = V::Handle(handle).at(span);
                let mut from: Vec<&Val<'m>> = vec![&this];
                from.extend(args.positional.iter());
                self.output(&from, span)
            }
        }
    }

    fn member(&mut self, handle: usize, name: &str, span: Span) -> Val<'m> {
        let Some(node) = self.nodes.get(handle).cloned() else {
            return unknown_at(span);
        };
        let deps = self.deps_of_node(handle);
        let out = |of, whole, cluster| Kind::Output {
            of,
            whole,
            deps: deps.clone(),
            cluster,
        };
        let kind = match &node.kind {
            // `ns.metadata.name`: what the program wrote; a name Pulumi
            // generates is not known.
            Kind::Resource(r) if name == "metadata" => {
                if let Some(m) = self.resources.get(*r).and_then(|x| x.metadata.as_ref()) {
                    let v = node_value(m, 0);
                    if let V::Object(o) = &v.kind {
                        o.borrow_mut().open = true;
                        return v;
                    }
                }
                out(None, None, None)
            }
            Kind::Resource(r) => {
                let is_cluster = self.resources.get(*r).is_some_and(|x| x.ty == CLUSTER);
                let cluster = is_cluster.then_some(*r);
                match name {
                    "name" | "id" if is_cluster => out(Some(*r), None, cluster),
                    _ => out(None, None, cluster),
                }
            }
            Kind::Component { cluster, .. } => match name {
                "provider" => Kind::Provider {
                    cluster: Some(*cluster),
                    deps: deps.clone(),
                    namespace: None,
                },
                "eksCluster" | "core" => out(None, Some(*cluster), Some(*cluster)),
                _ => out(None, None, Some(*cluster)),
            },
            Kind::Output {
                whole: Some(r),
                cluster,
                ..
            } => match name {
                "name" | "id" => out(Some(*r), None, *cluster),
                "cluster" | "eksCluster" => out(None, Some(*r), *cluster),
                _ => out(None, None, *cluster),
            },
            Kind::Output { cluster, .. } | Kind::Provider { cluster, .. } => {
                out(None, None, *cluster)
            }
            Kind::Config(_) | Kind::Scope { .. } | Kind::Other(_) => out(None, None, None),
        };
        self.handle(kind, None, span)
    }
}

#[cfg(test)]
#[path = "pulumi_tests.rs"]
mod tests;
