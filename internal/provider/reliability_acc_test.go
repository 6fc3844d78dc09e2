package provider_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	sdkacctest "github.com/hashicorp/terraform-plugin-testing/helper/acctest"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// Bad input, bad credentials, RBAC, secrets and TLS: each bad input fails
// with a message that names what to fix, and leaves state and cluster as
// they were.

const relAddr = "admission_mutating_webhook_configuration.test"

func relName() string { return sdkacctest.RandomWithPrefix("acc-rel") + ".example.com" }

// relResource is a minimal webhook configuration whose reads give up after
// five seconds.
func relResource(name string, timeoutSeconds int) string {
	return fmt.Sprintf(`
resource "admission_mutating_webhook_configuration" "test" {
  metadata {
    name = %q
  }
  webhook {
    name                      = "reliability.example.com"
    admission_review_versions = ["v1"]
    side_effects              = "None"
    timeout_seconds           = %d
    client_config {
      url = "https://webhook.example.com/mutate"
    }
  }
  timeouts {
    read   = "5s"
    create = "5s"
    update = "5s"
    delete = "5s"
  }
}
`, name, timeoutSeconds)
}

func kubeconfigProvider(t *testing.T, context string) string {
	return fmt.Sprintf("provider \"admission\" {\n  config_path    = %q\n  config_context = %q\n}\n", acctest.Cluster(t).KubeconfigPath, context)
}

func hostProvider(host string, settings ...string) string {
	return fmt.Sprintf("provider \"admission\" {\n  host = %q\n  %s\n}\n", host, strings.Join(settings, "\n  "))
}

func setting(name, value string) string { return fmt.Sprintf("%s = %q", name, value) }

// unchanged checks that the object is exactly as it was after the step
// that recorded *rv: nothing wrote it since, and the state agrees.
func unchanged(t *testing.T, name string, rv *string, timeoutSeconds int) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		obj, err := acctest.Clientset(t).AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if obj.ResourceVersion != *rv {
			return fmt.Errorf("resourceVersion %s, was %s: the object was written", obj.ResourceVersion, *rv)
		}
		if got := *obj.Webhooks[0].TimeoutSeconds; got != int32(timeoutSeconds) {
			return fmt.Errorf("server has timeoutSeconds %d, want %d", got, timeoutSeconds)
		}
		rs := s.RootModule().Resources[relAddr]
		if rs == nil || rs.Primary.Attributes["metadata.0.resource_version"] != *rv {
			return fmt.Errorf("the state does not hold resourceVersion %s: %v", *rv, rs)
		}
		return nil
	}
}

func recordVersion(t *testing.T, name string, rv *string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := acctest.Clientset(t).AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		*rv = obj.ResourceVersion
		return nil
	}
}

func deadAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "https://" + addr
}

// expiredServiceAccountToken signs a service account token that expired an
// hour ago with the control plane's own signing key, so the only thing
// wrong with it is its age.
func expiredServiceAccountToken(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(acctest.Cluster(t).Dir, "sa.key"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatal("sa.key of the control plane is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// The control plane (internal/acctest/controlplane) always makes an ECDSA
	// P-256 service account key, and the token below is signed with ES256: any
	// other key means the harness changed under this test, not a reason to skip.
	key, ok := k.(*ecdsa.PrivateKey)
	if !ok {
		t.Fatalf("service account key is %T, want *ecdsa.PrivateKey (P-256) to sign an ES256 token", k)
	}
	if key.Curve != elliptic.P256() {
		t.Fatalf("service account key is on curve %s, want P-256 to sign an ES256 token", key.Curve.Params().Name)
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	now := time.Now()
	issuer := "https://kubernetes.default.svc.cluster.local"
	signed := enc(map[string]string{"alg": "ES256", "typ": "JWT"}) + "." + enc(map[string]any{
		"iss": issuer, "aud": []string{issuer}, "sub": "system:serviceaccount:default:default",
		"iat": now.Add(-2 * time.Hour).Unix(), "nbf": now.Add(-2 * time.Hour).Unix(), "exp": now.Add(-time.Hour).Unix(),
		"kubernetes.io": map[string]any{"namespace": "default", "serviceaccount": map[string]string{"name": "default", "uid": "00000000-0000-0000-0000-000000000001"}},
	})
	digest := sha256.Sum256([]byte(signed))
	r, s, err := ecdsa.Sign(rand.Reader, key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signed + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// Every bad setting, one per step, against an object created before: each
// fails with a message that names the setting or the fix, and the last
// step finds state and object untouched.
func TestAccReliabilityBadSettingsLeaveStateUnchanged(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	name := relName()
	removeLeftovers(t, name)
	dir := t.TempDir()
	write := func(file, content string) string {
		p := filepath.Join(dir, file)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := write("garbage-kubeconfig", "apiVersion: v1\nclusters: [ {name: local, cluster: {server: \n  - ::: not yaml\n\t}")
	empty := write("empty-kubeconfig", "")
	otherCA := string(selfSignedPEM(t))
	good := kubeconfigProvider(t, "admin-cert")
	var rv string
	var started time.Time

	type bad struct {
		what, provider, expect string
	}
	bads := []bad{
		{"kubeconfig that is not YAML", fmt.Sprintf("provider \"admission\" {\n  config_path = %q\n}\n", garbage),
			`(?s)Invalid provider configuration: config_path.*` + regexp.QuoteMeta(garbage)},
		{"empty kubeconfig", fmt.Sprintf("provider \"admission\" {\n  config_path = %q\n}\n", empty),
			`(?s)Invalid provider configuration: config_path.*no current context or cluster.*config_context, or host`},
		{"unknown context", kubeconfigProvider(t, "no-such-context"),
			`(?s)Invalid provider configuration: config_context.*"no-such-context" is not in the kubeconfig`},
		{"CA that did not sign the server's certificate", hostProvider(cp.Host, setting("token", cp.AdminToken), setting("cluster_ca_certificate", otherCA)),
			`(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*x509.*set cluster_ca_certificate`},
		{"cluster_ca_certificate that is not PEM", hostProvider(cp.Host, setting("token", cp.AdminToken), setting("cluster_ca_certificate", "not a certificate")),
			`(?s)Invalid provider configuration: cluster_ca_certificate.*PEM`},
		{"wrong token (401)", hostProvider(cp.Host, setting("token", "not-a-valid-token"), setting("cluster_ca_certificate", string(cp.CAPEM))),
			`(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*Unauthorized.*check token`},
		{"expired service account token (401)", hostProvider(cp.Host, setting("token", expiredServiceAccountToken(t)), setting("cluster_ca_certificate", string(cp.CAPEM))),
			`(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*Unauthorized.*check token`},
		{"credential plugin that does not exist", hostProvider(cp.Host, setting("cluster_ca_certificate", string(cp.CAPEM)),
			"exec {\n    api_version = \"client.authentication.k8s.io/v1\"\n    command = \"/nonexistent/credential-plugin\"\n  }"),
			`(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*` + words("/nonexistent/credential-plugin: no such file") +
				`.*\bexec\b.*command`},
		{"host that does not answer", hostProvider(deadAddress(t), setting("token", cp.AdminToken), setting("cluster_ca_certificate", string(cp.CAPEM))),
			`(?s)Cannot read MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*gave up after \d+ attempts.*connection refused`},
	}

	steps := []resource.TestStep{{
		Config: good + relResource(name, 10),
		Check:  recordVersion(t, name, &rv),
	}}
	for i, b := range bads {
		steps = append(steps, resource.TestStep{
			PreConfig: func() {
				if i > 0 {
					t.Logf("figures: %-46s failed after %s", bads[i-1].what, time.Since(started).Round(10*time.Millisecond))
				}
				started = time.Now()
			},
			Config:      b.provider + relResource(name, 10),
			ExpectError: regexp.MustCompile(b.expect),
		})
	}
	steps = append(steps, resource.TestStep{
		PreConfig: func() {
			t.Logf("figures: %-46s failed after %s", bads[len(bads)-1].what, time.Since(started).Round(10*time.Millisecond))
		},
		Config: good + relResource(name, 10),
		ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectEmptyPlan(),
		}},
		Check: unchanged(t, name, &rv, 10),
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             relGone(t, name),
		Steps:                    steps,
	})
}

// A new object on a host that does not answer: the plan does not hang, and
// the apply fails after the create timeout.
func TestAccReliabilityUnreachableHostNewObject(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	name := relName()
	removeLeftovers(t, name)
	started := time.Now()
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			PreConfig:   func() { started = time.Now() },
			Config:      hostProvider(deadAddress(t), setting("token", cp.AdminToken), setting("cluster_ca_certificate", string(cp.CAPEM))) + relResource(name, 10),
			ExpectError: regexp.MustCompile(`(?s)Cannot (read|create) MutatingWebhookConfiguration "` + regexp.QuoteMeta(name) + `".*gave up after \d+ attempts.*connection refused`),
		}},
	})
	t.Logf("figures: %-46s failed after %s (plan and apply)", "new object, host that does not answer", time.Since(started).Round(10*time.Millisecond))
}

// words matches the text however Terraform wraps its lines.
func words(text string) string {
	return strings.Join(strings.Fields(regexp.QuoteMeta(text)), `\s+`)
}

// removeLeftovers deletes the objects when the test ends, if a failed step
// left them in the shared control plane.
func removeLeftovers(t *testing.T, names ...string) {
	t.Cleanup(func() {
		for _, name := range names {
			err := acctest.Clientset(t).AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{})
			if err == nil {
				t.Logf("deleted %s, left in the cluster by the test", name)
			}
		}
	})
}

func relGone(t *testing.T, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, name := range names {
			_, err := acctest.Clientset(t).AdmissionregistrationV1().MutatingWebhookConfigurations().Get(context.Background(), name, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s still exists (err=%v)", name, err)
			}
		}
		return nil
	}
}

func selfSignedPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// rbacFor gives a user of the control plane the verbs on
// mutatingwebhookconfigurations, and returns a function that changes them.
// The grant is removed when the test ends.
func rbacFor(t *testing.T, user string, verbs ...string) func(verbs ...string) {
	t.Helper()
	cs := acctest.Clientset(t)
	ctx := context.Background()
	roleName := "acc-reliability-" + user
	rules := func(verbs []string) []rbacv1.PolicyRule {
		return []rbacv1.PolicyRule{{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"mutatingwebhookconfigurations"}, Verbs: verbs}}
	}
	role, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: roleName}, Rules: rules(verbs)}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: roleName},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: roleName},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(ctx, roleName, metav1.DeleteOptions{})
		_ = cs.RbacV1().ClusterRoles().Delete(ctx, roleName, metav1.DeleteOptions{})
	})
	waitForVerbs(t, user, verbs)
	return func(verbs ...string) {
		role.Rules = rules(verbs)
		var err error
		if role, err = cs.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitForVerbs(t, user, verbs)
	}
}

// waitForVerbs waits until the authorizer allows the user exactly the verbs
// (of get, list, watch, patch, delete).
func waitForVerbs(t *testing.T, user string, verbs []string) {
	t.Helper()
	cs := acctest.Clientset(t)
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok := true
		for _, verb := range []string{"get", "list", "watch", "patch", "delete"} {
			want := false
			for _, v := range verbs {
				want = want || v == verb
			}
			review, err := cs.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{
				Spec: authorizationv1.SubjectAccessReviewSpec{User: user, ResourceAttributes: &authorizationv1.ResourceAttributes{
					Group: "admissionregistration.k8s.io", Resource: "mutatingwebhookconfigurations", Verb: verb,
				}},
			}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ok = ok && review.Status.Allowed == want
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("RBAC for %s did not settle on %v", user, verbs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// RBAC built in the local API server: 403 on get, create (patch), update
// (patch) and delete, each naming the user and the verb to grant; the
// state is unchanged after each; a user that may only read gets a working
// plan, although the dry run at plan is forbidden to it.
func TestAccReliabilityRBAC(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	name, other := relName(), relName()
	removeLeftovers(t, name, other)
	rbacFor(t, "reader", "get", "list", "watch")
	setWriter := rbacFor(t, "writer", "get", "list", "watch", "patch")
	admin := kubeconfigProvider(t, "admin-cert")
	var rv string
	forbidden := func(op, obj, user, verb string) *regexp.Regexp {
		return regexp.MustCompile(`(?s)Cannot ` + op + ` MutatingWebhookConfiguration "` + regexp.QuoteMeta(obj) + `".*` +
			words(`User "`+user+`" cannot `+verb+` resource "mutatingwebhookconfigurations"`) + `.*` + words("RBAC does not allow this"))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		CheckDestroy:             relGone(t, name, other),
		Steps: []resource.TestStep{
			{
				Config: admin + relResource(name, 10),
				Check:  recordVersion(t, name, &rv),
			},
			{
				// No grant at all: the refresh is forbidden.
				Config:      kubeconfigProvider(t, "nobody") + relResource(name, 10),
				ExpectError: forbidden("read", name, "nobody", "get"),
			},
			{
				// Read-only: refresh and plan work; the dry run is
				// forbidden and skipped.
				Config:   kubeconfigProvider(t, "reader") + relResource(name, 10),
				PlanOnly: true,
			},
			{
				Config:             kubeconfigProvider(t, "reader") + relResource(name, 20),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config:      kubeconfigProvider(t, "reader") + relResource(name, 20),
				ExpectError: forbidden("update", name, "reader", "patch"),
			},
			{
				Config:      kubeconfigProvider(t, "reader") + relResource(name, 10) + strings.Replace(relResource(other, 10), `"test"`, `"other"`, 1),
				ExpectError: forbidden("create", other, "reader", "patch"),
			},
			{
				// May patch, not delete.
				Config:      kubeconfigProvider(t, "writer") + `data "admission_mutating_webhook_configurations" "all" {}`,
				ExpectError: forbidden("delete", name, "writer", "delete"),
			},
			{
				// May delete, not patch.
				PreConfig:   func() { setWriter("get", "list", "watch", "delete") },
				Config:      kubeconfigProvider(t, "writer") + relResource(name, 20),
				ExpectError: forbidden("update", name, "writer", "patch"),
			},
			{
				Config: admin + relResource(name, 10),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectEmptyPlan(),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(unchanged(t, name, &rv, 10), relGone(t, other)),
			},
		},
	})
}

// A name the server would refuse fails the plan, offline, on the attribute.
func TestAccReliabilityNameTheServerRefuses(t *testing.T) {
	acctest.Cluster(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config:   kubeconfigProvider(t, "admin-cert") + relResource("Webhooks_For.Example.com", 10),
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Invalid MutatingWebhookConfiguration.*name = "Webhooks_For.Example.com".*` +
				words("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters") + `.*` + words("(API field metadata.name)")),
		}},
	})
}

// With TF_LOG=trace for Terraform and for the provider under test, and
// every kind of secret setting in use, no secret is written to the log or
// to the state.
//
// terraform-plugin-testing passes TF_ACC_LOG to the Terraform CLI as its
// TF_LOG, and TF_LOG_PATH_MASK (a file name with %s for the test name) as
// its TF_LOG_PATH; the provider under test runs in this process and logs
// through terraform-plugin-log's test sink, which reads TF_LOG for the level
// and TF_LOG_PATH_MASK for the file. So both logs end up in one file.
func TestAccReliabilitySecretsStayOutOfLogsAndState(t *testing.T) {
	cp := acctest.Cluster(t)
	logDir, workDir := t.TempDir(), t.TempDir()
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(logDir, "%s.log"))
	t.Setenv("TF_ACC_LOG_PATH", "")
	t.Setenv("TF_LOG_CORE", "")
	t.Setenv("TF_LOG_PROVIDER", "")

	random := func(prefix string) string {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		return prefix + hex.EncodeToString(b)
	}
	password := random("password-")
	execSecret := random("exec-env-")
	plugin := filepath.Join(t.TempDir(), "credential-plugin")
	script := `#!/bin/sh
test -n "$EXEC_SECRET" || exit 1
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$PLUGIN_TOKEN"
`
	if err := os.WriteFile(plugin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	secrets := map[string]string{"token": cp.AdminToken, "password": password, "exec env": execSecret, "client_key": string(cp.AdminKeyPEM)}
	// Each line of the key's base64 too, in case it is logged re-wrapped.
	for i, line := range strings.Split(string(cp.AdminKeyPEM), "\n") {
		if len(line) >= 16 && !strings.HasPrefix(line, "-----") {
			secrets[fmt.Sprintf("client_key line %d", i)] = line
		}
	}

	// The secrets come from sensitive variables set in the environment, as
	// a pipeline passes them. Written literally into the configuration they
	// would reach the log anyway: terraform-plugin-testing itself logs each
	// step's configuration (sdk.helper_resource, test_terraform_configuration).
	t.Setenv("TF_VAR_token", cp.AdminToken)
	t.Setenv("TF_VAR_client_key", string(cp.AdminKeyPEM))
	t.Setenv("TF_VAR_password", password)
	t.Setenv("TF_VAR_exec_secret", execSecret)
	name := relName()
	removeLeftovers(t, name)
	cfg := fmt.Sprintf(`
variable "token" {
  type      = string
  sensitive = true
}

variable "client_key" {
  type      = string
  sensitive = true
}

variable "password" {
  type      = string
  sensitive = true
}

variable "exec_secret" {
  type      = string
  sensitive = true
}

provider "admission" {
  host                   = %[1]q
  cluster_ca_certificate = %[2]q
  token                  = var.token
}

provider "admission" {
  alias                  = "cert"
  host                   = %[1]q
  cluster_ca_certificate = %[2]q
  client_certificate     = %[3]q
  client_key             = var.client_key
  username               = "someone"
  password               = var.password
}

provider "admission" {
  alias                  = "exec"
  host                   = %[1]q
  cluster_ca_certificate = %[2]q
  exec {
    api_version = "client.authentication.k8s.io/v1"
    command     = %[4]q
    env = {
      PLUGIN_TOKEN = var.token
      EXEC_SECRET  = var.exec_secret
    }
  }
}

data "admission_mutating_webhook_configurations" "cert" {
  provider = admission.cert
}

data "admission_mutating_webhook_configurations" "exec" {
  provider = admission.exec
}
`, cp.Host, cp.CAPEM, cp.AdminCertPEM, plugin) + relResource(name, 10)

	search := func(what string, data []byte) error {
		var found []string
		for label, secret := range secrets {
			for _, line := range strings.Split(string(data), "\n") {
				if strings.Contains(line, secret) {
					masked := strings.ReplaceAll(line, secret, "<"+label+">")
					if len(masked) > 400 {
						i := strings.Index(masked, "<"+label+">")
						masked = masked[max(0, i-300):min(len(masked), i+100)]
					}
					found = append(found, fmt.Sprintf("the %s value appears in %s: %s", label, what, masked))
				}
			}
		}
		if len(found) > 0 {
			return fmt.Errorf("%s", strings.Join(found, "\n"))
		}
		return nil
	}
	checkFiles := func(*terraform.State) error {
		logs, _ := filepath.Glob(filepath.Join(logDir, "*.log"))
		if len(logs) == 0 {
			return fmt.Errorf("no log file in %s", logDir)
		}
		var all []byte
		for _, l := range logs {
			data, err := os.ReadFile(l)
			if err != nil {
				return err
			}
			all = append(all, data...)
		}
		// Both Terraform's and the provider's trace logs are there.
		for _, want := range []string{"version: ", "tf_rpc=ConfigureProvider", "[TRACE] sdk.framework"} {
			if !strings.Contains(string(all), want) {
				return fmt.Errorf("the log (%d bytes) has no %q: the test does not see what it means to check", len(all), want)
			}
		}
		if err := search(fmt.Sprintf("the trace log (%d bytes)", len(all)), all); err != nil {
			return err
		}
		states, _ := filepath.Glob(filepath.Join(workDir, "*", "terraform.tfstate"))
		if len(states) == 0 {
			return fmt.Errorf("no state file under %s", workDir)
		}
		for _, s := range states {
			data, err := os.ReadFile(s)
			if err != nil {
				return err
			}
			if !strings.Contains(string(data), name) {
				return fmt.Errorf("%s does not hold the resource", s)
			}
			if err := search("the state file", data); err != nil {
				return err
			}
		}
		t.Logf("figures: searched %d bytes of trace log and %d state file(s) for %d secret strings: none found", len(all), len(states), len(secrets))
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		WorkingDir:               workDir,
		CheckDestroy:             relGone(t, name),
		Steps: []resource.TestStep{
			{Config: cfg, Check: checkFiles},
			{Config: strings.Replace(cfg, "timeout_seconds           = 10", "timeout_seconds           = 11", 1), Check: checkFiles},
		},
	})
}

// insecure = true connects without verifying the server's certificate, and
// the provider says it is unsafe.
func TestAccReliabilityInsecureWarns(t *testing.T) {
	t.Parallel() // its own objects; no environment variable
	cp := acctest.Cluster(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.ProviderFactories,
		Steps: []resource.TestStep{{
			Config: hostProvider(cp.Host, setting("token", cp.AdminToken), "insecure = true") + `
data "admission_mutating_webhook_configurations" "all" {}
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("data.admission_mutating_webhook_configurations.all", tfjsonpath.New("items"), knownvalue.NotNull()),
			},
		}},
	})

	// The warning, read from Configure itself: terraform-plugin-testing
	// does not expose warnings of a successful step.
	configure := func(settings map[string]tftypes.Value) (*kube.Client, fwprovider.ConfigureResponse) {
		ctx := context.Background()
		p := provider.New("test")()
		var sresp fwprovider.SchemaResponse
		p.Schema(ctx, fwprovider.SchemaRequest{}, &sresp)
		typ, ok := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
		if !ok {
			t.Fatal("the provider schema is not an object")
		}
		vals := map[string]tftypes.Value{}
		for n, at := range typ.AttributeTypes {
			vals[n] = tftypes.NewValue(at, nil)
		}
		for n, v := range settings {
			vals[n] = v
		}
		var resp fwprovider.ConfigureResponse
		p.Configure(ctx, fwprovider.ConfigureRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, vals)}}, &resp)
		c, _ := resp.ResourceData.(*kube.Client)
		return c, resp
	}
	c, resp := configure(map[string]tftypes.Value{
		"host":     tftypes.NewValue(tftypes.String, cp.Host),
		"token":    tftypes.NewValue(tftypes.String, cp.AdminToken),
		"insecure": tftypes.NewValue(tftypes.Bool, true),
	})
	if resp.Diagnostics.HasError() || c == nil {
		t.Fatalf("Configure: %v", resp.Diagnostics)
	}
	warnings := resp.Diagnostics.Warnings()
	if len(warnings) != 1 {
		t.Fatalf("want one warning, got %v", resp.Diagnostics)
	}
	w := warnings[0]
	t.Logf("warning: %s: %s", w.Summary(), w.Detail())
	if wp, ok := w.(interface{ Path() path.Path }); !ok || !wp.Path().Equal(path.Root("insecure")) {
		t.Errorf("the warning is not on the insecure attribute: %v", w)
	}
	if w.Summary() != "TLS verification is off" || !strings.Contains(w.Detail(), "cluster_ca_certificate") {
		t.Errorf("warning %q: %q does not say what to use instead", w.Summary(), w.Detail())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kube.For(c, kube.MutatingWebhookConfigurations).List(ctx, ""); err != nil {
		t.Fatalf("list with insecure = true: %v", err)
	}

	// Verification is on by default: the same without insecure fails on
	// the certificate, at once (not retried).
	c, resp = configure(map[string]tftypes.Value{
		"host":  tftypes.NewValue(tftypes.String, cp.Host),
		"token": tftypes.NewValue(tftypes.String, cp.AdminToken),
	})
	if resp.Diagnostics.HasError() || len(resp.Diagnostics.Warnings()) != 0 {
		t.Fatalf("Configure without insecure: %v", resp.Diagnostics)
	}
	start := time.Now()
	if _, err := kube.For(c, kube.MutatingWebhookConfigurations).List(ctx, ""); err == nil || !strings.Contains(err.Error(), "x509") {
		t.Fatalf("without insecure and without the CA: want an x509 error, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a certificate error took %s: it must not be retried", d)
	}
}
