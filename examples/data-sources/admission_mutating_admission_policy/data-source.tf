terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# Read one MutatingAdmissionPolicy, for example one that a Helm chart
# installed, with every field as the server stores it.
data "admission_mutating_admission_policy" "deployment_defaults" {
  name = "deployment-defaults.example.com"
}

# What the policy does when it cannot be applied, whether it runs again after
# later mutations, and the kind of parameter its bindings must pass in
# param_ref (null for a policy without parameters).
output "deployment_defaults" {
  value = {
    failure_policy      = data.admission_mutating_admission_policy.deployment_defaults.spec[0].failure_policy
    reinvocation_policy = data.admission_mutating_admission_policy.deployment_defaults.spec[0].reinvocation_policy
    param_kind          = data.admission_mutating_admission_policy.deployment_defaults.spec[0].param_kind
  }
}

# The mutations in the order they are applied, each with its patch type and
# its expression. Of apply_configuration and json_patch, the one that the
# patch type does not use reads as null.
output "deployment_defaults_mutations" {
  value = [
    for m in data.admission_mutating_admission_policy.deployment_defaults.spec[0].mutations : {
      patch_type = m.patch_type
      expression = (m.patch_type == "JSONPatch" ? m.json_patch : m.apply_configuration)[0].expression
    }
  ]
}
