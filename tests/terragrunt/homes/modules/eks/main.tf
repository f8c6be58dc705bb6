variable "name" {
  type = string
}

variable "namespaces" {
  type = list(string)
}

resource "aws_eks_cluster" "this" {
  name     = var.name
  role_arn = "arn:aws:iam::111122223333:role/eks"

  vpc_config {
    subnet_ids = ["subnet-0a1", "subnet-0b2"]
  }
}

resource "aws_eks_fargate_profile" "this" {
  cluster_name           = aws_eks_cluster.this.name
  fargate_profile_name   = "default"
  pod_execution_role_arn = "arn:aws:iam::111122223333:role/fargate"
  subnet_ids             = ["subnet-0a1", "subnet-0b2"]

  dynamic "selector" {
    for_each = var.namespaces
    content {
      namespace = selector.value
    }
  }
}

output "cluster_name" {
  value = aws_eks_cluster.this.name
}
