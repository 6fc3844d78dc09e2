terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Server-side apply settings. Each configuration that manages webhooks in the
# same cluster can use its own field manager name, so that the managedFields of
# an object show which one owns which field.
provider "admission" {
  config_path = "~/.kube/config"

  # Default: "terraform-provider-admission".
  field_manager = "terraform-platform-team"

  # Default: false. When true, fields that another server-side applier
  # declares are taken over instead of failing the apply with a conflict.
  force_conflicts = false

  # Default: true. Checks each planned object with a dry-run apply during
  # plan. Turn it off where the credentials used for plan may not write.
  dry_run_on_plan = true
}
