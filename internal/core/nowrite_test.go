package core

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A small schema of the shapes the walk meets: the metadata's maps, a block
// list of blocks with a selector block, a list attribute, a string, values
// known only after apply, and the timeouts block.
var (
	strList    = tftypes.List{ElementType: tftypes.String}
	strMap     = tftypes.Map{ElementType: tftypes.String}
	expression = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"key": tftypes.String, "operator": tftypes.String, "values": strList}}
	selector   = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"match_labels": strMap, "match_expressions": tftypes.List{ElementType: expression}}}
	clientCfg  = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"ca_bundle": tftypes.String}}
	hookType   = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"name":               tftypes.String,
		"timeout_seconds":    tftypes.Number,
		"namespace_selector": tftypes.List{ElementType: selector},
		"object_selector":    tftypes.List{ElementType: selector},
		"client_config":      tftypes.List{ElementType: clientCfg},
	}}
	metaType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"labels": strMap, "annotations": strMap, "resource_version": tftypes.String}}
	rootType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"id":       tftypes.String,
		"metadata": tftypes.List{ElementType: metaType},
		"webhook":  tftypes.List{ElementType: hookType},
		"timeouts": tftypes.Object{AttributeTypes: map[string]tftypes.Type{"update": tftypes.String}},
	}}
)

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func strs(ss ...string) tftypes.Value {
	vs := []tftypes.Value{}
	for _, s := range ss {
		vs = append(vs, str(s))
	}
	return tftypes.NewValue(strList, vs)
}

func labels(kv map[string]string) tftypes.Value {
	if kv == nil {
		return tftypes.NewValue(strMap, nil)
	}
	vs := map[string]tftypes.Value{}
	for k, v := range kv {
		vs[k] = str(v)
	}
	return tftypes.NewValue(strMap, vs)
}

func blockList(typ tftypes.Object, blocks ...map[string]tftypes.Value) tftypes.Value {
	vs := []tftypes.Value{}
	for _, b := range blocks {
		vs = append(vs, tftypes.NewValue(typ, b))
	}
	return tftypes.NewValue(tftypes.List{ElementType: typ}, vs)
}

func emptySelector() map[string]tftypes.Value {
	return map[string]tftypes.Value{"match_labels": labels(nil), "match_expressions": blockList(expression)}
}

// object is a root value: the metadata's labels and resource version, one
// webhook with its selectors, ca_bundle and timeout, and the timeouts block.
func object(lbls map[string]string, rv tftypes.Value, ns, obj, caBundle tftypes.Value, timeout int, update tftypes.Value) tftypes.Value {
	return tftypes.NewValue(rootType, map[string]tftypes.Value{
		"id": str("x"),
		"metadata": blockList(metaType, map[string]tftypes.Value{
			"labels": labels(lbls), "annotations": labels(nil), "resource_version": rv,
		}),
		"webhook": blockList(hookType, map[string]tftypes.Value{
			"name":               str("a.example.com"),
			"timeout_seconds":    tftypes.NewValue(tftypes.Number, timeout),
			"namespace_selector": ns,
			"object_selector":    obj,
			"client_config":      blockList(clientCfg, map[string]tftypes.Value{"ca_bundle": caBundle}),
		}),
		"timeouts": tftypes.NewValue(rootType.AttributeTypes["timeouts"], map[string]tftypes.Value{"update": update}),
	})
}

func doesNotExist(values tftypes.Value) tftypes.Value {
	return blockList(selector, map[string]tftypes.Value{
		"match_labels": labels(nil),
		"match_expressions": blockList(expression, map[string]tftypes.Value{
			"key": str("skip"), "operator": str("DoesNotExist"), "values": values,
		}),
	})
}

// The walk names each value of the plan that the state does not hold, at
// its attribute path, and leaves out what is known only after apply; the
// explanation says what the configuration spells and why the server has it.
func TestNoWriteCauses(t *testing.T) {
	nullStr := tftypes.NewValue(tftypes.String, nil)
	unknown := tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
	nullList := tftypes.NewValue(strList, nil)
	state := object(map[string]string{"app": "x"}, str("7"), blockList(selector), doesNotExist(nullList), nullStr, 10, nullStr)
	plan := object(map[string]string{"app": "x", "app.kubernetes.io/managed-by": "Helm", "team": "search"}, unknown,
		blockList(selector, emptySelector()), doesNotExist(strs()), str(""), 10, str("10m"))

	var diffs []valueDiff
	walkDiffs("", state, plan, &diffs)
	var paths []string
	for _, d := range diffs {
		paths = append(paths, d.path)
	}
	want := []string{
		`metadata[0].labels["app.kubernetes.io/managed-by"]`,
		`metadata[0].labels["team"]`,
		`timeouts.update`,
		`webhook[0].client_config[0].ca_bundle`,
		`webhook[0].namespace_selector`,
		`webhook[0].object_selector[0].match_expressions[0].values`,
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("paths %q, want %q", paths, want)
	}

	meta := metav1.ObjectMeta{Labels: map[string]string{"app": "x", "app.kubernetes.io/managed-by": "Helm", "team": "search"}}
	explained := map[string]string{}
	for _, d := range diffs {
		explained[d.path] = d.explain(meta)
	}
	for path, words := range map[string][]string{
		`metadata[0].labels["app.kubernetes.io/managed-by"]`:        {"`\"app.kubernetes.io/managed-by\" = \"Helm\"`", "Helm's bookkeeping", "already has"},
		`metadata[0].labels["team"]`:                                {"`\"team\" = \"search\"`", "already has"},
		`webhook[0].client_config[0].ca_bundle`:                     {"`ca_bundle = \"\"`", "stores it as none"},
		`webhook[0].namespace_selector`:                             {"`namespace_selector {}`", "an empty block", "select everything"},
		`webhook[0].object_selector[0].match_expressions[0].values`: {"`values = []`", "an empty list"},
	} {
		for _, w := range words {
			if !strings.Contains(explained[path], w) {
				t.Errorf("%s: %q does not say %q", path, explained[path], w)
			}
		}
	}
	if strings.Contains(explained[`metadata[0].labels["team"]`], "bookkeeping") {
		t.Errorf("a key of no tool called bookkeeping: %q", explained[`metadata[0].labels["team"]`])
	}

	// A value the configuration leaves out that the state holds (a moved
	// state's empty map), and a real value the state holds otherwise.
	moved := tftypes.NewValue(strMap, map[string]tftypes.Value{})
	d := valueDiff{path: "metadata[0].annotations", state: moved, plan: tftypes.NewValue(strMap, nil)}
	if got := d.explain(meta); !strings.Contains(got, "`annotations = {}`") || !strings.Contains(got, "stores both as none") {
		t.Errorf("annotations {} -> null: %q", got)
	}
	d = valueDiff{path: "webhook[0].timeout_seconds", state: tftypes.NewValue(tftypes.Number, 10), plan: tftypes.NewValue(tftypes.Number, 30)}
	if got := d.explain(meta); !strings.Contains(got, "`timeout_seconds = 30`, where the state holds 10") {
		t.Errorf("timeout_seconds: %q", got)
	}

	// Plans equal but for values known only after apply name nothing.
	diffs = nil
	walkDiffs("", state, object(map[string]string{"app": "x"}, unknown, blockList(selector), doesNotExist(nullList), unknown, 10, nullStr), &diffs)
	if len(diffs) != 0 {
		t.Errorf("unknown values named: %v", diffs)
	}
}

// The fingerprint of an object leaves out what a dry run of an apply that
// changes nothing answers differently (managed fields; resource version
// and generation, kept beside), and sees any other change.
func TestFingerprint(t *testing.T) {
	obj := &testPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "7", Generation: 2, Labels: map[string]string{"app": "x"}}}
	dry := obj.DeepCopy()
	dry.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "terraform-provider-admission", Operation: metav1.ManagedFieldsOperationApply}}
	if a, b := testKind.fingerprint(obj), testKind.fingerprint(dry); a != b || a.ResourceVersion != "7" || a.Digest == "" {
		t.Errorf("dry run of no change: %+v, want %+v", b, a)
	}
	if obj.ResourceVersion != "7" || obj.Generation != 2 {
		t.Errorf("fingerprint changed its object: %+v", obj.ObjectMeta)
	}
	changed := obj.DeepCopy()
	changed.Labels["team"] = "search"
	if testKind.fingerprint(changed) == testKind.fingerprint(obj) {
		t.Error("a label added leaves the fingerprint as it was")
	}
	later := obj.DeepCopy()
	later.ResourceVersion = "8"
	if testKind.fingerprint(later) == testKind.fingerprint(obj) {
		t.Error("another resource version leaves the fingerprint as it was")
	}
}

// What the private state keeps of the server's object is short (Terraform
// writes every resource's private state into the state file after each
// resource it applies), and one kept by an earlier version, in longer
// names, reads as no resource version: no unchanged object to skip the
// write of, never a wrong one.
func TestServerObjectIsShort(t *testing.T) {
	obj := &testPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "208", Labels: map[string]string{"app": "x"}}}
	data, err := json.Marshal(testKind.fingerprint(obj))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\{"rv":"208","d":"[A-Za-z0-9+/]{22}"\}$`).Match(data) {
		t.Errorf("server object kept as %s, want rv and a 128-bit digest in base64", data)
	}
	var old serverObject
	if err := json.Unmarshal([]byte(`{"resourceVersion":"208","digest":"80868c0803c36703f81afb0125d4af85fde0d89cd139e1f53f1f1d581f2e2230"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.ResourceVersion != "" || old == testKind.fingerprint(obj) {
		t.Errorf("an earlier version's server object reads as %+v", old)
	}
}
