//! A template's resources and parameters, and evaluation of the values
//! fplint can know before deployment.

use super::intrinsic::{self, as_fn, canonical, sub_var_target, sub_vars};
use crate::model::{Known, Loc, Located, SubnetRef, SubnetVisibility};
use crate::tree::Node;
use rustc_hash::FxHashMap as HashMap;

pub struct Resource<'a> {
    pub id: &'a str,
    /// The logical-id key, where findings about the resource point.
    pub key: &'a Node,
    pub body: &'a Node,
    pub ty: &'a str,
    pub props: Option<&'a Node>,
    /// The name of the condition that decides whether the resource exists.
    pub condition: Option<&'a str>,
}

impl<'a> Resource<'a> {
    pub fn prop(&self, name: &str) -> Option<&'a Node> {
        self.props?.get(name)
    }
}

pub struct Template<'a> {
    pub resources: Vec<Resource<'a>>,
    index: HashMap<&'a str, usize>,
    params: HashMap<&'a str, &'a Node>,
    conditions: HashMap<&'a str, &'a Node>,
    /// Route tables associated with each subnet, and the routes of each table.
    subnet_tables: HashMap<&'a str, Vec<&'a str>>,
    table_routes: HashMap<&'a str, Vec<usize>>,
    /// `Fn::ForEach` keys under `Resources` make resources fplint cannot list.
    pub generated_resources: bool,
}

/// Which cluster a reference names: a grouping key, and the name when known.
#[derive(Clone, Debug)]
pub struct ClusterId {
    pub key: String,
    pub name: Known<String>,
}

impl ClusterId {
    pub fn unknown(key: String) -> ClusterId {
        ClusterId {
            key,
            name: Known::Unknown,
        }
    }
}

impl<'a> Template<'a> {
    pub fn new(doc: &'a Node) -> Template<'a> {
        let mut resources = Vec::new();
        let mut index = HashMap::default();
        let mut generated_resources = false;
        for e in doc.get("Resources").and_then(Node::as_map).unwrap_or(&[]) {
            let Some(id) = e.key.scalar() else { continue };
            // `Fn::ForEach` and `Fn::Transform` produce resources at deployment.
            if id.starts_with("Fn::") {
                generated_resources = true;
                continue;
            }
            let Some(ty) = e.value.get("Type").and_then(Node::as_str) else {
                continue;
            };
            // The first definition wins; the duplicate is already FP000.
            if index.contains_key(id) {
                continue;
            }
            index.insert(id, resources.len());
            resources.push(Resource {
                id,
                key: &e.key,
                body: &e.value,
                ty,
                props: e.value.get("Properties"),
                condition: e.value.get("Condition").and_then(Node::as_str),
            });
        }
        let mut params = HashMap::default();
        for e in doc.get("Parameters").and_then(Node::as_map).unwrap_or(&[]) {
            if let Some(name) = e.key.scalar() {
                params.entry(name).or_insert(&e.value);
            }
        }
        let mut conditions = HashMap::default();
        for e in doc.get("Conditions").and_then(Node::as_map).unwrap_or(&[]) {
            if let Some(name) = e.key.scalar() {
                conditions.entry(name).or_insert(&e.value);
            }
        }
        let mut subnet_tables: HashMap<&str, Vec<&str>> = HashMap::default();
        let mut table_routes: HashMap<&str, Vec<usize>> = HashMap::default();
        for (i, r) in resources.iter().enumerate() {
            let table = r.prop("RouteTableId").and_then(intrinsic::ref_target);
            match (r.ty, table) {
                ("AWS::EC2::SubnetRouteTableAssociation", Some(rt)) => {
                    if let Some(sn) = r.prop("SubnetId").and_then(intrinsic::ref_target) {
                        subnet_tables.entry(sn).or_default().push(rt);
                    }
                }
                ("AWS::EC2::Route", Some(rt)) => table_routes.entry(rt).or_default().push(i),
                _ => {}
            }
        }
        Template {
            resources,
            index,
            params,
            conditions,
            subnet_tables,
            table_routes,
            generated_resources,
        }
    }

    pub fn resource(&self, id: &str) -> Option<(usize, &Resource<'a>)> {
        let i = *self.index.get(id)?;
        Some((i, self.resources.get(i)?))
    }

    /// The resources that resource `i` depends on directly: DependsOn, and
    /// Ref/GetAtt/Sub anywhere in its properties.
    pub fn dependencies(&self, i: usize) -> Vec<usize> {
        let Some(r) = self.resources.get(i) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut add = |name: &str| {
            if let Some(&j) = self.index.get(name) {
                if j != i {
                    out.push(j);
                }
            }
        };
        if let Some(d) = r.body.get("DependsOn") {
            match d.as_seq() {
                Some(items) => items.iter().filter_map(Node::as_str).for_each(&mut add),
                None => {
                    if let Some(s) = d.as_str() {
                        add(s);
                    }
                }
            }
        }
        if let Some(p) = r.props {
            intrinsic::visit_refs(p, &mut |name, _| add(name));
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether two conditions can never hold together: one is `Fn::Not` of
    /// the other, or both compare the same value with different literals.
    pub fn conditions_exclusive(&self, a: &str, b: &str) -> bool {
        if a == b {
            return false;
        }
        let (Some(na), Some(nb)) = (self.conditions.get(a), self.conditions.get(b)) else {
            return false;
        };
        let negates = |n: &Node, other: &str| match as_fn(n) {
            Some(("Fn::Not", arg)) => matches!(arg.as_seq(), Some([x]) if
                matches!(as_fn(x), Some(("Condition", c)) if c.as_str() == Some(other))),
            _ => false,
        };
        if negates(na, b) || negates(nb, a) {
            return true;
        }
        match (equals_literal(na), equals_literal(nb)) {
            (Some((ea, la)), Some((eb, lb))) => ea == eb && la != lb,
            _ => false,
        }
    }

    /// A property that is set: absent, null and `Ref: AWS::NoValue` are not.
    pub fn present(&self, node: Option<&'a Node>) -> Option<&'a Node> {
        let n = node?;
        if n.is_null() || intrinsic::ref_target(n) == Some("AWS::NoValue") {
            return None;
        }
        Some(n)
    }

    /// A parameter's default, when it has one.
    fn param_default(&self, name: &str) -> Option<&'a Node> {
        let p = self.params.get(name)?;
        // The default of an SSM-typed parameter is the path to read, not the value.
        let ty = p.get("Type").and_then(Node::as_str).unwrap_or_default();
        if ty.starts_with("AWS::SSM::Parameter::Value") {
            return None;
        }
        let d = p.get("Default")?;
        (!d.is_null()).then_some(d)
    }

    /// The string a value has at deployment, when it can be known now.
    pub fn eval_str(&self, node: &Node) -> Known<String> {
        self.eval_depth(node, 0)
    }

    fn eval_depth(&self, node: &Node, depth: usize) -> Known<String> {
        if depth > 32 {
            return Known::Unknown;
        }
        let Some((f, arg)) = as_fn(node) else {
            return match node.as_str() {
                Some(s) if node.as_map().is_none() => Known::Known(s.to_string()),
                _ => Known::Unknown,
            };
        };
        match f {
            "Ref" => match arg.as_str().and_then(|p| self.param_default(p)) {
                Some(d) => d.scalar().map(str::to_string).into(),
                None => Known::Unknown,
            },
            "Fn::Sub" => self.eval_sub(arg, depth),
            "Fn::Join" => {
                let Some([delim, list]) = arg.as_seq() else {
                    return Known::Unknown;
                };
                let (Some(delim), Some(items)) = (delim.as_str(), list.as_seq()) else {
                    return Known::Unknown;
                };
                let mut parts = Vec::with_capacity(items.len());
                for it in items {
                    match self.eval_depth(it, depth + 1) {
                        Known::Known(s) => parts.push(s),
                        Known::Unknown => return Known::Unknown,
                    }
                }
                Known::Known(parts.join(delim))
            }
            "Fn::Select" => {
                let Some([idx, list]) = arg.as_seq() else {
                    return Known::Unknown;
                };
                let Some(i) = self
                    .eval_depth(idx, depth + 1)
                    .known()
                    .and_then(|s| s.parse::<usize>().ok())
                else {
                    return Known::Unknown;
                };
                match list.as_seq() {
                    Some(items) if items.iter().all(|n| as_fn(n).is_none()) => items
                        .get(i)
                        .map_or(Known::Unknown, |n| self.eval_depth(n, depth + 1)),
                    _ => self
                        .eval_list(list)
                        .and_then(|l| l.into_iter().nth(i))
                        .into(),
                }
            }
            _ => Known::Unknown,
        }
    }

    fn eval_sub(&self, arg: &Node, depth: usize) -> Known<String> {
        let (template, vars) = match arg.as_seq() {
            Some([t]) => (t, None),
            Some([t, v]) => (t, v.as_map()),
            Some(_) => return Known::Unknown,
            None => (arg, None),
        };
        let Some(s) = template.as_str().filter(|_| template.as_map().is_none()) else {
            return Known::Unknown;
        };
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for v in sub_vars(s) {
            out.push_str(&s[last..v.range.start]);
            last = v.range.end;
            let bound = vars.and_then(|es| es.iter().find(|e| e.key.scalar() == Some(v.name)));
            let value = match bound {
                Some(e) => self.eval_depth(&e.value, depth + 1),
                None if sub_var_target(v.name) == v.name => self
                    .param_default(v.name)
                    .and_then(Node::scalar)
                    .map(str::to_string)
                    .into(),
                None => Known::Unknown,
            };
            match value {
                Known::Known(x) => out.push_str(&x),
                Known::Unknown => return Known::Unknown,
            }
        }
        out.push_str(&s[last..]);
        // `${!Name}` stands for the literal `${Name}`.
        Known::Known(out.replace("${!", "${"))
    }

    /// A list value: a literal list of known strings, or a list parameter's
    /// default split on commas.
    pub fn eval_list(&self, node: &Node) -> Option<Vec<String>> {
        if let Some(items) = node.as_seq() {
            return items
                .iter()
                .map(|n| self.eval_str(n).known().cloned())
                .collect();
        }
        let p = intrinsic::ref_target(node)?;
        let d = self.param_default(p)?;
        if let Some(items) = d.as_seq() {
            return items
                .iter()
                .map(|n| n.as_str().map(str::to_string))
                .collect();
        }
        let s = d.as_str()?;
        Some(
            s.split(',')
                .map(str::trim)
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect(),
        )
    }

    /// The cluster a `ClusterName`-like value names. Identical unresolved
    /// expressions name the same cluster: intrinsic functions give one value
    /// per deployment.
    pub fn cluster_of(&self, node: &Node) -> ClusterId {
        let target = intrinsic::ref_target(node).or_else(|| intrinsic::getatt_target(node));
        if let Some((i, r)) = target.and_then(|t| self.resource(t)) {
            if matches!(r.ty, super::CLUSTER | super::CDK_CLUSTER) {
                return self.cluster_of_resource(i);
            }
        }
        if let Known::Known(name) = self.eval_str(node) {
            return ClusterId {
                key: name.clone(),
                name: Known::Known(name),
            };
        }
        match intrinsic::ref_target(node) {
            Some(p) => ClusterId::unknown(format!("Ref:{p}")),
            None => ClusterId::unknown(expression_key(node)),
        }
    }

    /// The identity of a cluster resource: its name when known, else the
    /// expression of its name, else its logical id.
    pub fn cluster_of_resource(&self, i: usize) -> ClusterId {
        let Some(r) = self.resources.get(i) else {
            return ClusterId::unknown(format!("Ref:#{i}"));
        };
        let name = if r.ty == super::CDK_CLUSTER {
            r.prop("Config").and_then(|c| c.get("name"))
        } else {
            r.prop("Name")
        };
        match self.present(name) {
            // The name cannot name another cluster resource; no recursion.
            Some(n) if !intrinsic::ref_target(n).is_some_and(|t| self.index.contains_key(t)) => {
                self.cluster_of(n)
            }
            // CloudFormation generates the name.
            _ => ClusterId::unknown(format!("Ref:{}", r.id)),
        }
    }

    /// A subnet reference with its visibility when the template shows it.
    pub fn subnet(&self, node: &Node, path: String) -> SubnetRef {
        let loc = Loc::new(node.span, path);
        let target = intrinsic::ref_target(node).and_then(|t| self.resource(t));
        let Some((_, r)) = target.filter(|(_, r)| r.ty == "AWS::EC2::Subnet") else {
            return SubnetRef {
                id: Located::new(self.eval_str(node), loc),
                visibility: Known::Unknown,
                evidence: None,
            };
        };
        let (visibility, evidence) = self.subnet_visibility(r);
        SubnetRef {
            id: Located::new(Known::Unknown, loc),
            visibility,
            evidence,
        }
    }

    fn subnet_visibility(&self, subnet: &Resource<'a>) -> (Known<SubnetVisibility>, Option<Loc>) {
        let base = format!("Resources.{}.Properties", subnet.id);
        if let Some(m) = subnet.prop("MapPublicIpOnLaunch") {
            if self
                .eval_str(m)
                .known()
                .is_some_and(|s| s.eq_ignore_ascii_case("true"))
            {
                return (
                    Known::Known(SubnetVisibility::Public),
                    Some(Loc::new(
                        m.span,
                        crate::path::dot(&base, "MapPublicIpOnLaunch"),
                    )),
                );
            }
        }
        let tables = self
            .subnet_tables
            .get(subnet.id)
            .map_or(&[][..], Vec::as_slice);
        if tables.is_empty() {
            return (Known::Unknown, None);
        }
        let mut nat_only = true;
        let mut any_route = false;
        let routes = tables
            .iter()
            .flat_map(|t| self.table_routes.get(t).map_or(&[][..], Vec::as_slice))
            .filter_map(|&i| self.resources.get(i));
        for r in routes {
            any_route = true;
            if let Some(g) = self.present(r.prop("GatewayId")) {
                let igw = match intrinsic::ref_target(g) {
                    Some(t) => self
                        .resource(t)
                        .is_some_and(|(_, x)| x.ty == "AWS::EC2::InternetGateway"),
                    None => self
                        .eval_str(g)
                        .known()
                        .is_some_and(|s| s.starts_with("igw-")),
                };
                if igw {
                    return (
                        Known::Known(SubnetVisibility::Public),
                        Some(Loc::new(
                            g.span,
                            format!("Resources.{}.Properties.GatewayId", r.id),
                        )),
                    );
                }
            }
            if self.present(r.prop("NatGatewayId")).is_none() {
                nat_only = false;
            }
        }
        if any_route && nat_only {
            (Known::Known(SubnetVisibility::Private), None)
        } else {
            (Known::Unknown, None)
        }
    }
}

/// `Fn::Equals [expression, "literal"]` (either order) as the canonical
/// expression and the literal.
fn equals_literal(n: &Node) -> Option<(String, &str)> {
    let Some(("Fn::Equals", arg)) = as_fn(n) else {
        return None;
    };
    let [x, y] = arg.as_seq()? else { return None };
    match (literal(x), literal(y)) {
        (None, Some(l)) => Some((canonical(x), l)),
        (Some(l), None) => Some((canonical(y), l)),
        _ => None,
    }
}

fn literal(n: &Node) -> Option<&str> {
    if as_fn(n).is_none() {
        n.as_str()
    } else {
        None
    }
}

/// A readable grouping key for an unresolved expression: `ImportValue:name`
/// for a function of one literal, else the canonical text.
fn expression_key(node: &Node) -> String {
    if let Some((f, arg)) = as_fn(node) {
        if let Some(a) = literal(arg) {
            return format!("{}:{a}", f.trim_start_matches("Fn::"));
        }
    }
    format!("expr:{}", canonical(node))
}
