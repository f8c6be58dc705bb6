include {
  path = find_in_parent_folders()
}

terraform {
  source = "tfr:///terraform-aws-modules/eks/aws?version=19.21.0"
}

inputs = {
  cluster_name = "shop"
  fargate_profiles = {
    apps = {
      selectors = [{ namespace = "shop" }]
    }
  }
}
