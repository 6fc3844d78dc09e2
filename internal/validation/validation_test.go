package validation

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/celcompile/celtest"
)

type mwc = admissionregistrationv1.MutatingWebhookConfiguration

// cause is what a server error is compared by: type and path, plus, when set, the exact detail.
type cause struct {
	typ    field.ErrorType
	path   string
	detail string // "" means: not checked
}

func req(path string, detail ...string) cause {
	return cause{field.ErrorTypeRequired, path, one(detail)}
}
func inv(path string, detail ...string) cause {
	return cause{field.ErrorTypeInvalid, path, one(detail)}
}
func unsup(path string, detail ...string) cause {
	return cause{field.ErrorTypeNotSupported, path, one(detail)}
}
func dup(path string) cause { return cause{field.ErrorTypeDuplicate, path, ""} }
func forb(path string, detail ...string) cause {
	return cause{field.ErrorTypeForbidden, path, one(detail)}
}
func tooMany(path string, detail ...string) cause {
	return cause{field.ErrorTypeTooMany, path, one(detail)}
}
func tooLong(path string, detail ...string) cause {
	return cause{field.ErrorTypeTooLong, path, one(detail)}
}
func one(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// Messages as the server writes them.
const (
	subdomainMsg   = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	dns1035Msg     = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`
	multiSlashMsg  = `a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
	nameRegexMsg   = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	labelValueMsg  = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`
	urlForm        = "; desired format: https://host[/path]"
	sideEffectsReq = "must specify one of None, NoneOnDryRun"
	sideEffectsNS  = `supported values: "None", "NoneOnDryRun"`
)

// valid returns a defaulted configuration the server accepts.
func valid() *mwc {
	return Default(&mwc{
		ObjectMeta: metav1.ObjectMeta{Name: "example"},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{validHook("a.example.com")},
	})
}

func validHook(name string) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: name,
		ClientConfig: admissionregistrationv1.WebhookClientConfig{
			Service: &admissionregistrationv1.ServiceReference{Namespace: "webhooks", Name: "svc", Path: ptr("/mutate")},
		},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{
				APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"},
			},
		}},
		SideEffects:             ptr(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

func hook0(o *mwc) *admissionregistrationv1.MutatingWebhook    { return &o.Webhooks[0] }
func rule0(o *mwc) *admissionregistrationv1.RuleWithOperations { return &o.Webhooks[0].Rules[0] }

func ops(s ...string) []admissionregistrationv1.OperationType {
	out := make([]admissionregistrationv1.OperationType, len(s))
	for i, v := range s {
		out[i] = admissionregistrationv1.OperationType(v)
	}
	return out
}

func conditions(n int) []admissionregistrationv1.MatchCondition {
	out := make([]admissionregistrationv1.MatchCondition, n)
	for i := range out {
		out[i] = admissionregistrationv1.MatchCondition{Name: fmt.Sprintf("c%d", i), Expression: "true"}
	}
	return out
}

func checkCauses(t *testing.T, got field.ErrorList, want []cause) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), dump(got))
	}
	for i, w := range want {
		g := got[i]
		if g.Type != w.typ || g.Field != w.path {
			t.Errorf("error %d: got %s at %s, want %s at %s\n%s", i, g.Type, g.Field, w.typ, w.path, dump(got))
		}
		if w.detail != "" && g.Detail != w.detail {
			t.Errorf("error %d detail:\n got: %s\nwant: %s", i, g.Detail, w.detail)
		}
	}
}

func dump(errs field.ErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  %s\n", e.Error())
	}
	return b.String()
}

type validateCase struct {
	name   string
	mutate func(o *mwc)
	want   []cause
}

func runCases(t *testing.T, cases []validateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := valid()
			tc.mutate(o)
			checkCauses(t, Validate(o), tc.want)
		})
	}
}

func TestValidConfig(t *testing.T) {
	checkCauses(t, Validate(valid()), nil)
	checkCauses(t, Validate(&mwc{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}), nil) // zero webhooks: no count check on the server
	if Validate(nil) != nil {
		t.Error("nil object")
	}
}

// k8s.io/apimachinery pkg/api/validation ValidateObjectMetaAccessor
func TestMetadata(t *testing.T) {
	long := strings.Repeat("a", 254)
	runCases(t, []validateCase{
		{"name empty", func(o *mwc) { o.Name = "" }, []cause{req("metadata.name", "name or generateName is required")}},
		{"name not a subdomain", func(o *mwc) { o.Name = "Bad_Name" }, []cause{inv("metadata.name", subdomainMsg)}},
		{"name too long", func(o *mwc) { o.Name = long }, []cause{inv("metadata.name", "must be no more than 253 characters")}},
		{"name too long and bad", func(o *mwc) { o.Name = long + "_" }, []cause{inv("metadata.name"), inv("metadata.name")}},
		{"no 63 limit per label", func(o *mwc) { o.Name = strings.Repeat("a", 100) + ".b" }, nil},
		{"name trailing dot", func(o *mwc) { o.Name = "a." }, []cause{inv("metadata.name", subdomainMsg)}},
		{"generateName only", func(o *mwc) { o.Name, o.GenerateName = "", "hooks-" }, nil},
		{"generateName ab- checked as aa", func(o *mwc) { o.Name, o.GenerateName = "", "ab-" }, nil},
		{"generateName bad: prefix and generated name", func(o *mwc) { o.Name, o.GenerateName = "", "Bad-" },
			[]cause{inv("metadata.generateName", subdomainMsg), inv("metadata.name", subdomainMsg)}},
		{"generateName long: generated name is cut to 58", func(o *mwc) { o.Name, o.GenerateName = "", long },
			[]cause{inv("metadata.generateName", "must be no more than 253 characters")}},
		{"generateName with name: name wins", func(o *mwc) { o.GenerateName = "x-" }, nil},
		{"generateName bad with name", func(o *mwc) { o.GenerateName = "X" }, []cause{inv("metadata.generateName")}},
		{"namespace cleared by the server", func(o *mwc) { o.Namespace = "default" }, nil},
		{"generation overwritten by the server", func(o *mwc) { o.Generation = -1 }, nil},
		{"labels ok", func(o *mwc) { o.Labels = map[string]string{"example.com/a": "b", "c": ""} }, nil},
		{"label key with two slashes", func(o *mwc) { o.Labels = map[string]string{"a/b/c": "v"} },
			[]cause{inv("metadata.labels", multiSlashMsg)}},
		{"label key empty name part", func(o *mwc) { o.Labels = map[string]string{"example.com/": "v"} },
			[]cause{inv("metadata.labels", "name part must be non-empty"), inv("metadata.labels", nameRegexMsg)}},
		{"label key empty prefix", func(o *mwc) { o.Labels = map[string]string{"/a": "v"} },
			[]cause{inv("metadata.labels", "prefix part must be non-empty")}},
		{"label value bad", func(o *mwc) { o.Labels = map[string]string{"a": "-x"} },
			[]cause{inv("metadata.labels", labelValueMsg)}},
		{"label value too long", func(o *mwc) { o.Labels = map[string]string{"a": strings.Repeat("x", 64)} },
			[]cause{inv("metadata.labels", "must be no more than 63 bytes")}},
		{"labels in key order", func(o *mwc) { o.Labels = map[string]string{"b/c/d": "ok", "a": "-"} },
			[]cause{inv("metadata.labels", labelValueMsg), inv("metadata.labels", multiSlashMsg)}},
		{"annotation key lower-cased first", func(o *mwc) { o.Annotations = map[string]string{"Example.COM/Key": "any value at all"} }, nil},
		{"annotation key bad", func(o *mwc) { o.Annotations = map[string]string{"a b": ""} },
			[]cause{inv("metadata.annotations", nameRegexMsg)}},
		{"annotations too big", func(o *mwc) { o.Annotations = map[string]string{"a": strings.Repeat("x", 262144)} },
			[]cause{tooLong("metadata.annotations", "may not be more than 262144 bytes")}},
		{"annotations at the limit", func(o *mwc) { o.Annotations = map[string]string{"a": strings.Repeat("x", 262143)} }, nil},
		{"finalizer bad", func(o *mwc) { o.Finalizers = []string{"bad finalizer"} }, []cause{inv("metadata.finalizers")}},
		{"finalizers orphan and foregroundDeletion", func(o *mwc) { o.Finalizers = []string{"orphan", "foregroundDeletion"} },
			[]cause{inv("metadata.finalizers", "finalizer orphan and foregroundDeletion cannot be both set")}},
		{"ownerReference empty", func(o *mwc) { o.OwnerReferences = []metav1.OwnerReference{{}} },
			[]cause{
				req("metadata.ownerReferences[0].apiVersion", "must not be empty"), req("metadata.ownerReferences[0].kind"),
				req("metadata.ownerReferences[0].name"), req("metadata.ownerReferences[0].uid"),
			}},
		{"ownerReference bad apiVersion", func(o *mwc) {
			o.OwnerReferences = []metav1.OwnerReference{{APIVersion: "a/b/c", Kind: "K", Name: "n", UID: "u"}}
		}, []cause{inv("metadata.ownerReferences[0].apiVersion", "must be <group>/<version> or <version>")}},
		{"two controllers", func(o *mwc) {
			t := true
			o.OwnerReferences = []metav1.OwnerReference{
				{APIVersion: "v1", Kind: "ConfigMap", Name: "a", UID: "1", Controller: &t},
				{APIVersion: "apps/v1", Kind: "Deployment", Name: "b", UID: "2", Controller: &t},
			}
		}, []cause{inv("metadata.ownerReferences")}},
	})
}

// validateMutatingWebhook (name), validateMutatingWebhookConfiguration (uniqueness)
func TestWebhookName(t *testing.T) {
	long := strings.Repeat("a", 250) + ".b.C"
	runCases(t, []validateCase{
		{"empty", func(o *mwc) { hook0(o).Name = "" }, []cause{req("webhooks[0].name", "")}},
		{"two segments", func(o *mwc) { hook0(o).Name = "example.com" },
			[]cause{inv("webhooks[0].name", "should be a domain with at least three segments separated by dots")}},
		{"one segment", func(o *mwc) { hook0(o).Name = "hook" }, []cause{inv("webhooks[0].name")}},
		{"upper case", func(o *mwc) { hook0(o).Name = "A.example.com" }, []cause{inv("webhooks[0].name", subdomainMsg)}},
		{"trailing dot", func(o *mwc) { hook0(o).Name = "a.example.com." }, []cause{inv("webhooks[0].name", subdomainMsg)}},
		{"empty label", func(o *mwc) { hook0(o).Name = "a..com" }, []cause{inv("webhooks[0].name", subdomainMsg)}},
		{"messages joined with a comma", func(o *mwc) { hook0(o).Name = long },
			[]cause{inv("webhooks[0].name", "must be no more than 253 characters,"+subdomainMsg)}},
		{"duplicate", func(o *mwc) { o.Webhooks = append(o.Webhooks, o.Webhooks[0]) }, []cause{dup("webhooks[1].name")}},
		{"duplicate after the webhook's other errors", func(o *mwc) {
			h := o.Webhooks[0]
			h.AdmissionReviewVersions = nil
			h.SideEffects = nil
			o.Webhooks = append(o.Webhooks, h)
		}, []cause{
			req("webhooks[1].sideEffects"), req("webhooks[1].admissionReviewVersions"), dup("webhooks[1].name"),
		}},
		{"third duplicate", func(o *mwc) { o.Webhooks = append(o.Webhooks, o.Webhooks[0], o.Webhooks[0]) },
			[]cause{dup("webhooks[1].name"), dup("webhooks[2].name")}},
		{"case-sensitive uniqueness", func(o *mwc) {
			h := o.Webhooks[0]
			h.Name = "b.example.com"
			o.Webhooks = append(o.Webhooks, h)
		}, nil},
		{"empty names are not duplicates", func(o *mwc) {
			hook0(o).Name = ""
			o.Webhooks = append(o.Webhooks, o.Webhooks[0])
		}, []cause{req("webhooks[0].name"), req("webhooks[1].name")}},
	})
}

// validateRuleWithOperations, validateRule, validateResources
func TestRules(t *testing.T) {
	const opsNS = `supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`
	res := func(r ...string) func(o *mwc) { return func(o *mwc) { rule0(o).Resources = r } }
	runCases(t, []validateCase{
		{"no rules", func(o *mwc) { hook0(o).Rules = nil }, nil},
		{"empty rules", func(o *mwc) { hook0(o).Rules = []admissionregistrationv1.RuleWithOperations{} }, nil},
		{"operations empty", func(o *mwc) { rule0(o).Operations = nil }, []cause{req("webhooks[0].rules[0].operations", "")}},
		{"operations * with others", func(o *mwc) { rule0(o).Operations = ops("*", "CREATE") },
			[]cause{inv("webhooks[0].rules[0].operations", "if '*' is present, must not specify other operations")}},
		{"operations lower case", func(o *mwc) { rule0(o).Operations = ops("CREATE", "update") },
			[]cause{unsup("webhooks[0].rules[0].operations[1]", opsNS)}},
		{"operations * and bad", func(o *mwc) { rule0(o).Operations = ops("*", "PATCH") },
			[]cause{inv("webhooks[0].rules[0].operations"), unsup("webhooks[0].rules[0].operations[1]")}},
		{"operations duplicates allowed", func(o *mwc) { rule0(o).Operations = ops("CREATE", "CREATE", "CONNECT", "DELETE") }, nil},
		{"operations * alone", func(o *mwc) { rule0(o).Operations = ops("*") }, nil},
		{"apiGroups empty", func(o *mwc) { rule0(o).APIGroups = nil }, []cause{req("webhooks[0].rules[0].apiGroups", "")}},
		{"apiGroups * with others", func(o *mwc) { rule0(o).APIGroups = []string{"", "*"} },
			[]cause{inv("webhooks[0].rules[0].apiGroups", "if '*' is present, must not specify other API groups")}},
		{"apiGroups contents unchecked", func(o *mwc) { rule0(o).APIGroups = []string{"", "", "Not A Group!"} }, nil},
		{"apiVersions empty", func(o *mwc) { rule0(o).APIVersions = []string{} }, []cause{req("webhooks[0].rules[0].apiVersions", "")}},
		{"apiVersions * with others", func(o *mwc) { rule0(o).APIVersions = []string{"*", "v1"} },
			[]cause{inv("webhooks[0].rules[0].apiVersions", "if '*' is present, must not specify other API versions")}},
		{"apiVersions empty element", func(o *mwc) { rule0(o).APIVersions = []string{"v1", "", "V2beta?"} },
			[]cause{req("webhooks[0].rules[0].apiVersions[1]", "")}},
		{"resources empty", res(), []cause{req("webhooks[0].rules[0].resources", "")}},
		{"resources empty element skipped", res("", "pods", ""),
			[]cause{req("webhooks[0].rules[0].resources[0]"), req("webhooks[0].rules[0].resources[2]")}},
		{"pods/* then pods/log rejected", res("pods/*", "pods/log"),
			[]cause{inv("webhooks[0].rules[0].resources[1]", "if 'pods/*' is present, must not specify pods/log")}},
		{"pods/log then pods/* accepted", res("pods/log", "pods/*"), nil},
		{"*/log then pods/log rejected", res("*/log", "pods/log"),
			[]cause{inv("webhooks[0].rules[0].resources[1]", "if '*/log' is present, must not specify pods/log")}},
		{"pods/log then */log accepted", res("pods/log", "*/log"), nil},
		{"*/* then */scale", res("*/*", "*/scale"), []cause{
			inv("webhooks[0].rules[0].resources[1]", "if '*/*' is present, must not specify */scale"),
			inv("webhooks[0].rules[0].resources", "if '*/*' is present, must not specify other resources"),
		}},
		{"*/* then pods/*", res("*/*", "pods/*"), []cause{
			inv("webhooks[0].rules[0].resources[1]", "if '*/*' is present, must not specify pods/*"),
			inv("webhooks[0].rules[0].resources"),
		}},
		{"*/* then pods/log: list error only", res("*/*", "pods/log"), []cause{inv("webhooks[0].rules[0].resources")}},
		{"*/* with others, any order", res("pods", "*/*"),
			[]cause{inv("webhooks[0].rules[0].resources", "if '*/*' is present, must not specify other resources")}},
		{"*/* alone", res("*/*"), nil},
		{"* then pods rejected", res("*", "pods"),
			[]cause{inv("webhooks[0].rules[0].resources", "if '*' is present, must not specify other resources without subresources")}},
		{"pods then * accepted", res("pods", "*"), nil},
		{"* then pods then * accepted", res("*", "pods", "*"), nil},
		{"* with pods/status accepted", res("*", "pods/status"), nil},
		{"* twice accepted", res("*", "*"), nil},
		{"split at the first slash", res("pods/a/b", "Pods", "pods", "pods"), nil},
		{"pods/* then pods/a/b", res("pods/*", "pods/a/b"),
			[]cause{inv("webhooks[0].rules[0].resources[1]", "if 'pods/*' is present, must not specify pods/a/b")}},
		{"scope bad", func(o *mwc) { rule0(o).Scope = ptr(admissionregistrationv1.ScopeType("cluster")) },
			[]cause{unsup("webhooks[0].rules[0].scope", `supported values: "*", "Cluster", "Namespaced"`)}},
		{"scope Namespaced", func(o *mwc) { rule0(o).Scope = ptr(admissionregistrationv1.NamespacedScope) }, nil},
		{"second rule path", func(o *mwc) {
			r := o.Webhooks[0].Rules[0]
			r.APIGroups = nil
			hook0(o).Rules = append(hook0(o).Rules, r)
		}, []cause{req("webhooks[0].rules[1].apiGroups")}},
	})
}

// validateMutatingWebhook: failurePolicy, matchPolicy, sideEffects, timeoutSeconds, reinvocationPolicy
func TestEnums(t *testing.T) {
	runCases(t, []validateCase{
		{"failurePolicy lower case", func(o *mwc) { hook0(o).FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("fail")) },
			[]cause{unsup("webhooks[0].failurePolicy", `supported values: "Fail", "Ignore"`)}},
		{"failurePolicy empty string", func(o *mwc) { hook0(o).FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("")) },
			[]cause{unsup("webhooks[0].failurePolicy")}},
		{"failurePolicy Ignore", func(o *mwc) { hook0(o).FailurePolicy = ptr(admissionregistrationv1.Ignore) }, nil},
		{"matchPolicy bad", func(o *mwc) { hook0(o).MatchPolicy = ptr(admissionregistrationv1.MatchPolicyType("exact")) },
			[]cause{unsup("webhooks[0].matchPolicy", `supported values: "Equivalent", "Exact"`)}},
		{"reinvocationPolicy bad", func(o *mwc) {
			hook0(o).ReinvocationPolicy = ptr(admissionregistrationv1.ReinvocationPolicyType("Always"))
		}, []cause{unsup("webhooks[0].reinvocationPolicy", `supported values: "IfNeeded", "Never"`)}},
		{"reinvocationPolicy IfNeeded", func(o *mwc) { hook0(o).ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy) }, nil},
		{"sideEffects null", func(o *mwc) { hook0(o).SideEffects = nil }, []cause{req("webhooks[0].sideEffects", sideEffectsReq)}},
		{"sideEffects empty string", func(o *mwc) { hook0(o).SideEffects = ptr(admissionregistrationv1.SideEffectClass("")) },
			[]cause{unsup("webhooks[0].sideEffects", sideEffectsNS)}},
		{"sideEffects Some", func(o *mwc) { hook0(o).SideEffects = ptr(admissionregistrationv1.SideEffectClassSome) },
			[]cause{unsup("webhooks[0].sideEffects", sideEffectsNS)}},
		{"sideEffects Unknown", func(o *mwc) { hook0(o).SideEffects = ptr(admissionregistrationv1.SideEffectClassUnknown) },
			[]cause{unsup("webhooks[0].sideEffects", sideEffectsNS)}},
		{"sideEffects NoneOnDryRun", func(o *mwc) { hook0(o).SideEffects = ptr(admissionregistrationv1.SideEffectClassNoneOnDryRun) }, nil},
		{"timeout 0", func(o *mwc) { hook0(o).TimeoutSeconds = ptr(int32(0)) },
			[]cause{inv("webhooks[0].timeoutSeconds", "the timeout value must be between 1 and 30 seconds")}},
		{"timeout 31", func(o *mwc) { hook0(o).TimeoutSeconds = ptr(int32(31)) }, []cause{inv("webhooks[0].timeoutSeconds")}},
		{"timeout -1", func(o *mwc) { hook0(o).TimeoutSeconds = ptr(int32(-1)) }, []cause{inv("webhooks[0].timeoutSeconds")}},
		{"timeout 1", func(o *mwc) { hook0(o).TimeoutSeconds = ptr(int32(1)) }, nil},
		{"timeout 30", func(o *mwc) { hook0(o).TimeoutSeconds = ptr(int32(30)) }, nil},
		{"undefaulted nils are skipped", func(o *mwc) {
			h := hook0(o)
			h.FailurePolicy, h.MatchPolicy, h.ReinvocationPolicy, h.TimeoutSeconds = nil, nil, nil, nil
			h.NamespaceSelector, h.ObjectSelector, h.Rules[0].Scope = nil, nil, nil
		}, nil},
	})
}

// Printed values follow the server: int32 bare, typed strings and lists as JSON.
func TestErrorText(t *testing.T) {
	o := valid()
	h := hook0(o)
	h.TimeoutSeconds = ptr(int32(0))
	h.FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("fail"))
	h.Rules[0].Operations = ops("*", "CREATE")
	got := []string{}
	for _, e := range Validate(o) {
		got = append(got, e.Error())
	}
	want := []string{
		`webhooks[0].rules[0].operations: Invalid value: ["*","CREATE"]: if '*' is present, must not specify other operations`,
		`webhooks[0].failurePolicy: Unsupported value: "fail": supported values: "Fail", "Ignore"`,
		`webhooks[0].timeoutSeconds: Invalid value: 0: the timeout value must be between 1 and 30 seconds`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// validateAdmissionReviewVersions
func TestAdmissionReviewVersions(t *testing.T) {
	arv := func(v ...string) func(o *mwc) { return func(o *mwc) { hook0(o).AdmissionReviewVersions = v } }
	const p = "webhooks[0].admissionReviewVersions"
	runCases(t, []validateCase{
		{"absent", arv(), []cause{req(p, "must specify one of v1, v1beta1")}},
		{"empty", arv([]string{}...), []cause{req(p, "must specify one of v1, v1beta1")}},
		{"v1beta1", arv("v1beta1"), nil},
		{"v1 and v2", arv("v2", "v1"), nil},
		{"duplicate", arv("v1", "v1"), []cause{inv(p+"[1]", "duplicate version")}},
		{"v2 only", arv("v2"), []cause{inv(p, "must include at least one of v1, v1beta1")}},
		{"bad label", arv("v1", "V2"), []cause{inv(p+"[1]", dns1035Msg)}},
		{"bad label only", arv("1v"), []cause{inv(p+"[0]", dns1035Msg), inv(p)}},
		{"too long label", arv("v1", "a"+strings.Repeat("b", 63)), []cause{inv(p+"[1]", "must be no more than 63 characters")}},
		{"too long and bad", arv("v1", strings.Repeat("B", 64)), []cause{inv(p + "[1]"), inv(p + "[1]")}},
		{"bad duplicate: only duplicate error the second time", arv("V1", "V1"),
			[]cause{inv(p+"[0]", dns1035Msg), inv(p+"[1]", "duplicate version"), inv(p)}},
		{"empty string", arv("v1", ""), []cause{inv(p+"[1]", dns1035Msg)}},
	})
}

// validateMutatingWebhook's clientConfig switch; k8s.io/apiserver pkg/util/webhook ValidateWebhookURL,
// ValidateWebhookService
func TestClientConfig(t *testing.T) {
	url := func(u string) func(o *mwc) {
		return func(o *mwc) {
			hook0(o).ClientConfig = admissionregistrationv1.WebhookClientConfig{URL: &u}
		}
	}
	svcPath := func(p string) func(o *mwc) { return func(o *mwc) { hook0(o).ClientConfig.Service.Path = &p } }
	const u = "webhooks[0].clientConfig.url"
	const sp = "webhooks[0].clientConfig.service.path"
	runCases(t, []validateCase{
		{"neither", func(o *mwc) { hook0(o).ClientConfig = admissionregistrationv1.WebhookClientConfig{} },
			[]cause{req("webhooks[0].clientConfig", "exactly one of url or service is required")}},
		{"both", func(o *mwc) { s := "https://h"; hook0(o).ClientConfig.URL = &s },
			[]cause{req("webhooks[0].clientConfig", "exactly one of url or service is required")}},
		{"caBundle not checked", func(o *mwc) { hook0(o).ClientConfig.CABundle = []byte("not a certificate") }, nil},
		{"url ok", url("https://webhook.example.com:8443/mutate"), nil},
		{"url HTTPS upper case", url("HTTPS://h"), nil},
		{"url empty string is present", url(""), []cause{
			inv(u, "'https' is the only allowed URL scheme"+urlForm), inv(u, "host must be specified"+urlForm),
		}},
		{"url http", url("http://h/x"), []cause{inv(u, "'https' is the only allowed URL scheme"+urlForm)}},
		{"url no host", url("https:///p"), []cause{inv(u, "host must be specified"+urlForm)}},
		{"url opaque", url("https:h"), []cause{inv(u, "host must be specified"+urlForm)}},
		{"url schemeless: two errors", url("example.com/x"), []cause{inv(u), inv(u)}},
		{"url user info", url("https://user:pw@h/"), []cause{inv(u, "user information is not permitted in the URL")}},
		{"url bare #", url("https://h/#"), nil},
		{"url fragment", url("https://h/#frag"), []cause{inv(u, "fragments are not permitted in the URL")}},
		{"url bare ?", url("https://h/?"), nil},
		{"url query", url("https://h/?a=b"), []cause{inv(u, "query parameters are not permitted in the URL")}},
		{"url query and fragment", url("https://u@h/?a#b"), []cause{inv(u), inv(u), inv(u)}},
		{"url port not checked", url("https://h:99999"), nil},
		{"url empty host with port", url("https://:443"), nil},
		{"url host chars not checked", url("https://Under_Score:0/Path"), nil},
		{"url bad port: Required", url("https://h:abc"), []cause{req(u)}},
		{"url leading space: Required", url(" https://h"), []cause{req(u)}},
		{"url bad escape: Required", url("https://h/%zz"), []cause{req(u)}},
		{"service name empty: reported at namespace", func(o *mwc) { hook0(o).ClientConfig.Service.Name = "" },
			[]cause{req("webhooks[0].clientConfig.service.namespace", "")}},
		{"service namespace empty: reported at name", func(o *mwc) { hook0(o).ClientConfig.Service.Namespace = "" },
			[]cause{req("webhooks[0].clientConfig.service.name", "")}},
		{"service both empty", func(o *mwc) { hook0(o).ClientConfig.Service.Name, hook0(o).ClientConfig.Service.Namespace = "", "" },
			[]cause{req("webhooks[0].clientConfig.service.name"), req("webhooks[0].clientConfig.service.namespace")}},
		{"service name syntax not checked", func(o *mwc) { hook0(o).ClientConfig.Service.Name = "Not_A.Name!" }, nil},
		{"port 0", func(o *mwc) { hook0(o).ClientConfig.Service.Port = ptr(int32(0)) },
			[]cause{inv("webhooks[0].clientConfig.service.port", "port is not valid: must be between 1 and 65535, inclusive")}},
		{"port 65536", func(o *mwc) { hook0(o).ClientConfig.Service.Port = ptr(int32(65536)) },
			[]cause{inv("webhooks[0].clientConfig.service.port")}},
		{"port 65535", func(o *mwc) { hook0(o).ClientConfig.Service.Port = ptr(int32(65535)) }, nil},
		{"path nil", func(o *mwc) { hook0(o).ClientConfig.Service.Path = nil }, nil},
		{"path empty", svcPath(""), nil},
		{"path /", svcPath("/"), nil},
		{"path //", svcPath("//"), []cause{inv(sp, "segment[0] may not be empty")}},
		{"path ///", svcPath("///"), []cause{inv(sp, "segment[0] may not be empty"), inv(sp, "segment[1] may not be empty")}},
		{"path without leading slash", svcPath("mutate"), []cause{inv(sp, "must start with a '/'")}},
		{"path without leading slash: first character dropped", svcPath("xValidate"),
			[]cause{inv(sp, "must start with a '/'"), inv(sp, "segment[0]: "+subdomainMsg)}},
		{"path a: first character dropped", svcPath("a"), []cause{inv(sp, "must start with a '/'"), inv(sp, "segment[0] may not be empty")}},
		{"path /Validate", svcPath("/Validate"), []cause{inv(sp, "segment[0]: "+subdomainMsg)}},
		{"path /mutate_pods", svcPath("/mutate_pods"), []cause{inv(sp, "segment[0]: "+subdomainMsg)}},
		{"path /a//b", svcPath("/a//b"), []cause{inv(sp, "segment[1] may not be empty")}},
		{"path /a//", svcPath("/a//"), []cause{inv(sp, "segment[1] may not be empty")}},
		{"path /a/", svcPath("/a/"), nil},
		{"path /apis/foo.bar/v1", svcPath("/apis/foo.bar/v1"), nil},
	})
}

// k8s.io/apimachinery pkg/apis/meta/v1/validation ValidateLabelSelector
func TestSelectors(t *testing.T) {
	nsSel := func(s metav1.LabelSelector) func(o *mwc) { return func(o *mwc) { hook0(o).NamespaceSelector = &s } }
	objSel := func(s metav1.LabelSelector) func(o *mwc) { return func(o *mwc) { hook0(o).ObjectSelector = &s } }
	expr := func(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelector {
		return metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	const ns = "webhooks[0].namespaceSelector"
	const obj = "webhooks[0].objectSelector"
	runCases(t, []validateCase{
		{"empty selectors", nsSel(metav1.LabelSelector{}), nil},
		{"matchLabels ok", nsSel(metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "x"}}), nil},
		{"matchLabels bad key", nsSel(metav1.LabelSelector{MatchLabels: map[string]string{"a/b/c": "x"}}),
			[]cause{inv(ns+".matchLabels", multiSlashMsg)}},
		{"matchLabels bad value", objSel(metav1.LabelSelector{MatchLabels: map[string]string{"a": "x y"}}),
			[]cause{inv(obj+".matchLabels", labelValueMsg)}},
		{"In without values", nsSel(expr("a", metav1.LabelSelectorOpIn)),
			[]cause{req(ns+".matchExpressions[0].values", "must be specified when `operator` is 'In' or 'NotIn'")}},
		{"NotIn without values", objSel(expr("a", metav1.LabelSelectorOpNotIn)), []cause{req(obj + ".matchExpressions[0].values")}},
		{"Exists with values", nsSel(expr("a", metav1.LabelSelectorOpExists, "x")),
			[]cause{forb(ns+".matchExpressions[0].values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")}},
		{"DoesNotExist", nsSel(expr("a", metav1.LabelSelectorOpDoesNotExist)), nil},
		{"operator lower case", nsSel(expr("a", "in", "x")),
			[]cause{inv(ns+".matchExpressions[0].operator", "not a valid selector operator")}},
		{"operator empty", nsSel(expr("a", "", "x")), []cause{inv(ns + ".matchExpressions[0].operator")}},
		{"key bad", nsSel(expr("-a", metav1.LabelSelectorOpExists)), []cause{inv(ns+".matchExpressions[0].key", nameRegexMsg)}},
		{"key empty", nsSel(expr("", metav1.LabelSelectorOpExists)),
			[]cause{inv(ns+".matchExpressions[0].key", "name part must be non-empty"), inv(ns+".matchExpressions[0].key", nameRegexMsg)}},
		{"values bad", nsSel(expr("a", metav1.LabelSelectorOpIn, "ok", "not ok", "ok")),
			[]cause{inv(ns+".matchExpressions[0].values[1]", labelValueMsg)}},
		{"values checked whatever the operator", nsSel(expr("a", metav1.LabelSelectorOpExists, "-")),
			[]cause{forb(ns + ".matchExpressions[0].values"), inv(ns + ".matchExpressions[0].values[0]")}},
		{"values duplicates allowed", nsSel(expr("a", metav1.LabelSelectorOpNotIn, "x", "x")), nil},
		{"order: operator, key, values", nsSel(expr("a/b/c", "bad", "-")), []cause{
			inv(ns + ".matchExpressions[0].operator"), inv(ns + ".matchExpressions[0].key"), inv(ns + ".matchExpressions[0].values[0]"),
		}},
		{"namespaceSelector before objectSelector", func(o *mwc) {
			nsSel(expr("a", metav1.LabelSelectorOpIn))(o)
			objSel(expr("a", metav1.LabelSelectorOpIn))(o)
		}, []cause{req(ns + ".matchExpressions[0].values"), req(obj + ".matchExpressions[0].values")}},
	})
}

// validateMatchConditions, validateMatchCondition
func TestMatchConditions(t *testing.T) {
	mc := func(c ...admissionregistrationv1.MatchCondition) func(o *mwc) {
		return func(o *mwc) { hook0(o).MatchConditions = c }
	}
	cond := func(name, expr string) admissionregistrationv1.MatchCondition {
		return admissionregistrationv1.MatchCondition{Name: name, Expression: expr}
	}
	const p = "webhooks[0].matchConditions"
	runCases(t, []validateCase{
		{"64 conditions", func(o *mwc) { hook0(o).MatchConditions = conditions(64) }, nil},
		{"65 conditions", func(o *mwc) { hook0(o).MatchConditions = conditions(65) }, []cause{tooMany(p, "must have at most 64 items")}},
		{"65 conditions, each still validated", func(o *mwc) {
			c := conditions(65)
			c[64].Expression = "1"
			hook0(o).MatchConditions = c
		}, []cause{tooMany(p), inv(p+"[64].expression", "must evaluate to bool but got int")}},
		{"expression empty", mc(cond("a", "")), []cause{req(p+"[0].expression", "")}},
		{"expression blank", mc(cond("a", " \n\t ")), []cause{req(p + "[0].expression")}},
		{"name empty", mc(cond("", "true")), []cause{req(p+"[0].name", "")}},
		{"both empty", mc(cond("", "")), []cause{req(p + "[0].expression"), req(p + "[0].name")}},
		{"name bad", mc(cond("not ok", "true")), []cause{inv(p+"[0].name", nameRegexMsg)}},
		{"name with prefix", mc(cond("example.com/ok", "true")), nil},
		{"name with two slashes", mc(cond("a/b/c", "true")), []cause{inv(p+"[0].name", multiSlashMsg)}},
		{"name duplicate", mc(cond("a", "true"), cond("b", "true"), cond("a", "false")), []cause{dup(p + "[2].name")}},
		{"same names in two webhooks", func(o *mwc) {
			mc(cond("a", "true"))(o)
			h := o.Webhooks[0]
			h.Name = "b.example.com"
			o.Webhooks = append(o.Webhooks, h)
		}, nil},
		{"dyn result rejected", mc(cond("a", "object.spec.enabled")), []cause{inv(p+"[0].expression", "must evaluate to bool but got dyn")}},
		{"bool comparison accepted", mc(cond("a", "object.spec.enabled == true")), nil},
		{"string result", mc(cond("a", "request.name")), []cause{inv(p+"[0].expression", "must evaluate to bool but got string")}},
		{"null result", mc(cond("a", "null")), []cause{inv(p+"[0].expression", "must evaluate to bool but got null_type")}},
		{"optional result", mc(cond("a", "object.?spec")), []cause{inv(p+"[0].expression", "must evaluate to bool but got optional_type(dyn)")}},
		{"syntax error", mc(cond("a", "object.x[")), []cause{inv(p + "[0].expression")}},
		{"params undeclared", mc(cond("a", "params.x == 'y'")), []cause{inv(p + "[0].expression")}},
		{"variables undeclared", mc(cond("a", "variables.x == 'y'")), []cause{inv(p + "[0].expression")}},
		{"request.namespace unescaped", mc(cond("a", "request.namespace != 'kube-system'")), nil},
		{"request fields", mc(cond("a", "request.userInfo.username.startsWith('system:') && request.dryRun == false && request.resource.group == '' && 'g' in request.userInfo.groups")), nil},
		{"request.uid undefined", mc(cond("a", "request.uid == ''")), []cause{inv(p + "[0].expression")}},
		{"namespaceObject declared", mc(cond("a", "namespaceObject.metadata.name == 'x' && namespaceObject.metadata.UID != ''")), nil},
		{"authorizer", mc(cond("a", "authorizer.group('apps').resource('deployments').namespace('x').check('get').allowed()")), nil},
		{"authorizer.requestResource", mc(cond("a", "authorizer.requestResource.check('update').allowed()")), nil},
		{"k8s lists v1 includes rejected under 1.36", mc(cond("a", "[1, 2].includes(1)")), []cause{inv(p + "[0].expression")}},
		{"k8s lists v0 isSorted", mc(cond("a", "[1, 2].isSorted()")), nil},
		{"ext.Lists sort accepted", mc(cond("a", "[3, 1].sort() == [1, 3]")), nil},
		{"ext.Lists distinct accepted", mc(cond("a", "size([1, 1].distinct()) == 1")), nil},
		{"ext.Strings v2", mc(cond("a", "'A'.lowerAscii() == 'a' && 'a,b'.split(',').size() == 2")), nil},
		{"ext.Sets", mc(cond("a", "sets.contains([1, 2], [1])")), nil},
		{"two-variable comprehension", mc(cond("a", "{'a': 1}.all(k, v, v > 0)")), nil},
		{"semver", mc(cond("a", "semver('1.2.3').major() == 1")), nil},
		{"quantity", mc(cond("a", "quantity('1Gi').isGreaterThan(quantity('1Mi'))")), nil},
		{"ip and cidr", mc(cond("a", "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))")), nil},
		{"format library", mc(cond("a", "!format.dns1123Label().validate('ok').hasValue()")), nil},
		{"url library", mc(cond("a", "url('https://h/p').getHost() == 'h'")), nil},
		{"regex literal checked at compile time", mc(cond("a", "'x'.matches('[')")), []cause{inv(p + "[0].expression")}},
		{"duration literal checked at compile time", mc(cond("a", "duration('1x') > duration('1s')")), []cause{inv(p + "[0].expression")}},
		{"mixed list literal rejected", mc(cond("a", "[1, 'a'] == []")), []cause{inv(p + "[0].expression")}},
		{"trimmed before compile", mc(cond("a", "  \n true \t")), nil},
		{"errors per condition in order", mc(cond("", "1"), cond("b c", "")), []cause{
			inv(p + "[0].expression"), req(p + "[0].name"), req(p + "[1].expression"), inv(p + "[1].name"),
		}},
	})
}

// The Invalid value of a CEL error is the trimmed expression, and the detail is the compiler's.
func TestMatchConditionErrorDetail(t *testing.T) {
	o := valid()
	hook0(o).MatchConditions = []admissionregistrationv1.MatchCondition{
		{Name: "a", Expression: "  params.x == 1 "},
		{Name: "b", Expression: "object.spec.x["},
	}
	errs := Validate(o)
	if len(errs) != 2 {
		t.Fatalf("got %s", dump(errs))
	}
	if errs[0].BadValue != "params.x == 1" {
		t.Errorf("value %q, want the trimmed expression", errs[0].BadValue)
	}
	if !strings.HasPrefix(errs[0].Detail, "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'") {
		t.Errorf("detail %q", errs[0].Detail)
	}
	if !strings.HasPrefix(errs[1].Detail, "compilation failed: ERROR: <input>:1:15: Syntax error:") {
		t.Errorf("detail %q", errs[1].Detail)
	}
}

// ValidateStaticSuffix (k8s.io/kubernetes pkg/registry/admissionregistration/mutatingwebhookconfiguration
// strategy, Validate)
func TestStaticSuffix(t *testing.T) {
	runCases(t, []validateCase{
		{"reserved suffix", func(o *mwc) { o.Name = "x.static.k8s.io" }, []cause{inv("metadata.name",
			`names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API`)}},
		{"suffix alone is a name too", func(o *mwc) { o.Name = "static.k8s.io" }, nil},
		{"checked after everything else", func(o *mwc) {
			o.Name = "x.static.k8s.io"
			hook0(o).SideEffects = nil
		}, []cause{req("webhooks[0].sideEffects"), inv("metadata.name")}},
	})
}

// The server's order (validateMutatingWebhookConfiguration, validateMutatingWebhook) in one object.
func TestOrder(t *testing.T) {
	o := valid()
	o.Name = "Bad.static.k8s.io"
	o.Labels = map[string]string{"a": "-"}
	h := hook0(o)
	h.Name = "hook"
	h.Rules[0].Operations = nil
	h.Rules[0].Scope = ptr(admissionregistrationv1.ScopeType("x"))
	h.FailurePolicy = ptr(admissionregistrationv1.FailurePolicyType("x"))
	h.MatchPolicy = ptr(admissionregistrationv1.MatchPolicyType("x"))
	h.SideEffects = nil
	h.TimeoutSeconds = ptr(int32(99))
	h.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "-"}}
	h.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"a": "-"}}
	h.ReinvocationPolicy = ptr(admissionregistrationv1.ReinvocationPolicyType("x"))
	h.ClientConfig.Service.Port = ptr(int32(0))
	h.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "", Expression: "true"}}
	h.AdmissionReviewVersions = []string{"v2"}
	second := *h.DeepCopy()
	second.AdmissionReviewVersions = nil
	o.Webhooks = append(o.Webhooks, second)
	w := func(i int, rest string) string { return fmt.Sprintf("webhooks[%d].%s", i, rest) }
	var want []cause
	want = append(want, inv("metadata.name"), inv("metadata.labels"))
	for i := range 2 {
		want = append(want,
			inv(w(i, "name")),
			req(w(i, "rules[0].operations")),
			unsup(w(i, "rules[0].scope")),
			unsup(w(i, "failurePolicy")),
			unsup(w(i, "matchPolicy")),
			req(w(i, "sideEffects")),
			inv(w(i, "timeoutSeconds")),
			inv(w(i, "namespaceSelector.matchLabels")),
			inv(w(i, "objectSelector.matchLabels")),
			unsup(w(i, "reinvocationPolicy")),
			inv(w(i, "clientConfig.service.port")),
			req(w(i, "matchConditions[0].name")),
		)
		if i == 0 {
			want = append(want, inv(w(i, "admissionReviewVersions")))
		} else {
			want = append(want, req(w(i, "admissionReviewVersions")), dup(w(i, "name")))
		}
	}
	want = append(want, inv("metadata.name"))
	checkCauses(t, Validate(o), want)
}

// Validate must not change its argument.
func TestValidateDoesNotMutate(t *testing.T) {
	o := valid()
	o.Namespace = "x"
	o.Name = ""
	o.GenerateName = "gen-"
	before := o.DeepCopy()
	Validate(o)
	ServerWarnings(Assumed, o, false)
	if !reflect.DeepEqual(before, o) {
		t.Error("Validate changed its argument")
	}
}

// Every path Validate produces for a broken object maps to a Terraform attribute.
func TestErrorPathsMap(t *testing.T) {
	o := valid()
	o.Name = ""
	o.GenerateName = "X"
	o.OwnerReferences = []metav1.OwnerReference{{}}
	o.Finalizers = []string{"a b"}
	o.Annotations = map[string]string{"a b": ""}
	h := hook0(o)
	h.Rules[0].Resources = []string{"", "*", "pods", "pods/*", "pods/x"}
	h.Rules[0].APIVersions = []string{""}
	h.Rules[0].Operations = ops("X")
	h.NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "", Operator: "x", Values: []string{"-"}}}}
	h.ClientConfig.Service.Path = ptr("x//")
	h.AdmissionReviewVersions = []string{"x", "x"}
	h.MatchConditions = append(conditions(65), admissionregistrationv1.MatchCondition{Name: "c1", Expression: "1"})
	errs := Validate(o)
	if len(errs) < 15 {
		t.Fatalf("expected many errors, got %s", dump(errs))
	}
}

// Terraform validates resources in parallel; the shared compiler and cache must cope.
func TestConcurrentValidate(t *testing.T) {
	o := valid()
	hook0(o).MatchConditions = append(conditions(8), admissionregistrationv1.MatchCondition{Name: "bad", Expression: "1"})
	want := Validate(o)
	done := make(chan field.ErrorList)
	for range 8 {
		go func() { done <- Validate(o) }()
	}
	for range 8 {
		if got := <-done; !reflect.DeepEqual(got, want) {
			t.Errorf("got %s, want %s", dump(got), dump(want))
		}
	}
}

// The server drops an owner reference equal to an earlier one before it
// validates, so two identical controller references are accepted.
func TestDuplicateOwnerReferencesAreOne(t *testing.T) {
	o := valid()
	controller := true
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "owner", UID: "u1", Controller: &controller}
	o.OwnerReferences = []metav1.OwnerReference{ref, ref}
	checkCauses(t, Validate(Default(o)), nil)

	other := ref
	other.UID = "u2"
	o.OwnerReferences = []metav1.OwnerReference{ref, other}
	checkCauses(t, Validate(Default(o)), []cause{inv("metadata.ownerReferences")})
}

func TestCreateOnly(t *testing.T) {
	some := admissionregistrationv1.SideEffectClassSome
	cases := []struct {
		name string
		edit func(*mwc)
		want bool
	}{
		{"sideEffects Some", func(o *mwc) { hook0(o).SideEffects = &some }, true},
		{"sideEffects empty", func(o *mwc) { hook0(o).SideEffects = ptr(admissionregistrationv1.SideEffectClass("")) }, false},
		{"only unknown review versions", func(o *mwc) { hook0(o).AdmissionReviewVersions = []string{"v2"} }, true},
		{"duplicate review version", func(o *mwc) { hook0(o).AdmissionReviewVersions = []string{"v1", "v1"} }, false},
		{"selector value", func(o *mwc) {
			hook0(o).NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: "In", Values: []string{"-bad-"}}}}
		}, true},
		{"selector key", func(o *mwc) {
			hook0(o).NamespaceSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "-bad-", Operator: "Exists"}}}
		}, false},
		{"duplicate webhook name", func(o *mwc) { o.Webhooks = append(o.Webhooks, o.Webhooks[0]) }, true},
		{"timeout", func(o *mwc) { hook0(o).TimeoutSeconds = ptr(int32(31)) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := valid()
			c.edit(o)
			errs := Validate(Default(o))
			if len(errs) != 1 {
				t.Fatalf("want one error, got %s", dump(errs))
			}
			if got := CreateOnly(errs[0]); got != c.want {
				t.Errorf("CreateOnly(%v) = %v, want %v", errs[0], got, c.want)
			}
		})
	}
}

// An expression the CEL compiler panics on is one internal error at its path, as the API server
// rejects it (it resets the request), within Validate, where expressions are compiled on
// several goroutines (internal/celcompile tests the compile itself).
func TestCompilerPanicInValidate(t *testing.T) {
	celtest.ResetCache()
	o := configWith(1, true)
	o.Webhooks[0].MatchConditions[3].Expression = `{b'y': 1}.size() == 1`
	errs := Validate(o)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeInternal || errs[0].Field != "webhooks[0].matchConditions[3].expression" {
		t.Errorf("Validate:\n%s\nwant one internal error at webhooks[0].matchConditions[3].expression", dump(errs))
	}
}
