package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/impact"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// envFor maps each connection attribute to the environment variable that
// hashicorp/kubernetes reads for it.
var envFor = map[string]string{
	"host":                     "KUBE_HOST",
	"username":                 "KUBE_USER",
	"password":                 "KUBE_PASSWORD",
	"token":                    "KUBE_TOKEN",
	"insecure":                 "KUBE_INSECURE",
	"tls_server_name":          "KUBE_TLS_SERVER_NAME",
	"client_certificate":       "KUBE_CLIENT_CERT_DATA",
	"client_key":               "KUBE_CLIENT_KEY_DATA",
	"cluster_ca_certificate":   "KUBE_CLUSTER_CA_CERT_DATA",
	"config_path":              "KUBE_CONFIG_PATH",
	"config_paths":             "KUBE_CONFIG_PATHS",
	"config_context":           "KUBE_CTX",
	"config_context_auth_info": "KUBE_CTX_AUTH_INFO",
	"config_context_cluster":   "KUBE_CTX_CLUSTER",
	"proxy_url":                "KUBE_PROXY_URL",
}

// settingsFrom fills the connection settings from the configuration, and
// where it is silent, from the environment.
func settingsFrom(ctx context.Context, cfg providerModel) (kube.Settings, diag.Diagnostics) {
	var diags diag.Diagnostics
	str := func(attr string, v types.String) string {
		if !v.IsNull() {
			return v.ValueString()
		}
		return os.Getenv(envFor[attr])
	}
	s := kube.Settings{
		Host:                  str("host", cfg.Host),
		Username:              str("username", cfg.Username),
		Password:              str("password", cfg.Password),
		Token:                 str("token", cfg.Token),
		TLSServerName:         str("tls_server_name", cfg.TLSServerName),
		ClientCertificate:     str("client_certificate", cfg.ClientCertificate),
		ClientKey:             str("client_key", cfg.ClientKey),
		ClusterCACertificate:  str("cluster_ca_certificate", cfg.ClusterCACertificate),
		ConfigPath:            str("config_path", cfg.ConfigPath),
		ConfigContext:         str("config_context", cfg.ConfigContext),
		ConfigContextAuthInfo: str("config_context_auth_info", cfg.ConfigContextAuthInfo),
		ConfigContextCluster:  str("config_context_cluster", cfg.ConfigContextCluster),
		ProxyURL:              str("proxy_url", cfg.ProxyURL),
	}

	if !cfg.Insecure.IsNull() {
		v := cfg.Insecure.ValueBool()
		s.Insecure = &v
	} else if env := os.Getenv(envFor["insecure"]); env != "" {
		v, err := strconv.ParseBool(env)
		if err != nil {
			diags.AddAttributeError(path.Root("insecure"), "Invalid KUBE_INSECURE",
				"KUBE_INSECURE must be true or false, not "+strconv.Quote(env)+".")
			return s, diags
		}
		s.Insecure = &v
	}

	if !cfg.ConfigPaths.IsNull() {
		diags.Append(cfg.ConfigPaths.ElementsAs(ctx, &s.ConfigPaths, false)...)
	} else if env := os.Getenv(envFor["config_paths"]); env != "" && s.ConfigPath == "" {
		s.ConfigPaths = filepath.SplitList(env)
	}
	// KUBE_CONFIG_PATH in the environment must not conflict with
	// config_paths set in the configuration.
	if cfg.ConfigPath.IsNull() && !cfg.ConfigPaths.IsNull() {
		s.ConfigPath = ""
	}

	for _, e := range cfg.Exec {
		exec := &kube.ExecSettings{APIVersion: e.APIVersion.ValueString(), Command: e.Command.ValueString()}
		diags.Append(e.Args.ElementsAs(ctx, &exec.Args, false)...)
		if !e.Env.IsNull() {
			diags.Append(e.Env.ElementsAs(ctx, &exec.Env, false)...)
		}
		s.Exec = exec
	}
	return s, diags
}

// addSettingError reports a connection error on the attribute it is about.
func addSettingError(diags *diag.Diagnostics, err error) {
	var se *kube.SettingError
	if !errors.As(err, &se) {
		diags.AddError("Invalid provider configuration", err.Error())
		return
	}
	detail := se.Err.Error()
	if env, ok := envFor[se.Attribute]; ok {
		detail += "\n\nThe value may come from the configuration or from the environment variable " + env + "."
	}
	diags.AddAttributeError(path.Root(se.Attribute), "Invalid provider configuration: "+se.Attribute, detail)
}

// kubernetesVersionDescription documents kubernetes_version in the provider schema.
var kubernetesVersionDescription = "The version of the Kubernetes API server the plan is checked for, as `1.N` (for example `1.33`; " +
	"a full version such as `v1.33.2` is read as its minor release). The rules that changed between releases follow it: the CEL " +
	"functions an expression may use, the reserved `.static.k8s.io` name suffix, the server's warnings. " +
	"Left out, the provider asks the API server (one `/version` request per run, made only when a check depends on the version); " +
	"when it cannot, a check that depends on the version is a warning that names the version it assumed (" + validation.Assumed.String() + "), " +
	"never an error. With a `host` and `dry_run_on_plan = false`, set it to check a plan without a cluster to reach, in a pipeline for example: " +
	"it is not enough alone, as the provider still needs connection settings. " +
	"The checks know Kubernetes " + validation.OldestSupported.String() + " to " + validation.NewestSupported.String() + "."

// kubernetesVersion reads the kubernetes_version setting: empty when not set,
// an error on the attribute when it is not a Kubernetes version, and a warning
// when the provider's checks do not know that version.
func kubernetesVersion(setting types.String, diags *diag.Diagnostics) string {
	if setting.IsNull() || setting.IsUnknown() {
		return ""
	}
	v, err := validation.ParseVersion(setting.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("kubernetes_version"), "Invalid kubernetes_version", err.Error())
		return ""
	}
	if !v.Supported() {
		diags.AddAttributeWarning(path.Root("kubernetes_version"), "Kubernetes version not known to the checks",
			"The provider's checks know Kubernetes "+validation.OldestSupported.String()+" to "+validation.NewestSupported.String()+
				"; for "+v.String()+", the checks that depend on the version are warnings, made as for the nearest version they know.")
	}
	return setting.ValueString()
}

// The bounds of the impact of a planned policy on the objects the cluster runs (internal/impact).
var (
	impactMaxObjectsDescription = fmt.Sprintf("The most objects of each resource that a plan examines for the impact of a planned "+
		"admission policy or binding on the objects the cluster already runs (listed a page at a time). Default: `%d`; `0` turns the impact off. "+
		"When a resource has more, the plan says how many it examined of how many.", impact.DefaultMaxObjects)
	impactTimeoutDescription = fmt.Sprintf("The time the impact of one planned admission policy or binding may take at plan, listing and "+
		"evaluating, as a Go duration such as `30s`. Default: `%s`. When it runs out, the plan says what was examined and what was not.",
		impact.DefaultBudget)
)

// impactBounds reads impact_max_objects and impact_timeout: 0 for what is not set (the
// defaults), a negative count for an impact turned off, an error on the attribute for a value
// that is not a count or a duration.
func impactBounds(maxObjects types.Int64, timeout types.String, diags *diag.Diagnostics) (int, time.Duration) {
	n := 0
	if !maxObjects.IsNull() && !maxObjects.IsUnknown() {
		switch v := maxObjects.ValueInt64(); {
		case v < 0:
			diags.AddAttributeError(path.Root("impact_max_objects"), "Invalid impact_max_objects", "impact_max_objects must be 0 (no impact) or more, not "+strconv.FormatInt(v, 10)+".")
		case v == 0:
			n = -1
		default:
			n = int(min(v, 1<<30))
		}
	}
	var d time.Duration
	if !timeout.IsNull() && !timeout.IsUnknown() {
		var err error
		d, err = time.ParseDuration(timeout.ValueString())
		if err != nil || d <= 0 {
			diags.AddAttributeError(path.Root("impact_timeout"), "Invalid impact_timeout",
				"impact_timeout must be a positive duration such as \"30s\" or \"2m\", not "+strconv.Quote(timeout.ValueString())+".")
			d = 0
		}
	}
	return n, d
}

// The checks of webhooks' certificates at plan (internal/advice certs.go, internal/tlscheck).
var (
	caBundleExpiryWarningDescription = "How long before a certificate expires the plan warns about it, as a Go duration such as `720h` " +
		"(hours are the largest unit). Default: `720h` (30 days). The certificates are those of a webhook's `ca_bundle` (read offline), " +
		"the serving certificate of a URL webhook's backend (see `webhook_tls_check_on_plan`), and the cert-manager Certificate named by a " +
		"configuration's `cert-manager.io/inject-ca-from` annotation (read from the cluster). An expired or not yet valid certificate is a warning whatever this is."
	webhookTLSCheckDescription = "During plan, make a TLS handshake with the backend of each URL webhook (`client_config.url`) of a configuration " +
		"the plan creates or changes, and verify its serving certificate as the API server does: against `ca_bundle` (the system's roots " +
		"without one) and for the URL's host name. A certificate that does not verify is a warning in the API server's words; a backend " +
		"that cannot be reached from where Terraform runs is a warning that it could not be checked (that network is not the API server's). " +
		"Each host is given at most 3 seconds, once per run and `ca_bundle`. Default: `true`; set `false` where the plan must not open connections " +
		"other than to the API server."
)

// caBundleExpiryWarning reads ca_bundle_expiry_warning: 0 when not set (the default), an
// error on the attribute for a value that is not a positive duration.
func caBundleExpiryWarning(setting types.String, diags *diag.Diagnostics) time.Duration {
	if setting.IsNull() || setting.IsUnknown() {
		return 0
	}
	d, err := time.ParseDuration(setting.ValueString())
	if err != nil || d <= 0 {
		diags.AddAttributeError(path.Root("ca_bundle_expiry_warning"), "Invalid ca_bundle_expiry_warning",
			"ca_bundle_expiry_warning must be a positive duration such as \"720h\" (30 days) or \"168h\" (7 days), not "+
				strconv.Quote(setting.ValueString())+".")
		return 0
	}
	return d
}

// proveWebhooksEnv is the environment variable of prove_webhooks.
const proveWebhooksEnv = "ADMISSION_PROVE_WEBHOOKS"

// proveWebhooksDescription documents prove_webhooks in the provider schema.
var proveWebhooksDescription = "Before the apply writes a webhook that is new, or changed in what decides whether the API server can call it " +
	"(`client_config`, its `ca_bundle`, `rule`, `failure_policy`, `timeout_seconds`, `admission_review_versions`), have the API server " +
	"call the webhook's backend, through a temporary webhook configuration that matches only a dry-run request of the provider's own, " +
	"and write only once the backend answers (within the resource's `create` or `update` timeout). A fail-closed webhook that the API " +
	"server cannot call fails the apply, with the API server's reason, and nothing is written; for a fail-open one it is a warning. " +
	"`false` turns the proof off: a webhook whose certificate, address or backend is wrong is then enforced as written, and a fail-closed " +
	"one rejects every request it matches until fixed. The proof needs `create` and `delete` on `mutatingwebhookconfigurations` and " +
	"`create` (dry run) on the resource it probes (the webhook's first rule's, or `configmaps` in namespace `default`); without them it " +
	"warns that it could not prove, and the write goes on. Environment: `" + proveWebhooksEnv + "`. Default: `true`."

// proveWebhooks reads prove_webhooks: the configuration's value, else the environment's,
// else true.
func proveWebhooks(setting types.Bool, diags *diag.Diagnostics) bool {
	if !setting.IsNull() && !setting.IsUnknown() {
		return setting.ValueBool()
	}
	env := os.Getenv(proveWebhooksEnv)
	if env == "" {
		return true
	}
	v, err := strconv.ParseBool(env)
	if err != nil {
		diags.AddAttributeError(path.Root("prove_webhooks"), "Invalid "+proveWebhooksEnv,
			proveWebhooksEnv+" must be true or false, not "+strconv.Quote(env)+".")
		return true
	}
	return v
}

// waitForEnforcementDescription documents wait_for_enforcement (internal/policy, enforce.go).
var waitForEnforcementDescription = "The apply of an admission policy or binding returns once the API server enforces what it wrote: " +
	"kube-apiserver loads its policies and bindings again about once a second after any of them changes, so a write returns before " +
	"it is in force. Where the plan found an existing object that the change must deny, warn on or no longer deny, the apply sends " +
	"that object's unchanged update as a server dry run until the server answers so (the proof); otherwise it waits the server's " +
	"reload period with a margin (3 s from the write). Within the resource's `create` or `update` timeout. `false` returns as soon " +
	"as the object is written. Default: `true`."
