//! `cargo run -p xtask -- schema KIND SOURCE... [--check FILE]`: derive the
//! compact field tables under `crates/core/schemas/` from the upstream
//! schemas (docs/schemas.md says where each comes from). The upstream files
//! stay outside the repository; only the derived tables are committed.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

pub type Res<T> = Result<T, String>;

fn read(p: &Path) -> Res<String> {
    fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
}

fn json(p: &Path) -> Res<Value> {
    serde_json::from_str(&read(p)?).map_err(|e| format!("{}: {e}", p.display()))
}

/// Object types and their fields, in the table syntax of `fplint_core::schema`.
#[derive(Default)]
pub struct Out {
    objects: BTreeMap<String, (bool, BTreeMap<String, String>)>,
}

impl Out {
    fn object(&mut self, name: &str, open: bool) -> &mut BTreeMap<String, String> {
        let e = self
            .objects
            .entry(name.to_string())
            .or_insert((open, BTreeMap::new()));
        e.0 |= open;
        &mut e.1
    }

    pub fn render(&self, header: &str) -> String {
        let mut s = String::new();
        for l in header.lines() {
            let _ = writeln!(s, "# {l}");
        }
        for (name, (open, fields)) in &self.objects {
            let _ = writeln!(s, "@{name}{}", if *open { " open" } else { "" });
            for (f, ty) in fields {
                let _ = writeln!(s, "  {f} {ty}");
            }
        }
        s
    }
}

// ---- JSON schema (eksctl, CloudFormation registry) ----

struct Js<'a> {
    defs: &'a serde_json::Map<String, Value>,
    /// Prefix of object names made from definitions.
    prefix: String,
    /// Key case for Terraform awscc (snake_case) or as written.
    snake: bool,
}

fn is_object(d: &Value) -> bool {
    d.get("properties").is_some_and(Value::is_object)
}

impl Js<'_> {
    fn ty(&self, v: &Value, out: &mut Out, depth: usize) -> String {
        if depth > 40 {
            return "any".into();
        }
        if let Some(r) = v.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or(r);
            return match self.defs.get(name) {
                Some(d) if is_object(d) => {
                    let full = format!("{}{name}", self.prefix);
                    if !out.objects.contains_key(&full) {
                        self.object(&full, d, out, depth + 1);
                    }
                    format!("@{full}")
                }
                Some(d) => self.ty(d, out, depth + 1),
                None => "any".into(),
            };
        }
        if v.get("oneOf").is_some() || v.get("anyOf").is_some() {
            return "any".into();
        }
        match v.get("type") {
            Some(Value::String(t)) => match t.as_str() {
                "array" => match v.get("items") {
                    Some(items) => format!("[{}]", self.ty(items, out, depth + 1)),
                    None => "[any]".into(),
                },
                "object" if is_object(v) => "any".into(),
                "object" => match v.get("additionalProperties") {
                    Some(a) if a.is_object() && !a.as_object().is_some_and(|m| m.is_empty()) => {
                        format!("{{{}}}", self.ty(a, out, depth + 1))
                    }
                    _ => "{any}".into(),
                },
                "string" => "str".into(),
                "boolean" => "bool".into(),
                "integer" | "number" => "num".into(),
                _ => "any".into(),
            },
            _ => "any".into(),
        }
    }

    fn object(&self, name: &str, d: &Value, out: &mut Out, depth: usize) {
        let open = d.get("additionalProperties") != Some(&Value::Bool(false))
            || d.get("patternProperties").is_some();
        out.object(name, open);
        let mut fields = BTreeMap::new();
        if let Some(props) = d.get("properties").and_then(Value::as_object) {
            for (k, v) in props {
                let key = if self.snake { snake(k) } else { k.clone() };
                fields.insert(key, self.ty(v, out, depth));
            }
        }
        out.object(name, open).extend(fields);
    }
}

/// CloudFormation property names as the awscc provider spells its attributes.
pub fn snake(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    let mut out = String::new();
    for (i, &ch) in c.iter().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            let prev = c[i - 1];
            let next_lower = c.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(ch.to_ascii_lowercase());
    }
    out
}

/// eksctl's `schema.json` (`pkg/apis/eksctl.io/v1alpha5/assets/schema.json`).
pub fn eksctl(schema: &Path) -> Res<Out> {
    let doc = json(schema)?;
    let defs = doc
        .get("definitions")
        .and_then(Value::as_object)
        .ok_or("no definitions")?;
    let js = Js {
        defs,
        prefix: String::new(),
        snake: false,
    };
    let mut out = Out::default();
    let root = defs.get("ClusterConfig").ok_or("no ClusterConfig")?;
    js.object("ClusterConfig", root, &mut out, 0);
    Ok(out)
}

/// The CloudFormation resource types fplint models.
pub const CFN_TYPES: &[&str] = &[
    "AWS::EKS::Cluster",
    "AWS::EKS::FargateProfile",
    "AWS::EKS::Nodegroup",
    "AWS::EKS::Addon",
    "AWS::EKS::PodIdentityAssociation",
    "AWS::EKS::AccessEntry",
    "AWS::IAM::Role",
];

/// The resource schemas for each type, from cfn-lint's `data/schemas`
/// folder (`providers/us-east-1.json` names each type's file).
fn cfn_schemas(dir: &Path) -> Res<Vec<(&'static str, Value)>> {
    let index = json(&dir.join("providers/us-east-1.json"))?;
    CFN_TYPES
        .iter()
        .map(|t| {
            let file = index
                .get(*t)
                .and_then(Value::as_str)
                .ok_or(format!("{t} not in the index"))?;
            Ok((
                *t,
                json(&dir.join("resources").join(format!("{file}.json")))?,
            ))
        })
        .collect()
}

pub fn cloudformation(dir: &Path) -> Res<Out> {
    let mut out = Out::default();
    for (t, s) in cfn_schemas(dir)? {
        let empty = serde_json::Map::new();
        let js = Js {
            defs: s
                .get("definitions")
                .and_then(Value::as_object)
                .unwrap_or(&empty),
            prefix: format!("{t}."),
            snake: false,
        };
        js.object(t, &s, &mut out, 0);
    }
    Ok(out)
}

/// `awscc_eks_*`: the awscc provider is generated from the same registry
/// schemas, its attributes the properties in snake_case.
fn awscc(dir: &Path, out: &mut Out) -> Res<()> {
    for (t, s) in cfn_schemas(dir)? {
        let Some(rest) = t.strip_prefix("AWS::EKS::") else {
            continue;
        };
        let name = format!("awscc_eks_{}", snake(rest));
        let empty = serde_json::Map::new();
        let js = Js {
            defs: s
                .get("definitions")
                .and_then(Value::as_object)
                .unwrap_or(&empty),
            prefix: format!("{name}."),
            snake: true,
        };
        js.object(&name, &s, out, 0);
    }
    Ok(())
}

// ---- Terraform ----

/// The hashicorp/aws resources read from the prebuilt CDK bindings, by the
/// folder the package keeps each in (`lib/eks-cluster/index.js`).
pub const TF_AWS_TYPES: &[(&str, &str)] = &[
    ("aws_eks_access_entry", "eks-access-entry"),
    ("aws_eks_addon", "eks-addon"),
    ("aws_eks_cluster", "eks-cluster"),
    ("aws_eks_fargate_profile", "eks-fargate-profile"),
    ("aws_eks_node_group", "eks-node-group"),
    (
        "aws_eks_pod_identity_association",
        "eks-pod-identity-association",
    ),
];

/// One argument or block as a binding writes it.
#[derive(Clone, Debug, PartialEq)]
enum CdkField {
    Leaf(String),
    /// A nested object: the name of its `…ToTerraform` function, whether
    /// it is a list (or set) of them, and whether Terraform reads it as a
    /// block (`None`: the binding does not say, as before cdktf 0.20).
    Nested {
        func: String,
        list: bool,
        block: Option<bool>,
    },
}

/// The `key: expression,` lines of the object literal that follows `head`
/// in `text` (a `…ToTerraform` function or `synthesizeAttributes`).
fn cdk_entries<'a>(text: &'a str, head: &str) -> Option<Vec<(&'a str, &'a str)>> {
    let start = text.find(head)?;
    let body = &text[start..];
    let open = body.find("return {")?;
    let body = &body[open + "return {".len()..];
    let mut out = Vec::new();
    for line in body.lines().skip(1) {
        let t = line.trim();
        if t.starts_with('}') {
            break;
        }
        if let Some((k, v)) = t.split_once(": ") {
            out.push((k, v.trim_end_matches(',')));
        }
    }
    Some(out)
}

/// What `isBlock` says for each key of the HCL form after `head`.
fn cdk_blocks(text: &str, head: &str) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    let Some(start) = text.find(head) else {
        return out;
    };
    let mut key: Option<&str> = None;
    for line in text[start..].lines().skip(1) {
        let t = line.trim();
        if t.starts_with("return ") {
            break;
        }
        if let Some(k) = t.strip_suffix(": {") {
            key = Some(k);
        } else if let (Some(k), Some(b)) = (key, t.strip_prefix("isBlock: ")) {
            out.insert(k.to_string(), b.trim_end_matches(',') == "true");
        }
    }
    out
}

/// A field from its expression: `cdktf.stringToTerraform(…)`,
/// `cdktf.listMapper(xToTerraform, true)(…)`, `xToTerraform(…)`.
fn cdk_field(expr: &str, block: Option<bool>) -> CdkField {
    let leaf = |e: &str| -> Option<&'static str> {
        let e = e.split_once('.').map_or(e, |(_, r)| r);
        Some(match e.split(['(', ',', ')']).next()? {
            "stringToTerraform" => "str",
            "booleanToTerraform" => "bool",
            "numberToTerraform" => "num",
            _ => return None,
        })
    };
    let inner = |e: &str| e.split_once('(').map(|(_, r)| r.to_string());
    let (list, map) = (expr.contains(".listMapper("), expr.contains(".hashMapper("));
    let arg = if list || map {
        inner(expr.split_once("Mapper").map_or(expr, |(_, r)| r)).unwrap_or_default()
    } else {
        expr.to_string()
    };
    let arg = arg.trim();
    if let Some(l) = leaf(arg) {
        return CdkField::Leaf(match (list, map) {
            (true, _) => format!("[{l}]"),
            (_, true) => format!("{{{l}}}"),
            _ => l.to_string(),
        });
    }
    match arg.split_once("ToTerraform") {
        Some((func, _)) if !map && !func.contains('.') => CdkField::Nested {
            func: func.to_string(),
            list,
            block,
        },
        _ => CdkField::Leaf("any".into()),
    }
}

/// The fields of the object whose function is `func` (or the resource's
/// own, `None`), in one package's `index.js`.
fn cdk_object(text: &str, func: Option<&str>) -> Res<BTreeMap<String, CdkField>> {
    let (head, hcl) = match func {
        Some(f) => (
            format!("function {f}ToTerraform(struct) {{"),
            format!("function {f}ToHclTerraform(struct) {{"),
        ),
        None => (
            "    synthesizeAttributes() {".to_string(),
            "    synthesizeHclAttributes() {".to_string(),
        ),
    };
    let entries = cdk_entries(text, &head).ok_or(format!("no `{head}`"))?;
    let blocks = cdk_blocks(text, &hcl);
    Ok(entries
        .into_iter()
        .map(|(k, v)| (k.to_string(), cdk_field(v, blocks.get(k).copied())))
        .collect())
}

/// Object name -> field -> what each package says, for the union.
type CdkUnion = BTreeMap<String, BTreeMap<String, Vec<CdkField>>>;

fn cdk_walk(
    text: &str,
    func: Option<&str>,
    name: &str,
    union: &mut CdkUnion,
    depth: usize,
) -> Res<()> {
    if depth > 12 {
        return Err(format!("{name}: nested too deep"));
    }
    let fields = cdk_object(text, func).map_err(|e| format!("{name}: {e}"))?;
    union.entry(name.to_string()).or_default();
    for (k, f) in fields {
        if let CdkField::Nested { func, .. } = &f {
            cdk_walk(text, Some(func), &format!("{name}.{k}"), union, depth + 1)?;
        }
        if let Some(o) = union.get_mut(name) {
            o.entry(k).or_default().push(f);
        }
    }
    Ok(())
}

/// The hashicorp/aws `aws_eks_*` arguments and blocks, from the prebuilt
/// CDK bindings of several provider versions (`@cdktf/provider-aws`,
/// `@cdktn/provider-aws`: generated from the provider's own schema, they
/// write every argument a configuration may set, and which are blocks).
/// A field any version has is kept: one version's argument never fires.
fn cdk_packages(pkgs: &[PathBuf], out: &mut Out) -> Res<()> {
    let mut union = CdkUnion::new();
    for pkg in pkgs {
        for (rtype, dir) in TF_AWS_TYPES {
            let file = pkg.join("lib").join(dir).join("index.js");
            // Newer resources are not in older packages.
            if !file.exists() {
                continue;
            }
            cdk_walk(&read(&file)?, None, rtype, &mut union, 0)?;
        }
    }
    for (name, fields) in &union {
        let o = out.object(name, false);
        for (k, seen) in fields {
            let nested = seen.iter().all(|f| matches!(f, CdkField::Nested { .. }));
            let ty = if nested {
                // A block only where every version that says so says block;
                // bindings before cdktf 0.20 do not say, and all their nested
                // objects were blocks.
                let block = seen.iter().all(|f| {
                    matches!(
                        f,
                        CdkField::Nested {
                            block: Some(true) | None,
                            ..
                        }
                    )
                });
                let list = seen
                    .iter()
                    .any(|f| matches!(f, CdkField::Nested { list: true, .. }));
                match (block, list) {
                    (true, _) => format!("block @{name}.{k}"),
                    (false, true) => format!("[@{name}.{k}]"),
                    (false, false) => format!("@{name}.{k}"),
                }
            } else {
                let mut leaves = seen.iter().map(|f| match f {
                    CdkField::Leaf(l) => l.as_str(),
                    CdkField::Nested { .. } => "any",
                });
                let first = leaves.next().unwrap_or("any");
                if leaves.all(|l| l == first) {
                    first.to_string()
                } else {
                    "any".to_string()
                }
            };
            o.insert(k.clone(), ty);
        }
    }
    Ok(())
}

pub fn terraform(pkgs: &[PathBuf], cfn: &Path) -> Res<Out> {
    let mut out = Out::default();
    cdk_packages(pkgs, &mut out)?;
    awscc(cfn, &mut out)?;
    Ok(out)
}

fn tf_files(dir: &Path) -> Res<Vec<(PathBuf, String)>> {
    let mut files = Vec::new();
    let rd = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "tf") {
            files.push((p.clone(), read(&p)?));
        }
    }
    files.sort();
    Ok(files)
}

fn variables(files: &[(PathBuf, String)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, t) in files {
        for line in t.lines() {
            if let Some(rest) = line.trim_start().strip_prefix("variable \"") {
                if let Some((name, _)) = rest.split_once('"') {
                    out.insert(name.to_string());
                }
            }
        }
    }
    out
}

/// The keys read from `var.value` in `text`: `var.value.x`, `var.value["x"]`,
/// `lookup(var.value, "x"`.
fn keys_read(text: &str, var: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in text.match_indices(var) {
        let rest = &text[i + var.len()..];
        let before_ok = text[..i]
            .chars()
            .last()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'));
        if !before_ok {
            continue;
        }
        let k = if let Some(r) = rest.strip_prefix('.') {
            ident(r)
        } else if let Some(r) = rest.strip_prefix("[\"") {
            ident(r)
        } else if let Some(r) = rest.strip_prefix(", \"") {
            ident(r)
        } else {
            continue;
        };
        if !k.is_empty() {
            out.insert(k);
        }
    }
    out
}

/// The text of the block that starts at `head` (`module "fargate_profile" {`).
fn block_text<'a>(text: &'a str, head: &str) -> Option<&'a str> {
    let start = text.find(head)?;
    let mut depth = 0i32;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..start + i + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// terraform-aws-eks at one tag per major version, given as `vNN=DIR`: the
/// root module's inputs, the keys of a `fargate_profiles` entry and of its
/// selectors, and the `modules/fargate-profile` inputs.
pub fn terraform_aws_eks(versions: &[(u32, PathBuf)]) -> Res<Out> {
    let mut out = Out::default();
    for (major, dir) in versions {
        let root = tf_files(dir)?;
        let prof = format!("v{major}.fargate_profile");
        let sel = format!("v{major}.selector");
        let mut fields: BTreeMap<String, String> = variables(&root)
            .into_iter()
            .map(|v| (v, "any".to_string()))
            .collect();
        fields.insert("fargate_profiles".into(), format!("{{@{prof}}}"));
        if fields.contains_key("fargate_profile_defaults") {
            fields.insert("fargate_profile_defaults".into(), format!("@{prof}"));
        }
        out.object(&format!("v{major}"), false).extend(fields);

        // Where the profiles are made: a sub-module (v17 `modules/fargate`)
        // or the root's `module "fargate_profile"` block.
        let (entry_text, sub_dir) = if *major <= 17 {
            let sub = dir.join("modules/fargate");
            let t: String = tf_files(&sub)?.into_iter().map(|(_, t)| t).collect();
            (t, sub)
        } else {
            let all: String = root.iter().map(|(_, t)| t.as_str()).collect();
            let b = block_text(&all, "module \"fargate_profile\" {")
                .ok_or(format!("v{major}: no fargate_profile module block"))?
                .to_string();
            (b, dir.join("modules/fargate-profile"))
        };
        let mut keys = keys_read(&entry_text, "each.value");
        keys.remove("selectors");
        let o = out.object(&prof, false);
        for k in keys {
            o.insert(k, "any".into());
        }
        o.insert("selectors".into(), format!("[@{sel}]"));
        let sub = tf_files(&sub_dir)?;
        let sub_text: String = sub.iter().map(|(_, t)| t.as_str()).collect();
        let so = out.object(&sel, false);
        for k in keys_read(&sub_text, "selector.value") {
            so.insert(k, "any".into());
        }
        if *major >= 18 {
            let name = format!("v{major}.modules.fargate-profile");
            let mut f: BTreeMap<String, String> = variables(&sub)
                .into_iter()
                .map(|v| (v, "any".to_string()))
                .collect();
            f.insert("selectors".into(), format!("[@{sel}]"));
            out.object(&name, false).extend(f);
        }
    }
    Ok(out)
}

// ---- Kubernetes ----

/// The pod spec types fplint reads, expanded field by field; any other
/// type a field names is left unchecked.
pub const K8S_TYPES: &[&str] = &[
    "V1PodSpec",
    "V1PodTemplateSpec",
    "V1ObjectMeta",
    "V1Container",
    "V1Toleration",
    "V1Affinity",
    "V1NodeAffinity",
    "V1NodeSelector",
    "V1NodeSelectorTerm",
    "V1NodeSelectorRequirement",
    "V1PreferredSchedulingTerm",
    "V1ResourceRequirements",
];

fn k8s_model_file(name: &str) -> String {
    // V1NodeSelectorTerm -> v1_node_selector_term.py
    let rest = name.strip_prefix("V1").unwrap_or(name);
    format!("v1_{}.py", snake(rest))
}

/// The fields of a pydantic model class: `    name: Type = Field(...,
/// serialization_alias="jsonName", ...)`, the JSON name being the alias or
/// the field's own name.
fn py_fields(text: &str, class: &str) -> Vec<(String, String)> {
    let Some(start) = text.find(&format!("class {class}(")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in text[start..].lines().skip(1) {
        if line.starts_with(|c: char| !c.is_whitespace()) {
            break;
        }
        let Some(rest) = line.strip_prefix("    ") else {
            continue;
        };
        if rest.starts_with(' ') {
            continue;
        }
        let Some((name, tail)) = rest.split_once(": ") else {
            continue;
        };
        if !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            || tail.starts_with("ClassVar")
        {
            continue;
        }
        let ty = tail.split(" = ").next().unwrap_or(tail).trim();
        let json = tail
            .split("serialization_alias=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or(name);
        out.push((json.to_string(), k8s_ty(ty)));
    }
    out
}

/// The Kubernetes Python client's models folder
/// (`kubernetes/client/models`), generated from the Kubernetes OpenAPI.
pub fn kubernetes(models: &Path) -> Res<Out> {
    let mut out = Out::default();
    for t in K8S_TYPES {
        let text = read(&models.join(k8s_model_file(t)))?;
        let fields: BTreeMap<String, String> = py_fields(&text, t).into_iter().collect();
        if fields.is_empty() {
            return Err(format!("{t}: no attributes"));
        }
        out.object(t.trim_start_matches("V1"), false).extend(fields);
    }
    Ok(out)
}

fn k8s_ty(t: &str) -> String {
    if let Some(inner) = t
        .strip_prefix("Optional[")
        .and_then(|r| r.strip_suffix(']'))
    {
        return k8s_ty(inner);
    }
    if let Some(inner) = t.strip_prefix("List[").and_then(|r| r.strip_suffix(']')) {
        return format!("[{}]", k8s_ty(inner));
    }
    if let Some(inner) = t
        .strip_prefix("Dict[str, ")
        .and_then(|r| r.strip_suffix(']'))
    {
        return format!("{{{}}}", k8s_ty(inner));
    }
    match t {
        "StrictStr" => "str".into(),
        "StrictBool" => "bool".into(),
        "StrictInt" | "StrictFloat" => "num".into(),
        _ if K8S_TYPES.contains(&t) => format!("@{}", t.trim_start_matches("V1")),
        _ => "any".into(),
    }
}
