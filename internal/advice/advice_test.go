package advice

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

func testCertPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestWarningsCABundle(t *testing.T) {
	cert := testCertPEM(t)
	key := []byte("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n")
	const p = "webhooks[0].clientConfig.caBundle"
	cases := []struct {
		name   string
		bundle []byte
		want   string // "" means no warning; otherwise a part of the message
	}{
		{"absent", nil, ""},
		{"one certificate", cert, ""},
		{"two certificates with whitespace", append(append(append([]byte("\n"), cert...), cert...), "\n\n"...), ""},
		{"not PEM", []byte("hello"), "no PEM block found"},
		{"base64 DER, not PEM", []byte("MIIBszCCAVmgAwIBAgIBATAKBggqhkjOPQQDAjASMRAwDgYDVQQDEwd0ZXN0LWNh"), "no PEM block found"},
		{"a private key", key, `PEM block 1 is of type "PRIVATE KEY", not CERTIFICATE`},
		{"certificate then key", append(append([]byte{}, cert...), key...), `PEM block 2 is of type "PRIVATE KEY"`},
		{"garbage in a CERTIFICATE block", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("xx")}), "PEM block 1: x509:"},
		{"trailing junk", append(append([]byte{}, cert...), "junk"...), "unexpected data after PEM block 1"},
		{"base64 of PEM, as a YAML manifest has it", []byte(base64.StdEncoding.EncodeToString(cert) + "\n"), "give the PEM text (for example base64decode("},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := valid()
			hook0(o).FailurePolicy = ptr(admissionregistrationv1.Ignore)
			hook0(o).ClientConfig.CABundle = tc.bundle
			ws := Warnings(o)
			if tc.want == "" {
				if len(ws) != 0 {
					t.Fatalf("unexpected warnings %v", ws)
				}
				return
			}
			if len(ws) != 1 || ws[0].Path.String() != p || !strings.Contains(ws[0].Message, tc.want) {
				t.Fatalf("got %v, want one warning at %s containing %q", ws, p, tc.want)
			}
			if len(validation.Validate(o)) != 0 {
				t.Error("a caBundle warning must not be an error")
			}
		})
	}
}

func TestWarningsFailurePolicy(t *testing.T) {
	const fp = "webhooks[0].failurePolicy"
	notIn := func(ns ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
			Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: ns,
		}}}
	}
	cases := []struct {
		name   string
		mutate func(o *mwc)
		want   []string // substrings of the messages, in order
	}{
		{"empty selector catches both", func(o *mwc) {}, []string{`namespace "kube-system"`, `service's namespace "webhooks"`}},
		{"nil selector (not defaulted) catches both", func(o *mwc) { hook0(o).NamespaceSelector = nil },
			[]string{`"kube-system"`, `"webhooks"`}},
		{"Ignore", func(o *mwc) { hook0(o).FailurePolicy = ptr(admissionregistrationv1.Ignore) }, nil},
		{"both excluded", func(o *mwc) { hook0(o).NamespaceSelector = notIn("kube-system", "webhooks") }, nil},
		{"kube-system excluded only", func(o *mwc) { hook0(o).NamespaceSelector = notIn("kube-system") }, []string{`"webhooks"`}},
		{"own namespace excluded only", func(o *mwc) { hook0(o).NamespaceSelector = notIn("webhooks") }, []string{`"kube-system"`}},
		{"selector on another label", func(o *mwc) {
			hook0(o).NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"webhooks": "enabled"}}
		}, nil},
		{"selector with DoesNotExist on another label", func(o *mwc) {
			hook0(o).NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "control-plane", Operator: metav1.LabelSelectorOpDoesNotExist,
			}}}
		}, []string{`"kube-system"`, `"webhooks"`}},
		{"url webhook: kube-system only", func(o *mwc) {
			u := "https://h"
			hook0(o).ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &u}
		}, []string{`"kube-system"`}},
		{"service in kube-system: one warning", func(o *mwc) { hook0(o).ClientConfig.Service.Namespace = "kube-system" },
			[]string{`"kube-system"`}},
		{"cluster-scoped rules only", func(o *mwc) { rule0(o).Scope = ptr(admissionregistrationv1.ClusterScope) }, nil},
		{"cluster-scoped resources only", func(o *mwc) { rule0(o).Resources = []string{"nodes", "namespaces/status"} }, nil},
		{"wildcard resources: services too", func(o *mwc) { rule0(o).Resources = []string{"*"} },
			[]string{`"kube-system"`, `"webhooks"`}},
		{"custom resource: not a request that keeps the cluster alive", func(o *mwc) {
			rule0(o).APIGroups, rule0(o).Resources = []string{"example.com"}, []string{"widgets"}
		}, nil},
		{"no rules", func(o *mwc) { hook0(o).Rules = nil }, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := valid()
			tc.mutate(o)
			ws := Warnings(o)
			if len(ws) != len(tc.want) {
				t.Fatalf("got %d warnings %v, want %d", len(ws), ws, len(tc.want))
			}
			for i, w := range tc.want {
				if ws[i].Path.String() != fp || !strings.Contains(ws[i].Message, w) {
					t.Errorf("warning %d: got %s, want at %s containing %s", i, ws[i], fp, w)
				}
			}
		})
	}
}

func TestWarningsReinvocation(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"x": "y"}} // no failurePolicy warning
	for _, tc := range []struct {
		policy admissionregistrationv1.ReinvocationPolicyType
		side   *admissionregistrationv1.SideEffectClass
		warn   bool
	}{
		{admissionregistrationv1.IfNeededReinvocationPolicy, ptr(admissionregistrationv1.SideEffectClassNone), false},
		{admissionregistrationv1.IfNeededReinvocationPolicy, ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun), true},
		{admissionregistrationv1.IfNeededReinvocationPolicy, ptr(admissionregistrationv1.SideEffectClassSome), true},
		{admissionregistrationv1.IfNeededReinvocationPolicy, nil, false}, // an error already
		{admissionregistrationv1.NeverReinvocationPolicy, ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun), false},
	} {
		o := valid()
		h := hook0(o)
		h.NamespaceSelector = sel
		h.ReinvocationPolicy = &tc.policy
		h.SideEffects = tc.side
		ws := Warnings(o)
		if got := len(ws) == 1 && ws[0].Path.String() == "webhooks[0].reinvocationPolicy"; got != tc.warn || len(ws) > 1 {
			t.Errorf("%s/%v: got %v", tc.policy, tc.side, ws)
		}
	}
}

// WarningsForMutatingWebhookRules: the server's own warning text, for rules naming a virtual resource.
func TestWarningsVirtualResources(t *testing.T) {
	cases := []struct {
		name      string
		groups    []string
		resources []string
		want      []string
	}{
		{"tokenreviews", []string{"authentication.k8s.io"}, []string{"tokenreviews"},
			[]string{"webhooks[0].rules[0]: tokenreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect"}},
		{"each pair once, in rule order", []string{"authorization.k8s.io", "authentication.k8s.io", "authorization.k8s.io"},
			[]string{"subjectaccessreviews", "selfsubjectreviews", "subjectaccessreviews", "pods"},
			[]string{
				"webhooks[0].rules[0]: subjectaccessreviews.authorization.k8s.io is excluded from admission webhooks; this rule will have no effect",
				"webhooks[0].rules[0]: selfsubjectreviews.authentication.k8s.io is excluded from admission webhooks; this rule will have no effect",
			}},
		{"wildcard group", []string{"*"}, []string{"tokenreviews"}, nil},
		{"wildcard resource", []string{"authentication.k8s.io"}, []string{"tokenreviews", "*"}, nil},
		{"wrong group", []string{"example.com"}, []string{"tokenreviews"}, nil},
		{"subresource is not the resource", []string{"authentication.k8s.io"}, []string{"tokenreviews/status"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := valid()
			hook0(o).FailurePolicy = ptr(admissionregistrationv1.Ignore)
			rule0(o).APIGroups, rule0(o).Resources = tc.groups, tc.resources
			var got []string
			for _, w := range Warnings(o) {
				got = append(got, w.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestWarningsNil(t *testing.T) {
	if Warnings(nil) != nil || (warning.Warning{Message: "m"}).String() != "m" {
		t.Error("nil handling")
	}
}

// Each kind of warning has its own summary, so that Terraform folds only
// warnings of one kind together.
func TestWarningSummaries(t *testing.T) {
	cert := testCertPEM(t)
	o := valid()
	h := hook0(o)
	h.FailurePolicy = ptr(admissionregistrationv1.Fail)
	h.ClientConfig.CABundle = []byte("hello")
	h.ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy)
	h.SideEffects = ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun)
	h.Rules[0].APIGroups = []string{"authentication.k8s.io"}
	h.Rules[0].Resources = []string{"tokenreviews", "pods"}
	h.Rules = append(h.Rules, admissionregistrationv1.RuleWithOperations{Operations: ops("CREATE"),
		Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}})
	h.NamespaceSelector = nil
	second := *h.DeepCopy()
	second.Name = "second.example.com"
	second.ClientConfig.CABundle = []byte(base64.StdEncoding.EncodeToString(cert))
	o.Webhooks = append(o.Webhooks, second)
	summaries := map[string]bool{}
	for _, w := range Warnings(validation.Default(o)) {
		if w.Summary == "" {
			t.Errorf("warning without a summary: %s", w)
		}
		summaries[w.Summary] = true
	}
	for _, want := range []string{SummaryCABundleNotPEM, SummaryCABundleBase64, SummaryFailClosedSystem, SummaryFailClosedOwn,
		SummaryReinvokedSideEffects, validation.SummaryExcludedResource} {
		if !summaries[want] {
			t.Errorf("no warning summarised %q among %v", want, summaries)
		}
	}
}

// Each warning says its kind: the lockout and timeout warnings are Lockout and Timeout, the
// hints Hint, the server's own Server.
func TestWarningKinds(t *testing.T) {
	o := valid()
	h := hook0(o)
	h.ClientConfig.CABundle = []byte("hello")
	h.ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy)
	h.SideEffects = ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun)
	h.Rules = append(h.Rules, admissionregistrationv1.RuleWithOperations{Operations: ops("CREATE"),
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"authentication.k8s.io"}, APIVersions: []string{"v1"}, Resources: []string{"tokenreviews"}}})
	second := *h.DeepCopy()
	second.Name = "second.example.com"
	second.TimeoutSeconds = ptr(int32(25))
	o.Webhooks = append(o.Webhooks, second)
	want := map[string]warning.Kind{
		SummaryFailClosedSystem: warning.Lockout, SummaryFailClosedOwn: warning.Lockout, SummaryFailClosedTimeouts: warning.Timeout,
		SummaryCABundleNotPEM: warning.Hint, SummaryReinvokedSideEffects: warning.Hint, validation.SummaryExcludedResource: warning.Server,
	}
	seen := map[string]bool{}
	for _, w := range Warnings(validation.Default(o)) {
		k, ok := want[w.Summary]
		if !ok {
			t.Errorf("unexpected warning %q", w.Summary)
			continue
		}
		if w.Kind != k {
			t.Errorf("%q is of kind %s, want %s", w.Summary, w.Kind, k)
		}
		if w.Kind.Intercepts() != (k == warning.Lockout || k == warning.Timeout) {
			t.Errorf("%q: Intercepts is %v", w.Summary, w.Kind.Intercepts())
		}
		seen[w.Summary] = true
	}
	for s := range want {
		if !seen[s] {
			t.Errorf("no warning %q", s)
		}
	}
}

// Advice gives none of the server's own warnings (validation.ServerWarnings gives those).
func TestAdviceGivesNoServerWarning(t *testing.T) {
	o := valid()
	rule0(o).APIGroups, rule0(o).Resources = []string{"authentication.k8s.io"}, []string{"tokenreviews"}
	for _, w := range Advice(o, nil, true) {
		if w.Summary == validation.SummaryExcludedResource || w.Kind == warning.Server {
			t.Errorf("Advice gives a server's warning: %s", w)
		}
	}
}

// Advice must not change its argument.
func TestAdviceDoesNotMutate(t *testing.T) {
	o := valid()
	hook0(o).NamespaceSelector = nil
	hook0(o).MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: "request.namespace != 'x'"}}
	before := o.DeepCopy()
	Advice(o, nil, true)
	if !reflect.DeepEqual(before, o) {
		t.Error("Advice changed its argument")
	}
}

// FuzzAdvice feeds decoded configurations (the real ones of testdata/real to start with) to
// Advice, defaulted and not: it may not panic, and gives the same warnings twice.
func FuzzAdvice(f *testing.F) {
	files, _ := filepath.Glob("testdata/real/*.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(js)
	}
	f.Add([]byte(`{"webhooks":[{},{"rules":[{}]},{"namespaceSelector":{"matchExpressions":[{"key":"","operator":"bad"}]},"matchConditions":[{"expression":"x["}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var in mwc
		if json.Unmarshal(data, &in) != nil {
			return
		}
		Advice(&in, nil, true)
		obj := validation.Default(&in)
		first := Advice(obj, nil, true)
		if again := Advice(obj, nil, true); !reflect.DeepEqual(first, again) {
			t.Errorf("Advice is not deterministic:\n%v\nthen\n%v", first, again)
		}
	})
}
