# Admission policies and a webhook, with tests that say what the API server
# will do with requests, before anything is applied and with no cluster:
# `terraform test` runs tests/admission.tftest.hcl, whose assertions call the
# provider's functions on these resources. Needs Terraform 1.8 or later.
terraform {
  required_version = ">= 1.8"
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

provider "admission" {}

# Deployments may not have more replicas than the limit in a ConfigMap
# (the binding's parameter); kube-system is left alone.
resource "admission_validating_admission_policy" "replicas" {
  metadata {
    name = "replica-limit.example.com"
  }
  spec {
    failure_policy = "Fail"
    param_kind {
      api_version = "v1"
      kind        = "ConfigMap"
    }
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
    variables {
      name       = "max"
      expression = "int(params.data.maxReplicas)"
    }
    validations {
      expression         = "object.spec.replicas <= variables.max"
      message_expression = "'at most ' + string(variables.max) + ' replicas, got ' + string(object.spec.replicas)"
      reason             = "Forbidden"
    }
  }
}

resource "admission_validating_admission_policy_binding" "replicas" {
  metadata {
    name = "replica-limit.example.com"
  }
  spec {
    # The policy's id, known once it is created: Terraform creates the policy
    # first, and the binding's check that its policy exists waits for it.
    policy_name        = admission_validating_admission_policy.replicas.id
    validation_actions = ["Deny"]
    param_ref {
      name                       = "replica-limit"
      namespace                  = "default"
      parameter_not_found_action = "Deny"
    }
  }
}

# Every new Deployment gets the label team=platform unless it has a team.
resource "admission_mutating_admission_policy" "team" {
  metadata {
    name = "team-label.example.com"
  }
  spec {
    reinvocation_policy = "Never"
    match_constraints {
      resource_rules {
        operations   = ["CREATE"]
        api_groups   = ["apps"]
        api_versions = ["v1"]
        resources    = ["deployments"]
      }
    }
    match_conditions {
      name       = "no-team-yet"
      expression = "!has(object.metadata.labels) || !('team' in object.metadata.labels)"
    }
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = "Object{metadata: Object.metadata{labels: {\"team\": \"platform\"}}}"
      }
    }
  }
}

resource "admission_mutating_admission_policy_binding" "team" {
  metadata {
    name = "team-label.example.com"
  }
  spec {
    policy_name = admission_mutating_admission_policy.team.id
  }
}

# Every Deployment must have a team label: the mutating policy above gives
# it to those that have none, so together they admit every new Deployment.
resource "admission_validating_admission_policy" "require_team" {
  metadata {
    name = "require-team.example.com"
  }
  spec {
    failure_policy = "Fail"
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
      message    = "a Deployment needs a team label"
    }
  }
}

resource "admission_validating_admission_policy_binding" "require_team" {
  metadata {
    name = "require-team.example.com"
  }
  spec {
    policy_name        = admission_validating_admission_policy.require_team.id
    validation_actions = ["Deny"]
  }
}

# A sidecar injector that must never see the pods of kube-system, nor its
# own (it could not start again while it is down).
resource "admission_mutating_webhook_configuration" "injector" {
  metadata {
    name = "sidecar-injector.example.com"
  }
  webhook {
    name                      = "pods.sidecar-injector.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    client_config {
      service {
        namespace = "injector"
        name      = "injector"
        path      = "/mutate"
      }
    }
    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["pods"]
    }
    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "injector"]
      }
    }
  }
}
