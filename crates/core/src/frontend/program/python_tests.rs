use super::*;
use proptest::prelude::*;

/// The lowered tree as compact text, spans left out (tested apart).
fn show(src: &str) -> String {
    let parsed = parse(src, FileId(0), &Limits::default());
    assert!(
        parsed.diagnostics.is_empty(),
        "unexpected errors: {:?}",
        parsed.diagnostics
    );
    stmts(&parsed.module.body)
}

fn stmts(body: &[Stmt]) -> String {
    body.iter().map(stmt).collect::<Vec<_>>().join("\n")
}

fn block(body: &[Stmt]) -> String {
    let inner = body.iter().map(stmt).collect::<Vec<_>>().join("; ");
    format!("{{{inner}}}")
}

fn stmt(s: &Stmt) -> String {
    match s {
        Stmt::Import { from, names, .. } => {
            let names: Vec<String> = names
                .iter()
                .map(|n| match n {
                    Imported::Namespace { local } => format!("* as {}", local.text),
                    Imported::Named { name, local } => format!("{name} as {}", local.text),
                    Imported::Default { local } => format!("default as {}", local.text),
                })
                .collect();
            format!("import [{}] from {from}", names.join(", "))
        }
        Stmt::Let {
            name,
            value,
            exported,
            ..
        } => format!(
            "let{} {} = {}",
            if *exported { " export" } else { "" },
            name.text,
            value.as_ref().map_or("-".to_string(), expr)
        ),
        Stmt::Assign { target, value, .. } => format!("{} := {}", expr(target), expr(value)),
        Stmt::Expr(e) => expr(e),
        Stmt::Function(f) => function(f),
        Stmt::Class {
            name,
            extends,
            members,
            exported,
            ..
        } => format!(
            "class{} {}({}) [{}]",
            if *exported { " export" } else { "" },
            name.text,
            extends.as_ref().map_or(String::new(), expr),
            members.iter().map(function).collect::<Vec<_>>().join(", ")
        ),
        Stmt::Return { value, .. } => {
            format!("return {}", value.as_ref().map_or("-".to_string(), expr))
        }
        Stmt::If {
            test,
            then,
            otherwise,
            ..
        } => format!(
            "if {} {} else {}",
            expr(test),
            block(then),
            block(otherwise)
        ),
        Stmt::For {
            binding,
            iter,
            body,
            ..
        } => format!("for {} in {} {}", binding.text, expr(iter), block(body)),
        Stmt::Block { body, .. } => block(body),
        Stmt::Other { .. } => "other".to_string(),
    }
}

fn function(f: &Function) -> String {
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            let mut s = String::new();
            if p.rest {
                s.push('*');
            }
            if p.keywords {
                s.push_str("**");
            }
            s.push_str(&p.name.text);
            if let Some(d) = &p.default {
                s.push('=');
                s.push_str(&expr(d));
            }
            s
        })
        .collect();
    format!(
        "def {}({}) {}",
        f.name.as_ref().map_or("", |n| n.text.as_str()),
        params.join(", "),
        block(&f.body)
    )
}

fn args(args: &[Arg]) -> String {
    args.iter()
        .map(|a| match a {
            Arg::Positional(e) => expr(e),
            Arg::Spread(e) => format!("*{}", expr(e)),
            Arg::Keyword(n, e) => format!("{}={}", n.text, expr(e)),
            Arg::KeywordSpread(e) => format!("**{}", expr(e)),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Num(n) => n.clone(),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Null => "null".to_string(),
        ExprKind::Undefined => "undefined".to_string(),
        ExprKind::Template(parts) => {
            let parts: Vec<String> = parts
                .iter()
                .map(|p| match p {
                    TemplatePart::Text(t) => format!("{t:?}"),
                    TemplatePart::Expr(e) => format!("${{{}}}", expr(e)),
                })
                .collect();
            format!("`{}`", parts.join(""))
        }
        ExprKind::Name(n) => n.clone(),
        ExprKind::This => "this".to_string(),
        ExprKind::Member { object, name } => format!("{}.{}", expr(object), name.text),
        ExprKind::Index { object, index } => format!("{}[{}]", expr(object), expr(index)),
        ExprKind::Call { callee, args: a } => format!("{}({})", expr(callee), args(a)),
        ExprKind::New { callee, args: a } => format!("new {}({})", expr(callee), args(a)),
        ExprKind::Object(props) => {
            let props: Vec<String> = props
                .iter()
                .map(|p| match p {
                    Prop::KeyValue { key, value } => format!(
                        "{}: {}",
                        key.as_ref().map_or("?", |k| k.text.as_str()),
                        expr(value)
                    ),
                    Prop::Spread(e) => format!("**{}", expr(e)),
                })
                .collect();
            format!("{{{}}}", props.join(", "))
        }
        ExprKind::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|i| match i {
                    Item::Expr(e) => expr(e),
                    Item::Spread(e) => format!("*{}", expr(e)),
                })
                .collect();
            format!("[{}]", items.join(", "))
        }
        ExprKind::Function(f) => format!("({})", function(f)),
        ExprKind::Binary { op, left, right } => {
            format!("({} {op} {})", expr(left), expr(right))
        }
        ExprKind::Unary { op, operand } => format!("({op}{})", expr(operand)),
        ExprKind::Conditional {
            test,
            then,
            otherwise,
        } => format!("({} ? {} : {})", expr(test), expr(then), expr(otherwise)),
        ExprKind::Unknown => "?".to_string(),
    }
}

#[test]
fn imports_bind_modules_and_names() {
    let src = "\
import aws_cdk.aws_eks as eks
import aws_cdk as cdk
import aws_cdk.aws_ec2
from aws_cdk import aws_eks as eks2, Stack
from aws_cdk import aws_eks
from aws_cdk.aws_eks import FargateCluster, Selector as S
from .stack import EksStack
from ..lib.util import make_cluster
from pulumi_aws import eks as aws_eks
import pulumi_kubernetes as k8s
";
    assert_eq!(
        show(src),
        "\
import [* as eks] from aws_cdk.aws_eks
import [* as cdk] from aws_cdk
import [* as aws_cdk] from aws_cdk
import [* as eks2] from aws_cdk.aws_eks
import [Stack as Stack] from aws_cdk
import [* as aws_eks] from aws_cdk.aws_eks
import [FargateCluster as FargateCluster, Selector as S] from aws_cdk.aws_eks
import [EksStack as EksStack] from .stack
import [make_cluster as make_cluster] from ..lib.util
import [* as aws_eks] from pulumi_aws.eks
import [* as k8s] from pulumi_kubernetes"
    );
}

#[test]
fn cdk_stack_with_fargate_cluster_profile_and_chart() {
    let src = r#"from aws_cdk import Stack
from aws_cdk import aws_eks as eks
from constructs import Construct

NAMESPACE = "monitoring"


class EksStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, *, version=None, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        cluster = eks.FargateCluster(
            self, "Cluster",
            version=eks.KubernetesVersion.V1_31,
        )
        self.cluster = cluster
        cluster.add_fargate_profile(
            "Apps",
            selectors=[eks.Selector(namespace="apps", labels={"team": 'a'})],
        )
        cluster.add_helm_chart(
            "Loki",
            chart="loki",
            repository="https://grafana.github.io/helm-charts",
            namespace=NAMESPACE,
            values={
                "loki": {"replicas": 2, "enabled": True, "auth": None},
                "tag": f"v{version}-x",
            },
        )
"#;
    assert_eq!(
        show(src),
        "\
import [Stack as Stack] from aws_cdk
import [* as eks] from aws_cdk.aws_eks
import [Construct as Construct] from constructs
let export NAMESPACE = \"monitoring\"
class export EksStack(Stack) [def __init__(self, scope, construct_id, version=null, **kwargs) {super().__init__(scope, construct_id, **kwargs); let cluster = eks.FargateCluster(this, \"Cluster\", version=eks.KubernetesVersion.V1_31); this.cluster := cluster; cluster.add_fargate_profile(\"Apps\", selectors=[eks.Selector(namespace=\"apps\", labels={team: \"a\"})]); cluster.add_helm_chart(\"Loki\", chart=\"loki\", repository=\"https://grafana.github.io/helm-charts\", namespace=NAMESPACE, values={loki: {replicas: 2, enabled: true, auth: null}, tag: `\"v\"${version}\"-x\"`})}]"
    );
}

#[test]
fn keyword_only_marker_and_defaults_are_parameters_as_written() {
    // `*` alone is no parameter; `version=None` keeps its default.
    assert_eq!(
        show("def f(a, *, version=None, b: int = 2, *rest, **kw):\n    pass\n"),
        "def f(a, version=null, b=2, *rest, **kw) {}"
    );
}

#[test]
fn cdk_app_entry_point() {
    let src = r#"#!/usr/bin/env python3
import os
import aws_cdk as cdk
from stacks.eks_stack import EksStack

app = cdk.App()
EksStack(app, "Eks", env=cdk.Environment(account=os.getenv("CDK_DEFAULT_ACCOUNT")), cluster_name="prod")
app.synth()
"#;
    assert_eq!(
        show(src),
        "\
import [* as os] from os
import [* as cdk] from aws_cdk
import [EksStack as EksStack] from stacks.eks_stack
let export app = cdk.App()
EksStack(app, \"Eks\", env=cdk.Environment(account=os.getenv(\"CDK_DEFAULT_ACCOUNT\")), cluster_name=\"prod\")
app.synth()"
    );
}

#[test]
fn pulumi_fargate_profile_and_release() {
    let src = r#"import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

profile = aws.eks.FargateProfile("p",
    cluster_name=cluster.name,
    pod_execution_role_arn=role.arn,
    selectors=[aws.eks.FargateProfileSelectorArgs(namespace="x")])

k8s.helm.v3.Release("loki",
    k8s.helm.v3.ReleaseArgs(
        chart="loki",
        namespace="logging",
        repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo="https://grafana.github.io/helm-charts"),
        values={"replicas": 1},
    ),
    opts=pulumi.ResourceOptions(provider=provider))
"#;
    assert_eq!(
        show(src),
        "\
import [* as pulumi] from pulumi
import [* as aws] from pulumi_aws
import [* as k8s] from pulumi_kubernetes
let export profile = aws.eks.FargateProfile(\"p\", cluster_name=cluster.name, pod_execution_role_arn=role.arn, selectors=[aws.eks.FargateProfileSelectorArgs(namespace=\"x\")])
k8s.helm.v3.Release(\"loki\", k8s.helm.v3.ReleaseArgs(chart=\"loki\", namespace=\"logging\", repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=\"https://grafana.github.io/helm-charts\"), values={replicas: 1}), opts=pulumi.ResourceOptions(provider=provider))"
    );
}

#[test]
fn control_flow_lowers_to_if_for_and_blocks() {
    let src = r#"
if env == "prod" and not debug:
    a = 1
elif env in ("dev", "test"):
    a = 2
else:
    a = 3
for ns in ["a", "b"]:
    cluster.add_fargate_profile(ns, selectors=[{"namespace": ns}])
with open("x") as f:
    b = f.read()
try:
    c = 1
except Exception:
    c = 2
finally:
    d = 4
while True:
    pass
x = y = None
obj.attr = [*xs, 1]
m["k"] = {**base, "x": 1}
n: int
n += 1
"#;
    assert_eq!(
        show(src),
        "\
if ((env == \"prod\") && (!debug)) {let export a = 1} else {if (env in [\"dev\", \"test\"]) {let export a = 2} else {let export a = 3}}
for ns in [\"a\", \"b\"] {cluster.add_fargate_profile(ns, selectors=[{namespace: ns}])}
{let export b = f.read()}
{let export c = 1; let export d = 4}
other
let export x = null
let export y = null
obj.attr := [*xs, 1]
m[\"k\"] := {**base, x: 1}
let export n = -
n := ?"
    );
}

#[test]
fn a_for_over_pairs_binds_each_element() {
    assert_eq!(
        show("for name, ns in [(\"A\", \"a\")]:\n    f(name, ns)\n"),
        "for $item in [[\"A\", \"a\"]] {let name = $item[0]; let ns = $item[1]; f(name, ns)}"
    );
}

#[test]
fn expressions() {
    let src = r#"a = ("con" 'cat' "\x41\n\u00e9\N{DASH}" r"\d")
b = f"{{x}} {name!r} {val:>4} {self.ns}"
c = lambda x, y=1: x + y
d = p if q else r
e = x not in y
f = x is not None
g = -1.5e3
h = 1 < x < 3
i = [n for n in xs]
j = xs[1:2]
k = call(*args, **kwargs)
l = (((deep)))
m = {k: v, 1: 2}
"#;
    assert_eq!(
        show(src),
        "\
let export a = \"concatA\\né\\\\N{DASH}\\\\d\"
let export b = `\"{x} \"${?}\" \"${?}\" \"${this.ns}`
let export c = (def (x, y=1) {return (x + y)})
let export d = (q ? p : r)
let export e = (!(x in y))
let export f = (x !== null)
let export g = (-1.5e3)
let export h = ?
let export i = ?
let export j = ?
let export k = call(*args, **kwargs)
let export l = deep
let export m = {?: v, ?: 2}"
    );
}

#[test]
fn spans_are_byte_ranges_of_the_source() {
    let src = "x = 1\nns = \"é-apps\"\ncluster.add(namespace=ns)\n";
    let parsed = parse(src, FileId(3), &Limits::default());
    let Stmt::Let {
        name,
        value: Some(v),
        ..
    } = &parsed.module.body[1]
    else {
        panic!("not a let: {:?}", parsed.module.body[1]);
    };
    assert_eq!(&src[name.span.start as usize..name.span.end as usize], "ns");
    assert_eq!(
        &src[v.span.start as usize..v.span.end as usize],
        "\"é-apps\""
    );
    assert_eq!(v.span.file, FileId(3));
    let Stmt::Expr(Expr {
        kind: ExprKind::Call { args, .. },
        ..
    }) = &parsed.module.body[2]
    else {
        panic!("not a call");
    };
    let [Arg::Keyword(key, value)] = args.as_slice() else {
        panic!("not a keyword: {args:?}");
    };
    assert_eq!(
        &src[key.span.start as usize..key.span.end as usize],
        "namespace"
    );
    assert_eq!(
        &src[value.span.start as usize..value.span.end as usize],
        "ns"
    );
}

#[test]
fn syntax_errors_are_fp000_at_their_place_and_the_rest_is_read() {
    let src =
        "a = 1\nb = 2 +\nc = eks.Selector(namespace=\"x\")\nif x:\n    y = [1,, 2]\nd = \"ok\"\n";
    let parsed = parse(src, FileId(0), &Limits::default());
    assert!(!parsed.diagnostics.is_empty());
    for d in &parsed.diagnostics {
        assert_eq!(d.code, "FP000");
        assert!(d.message.starts_with("invalid Python"), "{}", d.message);
        assert!(d.span.start as usize <= src.len());
    }
    let first = &parsed.diagnostics[0];
    assert!(
        (6..30).contains(&(first.span.start as usize)),
        "error placed at {:?}",
        first.span
    );
    let lets: Vec<&str> = parsed
        .module
        .body
        .iter()
        .filter_map(|s| match s {
            Stmt::Let { name, .. } => Some(name.text.as_str()),
            _ => None,
        })
        .collect();
    assert!(lets.contains(&"a"), "{lets:?}");
    assert!(lets.contains(&"d"), "{lets:?}");
}

#[test]
fn a_missing_token_is_named() {
    let parsed = parse("x = foo(1, 2\n", FileId(0), &Limits::default());
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.message.starts_with("invalid Python")),
        "{:?}",
        parsed.diagnostics
    );
}

#[test]
fn nesting_past_the_limit_is_fp000_and_unknown() {
    let limits = Limits {
        max_depth: 40,
        ..Limits::default()
    };
    let src = format!("x = {}1{}\n", "[".repeat(100), "]".repeat(100));
    let parsed = parse(&src, FileId(0), &limits);
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics);
    };
    assert_eq!(d.code, "FP000");
    assert!(d.message.contains("limits.max-depth"), "{}", d.message);
    // Deep input under the default limit lowers without overflowing.
    let src = format!("x = {}1{}\n", "f(".repeat(300), ")".repeat(300));
    let parsed = parse(&src, FileId(0), &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn keywords_become_camel_case_props() {
    assert_eq!(prop_name("default_profile"), "defaultProfile");
    assert_eq!(prop_name("pod_execution_role_arn"), "podExecutionRoleArn");
    assert_eq!(prop_name("namespace"), "namespace");
    assert_eq!(prop_name("_private"), "_private");
    let src = "eks.Selector(namespace=\"x\", **extra, core_dns_compute_type=t)\n";
    let parsed = parse(src, FileId(0), &Limits::default());
    let [Stmt::Expr(Expr {
        kind: ExprKind::Call { args, .. },
        span,
    })] = parsed.module.body.as_slice()
    else {
        panic!("{:?}", parsed.module.body);
    };
    let props = keyword_props(args, *span).map(|p| expr(&p));
    assert_eq!(
        props.as_deref(),
        Some("{namespace: \"x\", **extra, coreDnsComputeType: t}")
    );
    assert_eq!(keyword_props(&[], *span), None);
}

#[test]
fn t_strings_are_unknown() {
    assert_eq!(
        show("a = t\"x{y}\"\nb = rb\"\\d\"\n"),
        "let export a = ?\nlet export b = \"\\\\d\""
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any bytes: no panic, and every span inside the text.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let parsed = parse(&text, FileId(0), &Limits::default());
        for d in &parsed.diagnostics {
            prop_assert!(d.span.end as usize <= text.len());
        }
    }

    /// Python-looking tokens in any order: no panic.
    #[test]
    fn random_tokens_never_panic(tokens in proptest::collection::vec(
        proptest::sample::select(vec![
            "def", "class", "(", ")", "[", "]", "{", "}", ":", ",", "=", "\n", "    ",
            "f\"", "\"", "'", "{x}", "\\", "import", "from", ".", "as", "x", "1", "*", "**",
            "lambda", "if", "else", "elif", "for", "in", "not", "and", "#", "r'", "\"\"\"",
        ]),
        0..80,
    )) {
        let text: String = tokens.concat();
        let parsed = parse(&text, FileId(0), &Limits::default());
        for d in &parsed.diagnostics {
            prop_assert!(d.span.end as usize <= text.len());
        }
    }
}
