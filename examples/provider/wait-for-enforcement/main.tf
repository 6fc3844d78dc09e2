terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Default: true. The apply of an admission policy or binding returns once the
# API server enforces it (proven with a server dry run of an object the plan
# found the change acts on, else after the server's reload period with a
# margin, 3 s). Turn it off to return as soon as the object is written, when
# nothing that follows in the same run relies on the policy being in force.
provider "admission" {
  config_path = "~/.kube/config"

  wait_for_enforcement = false
}
