terraform {
  source = "../../modules/eks"
}

inputs = {
  name       = "b"
  namespaces = ["kube-system"]
}
