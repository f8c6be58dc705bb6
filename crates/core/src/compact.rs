//! Giving back spare capacity once a unit is modelled. Frontends build the
//! model by pushing, and a vector of one item holds room for four; the model
//! then lives until the run ends, so on a large tree the slack is a third of
//! the memory. Each impl names every field, so a new one cannot be missed.

use crate::model::*;
use crate::value::{MapKey, Value, ValueKind};
use crate::workload::*;

/// Give back spare capacity, recursively, once a value is fully built.
pub trait Compact {
    fn compact(&mut self);
}

macro_rules! leaf {
    ($($t:ty),*) => { $(impl Compact for $t { fn compact(&mut self) {} })* };
}
leaf!(
    bool,
    u32,
    u64,
    usize,
    crate::source::Span,
    crate::source::FileId,
    ResourceRef,
    SubnetVisibility,
    Provisioner,
    WorkloadKind,
    ValueSourceKind,
    crate::model::AppliedBy,
    crate::model::RootReference,
    VariantKind,
    std::path::PathBuf,
    crate::model::ValuesPart,
    crate::model::ChartRef
);

impl Compact for String {
    fn compact(&mut self) {
        self.shrink_to_fit();
    }
}

impl Compact for Box<str> {
    fn compact(&mut self) {}
}

impl Compact for std::sync::Arc<str> {
    fn compact(&mut self) {}
}

impl<T: Compact> Compact for Vec<T> {
    fn compact(&mut self) {
        self.iter_mut().for_each(Compact::compact);
        self.shrink_to_fit();
    }
}

impl<T: Compact> Compact for Box<T> {
    fn compact(&mut self) {
        (**self).compact();
    }
}

impl<T: Compact> Compact for Option<T> {
    fn compact(&mut self) {
        if let Some(v) = self {
            v.compact();
        }
    }
}

impl<T: Compact> Compact for Known<T> {
    fn compact(&mut self) {
        if let Known::Known(v) = self {
            v.compact();
        }
    }
}

impl<A: Compact, B: Compact> Compact for (A, B) {
    fn compact(&mut self) {
        self.0.compact();
        self.1.compact();
    }
}

/// Compact each named field of a struct, listed exhaustively.
macro_rules! fields {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Compact for $t {
            fn compact(&mut self) {
                let $t { $($f),* } = self;
                $($f.compact();)*
            }
        }
    };
}

impl<T: Compact> Compact for Located<T> {
    fn compact(&mut self) {
        let Located { value, loc } = self;
        value.compact();
        loc.compact();
    }
}

impl Compact for Capacity {
    fn compact(&mut self) {
        if let Capacity::Declared(loc) = self {
            loc.compact();
        }
    }
}

impl Compact for ValueKind {
    fn compact(&mut self) {
        match self {
            ValueKind::Unknown | ValueKind::Null | ValueKind::Bool(_) => {}
            ValueKind::Number(s) | ValueKind::String(s) => s.compact(),
            ValueKind::List(items) => items.compact(),
            ValueKind::Map(entries) => entries.compact(),
        }
    }
}

fields!(Loc { span, path });
fields!(Value { kind, span });
fields!(MapKey { name, span });
fields!(Cluster {
    name,
    key,
    loc,
    defined,
    also_described_at,
    provisioner,
    region,
    version,
    capacity,
    node_groups,
    addons,
    fargate_profiles,
    profiles_incomplete,
    karpenter_version,
    helm_releases,
    execution_roles,
    authentication_mode,
    shown_file,
    name_shared,
    addons_incomplete,
    self_managed_addons,
    coredns_patch,
    calls,
    root_reference,
    root_may_add_nodes,
});
fields!(ExecutionRole {
    profiles,
    loc,
    name,
    path,
    policies,
    trusted_services,
    statements,
});
fields!(PolicyStatement {
    allow,
    actions,
    loc
});
fields!(HelmRelease {
    name,
    chart,
    repository,
    version,
    namespace,
    values,
    value_sources,
    resource,
    loc,
    applied_by,
    local_chart,
    chart_dir,
    cluster_key,
    destination,
    values_parts,
    chart_ref,
    post_rendered,
});
fields!(ValueSource { kind, loc, origin });
fields!(NodeGroup { name, loc, managed });
fields!(Addon {
    name,
    loc,
    version,
    configuration,
    before_compute,
    resource,
});
fields!(FargateProfile {
    name,
    loc,
    selectors,
    selectors_loc,
    subnets,
    pod_execution_role,
    role_ref,
    resource,
    created_concurrently,
});
fields!(Selector {
    loc,
    namespace,
    labels,
    labels_loc,
});
fields!(Label { key, value, loc });
fields!(SubnetRef {
    id,
    visibility,
    evidence,
});
fields!(GraphNode { name, loc });
fields!(Workload {
    kind,
    name,
    namespace,
    loc,
    pod,
    resource,
    cluster_key,
    variant,
    coredns_patch,
});
fields!(Variant {
    name,
    loc,
    kind,
    origins
});
fields!(Pair { key, value, loc });
fields!(Toleration {
    key,
    operator,
    value,
    effect,
    loc,
});
fields!(Resources { cpu, memory, loc });
fields!(Container {
    name,
    loc,
    requests,
    limits,
    privileged,
    host_ports,
    gpus,
});
fields!(PodTemplate {
    loc,
    labels,
    annotations,
    tolerations,
    node_selector,
    affinity,
    scheduler_name,
    host_network,
    host_path_volumes,
    init_containers,
    containers,
    service_account,
});
fields!(AwsAuth {
    loc,
    map_roles_loc,
    roles,
    cluster_key,
});
fields!(RoleMapping {
    role_arn,
    role_ref,
    role_name,
    groups,
    username,
    loc,
});
fields!(KarpenterObjects {
    node_pools,
    node_classes,
});
fields!(NodePool {
    name,
    startup_taints,
    startup_taints_loc,
    node_class,
});
fields!(NodeClass { name, custom_ami });
fields!(PodIdentityAssociation {
    namespace,
    service_account,
    loc,
    cluster_key,
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spare_capacity_is_returned_all_the_way_down() {
        let loc = Loc::new(crate::Span::default(), "a");
        let mut labels = Vec::with_capacity(8);
        labels.push(Label {
            key: Known::Known("k".into()),
            value: Known::Known("v".into()),
            loc: loc.clone(),
        });
        let mut selectors = Vec::with_capacity(4);
        selectors.push(Selector {
            loc: loc.clone(),
            namespace: Located::new(Known::Known("ns".into()), loc.clone()),
            labels: Known::Known(labels),
            labels_loc: None,
        });
        let profile_loc = loc.clone();
        let mut p = FargateProfile {
            name: Located::new(Known::Unknown, loc.clone()),
            loc: profile_loc,
            selectors: Known::Known(selectors),
            selectors_loc: loc,
            subnets: Known::Unknown,
            pod_execution_role: None,
            role_ref: None,
            resource: None,
            created_concurrently: false,
        };
        p.compact();
        let Known::Known(sels) = &p.selectors else {
            panic!("selectors kept");
        };
        assert_eq!(sels.capacity(), 1);
        let Some(Known::Known(labels)) = sels.first().map(|s| &s.labels) else {
            panic!("labels kept");
        };
        assert_eq!(labels.capacity(), 1);
    }
}
