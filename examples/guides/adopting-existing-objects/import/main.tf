terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

provider "admission" {
  config_path = "~/.kube/config"
}

# A ValidatingAdmissionPolicy and its binding applied with kubectl apply
# (the example of the Kubernetes documentation), adopted by name. The
# configuration is the manifest. kubectl's last-applied-configuration
# annotation is not written here: it stays on the objects, and the plan does
# not touch it. The same goes for Helm's meta.helm.sh/* annotations and
# app.kubernetes.io/managed-by label on objects a chart installed.
import {
  to = admission_validating_admission_policy.demo
  id = "demo-policy.example.com"
}

resource "admission_validating_admission_policy" "demo" {
  metadata {
    name = "demo-policy.example.com"
  }

  spec {
    failure_policy = "Fail"

    match_constraints {
      resource_rules {
        api_groups   = ["apps"]
        api_versions = ["v1"]
        operations   = ["CREATE", "UPDATE"]
        resources    = ["deployments"]
      }
    }

    validations {
      expression = "object.spec.replicas <= 5"
    }
  }
}

import {
  to = admission_validating_admission_policy_binding.demo
  id = "demo-binding-test.example.com"
}

resource "admission_validating_admission_policy_binding" "demo" {
  metadata {
    name = "demo-binding-test.example.com"
  }

  spec {
    policy_name        = admission_validating_admission_policy.demo.id
    validation_actions = ["Deny"]

    match_resources {
      namespace_selector {
        match_labels = { environment = "test" }
      }
    }
  }
}
