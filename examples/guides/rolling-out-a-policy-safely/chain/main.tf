terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

provider "admission" {}

# A mutating policy that gives every Deployment without a team label the team
# "platform", and a validating policy that requires a team label, planned
# together. The server runs the mutating policies before the validating ones,
# so the plan judges each existing Deployment as the mutating policies leave
# its next write: the validating binding denies none of those the mutating
# policy labels, and names only those it leaves out (here: those labelled
# team_exempt, without a team).
resource "admission_mutating_admission_policy" "default_team" {
  metadata {
    name = "default-team.example.com"
  }
  spec {
    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = ["apps"]
        api_versions = ["v1"]
        resources    = ["deployments"]
      }
    }
    match_conditions {
      name       = "no-team"
      expression = "!has(object.metadata.labels.team) && !has(object.metadata.labels.team_exempt)"
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {\"team\": \"platform\"}}}"
      }
    }
    reinvocation_policy = "Never"
  }
}

resource "admission_mutating_admission_policy_binding" "default_team" {
  metadata {
    name = "default-team.example.com"
  }
  spec {
    policy_name = admission_mutating_admission_policy.default_team.metadata[0].name
  }
}

resource "admission_validating_admission_policy" "team_label" {
  metadata {
    name = "team-label.example.com"
  }
  spec {
    match_constraints {
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = ["apps"]
        api_versions = ["v1"]
        resources    = ["deployments"]
      }
    }
    validations {
      expression = "has(object.metadata.labels.team)"
      message    = "every Deployment needs a team label"
    }
  }
}

resource "admission_validating_admission_policy_binding" "team_label" {
  metadata {
    name = "team-label.example.com"
  }
  spec {
    policy_name        = admission_validating_admission_policy.team_label.metadata[0].name
    validation_actions = ["Deny"]
  }
  # Not needed for the plan to see the mutating policy (the provider waits for
  # the plans that run beside), but it makes the order of the plans certain.
  depends_on = [admission_mutating_admission_policy_binding.default_team]
}
