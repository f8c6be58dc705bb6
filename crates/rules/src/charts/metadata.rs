//! What public charts need to know that their pods would otherwise learn
//! from the EC2 instance metadata service, which Fargate pods cannot reach.
//! Data, one row per chart; a chart is listed only where its own code shows
//! that it falls back to the metadata service and fails without it.

/// A chart whose controller reads the instance metadata service for a value
/// the release did not set.
pub struct MetadataNeed {
    /// The chart's name, as [`fplint_core::model::HelmRelease::chart_name`] gives it.
    pub chart: &'static str,
    /// What the controller looks up, for messages ("its VPC").
    pub looks_up: &'static str,
    /// Values that each stand in for the lookup: any one set (and not
    /// empty) is enough.
    pub any_of: &'static [&'static str],
}

/// The charts, by name.
pub const METADATA_NEEDS: &[MetadataNeed] = &[MetadataNeed {
    // kubernetes-sigs/aws-load-balancer-controller, `pkg/aws/cloud.go`:
    // without `--aws-vpc-id` or `--aws-vpc-tags` it asks the metadata
    // service, then an EC2 node by name, and exits with "failed to get VPC
    // ID". The region comes from `AWS_REGION`, which IRSA sets.
    chart: "aws-load-balancer-controller",
    looks_up: "its VPC",
    any_of: &["vpcId", "vpcTags"],
}];

/// The row for `chart`.
pub fn metadata_need(chart: &str) -> Option<&'static MetadataNeed> {
    METADATA_NEEDS.iter().find(|n| n.chart == chart)
}
