//! The long help of the command line's commands: what they do beyond
//! their options, kept with the library that does it.

/// After `fplint check --help`.
pub const CHECK: &str = "\
Exit codes:
  0  no finding at or above --fail-on
  1  at least one finding at or above --fail-on (never with --exit-zero)
  2  usage error, unreadable path, bad config, or a file that could not be parsed

Rules are chosen by code (FP001), code prefix (FP0) or name (coredns-selector-labels);
`fplint rules` lists them.";

/// After `fplint render --help`.
pub const RENDER: &str = "\
What fplint lints, as `helm template` prints it: each document headed
`# Source: CHART/templates/FILE`. A value fplint cannot know prints as
__FPLINT_UNKNOWN__, and a `# fplint:` line says why a document is unknown
in part or could not be rendered. A chart folder alone renders as `check`
reads it: release name and namespace unknown unless --release and
--namespace give them. For a file that declares releases (a .tf with
`helm_release`, an Argo CD Application, a Flux HelmRelease, a helmfile),
each release of a local chart renders with its own name, namespace and
values, as `check` reads them. A CDK app or Pulumi project prints what
fplint read from it, as CloudFormation, each resource headed
`# Source: FILE:LINE`.

Examples:
  fplint render charts/web --release web --namespace apps -f prod.yaml
  fplint render infra/main.tf
  fplint render deploy/overlays/prod";
