terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A policy that the API server applies itself, with no webhook to run: every
# new Deployment gets a team label, on itself and on its pods, and keeps 3 old
# ReplicaSets for rollbacks rather than the API's default of 10. The team is a
# parameter, read from a ConfigMap of the Deployment's namespace (see the
# binding below), so one policy serves every team.
resource "admission_mutating_admission_policy" "example" {
  metadata {
    name = "deployment-defaults.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    # The parameter: a ConfigMap, chosen by each binding's param_ref. The
    # expressions see it as `params`.
    param_kind {
      api_version = "v1"
      kind        = "ConfigMap"
    }

    match_constraints {
      # New Deployments only. A mutating policy may match CREATE, UPDATE and
      # CONNECT, never DELETE.
      resource_rules {
        operations   = ["CREATE"]
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

    # Defaults must not stop a Deployment from being created: when a mutation
    # fails (the ConfigMap has no team key), the Deployment is created without
    # it. The server default, Fail, would refuse it.
    failure_policy = "Ignore"

    # Evaluated at most once per request, and used below as variables.team.
    variables {
      name       = "team"
      expression = "params.data.team"
    }

    # The mutations are applied in order, each to the result of the one
    # before.
    #
    # An apply configuration is merged into the Deployment as server-side
    # apply merges: the labels it names are set, and the Deployment's other
    # labels are kept. Checked at plan against the schema of apps/v1
    # Deployment: a misspelt field (Object.spec{replicass: 3}) is a warning
    # on this line.
    mutations {
      patch_type = "ApplyConfiguration"
      apply_configuration {
        expression = <<-EOT
          Object{
            metadata: Object.metadata{labels: {"team": variables.team}},
            spec: Object.spec{
              template: Object.spec.template{
                metadata: Object.spec.template.metadata{labels: {"team": variables.team}}
              }
            }
          }
        EOT
      }
    }

    # A JSON patch (RFC 6902) is a list of operations on the paths it names.
    # The API server sets revisionHistoryLimit to 10 before admission when the
    # Deployment leaves it out, so 10 stands for "not set" and is replaced
    # with 3 (a Deployment that asks for 10 gets 3 too); any other value is
    # the Deployment's own and is kept. An empty list changes nothing.
    mutations {
      patch_type = "JSONPatch"
      json_patch {
        expression = <<-EOT
          object.spec.revisionHistoryLimit == 10
            ? [JSONPatch{op: "replace", path: "/spec/revisionHistoryLimit", value: 3}]
            : []
        EOT
      }
    }

    # Required, with no default. Both mutations give the same result when
    # applied again, so the policy may run once more if a mutating webhook or
    # another policy changes the Deployment after it: IfNeeded puts the team
    # label back if a later mutation changed it.
    reinvocation_policy = "IfNeeded"
  }
}

# The policy applies to nothing until a binding names it. This one applies it
# wherever the policy matches, with the ConfigMap named team in the
# Deployment's own namespace as the parameter, for example:
#
#   kubectl -n shop create configmap team --from-literal=team=payments
resource "admission_mutating_admission_policy_binding" "example" {
  metadata {
    name = "deployment-defaults.example.com"
    labels = {
      "app.kubernetes.io/managed-by" = "terraform"
    }
  }

  spec {
    # The policy's id is its name. Referring to it, rather than writing the
    # name, makes Terraform create the policy before the binding.
    policy_name = admission_mutating_admission_policy.example.id

    param_ref {
      # No namespace: the ConfigMap is looked up in the namespace of the
      # Deployment that the request is about.
      name = "team"
      # Namespaces without that ConfigMap are left alone: their Deployments
      # are created unchanged.
      parameter_not_found_action = "Allow"
    }
  }
}
