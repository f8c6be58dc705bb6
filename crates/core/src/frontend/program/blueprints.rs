//! AWS EKS Blueprints (`@aws-quickstart/eks-blueprints`), as its 1.19.0
//! release builds a stack: the builder's methods return the builder, and
//! `build(scope, id)` makes the stack `id` with the cluster its cluster
//! provider makes and the add-ons it deploys, written through the CDK
//! host's own constructs so the template is the one `cdk synth` writes.
//!
//! What the package does, as its compiled source says:
//! - The builder sets `compatibilityMode`: the cluster is made in the
//!   stack with the stack's id (`new EksBlueprint(...)` without it makes
//!   it in the construct `<id>-ct`, with that id). The cluster's name is
//!   the provider's `clusterName` or that id; its version the builder's
//!   (`auto` is 1.35), else the provider's.
//! - `GenericClusterProvider` makes an `eks.Cluster` with
//!   `defaultCapacity: 0`, then each managed node group
//!   (`addNodegroupCapacity('<id>-ng')`, two to three `m5.large` nodes
//!   unless it says otherwise or the context's `eks.default.*` does),
//!   each Auto Scaling group, then each Fargate profile
//!   (`addFargateProfile(<key>)`). `FargateClusterProvider` makes an
//!   `eks.FargateCluster` the same way (its default profile and the
//!   CoreDNS patch are the cluster's own); `MngClusterProvider` and
//!   `AsgClusterProvider` are one node group (`eks-blueprints-mng`,
//!   `eks-blueprints-asg` unless `id` or `clusterName` names it); no
//!   provider is a managed node group `<name or id>-ng`.
//! - A Helm add-on is `cluster.addHelmChart(<name>, ...)` with its
//!   default chart, repository, version, namespace and release.
//!
//! Add-ons not modelled here, and teams, are a gap; an add-on that may
//! give the cluster nodes (any but the package's own that run no nodes)
//! leaves its capacity unknown.

use super::cdk::{snake, Cdk};
use super::eval::{unknown_at, Args, Array, Cx, Host, Object, Val, V};
use crate::source::Span;
use rustc_hash::FxHashMap as HashMap;
use std::cell::RefCell;
use std::rc::Rc;

/// A value kept past the evaluation that made it: what the program wrote,
/// its functions and program instances left unknown.
type Kept = Val<'static>;

/// An object's entries: key, where it is written, value.
type Entries = Vec<(String, Span, Kept)>;

/// What the program made of the package, by handle.
#[derive(Debug, Default)]
pub struct State {
    things: HashMap<usize, Thing>,
}

impl State {
    /// Whether `handle` is something of the package.
    pub(super) fn owns(&self, handle: usize) -> bool {
        self.things.contains_key(&handle)
    }
}

#[derive(Clone, Debug)]
enum Thing {
    /// `EksBlueprint.builder()`.
    Blueprint(Blueprint),
    /// `clusterBuilder()`.
    ClusterBuilder(ClusterBuilder),
    /// A cluster provider: its class and props as its constructor hands
    /// them to `GenericClusterProvider`.
    Provider(&'static str, Kept),
    /// Anything else of the package (an add-on, a team, a resource
    /// provider): its class and props.
    Other(String, Kept),
}

#[derive(Clone, Debug)]
struct Blueprint {
    /// `id`, `name`, `version`, `clusterProvider`, `compatibilityMode`.
    props: Vec<(String, Span, Kept)>,
    add_ons: Vec<Kept>,
    teams: Vec<Kept>,
    /// A spread of add-ons or teams not known.
    open: Option<Span>,
    region: Option<Kept>,
}

#[derive(Clone, Debug, Default)]
struct ClusterBuilder {
    common: Vec<(String, Span, Kept)>,
    open: bool,
    managed: Vec<Kept>,
    asgs: Vec<Kept>,
    profiles: Vec<(String, Span, Kept)>,
}

/// Whether a library path is the package's (`@aws-quickstart/eks-blueprints`;
/// a Python module `eks_blueprints` is read the same).
pub fn is_blueprints(path: &str) -> bool {
    let Some(p) = path.strip_prefix("lib:") else {
        return false;
    };
    p.starts_with("@aws-quickstart/eks-blueprints")
        || p.split('.').take(2).any(|m| m == "eks_blueprints")
}

/// The package's default Kubernetes version (`version('auto')`).
const DEFAULT_VERSION: &str = "cdk.aws_eks.KubernetesVersion.V1_35";

/// Add-ons of the package that give a cluster no nodes: one not modelled
/// is a gap, but the cluster's capacity stays what it was. Any other
/// (Karpenter's, which launches nodes, or one of another package) leaves
/// it unknown.
const NO_NODES: &[&str] = &[
    "AckAddOn",
    "AdotCollectorAddOn",
    "AmpAddOn",
    "ArgoCDAddOn",
    "AwsLoadBalancerControllerAddOn",
    "AwsNodeTerminationHandlerAddOn",
    "AwsPrivateCaIssuerAddon",
    "CalicoAddOn",
    "CalicoOperatorAddOn",
    "CertManagerAddOn",
    "CloudWatchAdotAddOn",
    "CloudWatchInsights",
    "CloudWatchLogsAddon",
    "ClusterAutoScalerAddOn",
    "ContainerInsightsAddOn",
    "CoreDnsAddOn",
    "EbsCsiDriverAddOn",
    "EfsCsiDriverAddOn",
    "EksPodIdentityAgentAddOn",
    "ExternalsSecretsAddOn",
    "FalcoAddOn",
    "FluxCDAddOn",
    "GpuOperatorAddon",
    "GrafanaOperatorAddon",
    "IngressNginxAddOn",
    "IstioBaseAddOn",
    "IstioControlPlaneAddOn",
    "KedaAddOn",
    "KubeProxyAddOn",
    "KubeStateMetricsAddOn",
    "NginxAddOn",
    "OpaGatekeeperAddOn",
    "PrometheusNodeExporterAddOn",
    "S3CSIDriverAddOn",
    "SecretsStoreAddOn",
    "SSMAgentAddOn",
    "VeleroAddOn",
    "VpcCniAddOn",
    "XrayAddOn",
    "XrayAdotAddOn",
];

fn last(path: &str) -> &str {
    path.rsplit(['.', '/']).next().unwrap_or(path)
}

/// `new blueprints.X(...)`.
pub(super) fn construct<'m>(cdk: &mut Cdk, path: &str, args: Args<'m>, cx: &Cx) -> Val<'m> {
    let span = args.span;
    let class = last(path);
    match class {
        "EksBlueprint" => {
            let props = keep(
                &args
                    .positional
                    .get(1)
                    .cloned()
                    .unwrap_or_else(|| super::cdk::props_arg(&args, 1)),
            );
            let bp = blueprint_of(&props, span);
            let scope = args.positional.first().map(keep);
            match stack(cdk, &bp, scope, None, cx, span) {
                Some(h) => V::Handle(h).at(span),
                None => unknown_at(span),
            }
        }
        "BlueprintBuilder" => new_thing(cdk, Thing::Blueprint(new_blueprint()), span),
        "GenericClusterProvider"
        | "FargateClusterProvider"
        | "MngClusterProvider"
        | "AsgClusterProvider" => {
            let props = keep(&super::cdk::props_arg(&args, 0));
            provider(cdk, class, props, span)
        }
        _ => {
            let props = keep(&super::cdk::props_arg(&args, 0));
            new_thing(cdk, Thing::Other(class.to_string(), props), span)
        }
    }
}

/// A function or static method of the package.
pub(super) fn call<'m>(cdk: &mut Cdk, path: &str, args: Args<'m>, _cx: &Cx) -> Val<'m> {
    let span = args.span;
    if path.ends_with("EksBlueprint.builder") {
        return new_thing(cdk, Thing::Blueprint(new_blueprint()), span);
    }
    // A Python module's function is written in snake case.
    if camel_key(last(path)) == "clusterBuilder" {
        return new_thing(cdk, Thing::ClusterBuilder(ClusterBuilder::default()), span);
    }
    unknown_at(span)
}

/// A method of something of the package.
pub(super) fn method<'m>(
    cdk: &mut Cdk,
    handle: usize,
    name: &str,
    args: Args<'m>,
    cx: &Cx,
) -> Val<'m> {
    let span = args.span;
    let this = V::Handle(handle).at(span);
    let Some(thing) = cdk.blueprints.things.get(&handle).cloned() else {
        return unknown_at(span);
    };
    let kept: Vec<Kept> = args.positional.iter().map(keep).collect();
    match thing {
        Thing::Blueprint(mut bp) => {
            let first = kept.first().cloned();
            match name {
                "build" | "buildAsync" => {
                    let id = first.map(|_| kept.get(1).cloned());
                    let scope = kept.first().cloned();
                    return match stack(cdk, &bp, scope, id.flatten(), cx, span) {
                        Some(h) => V::Handle(h).at(span),
                        None => unknown_at(span),
                    };
                }
                "clone" => {
                    let mut copy = bp.clone();
                    if let Some(r) = first {
                        copy.region = Some(r);
                    }
                    return new_thing(cdk, Thing::Blueprint(copy), span);
                }
                "id" | "name" | "version" | "clusterProvider" | "compatibilityMode" => {
                    let v = first.unwrap_or_else(|| unknown_at(span));
                    bp.props.push((name.to_string(), span, v));
                }
                "region" => bp.region = first,
                "withEnv" => bp.region = first.map(|e| field(&e, "region").or_unknown(span)),
                "withBlueprintProps" => {
                    let v = first.unwrap_or_else(|| unknown_at(span));
                    let other = blueprint_of(&v, span);
                    bp.props.extend(other.props);
                    bp.add_ons = other.add_ons;
                    bp.teams = other.teams;
                    bp.open = bp.open.or(other.open);
                }
                "addOns" => {
                    bp.add_ons.extend(kept);
                    if args.open {
                        bp.open = Some(span);
                    }
                }
                "teams" => {
                    bp.teams.extend(kept);
                    if args.open {
                        bp.open = Some(span);
                    }
                }
                // Settings that make no cluster, profile, node or pod.
                "account"
                | "enableControlPlaneLogTypes"
                | "useDefaultSecretEncryption"
                | "resourceProvider"
                | "ipFamily"
                | "enableGitOps" => {}
                _ => cdk.gap(
                    span,
                    format!("`{name}` of an EKS Blueprints builder is not read"),
                ),
            }
            cdk.blueprints.things.insert(handle, Thing::Blueprint(bp));
            this
        }
        Thing::ClusterBuilder(mut b) => {
            match name {
                "build" => {
                    let mut entries = b.common.clone();
                    entries.push((
                        "managedNodeGroups".into(),
                        span,
                        array(b.managed, false, span),
                    ));
                    entries.push((
                        "autoscalingNodeGroups".into(),
                        span,
                        array(b.asgs, false, span),
                    ));
                    entries.push((
                        "fargateProfiles".into(),
                        span,
                        object(b.profiles, false, span),
                    ));
                    let props = object(entries, b.open, span);
                    return provider(cdk, "GenericClusterProvider", props, span);
                }
                "withCommonOptions" => match kept.first().and_then(entries_of) {
                    Some((e, open)) => {
                        b.common.extend(e);
                        b.open |= open;
                    }
                    None => b.open = true,
                },
                "version" => {
                    let v = kept.first().cloned().unwrap_or_else(|| unknown_at(span));
                    b.common.push(("version".into(), span, v));
                }
                "managedNodeGroup" => {
                    b.managed.extend(kept);
                    b.open |= args.open;
                }
                "autoscalingGroup" => {
                    b.asgs.extend(kept);
                    b.open |= args.open;
                }
                "fargateProfile" => match kept.first().and_then(|k| k.as_str().map(str::to_string))
                {
                    Some(key) => {
                        let opts = kept.get(1).cloned().unwrap_or_else(|| unknown_at(span));
                        b.profiles.push((key, span, opts));
                    }
                    None => b.open = true,
                },
                _ => cdk.gap(
                    span,
                    format!("`{name}` of an EKS Blueprints cluster builder is not read"),
                ),
            }
            cdk.blueprints
                .things
                .insert(handle, Thing::ClusterBuilder(b));
            this
        }
        Thing::Provider(..) | Thing::Other(..) => unknown_at(span),
    }
}

fn new_blueprint() -> Blueprint {
    Blueprint {
        // The builder's own: the cluster goes in the stack.
        props: vec![(
            "compatibilityMode".into(),
            Span::default(),
            V::Bool(true).at(Span::default()),
        )],
        add_ons: Vec::new(),
        teams: Vec::new(),
        open: None,
        region: None,
    }
}

fn new_thing<'m>(cdk: &mut Cdk, thing: Thing, span: Span) -> Val<'m> {
    let h = cdk.detached();
    cdk.blueprints.things.insert(h, thing);
    V::Handle(h).at(span)
}

/// The blueprint `new EksBlueprint(scope, props)` (or `withBlueprintProps`)
/// describes.
fn blueprint_of(props: &Kept, span: Span) -> Blueprint {
    let mut bp = Blueprint {
        props: Vec::new(),
        add_ons: Vec::new(),
        teams: Vec::new(),
        open: None,
        region: None,
    };
    for key in [
        "id",
        "name",
        "version",
        "clusterProvider",
        "compatibilityMode",
    ] {
        match field(props, key) {
            Field::Absent => {}
            f => bp.props.push((key.into(), span, f.or_unknown(span))),
        }
    }
    for (key, out) in [("addOns", &mut bp.add_ons), ("teams", &mut bp.teams)] {
        match field(props, key) {
            Field::Absent => {}
            Field::Is(Val {
                kind: V::Array(a), ..
            }) => {
                let a = a.borrow();
                out.extend(a.items.iter().cloned());
                if a.open {
                    bp.open = Some(span);
                }
            }
            _ => bp.open = Some(span),
        }
    }
    bp
}

fn get<'a>(bp: &'a Blueprint, key: &str) -> Option<&'a Kept> {
    bp.props.iter().rev().find(|p| p.0 == key).map(|p| &p.2)
}

/// A cluster provider's handle; its props as `GenericClusterProvider`
/// gets them.
fn provider<'m>(cdk: &mut Cdk, class: &str, props: Kept, span: Span) -> Val<'m> {
    let (class, props): (&'static str, Kept) = match class {
        "FargateClusterProvider" => ("FargateClusterProvider", props),
        "MngClusterProvider" | "AsgClusterProvider" => {
            let (key, default) = if class == "MngClusterProvider" {
                ("managedNodeGroups", "eks-blueprints-mng")
            } else {
                ("autoscalingNodeGroups", "eks-blueprints-asg")
            };
            let (mut entries, open) = entries_of(&props).unwrap_or((Vec::new(), true));
            let id = match (field(&props, "id"), field(&props, "clusterName")) {
                (Field::Is(id), _) => id,
                (Field::Absent, Field::Is(n)) => n,
                (Field::Absent, Field::Absent) => V::Str(default.into()).at(span),
                _ => unknown_at(span),
            };
            let mut group = entries.clone();
            group.push(("id".into(), span, id));
            entries.push((
                key.into(),
                span,
                array(vec![object(group, open, span)], false, span),
            ));
            ("GenericClusterProvider", object(entries, open, span))
        }
        _ => ("GenericClusterProvider", props),
    };
    new_thing(cdk, Thing::Provider(class, props), span)
}

/// The stack a blueprint builds, with its cluster and add-ons: its handle.
fn stack(
    cdk: &mut Cdk,
    bp: &Blueprint,
    scope: Option<Kept>,
    id: Option<Kept>,
    cx: &Cx,
    span: Span,
) -> Option<usize> {
    let id = id
        .or_else(|| get(bp, "id").cloned())
        .unwrap_or_else(|| unknown_at(span));
    let scope = scope.unwrap_or_else(|| unknown_at(span));
    let stack = handle_of(&<Cdk as Host<'static>>::construct(
        cdk,
        "cdk.Stack",
        args(span, vec![scope, id.clone()]),
        cx,
    ))?;
    let compat = matches!(
        get(bp, "compatibilityMode").map(|v| &v.kind),
        Some(V::Bool(true))
    );
    // Without `compatibilityMode` the cluster is made in the construct
    // `<id>-ct`, and takes that id.
    let (scope, cluster_id) = if compat {
        (stack, id.clone())
    } else {
        let ct = match id.as_str() {
            Some(s) => V::Str(format!("{s}-ct").into()).at(id.span),
            None => unknown_at(id.span),
        };
        let made = <Cdk as Host<'static>>::construct(
            cdk,
            "constructs.Construct",
            args(span, vec![V::Handle(stack).at(span), ct.clone()]),
            cx,
        );
        (handle_of(&made).unwrap_or(stack), ct)
    };
    let version = match get(bp, "version") {
        Some(v) if v.as_str() == Some("auto") => Some(V::Lib(DEFAULT_VERSION.into()).at(v.span)),
        v => v.cloned(),
    };
    let provider = match get(bp, "clusterProvider") {
        None => {
            // The package's default: a managed node group named after the
            // blueprint.
            let name = get(bp, "name").unwrap_or(&id);
            let ng = match name.as_str() {
                Some(n) => V::Str(format!("{n}-ng").into()).at(name.span),
                None => unknown_at(name.span),
            };
            let group = object(vec![("id".into(), span, ng)], false, span);
            Some((
                "GenericClusterProvider",
                object(
                    vec![(
                        "managedNodeGroups".into(),
                        span,
                        array(vec![group], false, span),
                    )],
                    false,
                    span,
                ),
            ))
        }
        Some(p) => match handle_of(p).and_then(|h| cdk.blueprints.things.get(&h)) {
            Some(Thing::Provider(class, props)) => Some((*class, props.clone())),
            _ => None,
        },
    };
    let Some((class, props)) = provider else {
        cdk.gap(span, "the EKS Blueprints cluster provider is not known");
        return Some(stack);
    };
    let cluster = create_cluster(cdk, scope, cluster_id, class, &props, version, cx, span)?;
    let region = bp.region.clone();
    for add_on in &bp.add_ons {
        deploy(cdk, stack, cluster, add_on, region.as_ref(), cx);
    }
    if let Some(open) = bp.open {
        cdk.gap(open, "EKS Blueprints add-ons or teams are not all known");
        cdk.unread_capacity(cluster, "AddOns", cx, open);
    }
    if let Some(t) = bp.teams.first() {
        cdk.gap(t.span, "EKS Blueprints teams are not read");
    }
    Some(stack)
}

/// `GenericClusterProvider.createCluster`: the cluster, then its managed
/// node groups, Auto Scaling groups and Fargate profiles.
#[allow(clippy::too_many_arguments)]
fn create_cluster(
    cdk: &mut Cdk,
    scope: usize,
    id: Kept,
    class: &str,
    props: &Kept,
    version: Option<Kept>,
    cx: &Cx,
    span: Span,
) -> Option<usize> {
    let (entries, open) = entries_of(props).unwrap_or((Vec::new(), true));
    let name = match field(props, "clusterName") {
        Field::Is(n) => n,
        Field::Absent => id.clone(),
        Field::Unknown => unknown_at(span),
    };
    let mut options = vec![
        ("clusterName".to_string(), span, name),
        ("defaultCapacity".into(), span, V::Num(0.0, None).at(span)),
        (
            "defaultCapacityType".into(),
            span,
            V::Lib("cdk.aws_eks.DefaultCapacityType.NODEGROUP".into()).at(span),
        ),
    ];
    options.extend(entries);
    if let Some(v) = version {
        options.push(("version".into(), v.span, v));
    }
    let construct = if class == "FargateClusterProvider" {
        "cdk.aws_eks.FargateCluster"
    } else {
        "cdk.aws_eks.Cluster"
    };
    let made = <Cdk as Host<'static>>::construct(
        cdk,
        construct,
        args(
            span,
            vec![V::Handle(scope).at(span), id, object(options, open, span)],
        ),
        cx,
    );
    let cluster = handle_of(&made)?;
    if open {
        cdk.gap(
            span,
            "the EKS Blueprints cluster provider's props are not all known",
        );
        cdk.unread_capacity(cluster, "ClusterProvider", cx, span);
    }
    let context = |key: &str, default: f64| -> Option<f64> {
        match cdk.context.as_ref().and_then(|c| c.get(key)) {
            Some(v) => v.as_str().and_then(|t| t.parse().ok()),
            None => Some(default),
        }
    };
    let (min_default, max_default) = (
        context("eks.default.min-size", 2.0),
        context("eks.default.max-size", 3.0),
    );
    let desired_context = cdk
        .context
        .as_ref()
        .is_some_and(|c| c.get("eks.default.desired-size").is_some());
    let instance = match cdk
        .context
        .as_ref()
        .and_then(|c| c.get("eks.default.instance-type"))
    {
        Some(n) => n.as_str().map(str::to_string),
        None => Some("m5.large".to_string()),
    };
    for (key, asg) in [
        ("managedNodeGroups", false),
        ("autoscalingNodeGroups", true),
    ] {
        let groups = match field(props, key) {
            Field::Absent => continue,
            Field::Is(Val {
                kind: V::Array(a), ..
            }) => {
                let a = a.borrow();
                if a.open {
                    cdk.unread_capacity(cluster, key, cx, span);
                }
                a.items.clone()
            }
            _ => {
                cdk.unread_capacity(cluster, key, cx, span);
                continue;
            }
        };
        for g in groups {
            let gs = g.span;
            let num = |v: Option<f64>| v.map_or_else(|| unknown_at(gs), |n| V::Num(n, None).at(gs));
            let size = |k: &str| match field(&g, k) {
                Field::Is(v) => Some(v),
                Field::Absent => None,
                Field::Unknown => Some(unknown_at(gs)),
            };
            let max = size("maxSize").unwrap_or_else(|| num(max_default));
            let max_n = match max.kind {
                V::Num(n, _) => Some(n),
                _ => None,
            };
            let min = size("minSize")
                .unwrap_or_else(|| num(min_default.zip(max_n).map(|(a, b)| a.min(b))));
            let min_n = match min.kind {
                V::Num(n, _) => Some(n),
                _ => None,
            };
            let desired = size("desiredSize").unwrap_or_else(|| {
                if desired_context {
                    unknown_at(gs)
                } else {
                    num(min_n.zip(max_n).map(|(a, b)| a.min(b)))
                }
            });
            let gid = match field(&g, "id") {
                Field::Is(v) => v,
                _ => unknown_at(gs),
            };
            let (mut opts, gopen) = entries_of(&g).unwrap_or((Vec::new(), true));
            let construct_id;
            if asg {
                construct_id = gid;
                opts.push(("minCapacity".into(), gs, min));
                opts.push(("maxCapacity".into(), gs, max));
                opts.push(("desiredCapacity".into(), gs, desired));
            } else {
                construct_id = match gid.as_str() {
                    Some(s) => V::Str(format!("{s}-ng").into()).at(gid.span),
                    None => unknown_at(gid.span),
                };
                let name = match field(&g, "nodegroupName") {
                    Field::Is(n) => n,
                    _ => gid.clone(),
                };
                opts.push(("nodegroupName".into(), gs, name));
                if matches!(field(&g, "instanceTypes"), Field::Absent) {
                    let it = instance
                        .as_deref()
                        .map_or_else(|| unknown_at(gs), |t| V::Str(t.into()).at(gs));
                    opts.push(("instanceTypes".into(), gs, array(vec![it], false, gs)));
                }
                opts.push(("minSize".into(), gs, min));
                opts.push(("maxSize".into(), gs, max));
                opts.push(("desiredSize".into(), gs, desired));
            }
            let method = if asg {
                "addAutoScalingGroupCapacity"
            } else {
                "addNodegroupCapacity"
            };
            <Cdk as Host<'static>>::method(
                cdk,
                cluster,
                method,
                args(gs, vec![construct_id, object(opts, gopen, gs)]),
                cx,
            );
        }
    }
    if let Some(p) = field(props, "fargateProfiles").or_absent(span) {
        match entries_of(&p) {
            Some((profiles, popen)) => {
                for (key, kspan, opts) in profiles {
                    <Cdk as Host<'static>>::method(
                        cdk,
                        cluster,
                        "addFargateProfile",
                        args(kspan, vec![V::Str(key.into()).at(kspan), opts]),
                        cx,
                    );
                }
                if popen {
                    unknown_profile(cdk, cluster, p.span, cx);
                }
            }
            None => unknown_profile(cdk, cluster, p.span, cx),
        }
    }
    Some(cluster)
}

/// A Fargate profile whose name and selectors are not known.
fn unknown_profile(cdk: &mut Cdk, cluster: usize, span: Span, cx: &Cx) {
    cdk.gap(
        span,
        "the EKS Blueprints Fargate profiles are not all known",
    );
    <Cdk as Host<'static>>::method(
        cdk,
        cluster,
        "addFargateProfile",
        args(span, vec![unknown_at(span), unknown_at(span)]),
        cx,
    );
}

/// An add-on's `deploy(clusterInfo)`.
fn deploy(
    cdk: &mut Cdk,
    stack: usize,
    cluster: usize,
    add_on: &Kept,
    region: Option<&Kept>,
    cx: &Cx,
) {
    let span = add_on.span;
    let (class, props) = match handle_of(add_on).and_then(|h| cdk.blueprints.things.get(&h)) {
        Some(Thing::Other(class, props)) => (class.clone(), props.clone()),
        _ => {
            cdk.gap(
                span,
                "an EKS Blueprints add-on fplint does not know is not read",
            );
            cdk.unread_capacity(cluster, "AddOn", cx, span);
            return;
        }
    };
    match class.as_str() {
        "MetricsServerAddOn" => {
            let options = with_defaults(
                &props,
                &[
                    ("chart", "metrics-server"),
                    (
                        "repository",
                        "https://kubernetes-sigs.github.io/metrics-server",
                    ),
                    ("version", "3.13.1"),
                    ("release", "blueprints-addon-metrics-server"),
                    ("name", "metrics-server"),
                    ("namespace", "kube-system"),
                ],
                &[("createNamespace", false)],
                span,
            );
            // The add-on hands its whole options, merged with `values`, to
            // the chart as its values.
            let values = match field(&options, "values") {
                Field::Is(v) => merge(&options, &v),
                Field::Absent => options.clone(),
                Field::Unknown => unknown_at(span),
            };
            let ns = namespace_if_asked(cdk, stack, cluster, &options, cx);
            helm(cdk, cluster, &options, values, ns, cx);
        }
        "AwsForFluentBitAddOn" => {
            let options = with_defaults(
                &props,
                &[
                    ("name", "fluent-bit"),
                    ("chart", "aws-for-fluent-bit"),
                    ("release", "blueprints-addon-aws-for-fluent-bit"),
                    ("version", "0.2.0"),
                    ("repository", "https://aws.github.io/eks-charts"),
                    ("namespace", "kube-system"),
                    ("imageTag", "3.4.5"),
                ],
                &[("createNamespace", false)],
                span,
            );
            let tag = field(&options, "imageTag").or_unknown(span);
            let sa = "aws-for-fluent-bit-sa";
            let mut values = vec![
                (
                    "image".to_string(),
                    span,
                    object(vec![("tag".into(), span, tag)], false, span),
                ),
                (
                    "serviceAccount".into(),
                    span,
                    object(
                        vec![
                            ("name".into(), span, V::Str(sa.into()).at(span)),
                            ("create".into(), span, V::Bool(false).at(span)),
                        ],
                        false,
                        span,
                    ),
                ),
            ];
            let mut open = false;
            match field(&options, "values")
                .or_absent(span)
                .as_ref()
                .map(entries_of)
            {
                None => {}
                Some(Some((e, o))) => {
                    values.extend(e);
                    open = o;
                }
                Some(None) => open = true,
            }
            let ns = namespace_if_asked(cdk, stack, cluster, &options, cx);
            helm(cdk, cluster, &options, object(values, open, span), ns, cx);
        }
        "ExternalDnsAddOn" => {
            let options = with_defaults(
                &props,
                &[
                    ("name", "external-dns"),
                    ("chart", "external-dns"),
                    ("namespace", "external-dns"),
                    (
                        "repository",
                        "https://kubernetes-sigs.github.io/external-dns/",
                    ),
                    ("release", "blueprints-addon-external-dns"),
                    ("version", "1.21.1"),
                ],
                &[],
                span,
            );
            let name = field(&options, "name").or_unknown(span);
            let namespace = match field(&options, "namespace") {
                Field::Absent => name.clone(),
                f => f.or_unknown(span),
            };
            let ns_id = match name.as_str() {
                Some(n) => V::Str(format!("{n}-ns").into()).at(span),
                None => unknown_at(span),
            };
            let ns = namespace_manifest(cdk, stack, cluster, ns_id, namespace, cx, span);
            // One `--zone-id-filter` a hosted zone, each known only when
            // deployed.
            let zones = match field(&options, "hostedZoneResources") {
                Field::Is(Val {
                    kind: V::Array(a), ..
                }) if a.borrow().items.is_empty() && !a.borrow().open => {
                    array(Vec::new(), false, span)
                }
                _ => unknown_at(span),
            };
            let sa = match name.as_str() {
                Some(n) => V::Str(format!("{n}-sa").into()).at(span),
                None => unknown_at(span),
            };
            let region = region
                .filter(|r| r.as_str().is_some())
                .cloned()
                .unwrap_or_else(|| unknown_at(span));
            let base = object(
                vec![
                    ("provider".into(), span, V::Str("aws".into()).at(span)),
                    ("extraArgs".into(), span, zones),
                    (
                        "aws".into(),
                        span,
                        object(vec![("region".into(), span, region)], false, span),
                    ),
                    (
                        "serviceAccount".into(),
                        span,
                        object(
                            vec![
                                ("create".into(), span, V::Bool(false).at(span)),
                                ("name".into(), span, sa),
                            ],
                            false,
                            span,
                        ),
                    ),
                ],
                false,
                span,
            );
            let mut values = match field(&options, "values") {
                Field::Is(v) => merge(&base, &v),
                Field::Absent => base,
                Field::Unknown => unknown_at(span),
            };
            match field(&options, "sources") {
                Field::Absent => {}
                f => {
                    values = merge(
                        &values,
                        &object(
                            vec![("sources".into(), span, f.or_unknown(span))],
                            false,
                            span,
                        ),
                    )
                }
            }
            helm(cdk, cluster, &options, values, ns, cx);
        }
        other => {
            cdk.gap(
                span,
                format!("the EKS Blueprints add-on `{other}` is not read"),
            );
            if !NO_NODES.contains(&other) {
                cdk.unread_capacity(cluster, other, cx, span);
            }
        }
    }
}

/// The add-on's props over its defaults.
fn with_defaults(
    props: &Kept,
    strings: &[(&str, &str)],
    bools: &[(&str, bool)],
    span: Span,
) -> Kept {
    let mut entries: Vec<(String, Span, Kept)> = strings
        .iter()
        .map(|(k, v)| (k.to_string(), span, V::Str((*v).into()).at(span)))
        .collect();
    entries.extend(
        bools
            .iter()
            .map(|(k, v)| (k.to_string(), span, V::Bool(*v).at(span))),
    );
    let (own, open) = entries_of(props).unwrap_or((Vec::new(), true));
    entries.extend(own.into_iter().map(|(k, s, v)| (camel_key(&k), s, v)));
    object(entries, open, span)
}

fn camel_key(k: &str) -> String {
    super::eval::camel(k)
}

/// `HelmAddOn.addHelmChart`: `cluster.addHelmChart(<name>, ...)`, waiting
/// for the namespace the add-on made.
fn helm(cdk: &mut Cdk, cluster: usize, options: &Kept, values: Kept, ns: Option<usize>, cx: &Cx) {
    let span = options.span;
    let name = field(options, "name").or_unknown(span);
    let mut props = Vec::new();
    for key in ["repository", "namespace", "chart", "version", "release"] {
        match field(options, key) {
            Field::Absent => {}
            f => props.push((key.to_string(), span, f.or_unknown(span))),
        }
    }
    props.push(("values".into(), values.span, values));
    let chart = <Cdk as Host<'static>>::method(
        cdk,
        cluster,
        "addHelmChart",
        args(span, vec![name, object(props, false, span)]),
        cx,
    );
    if let (Some(ns), Some(_)) = (ns, handle_of(&chart)) {
        <Cdk as Host<'static>>::method(
            cdk,
            handle_of(&chart).unwrap_or(cluster),
            "addDependency",
            args(span, vec![V::Handle(ns).at(span)]),
            cx,
        );
    }
}

/// The namespace `createNamespace: true` makes (`<ns>-namespace-struct`
/// in the stack; `kube-system` is none).
fn namespace_if_asked(
    cdk: &mut Cdk,
    stack: usize,
    cluster: usize,
    options: &Kept,
    cx: &Cx,
) -> Option<usize> {
    let span = options.span;
    match field(options, "createNamespace") {
        Field::Is(Val {
            kind: V::Bool(true),
            ..
        }) => {}
        Field::Is(Val {
            kind: V::Bool(false),
            ..
        })
        | Field::Absent => return None,
        _ => {
            cdk.gap(
                span,
                "whether an EKS Blueprints add-on makes its namespace is not known",
            );
            return None;
        }
    }
    let ns = field(options, "namespace").or_unknown(span);
    if ns.as_str() == Some("kube-system") {
        return None;
    }
    let id = match ns.as_str() {
        Some(n) => V::Str(format!("{n}-namespace-struct").into()).at(span),
        None => unknown_at(span),
    };
    namespace_manifest(cdk, stack, cluster, id, ns, cx, span)
}

/// A `KubernetesManifest` in the stack holding one namespace.
fn namespace_manifest(
    cdk: &mut Cdk,
    stack: usize,
    cluster: usize,
    id: Kept,
    name: Kept,
    cx: &Cx,
    span: Span,
) -> Option<usize> {
    let s = |t: &str| V::Str(t.into()).at(span);
    let doc = object(
        vec![
            ("apiVersion".into(), span, s("v1")),
            ("kind".into(), span, s("Namespace")),
            (
                "metadata".into(),
                span,
                object(vec![("name".into(), span, name)], false, span),
            ),
        ],
        false,
        span,
    );
    let props = object(
        vec![
            ("cluster".into(), span, V::Handle(cluster).at(span)),
            ("manifest".into(), span, array(vec![doc], false, span)),
        ],
        false,
        span,
    );
    let made = <Cdk as Host<'static>>::construct(
        cdk,
        "cdk.aws_eks.KubernetesManifest",
        args(span, vec![V::Handle(stack).at(span), id, props]),
        cx,
    );
    handle_of(&made)
}

/// `ts-deepmerge`'s `merge(a, b)`: objects merged key by key, arrays
/// joined, anything else `b`'s.
fn merge(a: &Kept, b: &Kept) -> Kept {
    match (&a.kind, &b.kind) {
        (V::Object(x), V::Object(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            let mut entries = x.entries.clone();
            for (k, s, v) in &y.entries {
                match entries.iter_mut().find(|e| e.0 == *k) {
                    Some(e) => e.2 = merge(&e.2, v),
                    None => entries.push((k.clone(), *s, v.clone())),
                }
            }
            object(entries, x.open || y.open, b.span)
        }
        (V::Array(x), V::Array(y)) => {
            let (x, y) = (x.borrow(), y.borrow());
            let mut items = x.items.clone();
            items.extend(y.items.iter().cloned());
            array(items, x.open || y.open, b.span)
        }
        (_, V::Undefined) => a.clone(),
        _ => b.clone(),
    }
}

// ---- values ----

enum Field {
    Absent,
    Unknown,
    Is(Kept),
}

impl Field {
    fn or_unknown(self, span: Span) -> Kept {
        match self {
            Field::Is(v) => v,
            _ => unknown_at(span),
        }
    }

    /// The value, an unknown one included; `None` when surely absent.
    fn or_absent(self, span: Span) -> Option<Kept> {
        match self {
            Field::Absent => None,
            Field::Unknown => Some(unknown_at(span)),
            Field::Is(v) => Some(v),
        }
    }
}

/// A prop of an object, by its camel-case name or its Python spelling.
fn field(v: &Kept, key: &str) -> Field {
    match &v.kind {
        V::Object(o) => {
            let o = o.borrow();
            match o.get(key).or_else(|| o.get(&snake(key))) {
                Some(Val {
                    kind: V::Undefined, ..
                })
                | None
                    if !o.open =>
                {
                    Field::Absent
                }
                Some(x) if !matches!(x.kind, V::Undefined) => Field::Is(x.clone()),
                _ => Field::Unknown,
            }
        }
        V::Undefined | V::Null => Field::Absent,
        _ => Field::Unknown,
    }
}

/// An object's entries and whether others may be in it; `None` when it is
/// not known to be an object.
fn entries_of(v: &Kept) -> Option<(Entries, bool)> {
    match &v.kind {
        V::Object(o) => {
            let o = o.borrow();
            Some((o.entries.clone(), o.open))
        }
        V::Undefined | V::Null => Some((Vec::new(), false)),
        _ => None,
    }
}

fn handle_of(v: &Val<'_>) -> Option<usize> {
    match v.kind {
        V::Handle(h) => Some(h),
        _ => None,
    }
}

fn object(entries: Vec<(String, Span, Kept)>, open: bool, span: Span) -> Kept {
    V::Object(Rc::new(RefCell::new(Object { entries, open }))).at(span)
}

fn array(items: Vec<Kept>, open: bool, span: Span) -> Kept {
    V::Array(Rc::new(RefCell::new(Array { items, open }))).at(span)
}

fn args(span: Span, positional: Vec<Kept>) -> Args<'static> {
    Args {
        positional,
        keywords: Vec::new(),
        open: false,
        span,
    }
}

/// A copy of `v` that outlives the evaluation: a function, a class or an
/// instance of the program that is no construct is unknown.
fn keep(v: &Val<'_>) -> Kept {
    keep_depth(v, 0)
}

fn keep_depth(v: &Val<'_>, depth: usize) -> Kept {
    let span = v.span;
    if depth > 64 {
        return unknown_at(span);
    }
    let kind = match &v.kind {
        V::Unknown => V::Unknown,
        V::Undefined => V::Undefined,
        V::Null => V::Null,
        V::Bool(b) => V::Bool(*b),
        V::Num(n, t) => V::Num(*n, t.clone()),
        V::Str(s) => V::Str(s.clone()),
        V::Lib(p) => V::Lib(p.clone()),
        V::Handle(h) => V::Handle(*h),
        V::Instance(i) => match i.handle.get() {
            Some(h) => V::Handle(h),
            None => V::Unknown,
        },
        V::Array(a) => {
            let a = a.borrow();
            let items = a.items.iter().map(|x| keep_depth(x, depth + 1)).collect();
            return array(items, a.open, span);
        }
        V::Object(o) => {
            let o = o.borrow();
            let entries = o
                .entries
                .iter()
                .map(|(k, s, x)| (k.clone(), *s, keep_depth(x, depth + 1)))
                .collect();
            return object(entries, o.open, span);
        }
        _ => V::Unknown,
    };
    kind.at(span)
}

#[cfg(test)]
#[path = "blueprints_tests.rs"]
mod tests;
