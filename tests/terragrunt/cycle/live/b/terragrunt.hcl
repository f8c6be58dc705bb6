include "a" {
  path = "../a/terragrunt.hcl"
}

dependency "a" {
  config_path = "../a"
}

terraform {
  source = "tfr:///terraform-aws-modules/eks/aws?version=20.8.4"
}

inputs = {
  cluster_name = dependency.a.outputs.cluster_name
  fargate_profiles = {
    apps = {
      selectors = [{ namespace = "kube-system" }]
    }
  }
}
