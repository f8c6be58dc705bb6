# The root configuration of the older layout: every unit includes it with
# `find_in_parent_folders()`. Alone it runs no module.
remote_state {
  backend = "s3"
  config = {
    bucket = "acme-tfstate"
    key    = "${path_relative_to_include()}/terraform.tfstate"
    region = "eu-west-1"
  }
}

inputs = {
  subnet_ids = ["subnet-0a1", "subnet-0b2"]
}
