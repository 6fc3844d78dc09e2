terraform {
  required_providers {
    admission = {
      source = "seed-a73d233f/admission"
    }
  }
}

# A policy checker running in the cluster behind a Service: it rejects
# Deployments that break the rules of the platform (no image tag "latest", no
# missing resource limits, ...). Its serving certificate is issued by
# cert-manager, whose CA injector fills in the webhook's caBundle: ca_bundle is
# left out, so Terraform leaves it alone.
resource "admission_validating_webhook_configuration" "example" {
  metadata {
    name = "deployment-policy.example.com"
    labels = {
      "app.kubernetes.io/name"       = "deployment-policy"
      "app.kubernetes.io/managed-by" = "terraform"
    }
    annotations = {
      # <namespace>/<Certificate name>: cert-manager copies that certificate's
      # CA into clientConfig.caBundle of every webhook below.
      "cert-manager.io/inject-ca-from" = "deployment-policy/deployment-policy-serving"
    }
  }

  webhook {
    name                      = "deployments.deployment-policy.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    # A Deployment that cannot be checked is not admitted.
    failure_policy  = "Fail"
    timeout_seconds = 5

    client_config {
      service {
        namespace = "deployment-policy"
        name      = "deployment-policy"
        path      = "/validate-apps-v1-deployment"
        port      = 8443
      }
    }

    rule {
      operations   = ["CREATE", "UPDATE"]
      api_groups   = ["apps"]
      api_versions = ["v1"]
      resources    = ["deployments"]
      scope        = "Namespaced"
    }

    # Never intercept kube-system or the checker's own namespace: with
    # failure_policy = "Fail", an unavailable checker would otherwise block
    # the Deployments that could bring it back.
    namespace_selector {
      match_expressions {
        key      = "kubernetes.io/metadata.name"
        operator = "NotIn"
        values   = ["kube-system", "deployment-policy"]
      }
    }

    # CEL conditions, checked at plan with the API server's own CEL
    # environment. The webhook is called only if all are true: here, not for
    # the controllers that run in kube-system under their own service accounts.
    match_conditions {
      name       = "not-kube-system-controllers"
      expression = "!request.userInfo.username.startsWith('system:serviceaccount:kube-system:')"
    }
  }
}
