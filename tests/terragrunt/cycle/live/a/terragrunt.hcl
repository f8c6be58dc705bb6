include "b" {
  path = "../b/terragrunt.hcl"
}

dependency "b" {
  config_path = "../b"
}

terraform {
  source = "tfr:///terraform-aws-modules/eks/aws?version=20.8.4"
}

inputs = {
  cluster_name = dependency.b.outputs.cluster_name
  fargate_profiles = {
    apps = {
      selectors = [{ namespace = "kube-system" }]
    }
  }
}
