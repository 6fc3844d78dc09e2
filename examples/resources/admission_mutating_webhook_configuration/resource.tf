terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A sidecar injector running in the cluster behind a Service. Its serving
# certificate is issued by cert-manager, whose CA injector fills in the
# webhook's caBundle: ca_bundle is left out, so Terraform leaves it alone.
resource "admission_mutating_webhook_configuration" "example" {
  metadata {
    name = "sidecar-injector.example.com"
    labels = {
      "app.kubernetes.io/name"       = "sidecar-injector"
      "app.kubernetes.io/managed-by" = "terraform"
    }
    annotations = {
      # <namespace>/<Certificate name>: cert-manager copies that certificate's
      # CA into clientConfig.caBundle of every webhook below.
      "cert-manager.io/inject-ca-from" = "sidecar-injector/sidecar-injector-serving"
    }
  }

  webhook {
    name                      = "inject.sidecar-injector.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    failure_policy            = "Fail"
    # Called again if a later mutating webhook changes the pod (for example
    # adds a container that also needs the sidecar's environment).
    reinvocation_policy = "IfNeeded"
    timeout_seconds     = 5

    client_config {
      service {
        namespace = "sidecar-injector"
        name      = "sidecar-injector"
        path      = "/mutate-v1-pod"
        port      = 8443
      }
    }

    rule {
      operations   = ["CREATE"]
      api_groups   = [""]
      api_versions = ["v1"]
      resources    = ["pods"]
      scope        = "Namespaced"
    }

    # Never intercept kube-system or the injector's own namespace: with
    # failure_policy = "Fail", an unavailable injector would otherwise block
    # the pods that could bring it back.
    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "sidecar-injector"]
      }
      match_expressions {
        key      = "sidecar-injection"
        operator = "In"
        values   = ["enabled"]
      }
    }

    # Pods can opt out with the label sidecar.example.com/inject=false.
    object_selector {
      match_expressions {
        key      = "sidecar.example.com/inject"
        operator = "NotIn"
        values   = ["false"]
      }
    }

    # CEL conditions, checked at plan with the API server's own CEL
    # environment. The webhook is called only if all are true.
    match_conditions {
      name       = "not-host-network"
      expression = "!has(object.spec.hostNetwork) || !object.spec.hostNetwork"
    }
    match_conditions {
      name       = "not-the-node-agents"
      expression = "!request.userInfo.username.startsWith('system:node:')"
    }
  }
}
