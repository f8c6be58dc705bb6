use super::*;
use proptest::prelude::*;

/// The lowered tree as compact text, spans left out (tested apart).
fn show(src: &str) -> String {
    let parsed = parse(src, FileId(0), "main.ts", &Limits::default());
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
        ExprKind::Unary { op, operand } if op.starts_with(char::is_alphabetic) => {
            format!("({op} {})", expr(operand))
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
import * as eks from 'aws-cdk-lib/aws-eks';
import { Cluster as C, Stack } from 'aws-cdk-lib';
import cdk from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { type Props, make } from './lib/stack';
import x = require('./x');
const k8s = require('@pulumi/kubernetes');
const { FargateProfile, Cluster: EksCluster } = require('@pulumi/aws/eks');
import './side-effect';
";
    assert_eq!(
        show(src),
        "\
import [* as eks] from aws-cdk-lib/aws-eks
import [Cluster as C, Stack as Stack] from aws-cdk-lib
import [default as cdk] from aws-cdk-lib
other
import [make as make] from ./lib/stack
import [* as x] from ./x
import [* as k8s] from @pulumi/kubernetes
import [FargateProfile as FargateProfile, Cluster as EksCluster] from @pulumi/aws/eks
import [] from ./side-effect"
    );
}

#[test]
fn cdk_stack_with_fargate_cluster_profile_and_chart() {
    let src = r#"import { Stack, StackProps } from 'aws-cdk-lib';
import * as eks from 'aws-cdk-lib/aws-eks';
import { Construct } from 'constructs';

const NAMESPACE = 'monitoring';

interface P extends StackProps { ns: string }

export class EksStack extends Stack {
  public readonly cluster: eks.FargateCluster;
  readonly tag = `v${NAMESPACE}-x`;

  constructor(scope: Construct, id: string, props?: P) {
    super(scope, id, props);
    const c = new eks.FargateCluster(this, 'C', {
      version: eks.KubernetesVersion.V1_31,
      defaultProfile: undefined,
    });
    this.cluster = c;
    c.addFargateProfile('A', { selectors: [{ namespace: 'apps', labels: { 'team': "a" } }] });
    c.addHelmChart('Loki', {
      chart: 'loki',
      repository: 'https://grafana.github.io/helm-charts',
      namespace: props?.ns ?? NAMESPACE,
      values: { loki: { replicas: 2, enabled: true, auth: null } },
    });
  }

  private helper(): void {}
}
"#;
    assert_eq!(
        show(src),
        "\
import [Stack as Stack, StackProps as StackProps] from aws-cdk-lib
import [* as eks] from aws-cdk-lib/aws-eks
import [Construct as Construct] from constructs
let NAMESPACE = \"monitoring\"
other
class export EksStack(Stack) [def constructor(scope, id, props) {super(scope, id, props); this.tag := `\"v\"${NAMESPACE}\"-x\"`; let c = new eks.FargateCluster(this, \"C\", {version: eks.KubernetesVersion.V1_31, defaultProfile: undefined}); this.cluster := c; c.addFargateProfile(\"A\", {selectors: [{namespace: \"apps\", labels: {team: \"a\"}}]}); c.addHelmChart(\"Loki\", {chart: \"loki\", repository: \"https://grafana.github.io/helm-charts\", namespace: (props.ns ?? NAMESPACE), values: {loki: {replicas: 2, enabled: true, auth: null}}})}, def helper() {}]"
    );
}

#[test]
fn parameter_properties_and_initialisers_run_in_the_constructor() {
    let src = "\
class A extends B {
  x = 1;
  static y = 2;
  #z = 3;
  constructor(private readonly scope: C, id: string) {
    super(scope);
    this.go();
  }
}
class D extends B { n = new N(this, 'n'); }
class E { m = 1; get g() { return 1; } }
";
    assert_eq!(
        show(src),
        "\
class A(B) [def constructor(scope, id) {super(scope); this.scope := scope; this.x := 1; this.#z := 3; this.go()}]
class D(B) [def constructor(*args) {super(*args); this.n := new N(this, \"n\")}]
class E() [def constructor() {this.m := 1}]"
    );
}

#[test]
fn cdk_app_entry_point() {
    let src = r#"#!/usr/bin/env node
import 'source-map-support/register';
import * as cdk from 'aws-cdk-lib';
import { S } from '../lib/s';

const app = new cdk.App();
new S(app, 'S', { ns: 'x', env: { account: process.env.CDK_DEFAULT_ACCOUNT } });
app.synth();
"#;
    assert_eq!(
        show(src),
        "\
import [] from source-map-support/register
import [* as cdk] from aws-cdk-lib
import [S as S] from ../lib/s
let app = new cdk.App()
new S(app, \"S\", {ns: \"x\", env: {account: process.env.CDK_DEFAULT_ACCOUNT}})
app.synth()"
    );
}

#[test]
fn pulumi_fargate_profile_and_release() {
    let src = r#"import * as aws from "@pulumi/aws";
import * as k8s from "@pulumi/kubernetes";

export const profile = new aws.eks.FargateProfile("p", {
    clusterName: cluster.name,
    podExecutionRoleArn: role.arn,
    selectors: namespaces.map(ns => ({ namespace: ns })),
});

new k8s.helm.v3.Release("loki", {
    chart: "loki",
    namespace: "logging",
    repositoryOpts: { repo: "https://grafana.github.io/helm-charts" },
    values: { replicas: 1 },
}, { provider });
"#;
    assert_eq!(
        show(src),
        "\
import [* as aws] from @pulumi/aws
import [* as k8s] from @pulumi/kubernetes
let export profile = new aws.eks.FargateProfile(\"p\", {clusterName: cluster.name, podExecutionRoleArn: role.arn, selectors: namespaces.map((def (ns) {return {namespace: ns}}))})
new k8s.helm.v3.Release(\"loki\", {chart: \"loki\", namespace: \"logging\", repositoryOpts: {repo: \"https://grafana.github.io/helm-charts\"}, values: {replicas: 1}}, {provider: provider})"
    );
}

#[test]
fn destructuring_binds_members_and_indexes() {
    let src = "\
const { a, b: c, d: { e }, 'f-g': h } = obj;
const [x, , y] = xs;
const { p = 1 } = obj;
const { ...rest } = obj;
let [m] = f(), n = 2;
";
    assert_eq!(
        show(src),
        "\
let a = obj.a
let c = obj.b
let e = obj.d.e
let h = obj.f-g
let x = xs[0]
let y = xs[2]
other
other
let m = f()[0]
let n = 2"
    );
}

#[test]
fn functions_arrows_and_destructured_parameters() {
    let src = "\
export function make(scope: Construct, { name, size = 2 }: Props, ...rest: string[]) {
  return name;
}
const f = async (a = 1) => { await a; };
async function load() { if (x) { return 1; } new Bucket(this, 'b'); return 2; }
const gen = async () => ({ a: 1 });
function* items() { return 1; }
const g = function named(x) { return x; };
const h = ({ ns }) => ns;
export default function () {}
";
    assert_eq!(
        show(src),
        "\
def make(scope, { name, size = 2 }, *rest) {other; return name}
let f = (def (a=1) {?})
def load() {if x {return ?} else {}; new Bucket(this, \"b\"); return ?}
let gen = (def () {return ?})
def items() {return ?}
let g = (def named(x) {return x})
let h = (def ({ ns }) {let ns = { ns }.ns; return ns})
def () {}"
    );
}

#[test]
fn control_flow_lowers_to_if_for_and_blocks() {
    let src = r#"
if (env === "prod" && !debug) {
  a = 1;
} else if (["dev", "test"].includes(env)) a = 2;
else { a = 3; }
for (const ns of ["a", "b"]) {
  cluster.addFargateProfile(ns, { selectors: [{ namespace: ns }] });
}
for (ns of list) go(ns);
for (const [k, v] of Object.entries(m)) {}
for (let i = 0; i < 3; i++) {}
while (true) {}
{ const b = 1; }
try { c = 1; } catch (e) { c = 2; } finally { d = 4; }
x = y = null;
obj.attr = [...xs, 1];
m["k"] = { ...base, x: 1 };
n += 1;
let u;
switch (x) { default: }
throw new Error("no");
type T = string;
enum K { A }
declare const w: string;
"#;
    assert_eq!(
        show(src),
        "\
if ((env === \"prod\") && (!debug)) {a := 1} else {if [\"dev\", \"test\"].includes(env) {a := 2} else {a := 3}}
for ns in [\"a\", \"b\"] {cluster.addFargateProfile(ns, {selectors: [{namespace: ns}]})}
for ns in list {go(ns)}
other
other
other
{let b = 1}
{c := 1; d := 4}
x := null
y := null
obj.attr := [*xs, 1]
m[\"k\"] := {**base, x: 1}
other
let u = -
other
other
other
other
other"
    );
}

#[test]
fn expressions() {
    let src = r#"a = 'con' + "cat\x41\n\u00e9";
b = `${x} and ${this.ns}!`;
c = (x, y = 1) => x + y;
d = q ? p : r;
e = !(x in y);
f = x !== null;
g = -1.5e3;
h = x as unknown as Props;
i = <any>y;
j = z!;
k = call(...args);
l = (((deep)));
m = { [k]: v, 1: 2, ['s']: 3, m() { return 1; }, get g() { return 2; }, n };
n = `plain`;
o = tag`x${y}`;
p = await q;
r = a?.b?.(c)?.[0];
s = typeof t === 'string';
u = 10n;
v = /re/g;
w = [1, , 2];
x = { a: 1 } satisfies R;
y = undefined ?? void 0;
z = super.x;
"#;
    assert_eq!(
        show(src),
        "\
a := (\"con\" + \"catA\\né\")
b := `${x}\" and \"${this.ns}\"!\"`
c := (def (x, y=1) {return (x + y)})
d := (q ? p : r)
e := (!(x in y))
f := (x !== null)
g := (-1.5e3)
h := x
i := y
j := z
k := call(*args)
l := deep
m := {?: v, 1: 2, s: 3, m: (def () {return 1}), g: ?, n: n}
n := \"plain\"
o := tag(y)
p := ?
r := a.b(c)[0]
s := ((typeof t) === \"string\")
u := ?
v := ?
w := [1, undefined, 2]
x := {a: 1}
y := (undefined ?? (void 0))
z := super.x"
    );
}

#[test]
fn exports_mark_bindings() {
    let src = "\
const a = 1;
let b = 2;
class C {}
export { a, C, b as d };
export { x } from './x';
export default class S extends Stack {}
export = a;
";
    assert_eq!(
        show(src),
        "\
let export a = 1
let b = 2
class export C() []
other
other
class export S(Stack) []
let export default = S
other"
    );
}

#[test]
fn spans_are_byte_ranges_of_the_source() {
    let src = "const x = 1;\nconst ns = \"é-apps\";\ncluster.add({ namespace: ns as string });\n";
    let parsed = parse(src, FileId(3), "main.ts", &Limits::default());
    let slice = |s: Span| &src[s.start as usize..s.end as usize];
    let Stmt::Let {
        name,
        value: Some(v),
        span,
        ..
    } = &parsed.module.body[1]
    else {
        panic!("not a let: {:?}", parsed.module.body[1]);
    };
    assert_eq!(slice(name.span), "ns");
    assert_eq!(slice(v.span), "\"é-apps\"");
    assert_eq!(slice(*span), "const ns = \"é-apps\";");
    assert_eq!(v.span.file, FileId(3));
    let Stmt::Expr(Expr {
        kind: ExprKind::Call { callee, args },
        span,
    }) = &parsed.module.body[2]
    else {
        panic!("not a call");
    };
    assert_eq!(slice(*span), "cluster.add({ namespace: ns as string })");
    assert_eq!(slice(callee.span), "cluster.add");
    let ExprKind::Member { name, .. } = &callee.kind else {
        panic!("not a member: {callee:?}");
    };
    assert_eq!(slice(name.span), "add");
    let [Arg::Positional(Expr {
        kind: ExprKind::Object(props),
        span: object,
    })] = args.as_slice()
    else {
        panic!("not an object: {args:?}");
    };
    assert_eq!(slice(*object), "{ namespace: ns as string }");
    let [Prop::KeyValue {
        key: Some(key),
        value,
    }] = props.as_slice()
    else {
        panic!("{props:?}");
    };
    assert_eq!(slice(key.span), "namespace");
    // A type assertion is no node: the value is the name inside it.
    assert_eq!(slice(value.span), "ns");
}

#[test]
fn syntax_errors_are_fp000_at_their_place_and_the_rest_is_read() {
    let src = "const a = 1;\nconst b = 2 +;\nconst c = new eks.Selector({ namespace: 'x' });\nif (x) {\n  y = [1, 2;\n}\nconst d = 'ok';\n";
    let parsed = parse(src, FileId(0), "main.ts", &Limits::default());
    assert!(!parsed.diagnostics.is_empty());
    for d in &parsed.diagnostics {
        assert_eq!(d.code, "FP000");
        assert!(d.message.starts_with("invalid TypeScript"), "{}", d.message);
        assert!(d.span.end as usize <= src.len());
    }
    let first = &parsed.diagnostics[0];
    assert!(
        (13..28).contains(&(first.span.start as usize)),
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
    assert_eq!(lets, ["a", "c", "d"], "{:?}", parsed.diagnostics);
}

#[test]
fn javascript_dialects_follow_the_path() {
    let src = "const eks = require('aws-cdk-lib/aws-eks');\nmodule.exports = { eks };\n";
    for path in ["a.js", "a.cjs", "a.mjs", "dir/A.JS"] {
        let parsed = parse(src, FileId(0), path, &Limits::default());
        assert!(
            parsed.diagnostics.is_empty(),
            "{path}: {:?}",
            parsed.diagnostics
        );
        assert_eq!(
            stmts(&parsed.module.body),
            "import [* as eks] from aws-cdk-lib/aws-eks\nmodule.exports := {eks: eks}",
            "{path}"
        );
    }
    // JSX reads in `.tsx`; a type assertion `<T>x` would not.
    let parsed = parse(
        "const e = <div/>;\n",
        FileId(0),
        "a.tsx",
        &Limits::default(),
    );
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(stmts(&parsed.module.body), "let e = ?");
    // JavaScript errors say so.
    let parsed = parse("const = 1;\n", FileId(0), "a.js", &Limits::default());
    assert!(
        parsed.diagnostics[0]
            .message
            .starts_with("invalid JavaScript"),
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
    let src = format!(
        "const x = {}1{};\nconst y = 2;\n",
        "[".repeat(100),
        "]".repeat(100)
    );
    let parsed = parse(&src, FileId(0), "main.ts", &limits);
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics);
    };
    assert_eq!(d.code, "FP000");
    assert!(d.message.contains("limits.max-depth"), "{}", d.message);
    // The deep part is unknown; the statement after it is read.
    assert_eq!(parsed.module.body.len(), 2);
    assert!(show_body(&parsed.module.body).contains('?'));
    assert!(show_body(&parsed.module.body).ends_with("let y = 2"));
    // Deep input under the default limit lowers without overflowing.
    let src = format!("const x = {}1{};\n", "f(".repeat(300), ")".repeat(300));
    let parsed = parse(&src, FileId(0), "main.ts", &Limits::default());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

fn show_body(body: &[Stmt]) -> String {
    stmts(body)
}

#[test]
fn hostile_nesting_is_refused_before_the_parser() {
    for src in [
        format!("x = {}1{};", "(".repeat(100_000), ")".repeat(100_000)),
        format!("x = {}1;", "!".repeat(100_000)),
        format!("x = {}1;", "a = ".repeat(100_000)),
        format!("x = {}1;", "a ? b : ".repeat(100_000)),
        format!("x = {}1;", "a => ".repeat(100_000)),
        format!("x = {}1;", "new ".repeat(100_000)),
        format!("{}1;", "if (a) ".repeat(100_000)),
        format!("x = `{}`;", "${`".repeat(50_000)),
        // A quote or backtick in a regex does not hide what follows.
        format!("x = /'/ + {}1{};", "(".repeat(100_000), ")".repeat(100_000)),
        format!(
            "x = /`/ + {}1{} + /`/;",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ),
        format!(
            "x = /`/ + {}1{} + /`/;",
            "(${ 1 }".repeat(100_000),
            ")".repeat(100_000)
        ),
    ] {
        let parsed = parse(&src, FileId(0), "main.ts", &Limits::default());
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.message.contains("limits.max-depth")),
            "{:?}",
            parsed.diagnostics
        );
    }
}

/// Just under the bound the parser is given the file: it must not
/// overflow its stack on any of the ways a program nests.
#[test]
fn nesting_just_under_the_parser_bound_parses() {
    let n = PARSER_DEPTH - 10;
    for src in [
        format!("x = {}1{};", "(".repeat(n), ")".repeat(n)),
        format!("x = {}1{};", "[".repeat(n), "]".repeat(n)),
        format!("x = {}1{};", "{a:".repeat(n / 2), "}".repeat(n / 2)),
        format!("x = {}1{};", "f(".repeat(n), ")".repeat(n)),
        format!("x = {}1;", "!".repeat(n)),
        format!("x = {}1;", "- ".repeat(n)),
        format!("x = {}1;", "a = ".repeat(n)),
        format!("x = {}1;", "a ? b : ".repeat(n / 2)),
        format!("x = {}1;", "a => ".repeat(n)),
        format!("x = {}1;", "(a) => ".repeat(n)),
        format!("x = {}X;", "new ".repeat(n)),
        format!("x = {}1;", "typeof ".repeat(n)),
        format!("{}1;", "if (a) ".repeat(n)),
        format!("{}1;", "if (a) {} else ".repeat(n / 2)),
        format!("x = {}1{};", "`${".repeat(n), "}`".repeat(n)),
        format!("let x: {}T{};", "A<".repeat(n), ">".repeat(n)),
        format!("type T = {}X;", "keyof ".repeat(n)),
        format!("{}1{}", "function f() {".repeat(n / 2), "}".repeat(n / 2)),
        format!("{}{}", "class A { m() {".repeat(n / 3), "}}".repeat(n / 3)),
        format!("x = {}1;", "async () => ".repeat(n / 2)),
        format!("x = {}1{};", "a(() => ".repeat(n / 2), ")".repeat(n / 2)),
    ] {
        let parsed = parse(&src, FileId(0), "main.ts", &Limits::default());
        assert!(
            !parsed.module.body.is_empty(),
            "{:?}",
            parsed.diagnostics.first()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any bytes: no panic, and every span inside the text.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let parsed = parse(&text, FileId(0), "main.ts", &Limits::default());
        for d in &parsed.diagnostics {
            prop_assert!(d.span.end as usize <= text.len());
        }
    }

    /// TypeScript-looking tokens in any order: no panic.
    #[test]
    fn random_tokens_never_panic(tokens in proptest::collection::vec(
        proptest::sample::select(vec![
            "function", "class", "(", ")", "[", "]", "{", "}", ":", ",", "=", "\n", " ",
            "`", "${", "\"", "'", "\\", "import", "from", ".", "as", "x", "1", "...", "=>",
            "const", "if", "else", "for", "of", "new", "!", "?", ";", "/", "*", "<", ">",
            "extends", "constructor", "this", "super", "require", "export",
        ]),
        0..80,
    )) {
        let text: String = tokens.concat();
        let parsed = parse(&text, FileId(0), "main.ts", &Limits::default());
        for d in &parsed.diagnostics {
            prop_assert!(d.span.end as usize <= text.len());
        }
    }
}

/// Long programs without semicolons are not taken for deep ones: a line
/// break between two complete tokens ends a chain.
#[test]
fn long_programs_without_semicolons_are_read() {
    let mut src = String::from(
        "class S extends Stack {\n  constructor(scope: Construct) {\n    super(scope, 'S')\n",
    );
    for i in 0..(PARSER_DEPTH + 100) {
        src.push_str(&format!(
            "    this.x{i} = a ? b : !c\n    if (x) y = -1\n    z.add({{ n: 'a' }})\n"
        ));
    }
    src.push_str("  }\n}\n");
    let parsed = parse(&src, FileId(0), "main.ts", &Limits::default());
    assert!(
        parsed.diagnostics.is_empty(),
        "{:?}",
        parsed.diagnostics.first()
    );
    let [Stmt::Class { members, .. }] = parsed.module.body.as_slice() else {
        panic!("not one class");
    };
    assert_eq!(members[0].body.len(), 1 + 3 * (PARSER_DEPTH + 100));
    // A chain split over lines by its operators still counts.
    let src = format!("x = {}1", "a ?\nb :\n".repeat(PARSER_DEPTH));
    let parsed = parse(&src, FileId(0), "main.ts", &Limits::default());
    assert!(parsed.module.body.is_empty());
}

#[test]
fn a_missing_token_is_named() {
    let parsed = parse(
        "const x = foo(1, 2\n",
        FileId(0),
        "main.ts",
        &Limits::default(),
    );
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics);
    };
    assert!(d.message.starts_with("invalid TypeScript"), "{}", d.message);
    assert!(d.message.contains("`)`"), "{}", d.message);
    assert_eq!(d.span.start, 19);
}

/// A line blanked to get past an error leaves its place unknown: an object
/// missing a property is not taken for one without it.
#[test]
fn a_blanked_line_is_unknown_where_it_was() {
    let cases = [
        (
            "const a = 1;\nclass S extends Stack {\n  constructor() {\n    const c = new X(this, 'c', {\n      a: ,\n    });\n  }\n}\nconst d = 2;\n",
            "let a = 1\nclass S(Stack) [def constructor() {let c = new X(this, \"c\", ?)}]\nlet d = 2",
        ),
        (
            "const a = 1;\nconst b = {\n  x: 1\n  y: 2\n};\nconst d = 2;\n",
            "let a = 1\nlet b = ?\nlet d = 2",
        ),
        (
            "const a = 1;\nfunction f() {\n  x = 1;\n  let x: = 3;\n  y = 2;\n}\n",
            "let a = 1\ndef f() {x := 1; other; y := 2}",
        ),
        (
            "const a = 1;\nconst s = 'unterminated;\nconst d = 2;\n",
            "let a = 1\nother\nlet d = 2",
        ),
    ];
    for (src, want) in cases {
        let parsed = parse(src, FileId(0), "main.ts", &Limits::default());
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
        assert_eq!(stmts(&parsed.module.body), want);
    }
    // An unclosed bracket at the end leaves nothing to read, and says so.
    let parsed = parse(
        "const a = 1;\nfunction f() {\n  return 1;\n",
        FileId(0),
        "main.ts",
        &Limits::default(),
    );
    assert!(parsed.diagnostics[0].message.contains("`}`"));
}

/// The repository's CDK example apps read without errors, each stack a
/// class with its constructor.
#[test]
fn example_apps_read_without_errors() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() && !path.ends_with("node_modules") {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "ts") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let mut classes = 0;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            panic!("unreadable {}", path.display());
        };
        let name = path.to_string_lossy();
        let parsed = parse(&text, FileId(0), &name, &Limits::default());
        assert!(
            parsed.diagnostics.is_empty(),
            "{name}: {:?}",
            parsed.diagnostics
        );
        for s in &parsed.module.body {
            if let Stmt::Class { members, .. } = s {
                classes += 1;
                assert!(
                    members
                        .iter()
                        .any(|m| m.name.as_ref().is_some_and(|n| n.text == "constructor")),
                    "{name}"
                );
            }
        }
    }
    assert!(classes >= 10, "{classes}");
}
