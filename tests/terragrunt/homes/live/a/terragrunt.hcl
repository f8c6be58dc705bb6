terraform {
  source = "../../modules/eks"
}

inputs = {
  name       = "a"
  namespaces = ["kube-system"]
}
