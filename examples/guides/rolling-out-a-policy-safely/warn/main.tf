terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

provider "admission" {
  # The impact is read at plan, within these bounds (the defaults shown).
  impact_max_objects = 1000
  impact_timeout     = "10s"
}

# Step 1: the policy, bound with Warn and Audit. Nothing is rejected: each
# write that breaks the rule gets a warning (kubectl and helm print it) and an
# audit annotation. The plan that creates it lists the Deployments it would
# warn about.
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
      namespace_selector {
        match_expressions {
          key      = "kubernetes.io/metadata.name"
          operator = "NotIn"
          values   = ["kube-system"]
        }
      }
    }
    validations {
      expression = "has(object.metadata.labels) && 'team' in object.metadata.labels"
      message    = "every Deployment needs a team label"
    }
  }
}

resource "admission_validating_admission_policy_binding" "team_label" {
  metadata {
    name = "team-label.example.com"
  }
  spec {
    # The policy's metadata name (not its id): known at plan, so the plan of
    # the binding evaluates the policy as planned.
    policy_name        = admission_validating_admission_policy.team_label.metadata[0].name
    validation_actions = ["Warn", "Audit"]
  }
}
