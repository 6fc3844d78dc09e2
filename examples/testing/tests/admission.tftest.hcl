# What the API server will do with requests, for the policies and the webhook
# of main.tf: `terraform test` plans them (no cluster is needed) and asks the
# provider's functions. Each function takes the resources as they are planned
# and a request: the object, its namespace, the user, the parameters the
# binding may find.

# The plans need no cluster: the provider is given an address where none
# listens, and plans offline. (Against a real cluster, leave this out: the
# plans are then also checked by the server.)
provider "admission" {
  host            = "https://127.0.0.1:9"
  token           = "offline"
  dry_run_on_plan = false
}

variables {
  # The ConfigMap the replica limit's binding points to.
  limit = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "replica-limit", namespace = "default" }
    data       = { maxReplicas = "5" }
  }
}

run "replica_limit" {
  command = plan

  assert {
    condition = !provider::admission::validate(
      admission_validating_admission_policy.replicas,
      admission_validating_admission_policy_binding.replicas,
      {
        object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" }, spec = { replicas = 6 } }
        params = [var.limit]
      }
    ).allowed
    error_message = "A Deployment of 6 replicas must be denied."
  }

  assert {
    condition = provider::admission::validate(
      admission_validating_admission_policy.replicas,
      admission_validating_admission_policy_binding.replicas,
      {
        object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" }, spec = { replicas = 6 } }
        params = [var.limit]
      }
    ).message == "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit.example.com' denied request: at most 5 replicas, got 6"
    error_message = "The denial must say why."
  }

  assert {
    condition = provider::admission::validate(
      admission_validating_admission_policy.replicas,
      admission_validating_admission_policy_binding.replicas,
      {
        object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" }, spec = { replicas = 3 } }
        params = [var.limit]
      }
    ).allowed
    error_message = "A Deployment of 3 replicas must be admitted."
  }

  assert {
    condition = !provider::admission::validate(
      admission_validating_admission_policy.replicas,
      admission_validating_admission_policy_binding.replicas,
      {
        object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "coredns", namespace = "kube-system" }, spec = { replicas = 6 } }
        params = [var.limit]
      }
    ).matched
    error_message = "The policy must leave kube-system alone."
  }
}

run "team_label" {
  command = plan

  assert {
    condition = provider::admission::mutate(
      admission_mutating_admission_policy.team,
      admission_mutating_admission_policy_binding.team,
      { object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default", labels = { app = "web" } } } }
    ).object.metadata.labels == { app = "web", team = "platform" }
    error_message = "A new Deployment must get the team label."
  }

  assert {
    condition = !provider::admission::mutate(
      admission_mutating_admission_policy.team,
      admission_mutating_admission_policy_binding.team,
      { object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default", labels = { team = "data" } } } }
    ).matched
    error_message = "A Deployment that has a team keeps it."
  }
}

# The whole chain: the mutating policy labels the Deployment, then the
# validating policy that requires the label sees it, as the API server runs
# them one after the other.
run "label_then_require" {
  command = plan

  assert {
    condition = provider::admission::admit(
      [
        admission_mutating_admission_policy.team,
        admission_mutating_admission_policy_binding.team,
        admission_validating_admission_policy.require_team,
        admission_validating_admission_policy_binding.require_team,
      ],
      { object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" } } }
    ).allowed
    error_message = "A new Deployment without a team must be labelled, then admitted."
  }

  assert {
    condition = provider::admission::admit(
      [
        admission_mutating_admission_policy.team,
        admission_mutating_admission_policy_binding.team,
        admission_validating_admission_policy.require_team,
        admission_validating_admission_policy_binding.require_team,
      ],
      { object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" } } }
    ).object.metadata.labels == { team = "platform" }
    error_message = "The Deployment stored must have the team label."
  }

  assert {
    condition = !provider::admission::validate(
      admission_validating_admission_policy.require_team,
      admission_validating_admission_policy_binding.require_team,
      { object = { apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "web", namespace = "default" } } }
    ).allowed
    error_message = "Without the mutating policy, a Deployment without a team must be denied."
  }
}

run "injector_skips_kube_system" {
  command = plan

  assert {
    condition = length(provider::admission::webhooks(
      admission_mutating_webhook_configuration.injector,
      { object = { apiVersion = "v1", kind = "Pod", metadata = { name = "coredns", namespace = "kube-system" } } }
    ).called) == 0
    error_message = "The injector must not be called for kube-system's pods."
  }

  assert {
    condition = provider::admission::webhooks(
      admission_mutating_webhook_configuration.injector,
      { object = { apiVersion = "v1", kind = "Pod", metadata = { name = "web", namespace = "default" } } }
    ).called == tolist(["pods.sidecar-injector.example.com"])
    error_message = "The injector must be called for other pods."
  }
}
