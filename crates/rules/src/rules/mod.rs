pub mod fp001_coredns_selector_labels;
pub mod fp004_fargate_quota_exceeded;
