//! One module per rule, named by its code; each module's documentation says
//! what the rule finds and why, and `rules/FPxxx.md` is its user documentation.
pub mod fp001_coredns_selector_labels;
pub mod fp002_fargate_toleration_missing;
pub mod fp003_fargate_profile_parallel_creation;
pub mod fp004_fargate_quota_exceeded;
pub mod fp005_coredns_without_capacity;
pub mod fp006_coredns_compute_type;
pub mod fp007_fargate_subnet_public;
pub mod fp008_pod_execution_role_incomplete;
pub mod fp009_aws_auth_drops_fargate_role;
pub mod fp010_fargate_profile_overlap;
pub mod fp011_workload_without_capacity;
pub mod fp012_installed_before_fargate_profile;
pub mod fp013_karpenter_startup_taint_race;
pub mod fp014_fargate_unsupported_pod_spec;
pub mod fp015_fargate_pod_size;
pub mod fp016_fargate_selector_invalid;
pub mod fp017_pod_identity_on_fargate;
pub mod fp018_fargate_profile_pin_annotation;
pub mod fp019_unknown_field;
pub mod fp020_invalid_value;
pub mod fp021_instance_metadata_on_fargate;
