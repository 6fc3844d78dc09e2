terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A policy and its binding, in Warn while the cluster's Deployments are fixed.
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
    # By the policy's name, so that the plan sees the policy as planned.
    policy_name        = admission_validating_admission_policy.team_label.metadata[0].name
    validation_actions = ["Warn"]
  }
}

# The verdict on the next write of each Deployment the cluster runs, were the
# binding's actions Deny: the binding in API form, as the functions take it.
data "admission_validating_admission_policy_impact" "team_label" {
  policy = admission_validating_admission_policy.team_label
  binding = {
    apiVersion = "admissionregistration.k8s.io/v1"
    kind       = "ValidatingAdmissionPolicyBinding"
    metadata   = { name = "team-label.example.com" }
    spec = {
      policyName        = "team-label.example.com"
      validationActions = ["Deny"]
    }
  }
}

# A check block reports, on every plan and apply, what switching to Deny would
# break; it warns and never blocks.
check "team_label_ready_for_deny" {
  assert {
    condition = data.admission_validating_admission_policy_impact.team_label.denied == 0
    error_message = format("Deny would reject the next write of %d Deployments: %s",
      data.admission_validating_admission_policy_impact.team_label.denied,
    join(", ", [for o in data.admission_validating_admission_policy_impact.team_label.objects : o.ref if o.denied]))
  }
  assert {
    condition     = data.admission_validating_admission_policy_impact.team_label.complete
    error_message = "Not every Deployment could be judged: ${join("; ", data.admission_validating_admission_policy_impact.team_label.unseen)}"
  }
}

output "not_ready" {
  value = [for o in data.admission_validating_admission_policy_impact.team_label.objects : "${o.ref}: ${o.message}" if o.denied]
}
