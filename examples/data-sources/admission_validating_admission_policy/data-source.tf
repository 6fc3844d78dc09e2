terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Read one ValidatingAdmissionPolicy, for example one that a Helm chart
# installed, with every field as the server stores it and its status.
data "admission_validating_admission_policy" "replica_limit" {
  name = "replica-limit.example.com"
}

# What the policy checks, what it does when it cannot check, and the kind of
# parameter its bindings must pass in param_ref. A block that the policy does
# not have (param_kind for a policy without parameters, validations for one
# with only audit annotations) reads as null, hence the coalesce.
output "replica_limit" {
  value = {
    failure_policy = data.admission_validating_admission_policy.replica_limit.spec[0].failure_policy
    param_kind     = data.admission_validating_admission_policy.replica_limit.spec[0].param_kind
    expressions = [
      for v in coalesce(data.admission_validating_admission_policy.replica_limit.spec[0].validations, []) : v.expression
    ]
  }
}

# What the API server's type checking found, by expression: empty when every
# expression type-checks, and before kube-controller-manager has checked the
# policy's latest generation (compare status.observed_generation with
# metadata[0].generation).
output "replica_limit_type_checking" {
  value = {
    for w in data.admission_validating_admission_policy.replica_limit.status.type_checking : w.field_ref => w.warning
  }
}
