terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A policy that the API server evaluates itself, with no webhook to run:
# Deployments may not ask for more replicas than a limit read from a
# ConfigMap, and must carry a team label. The limit is a parameter, so one
# policy serves every environment, each binding with its own ConfigMap.
resource "admission_validating_admission_policy" "example" {
  metadata {
    name = "replica-limit.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    # A request that the policy cannot evaluate (the ConfigMap has no
    # maxReplicas, or not a number) is rejected. This is the server default.
    failure_policy = "Fail"

    # The parameter: a ConfigMap, named by each binding's param_ref. The
    # expressions see it as `params`.
    param_kind {
      api_version = "v1"
      kind        = "ConfigMap"
    }

    match_constraints {
      # Deployments only. `kubectl scale` and autoscalers change replicas
      # through the deployments/scale subresource, which this rule does not
      # match.
      resource_rules {
        operations   = ["CREATE", "UPDATE"]
        api_groups   = ["apps"]
        api_versions = ["v1"]
        resources    = ["deployments"]
      }

      # Never kube-system: its Deployments are the cluster's own.
      namespace_selector {
        match_expressions {
          key      = "kubernetes.io/metadata.name"
          operator = "NotIn"
          values   = ["kube-system"]
        }
      }
    }

    # The policy applies only if every condition is true: here, not to the
    # controllers that run in kube-system under their own service accounts.
    match_conditions {
      name       = "not-kube-system-controllers"
      expression = "!request.userInfo.username.startsWith('system:serviceaccount:kube-system:')"
    }

    # Evaluated at most once per request, and used below as variables.limit.
    variables {
      name       = "limit"
      expression = "int(params.data.maxReplicas)"
    }

    # Checked at plan against the schema of apps/v1 Deployment: a misspelt
    # field (object.spec.replicass) is a warning on this line.
    validations {
      expression         = "object.spec.replicas <= variables.limit"
      message_expression = "'spec.replicas must be at most ' + string(variables.limit) + ', not ' + string(object.spec.replicas)"
      # The HTTP status of the rejection: 422 Unprocessable Entity, as for the
      # API's own validation (Invalid is also what the server uses without it).
      reason = "Invalid"
    }

    validations {
      expression = "has(object.metadata.labels) && 'team' in object.metadata.labels"
      message    = "every Deployment needs a team label"
    }

    # Every matching request's audit event gets the annotation
    # replica-limit.example.com/replicas.
    audit_annotations {
      key              = "replicas"
      value_expression = "string(object.spec.replicas)"
    }
  }
}

# The policy applies to nothing until a binding names it. This one applies it
# to the production namespaces, with the limit of the ConfigMap
# platform-policy/replica-limit-production, for example:
#
#   kubectl -n platform-policy create configmap replica-limit-production --from-literal=maxReplicas=10
resource "admission_validating_admission_policy_binding" "example" {
  metadata {
    name = "replica-limit-production.example.com"
  }

  spec {
    # The policy's id is its name. Referring to it, rather than writing the
    # name, makes Terraform create the policy before the binding.
    policy_name = admission_validating_admission_policy.example.id

    param_ref {
      name      = "replica-limit-production"
      namespace = "platform-policy"
      # Without that ConfigMap the policy's failure_policy decides: here,
      # Deployments are rejected rather than let through unchecked.
      parameter_not_found_action = "Deny"
    }

    # A failed validation rejects the request, and is recorded in the audit
    # event.
    validation_actions = ["Deny", "Audit"]

    # Within the policy's match_constraints, only the namespaces labelled
    # environment=production.
    match_resources {
      namespace_selector {
        match_labels = {
          environment = "production"
        }
      }
    }
  }
}
