terraform {
  source = "tfr:///terraform-aws-modules/eks/aws?version=20.8.4"
}

inputs = {
  cluster_name = "shop"
  subnet_ids = [
}
