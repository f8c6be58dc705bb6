//! EKS Pod Identity associations: `aws_eks_pod_identity_association`, and
//! the one the terraform-aws-modules Karpenter sub-module creates.
//!
//! The sub-module's inputs default to `create_pod_identity_association =
//! true` (v21; `false` in v20, where the input first appeared), `namespace =
//! "kube-system"` and `service_account = "karpenter"`. Its defaults count only
//! when the pinned `version` (or a git source's `?ref=`) certainly is v21
//! or later.

use super::eval::{self, span_of};
use super::{located_str, Builder, Ctx};
use crate::model::{Known, Loc, Located};
use crate::source::{FileId, Span};
use crate::value::Value;
use crate::workload::PodIdentityAssociation;
use hcl_edit::structure::Block;
use hcl_edit::Span as _;

const KARPENTER_SOURCE: &str = "terraform-aws-modules/eks/aws//modules/karpenter";

pub fn read(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    name: &str,
    prefix: &str,
) {
    let addr = format!("{prefix}aws_eks_pod_identity_association.{name}");
    let header = header_span(ctx, block, file);
    let Known::Known(insts) = ctx.instances(block, file) else {
        return;
    };
    let cluster_expr = block.body.get_attribute("cluster_name").map(|a| &a.value);
    for inst in insts {
        let path = format!("{addr}{}", inst.suffix);
        let attr = |n: &str| ctx.eval_attr(&block.body, n, file, &inst.scope);
        let cluster = attr("cluster_name");
        let cluster_key = b
            .cluster_of(cluster_expr, cluster.as_ref(), prefix)
            .and_then(|i| b.clusters.get(i))
            .map(|c| c.key.clone());
        b.pod_identities.push(PodIdentityAssociation {
            namespace: located_str(
                attr("namespace").as_ref(),
                header,
                &crate::path::dot(&path, "namespace"),
            ),
            service_account: located_str(
                attr("service_account").as_ref(),
                header,
                &crate::path::dot(&path, "service_account"),
            ),
            loc: Loc::new(header, path),
            cluster_key,
        });
    }
}

/// A `module` block of the Karpenter sub-module; other modules are ignored.
pub fn read_karpenter(
    b: &mut Builder,
    ctx: &Ctx<'_, '_>,
    block: &Block,
    file: FileId,
    name: &str,
    prefix: &str,
) {
    let none = Vec::new();
    let source = ctx.eval_attr(&block.body, "source", file, &none);
    let source = source.as_ref().and_then(eval::scalar_text);
    let Some(git_ref) = source.as_deref().and_then(karpenter_source) else {
        return;
    };
    let version = ctx.eval_attr(&block.body, "version", file, &none);
    let v21 = match git_ref {
        Some(r) => at_least_v21(&r),
        None => version
            .as_ref()
            .and_then(eval::scalar_text)
            .is_some_and(|v| at_least_v21(&v)),
    };
    let addr = format!("{prefix}module.{name}");
    let header = header_span(ctx, block, file);
    let Known::Known(insts) = ctx.instances(block, file) else {
        return;
    };
    let cluster_expr = block.body.get_attribute("cluster_name").map(|a| &a.value);
    for inst in insts {
        let path = format!("{addr}{}", inst.suffix);
        let attr = |n: &str| ctx.eval_attr(&block.body, n, file, &inst.scope);
        let create = match attr("create") {
            None => Known::Known(true),
            Some(v) => boolean(&v),
        };
        let associate = match attr("create_pod_identity_association") {
            None if v21 => Known::Known(true),
            None => Known::Unknown,
            Some(v) => boolean(&v),
        };
        if create != Known::Known(true) || associate != Known::Known(true) {
            continue;
        }
        let input = |n: &str, default: &str| match attr(n) {
            Some(v) => located_str(Some(&v), header, &crate::path::dot(&path, n)),
            None => Located::new(
                Known::Known(default.to_string()),
                Loc::new(header, crate::path::dot(&path, n)),
            ),
        };
        let cluster = attr("cluster_name");
        let cluster_key = b
            .cluster_of(cluster_expr, cluster.as_ref(), prefix)
            .and_then(|i| b.clusters.get(i))
            .map(|c| c.key.clone());
        b.pod_identities.push(PodIdentityAssociation {
            namespace: input("namespace", "kube-system"),
            service_account: input("service_account", "karpenter"),
            loc: Loc::new(header, path),
            cluster_key,
        });
    }
}

/// Whether a module source is the Karpenter sub-module: `Some(None)` from
/// the registry (the version is in `version`), `Some(Some(ref))` from git,
/// where `?ref=` pins the version (`Some(Some(""))` without one).
fn karpenter_source(source: &str) -> Option<Option<String>> {
    let s = super::eks_module::without_public_registry(source);
    if s == KARPENTER_SOURCE {
        return Some(None);
    }
    let (path, query) = s.split_once('?').unwrap_or((s, ""));
    let (repo, sub) = path.rsplit_once("//")?;
    let repo = repo.trim_end_matches(".git");
    if sub.trim_end_matches('/') != "modules/karpenter"
        || !repo.ends_with("terraform-aws-modules/terraform-aws-eks")
    {
        return None;
    }
    let git_ref = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("ref="))
        .unwrap_or("");
    Some(Some(git_ref.to_string()))
}

fn boolean(v: &Value) -> Known<bool> {
    match eval::scalar_text(v).as_deref() {
        Some("true") => Known::Known(true),
        Some("false") => Known::Known(false),
        _ => Known::Unknown,
    }
}

/// Whether every version a constraint allows is 21 or later: some part of
/// it (`21.1.0`, `~> 21.0`, `>= 21.2`) sets a lower bound of major 21+.
fn at_least_v21(constraint: &str) -> bool {
    constraint.split(',').any(|part| {
        let p = part.trim();
        let (op, rest) = ["~>", ">=", "=", ">"]
            .iter()
            .find_map(|op| p.strip_prefix(op).map(|r| (*op, r)))
            .unwrap_or(("", p));
        let major = rest
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|m| m.parse::<u32>().ok());
        matches!(op, "" | "~>" | ">=" | "=" | ">") && major.is_some_and(|m| m >= 21)
    })
}

/// The header `resource "type" "name"` / `module "name"`.
fn header_span(ctx: &Ctx<'_, '_>, block: &Block, file: FileId) -> Span {
    let whole = span_of(file, block.span()).unwrap_or_default();
    let Some(f) = ctx.env.file(file) else {
        return whole;
    };
    let text = f.slice(whole);
    let end = text.find('{').unwrap_or(text.len());
    let header = text[..end].trim_end();
    Span::new(
        file,
        whole.start as usize,
        whole.start as usize + header.len(),
    )
}

#[cfg(test)]
mod tests {
    use super::at_least_v21;

    #[test]
    fn karpenter_sources() {
        use super::karpenter_source;
        assert_eq!(
            karpenter_source("terraform-aws-modules/eks/aws//modules/karpenter"),
            Some(None)
        );
        assert_eq!(
            karpenter_source(
                "registry.terraform.io/terraform-aws-modules/eks/aws//modules/karpenter"
            ),
            Some(None)
        );
        assert_eq!(
            karpenter_source(
                "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git//modules/karpenter?ref=v21.3.1"
            ),
            Some(Some("v21.3.1".to_string()))
        );
        assert_eq!(
            karpenter_source(
                "github.com/terraform-aws-modules/terraform-aws-eks//modules/karpenter"
            ),
            Some(Some(String::new()))
        );
        assert_eq!(
            karpenter_source("terraform-aws-modules/eks/aws//modules/fargate-profile"),
            None
        );
        assert_eq!(karpenter_source("../../modules/karpenter"), None);
    }

    #[test]
    fn version_constraints() {
        assert!(at_least_v21("21.15.1"));
        assert!(at_least_v21("~> 21.0"));
        assert!(at_least_v21(">= 21.0, < 22.0"));
        assert!(!at_least_v21("~> 20.0"));
        assert!(!at_least_v21(">= 20.0"));
        assert!(!at_least_v21("< 22"));
        assert!(!at_least_v21(""));
    }
}
