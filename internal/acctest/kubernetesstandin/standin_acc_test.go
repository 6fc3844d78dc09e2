package kubernetesstandin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }

// fixtureResource is one resource of state.json: what hashicorp/kubernetes
// wrote for a resource of main.tf.
type fixtureResource struct {
	Type      string `json:"type"`
	Name      string `json:"name"`
	Instances []struct {
		SchemaVersion uint64         `json:"schema_version"`
		Attributes    map[string]any `json:"attributes"`
	} `json:"instances"`
}

func (r fixtureResource) address() string { return r.Type + "." + r.Name }

func loadFixtureState(t *testing.T, name string) []fixtureResource {
	t.Helper()
	raw, err := os.ReadFile(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Resources []fixtureResource `json:"resources"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // as tfjson.State decodes numbers
	if err := dec.Decode(&state); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, r := range state.Resources {
		if len(r.Instances) != 1 {
			t.Fatalf("%s: %s has %d instances", name, r.address(), len(r.Instances))
		}
	}
	if len(state.Resources) != 3 {
		t.Fatalf("%s has %d resources, main.tf declares 3", name, len(state.Resources))
	}
	return state.Resources
}

// fixtureConfig is main.tf with its provider reaching the test cluster.
func fixtureConfig(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(fixture(t, "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	const home = `config_path = "~/.kube/config"`
	if strings.Count(string(raw), home) != 1 {
		t.Fatalf("main.tf: expected one %s", home)
	}
	return strings.Replace(string(raw), home, fmt.Sprintf("config_path = %q", acctest.Cluster(t).KubeconfigPath), 1)
}

// TestAccStateMatchesFixture applies the fixture's main.tf with the
// stand-in and compares the state with the one hashicorp/kubernetes wrote
// for it: same schema versions, same attributes at every level with values
// of the same kinds, and the same values but for those the server chooses
// (uid, resource_version). Applied again, which refreshes it, the state is
// the one hashicorp/kubernetes keeps after a refresh (state-refreshed.json:
// empty maps for the labels, annotations and match_labels the objects have
// not). It then imports two of the objects, which must read back to the same
// state, and changes one.
func TestAccStateMatchesFixture(t *testing.T) {
	config := fixtureConfig(t)
	want := loadFixtureState(t, "state.json")
	wantRefreshed := loadFixtureState(t, "state-refreshed.json")

	var checks, refreshedChecks, shapeChecks []statecheck.StateCheck
	for _, r := range want {
		checks = append(checks, sameAsFixture{want: r, values: true})
	}
	for _, r := range wantRefreshed {
		refreshedChecks = append(refreshedChecks, sameAsFixture{want: r, values: true})
		shapeChecks = append(shapeChecks, sameAsFixture{want: r})
	}
	checks = append(checks, resourceCount(len(want)))

	const updated = "kubernetes_mutating_webhook_configuration_v1.full"
	updateConfig := strings.Replace(config, `side_effects              = "NoneOnDryRun"`, `side_effects              = "None"`, 1)
	if updateConfig == config {
		t.Fatal("main.tf: no side_effects NoneOnDryRun to change")
	}

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: ProviderFactories(),
		CheckDestroy:             checkGone(t, want),
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: append(checks, matchesCluster{t: t}),
			},
			{
				// The refresh of this apply is what the state keeps.
				Config:            config,
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				ConfigStateChecks: append(refreshedChecks, matchesCluster{t: t}),
			},
			{
				Config:            config,
				ResourceName:      "kubernetes_mutating_webhook_configuration_v1.full",
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				Config:            config,
				ResourceName:      "kubernetes_validating_webhook_configuration_v1.full",
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				Config: updateConfig,
				ConfigStateChecks: append(shapeChecks,
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("webhook").AtSliceIndex(1).AtMapKey("side_effects"), knownvalue.StringExact("None")),
					statecheck.ExpectKnownValue(updated, tfjsonpath.New("metadata").AtSliceIndex(0).AtMapKey("generation"), knownvalue.Int64Exact(2)),
					matchesCluster{t: t},
				),
			},
		},
	})
}

// sameAsFixture compares a resource of the state with the same resource of
// state.json: schema version, attribute names at every level, kinds of
// values and lengths of lists; with values set, the values too, but for
// those the server chooses.
type sameAsFixture struct {
	want   fixtureResource
	values bool
}

// chosenByServer are the attributes whose values differ from one object to
// the next.
var chosenByServer = map[string]bool{
	"metadata.0.uid":              true,
	"metadata.0.resource_version": true,
	// kubernetes_validating_admission_policy_v1: a nested attribute.
	"metadata.uid":              true,
	"metadata.resource_version": true,
}

func (c sameAsFixture) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	got := findResource(req.State, c.want.address())
	if got == nil {
		resp.Error = fmt.Errorf("%s is not in the state", c.want.address())
		return
	}
	want := c.want.Instances[0]
	var diffs []string
	if got.SchemaVersion != want.SchemaVersion {
		diffs = append(diffs, fmt.Sprintf("schema version %d, want %d", got.SchemaVersion, want.SchemaVersion))
	}
	diffs = append(diffs, compareValues("", got.AttributeValues, want.Attributes, c.values)...)
	if len(diffs) > 0 {
		resp.Error = fmt.Errorf("%s differs from the state of hashicorp/kubernetes:\n  %s", c.want.address(), strings.Join(diffs, "\n  "))
	}
}

func findResource(state *tfjson.State, address string) *tfjson.StateResource {
	if state == nil || state.Values == nil || state.Values.RootModule == nil {
		return nil
	}
	for _, r := range state.Values.RootModule.Resources {
		if r.Address == address {
			return r
		}
	}
	return nil
}

func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "bool"
	case json.Number, float64:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// compareValues lists the differences between got and want at path p.
func compareValues(p string, got, want any, values bool) []string {
	at := p
	if at == "" {
		at = "(attributes)"
	}
	if kind(got) != kind(want) {
		return []string{fmt.Sprintf("%s: %s %s, want %s %s", at, kind(got), show(got), kind(want), show(want))}
	}
	join := func(k string) string {
		if p == "" {
			return k
		}
		return p + "." + k
	}
	var diffs []string
	switch want := want.(type) {
	case map[string]any:
		got, _ := got.(map[string]any) // of the same kind as want
		keys := map[string]bool{}
		for k := range got {
			keys[k] = true
		}
		for k := range want {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			g, inGot := got[k]
			w, inWant := want[k]
			switch {
			case !inGot:
				diffs = append(diffs, fmt.Sprintf("%s: missing", join(k)))
			case !inWant:
				diffs = append(diffs, fmt.Sprintf("%s: not in the fixture", join(k)))
			default:
				diffs = append(diffs, compareValues(join(k), g, w, values)...)
			}
		}
	case []any:
		got, _ := got.([]any) // of the same kind as want
		if len(got) != len(want) {
			return []string{fmt.Sprintf("%s: %d elements %s, want %d %s", at, len(got), show(got), len(want), show(want))}
		}
		for i := range want {
			diffs = append(diffs, compareValues(join(fmt.Sprint(i)), got[i], want[i], values)...)
		}
	default:
		if values && !chosenByServer[p] && fmt.Sprint(got) != fmt.Sprint(want) {
			diffs = append(diffs, fmt.Sprintf("%s: %s, want %s", at, show(got), show(want)))
		}
	}
	return diffs
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

type resourceCount int

func (n resourceCount) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	if req.State == nil || req.State.Values == nil || req.State.Values.RootModule == nil {
		resp.Error = fmt.Errorf("empty state")
		return
	}
	if got := len(req.State.Values.RootModule.Resources); got != int(n) {
		resp.Error = fmt.Errorf("%d resources in the state, want %d", got, n)
	}
}

// matchesCluster checks that each resource of the state is an object of the
// cluster: same uid, resource version and number of webhooks.
type matchesCluster struct{ t *testing.T }

func (c matchesCluster) CheckState(ctx context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	cs := acctest.Clientset(c.t)
	var diffs []string
	for _, r := range req.State.Values.RootModule.Resources {
		id, _ := r.AttributeValues["id"].(string)
		var meta metav1.ObjectMeta
		var webhooks int
		switch r.Type {
		case mutatingType:
			obj, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, id, metav1.GetOptions{})
			if err != nil {
				diffs = append(diffs, fmt.Sprintf("%s: %v", r.Address, err))
				continue
			}
			meta, webhooks = obj.ObjectMeta, len(obj.Webhooks)
		case validatingType:
			obj, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, id, metav1.GetOptions{})
			if err != nil {
				diffs = append(diffs, fmt.Sprintf("%s: %v", r.Address, err))
				continue
			}
			meta, webhooks = obj.ObjectMeta, len(obj.Webhooks)
		default:
			diffs = append(diffs, fmt.Sprintf("%s: unexpected type", r.Address))
			continue
		}
		md, _ := r.AttributeValues["metadata"].([]any)
		if len(md) != 1 {
			diffs = append(diffs, fmt.Sprintf("%s: metadata %s", r.Address, show(md)))
			continue
		}
		m, _ := md[0].(map[string]any)
		if m["uid"] != string(meta.UID) || m["resource_version"] != meta.ResourceVersion || m["name"] != meta.Name {
			diffs = append(diffs, fmt.Sprintf("%s: metadata %s, the server has name %q uid %q resource_version %q", r.Address, show(m), meta.Name, meta.UID, meta.ResourceVersion))
		}
		if hooks, _ := r.AttributeValues["webhook"].([]any); len(hooks) != webhooks {
			diffs = append(diffs, fmt.Sprintf("%s: %d webhooks, the server has %d", r.Address, len(hooks), webhooks))
		}
	}
	if len(diffs) > 0 {
		resp.Error = fmt.Errorf("state and cluster differ:\n  %s", strings.Join(diffs, "\n  "))
	}
}

// checkGone checks that the objects of the fixture are no longer in the
// cluster.
func checkGone(t *testing.T, resources []fixtureResource) resource.TestCheckFunc {
	return func(*terraform.State) error {
		api := acctest.Clientset(t).AdmissionregistrationV1()
		ctx := context.Background()
		for _, r := range resources {
			name, _ := r.Instances[0].Attributes["id"].(string)
			var err error
			switch r.Type {
			case mutatingType:
				_, err = api.MutatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
			case validatingType:
				_, err = api.ValidatingWebhookConfigurations().Get(ctx, name, metav1.GetOptions{})
			}
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s %q still exists after destroy (err=%v)", r.Type, name, err)
			}
		}
		return nil
	}
}

// TestAccPolicyStateMatchesFixture applies the validating admission policy
// fixture (validating-admission-policy/main.tf) with the stand-in and
// compares the state with the one hashicorp/kubernetes wrote for it
// (validating-admission-policy/state.json), then plans again: nothing to do.
func TestAccPolicyStateMatchesFixture(t *testing.T) {
	raw, err := os.ReadFile(fixture(t, "validating-admission-policy/state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var state struct {
		Resources []fixtureResource `json:"resources"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&state); err != nil {
		t.Fatalf("state.json: %v", err)
	}
	if len(state.Resources) != 1 || len(state.Resources[0].Instances) != 1 {
		t.Fatalf("validating-admission-policy/state.json: want one resource with one instance")
	}
	want := state.Resources[0]

	cfg, err := os.ReadFile(fixture(t, "validating-admission-policy/main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	const home = `config_path = "~/.kube/config"`
	if strings.Count(string(cfg), home) != 1 {
		t.Fatalf("main.tf: expected one %s", home)
	}
	config := strings.Replace(string(cfg), home, fmt.Sprintf("config_path = %q", acctest.Cluster(t).KubeconfigPath), 1)
	name, _ := want.Instances[0].Attributes["id"].(string)

	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: ProviderFactories(),
		CheckDestroy: func(*terraform.State) error {
			_, err := acctest.Clientset(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(context.Background(), name, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("%s still exists after destroy (err=%v)", name, err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config:            config,
				ConfigStateChecks: []statecheck.StateCheck{sameAsFixture{want: want, values: true}, resourceCount(1)},
			},
			{Config: config, PlanOnly: true},
		},
	})
}
