terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Step 2: the same policy, now bound with Deny. The plan of the change lists the
# Deployments it would newly deny on their next write; with
# fail_on_existing_denials it fails instead, so that a pipeline cannot switch
# to Deny while any Deployment the cluster runs still breaks the rule.
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
    policy_name        = admission_validating_admission_policy.team_label.metadata[0].name
    validation_actions = ["Deny", "Audit"]
  }

  # A setting of this resource only, never sent to the cluster: the plan fails
  # while the binding would deny existing objects, or cannot tell for some.
  fail_on_existing_denials = true
}
