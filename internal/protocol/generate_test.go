package protocol_test

import (
	"fmt"
	"maps"
	"math/big"
	"math/rand"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfschema"
)

// The configurations of the comparisons, generated from a resource's
// schema: each block absent (an empty list, as Terraform sends a block left
// out), empty (one block with nothing set) or full (every attribute set,
// one or more blocks), attributes null, unknown (known only after apply) or
// set to a value of the kind the API takes there (or not: a wrong value
// gets the provider's diagnostics, which both answers must have too), and
// whole lists of blocks unknown (a dynamic block over a value known only
// after apply).

type blockMode int

const (
	absent blockMode = iota
	empty
	full
	unknownBlocks
)

func (m blockMode) String() string {
	return [...]string{"absent", "empty", "full", "unknown"}[m]
}

type generator struct {
	rnd *rand.Rand
	// systematic, when not negative, sets every block's mode from its
	// place in the schema: the cases 0, 1 and 2 have each block absent,
	// empty and full once; otherwise modes are random.
	systematic int
	blocks     int
	// unknowns allows unknown values.
	unknowns bool
	// name is the object's name (metadata[0].name).
	name  string
	count int
}

func (g *generator) mode() blockMode {
	g.blocks++
	if g.systematic >= 0 {
		return blockMode((g.systematic + g.blocks) % 3)
	}
	switch r := g.rnd.Float64(); {
	case r < 0.15:
		return absent
	case r < 0.25:
		return empty
	case r < 0.28 && g.unknowns:
		return unknownBlocks
	}
	return full
}

// object is a configuration of the object of attrs and blocks (typ), in
// the block parent; none sets nothing in it (an empty block).
func (g *generator) object(parent string, attrs map[string]schema.Attribute, blocks map[string]schema.Block, typ tftypes.Object, none bool) tftypes.Value {
	vals := map[string]tftypes.Value{}
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a, t := attrs[name], typ.AttributeTypes[name]
		switch {
		case none, a.IsComputed() && !a.IsOptional() && !a.IsRequired():
			vals[name] = tftypes.NewValue(t, nil)
		case name == "wait_for_endpoints":
			// The wait reads a webhook's Service and EndpointSlices, which
			// the stand-in does not serve, until the create or update
			// timeout: left out here, it is tested against the local
			// kube-apiserver (internal/webhook TestAccWaitForEndpoints).
			vals[name] = tftypes.NewValue(t, nil)
		case g.unknowns && g.rnd.Float64() < 0.06:
			vals[name] = tftypes.NewValue(t, tftypes.UnknownValue)
		case a.IsOptional() && g.rnd.Float64() < 0.4 && g.systematic < 0:
			vals[name] = tftypes.NewValue(t, nil)
		default:
			vals[name] = g.value(parent, name, t)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(blocks)) {
		t := typ.AttributeTypes[name]
		m := g.mode()
		if none {
			m = absent
		}
		switch b := blocks[name].(type) {
		case schema.ListNestedBlock:
			lt, ok := t.(tftypes.List)
			et, isObject := lt.ElementType.(tftypes.Object)
			if !ok || !isObject {
				panic(fmt.Sprintf("block %s of type %s", name, t))
			}
			switch m {
			case absent:
				vals[name] = tftypes.NewValue(lt, []tftypes.Value{})
			case unknownBlocks:
				vals[name] = tftypes.NewValue(lt, tftypes.UnknownValue)
			case empty:
				vals[name] = tftypes.NewValue(lt, []tftypes.Value{g.object(name, b.NestedObject.Attributes, b.NestedObject.Blocks, et, true)})
			default:
				n := 1 + g.rnd.Intn(2)
				if _, most := tfschema.Counts(b.Validators); most > 0 {
					n = min(n, int(most)) // tfschema.MaxOne, ExactlyOne
				}
				var elems []tftypes.Value
				for range n {
					elems = append(elems, g.object(name, b.NestedObject.Attributes, b.NestedObject.Blocks, et, false))
				}
				vals[name] = tftypes.NewValue(lt, elems)
			}
		case schema.SingleNestedBlock:
			ot, ok := t.(tftypes.Object)
			if !ok {
				panic(fmt.Sprintf("block %s of type %s", name, t))
			}
			switch m {
			case absent, unknownBlocks:
				vals[name] = tftypes.NewValue(ot, nil)
			case empty:
				vals[name] = g.object(name, b.Attributes, b.Blocks, ot, true)
			default:
				vals[name] = g.object(name, b.Attributes, b.Blocks, ot, false)
			}
		default:
			panic(fmt.Sprintf("block %s of type %T not generated", name, b))
		}
	}
	return tftypes.NewValue(typ, vals)
}

// value is a value for the attribute name of the block parent: what the
// API takes there, mostly.
func (g *generator) value(parent, name string, t tftypes.Type) tftypes.Value {
	g.count++
	pick := func(vs ...string) string { return vs[g.rnd.Intn(len(vs))] }
	switch {
	case t.Is(tftypes.String):
		var s string
		switch name {
		case "name":
			switch parent {
			case "metadata":
				s = g.name
			case "webhook":
				s = fmt.Sprintf("hook-%d.example.com", g.count)
			case "service", "param_ref":
				s = "svc"
			default:
				s = fmt.Sprintf("n%d", g.count)
			}
		case "namespace":
			s = pick("default", "platform")
		case "url":
			s = "https://hooks.example.com/check"
		case "path":
			s = "/check"
		case "ca_bundle":
			s = pick("", "not a certificate")
		case "side_effects":
			s = pick("None", "NoneOnDryRun", "Some")
		case "failure_policy":
			s = pick("Fail", "Ignore")
		case "match_policy":
			s = pick("Equivalent", "Exact")
		case "reinvocation_policy":
			s = pick("Never", "IfNeeded")
		case "scope":
			s = pick("*", "Namespaced", "Cluster")
		case "key":
			s = pick("team", "kubernetes.io/metadata.name")
		case "operator":
			s = pick("In", "NotIn", "Exists")
		case "expression":
			switch parent {
			case "apply_configuration":
				s = "Object{metadata: Object.metadata{labels: {'team': 'a'}}}"
			case "json_patch":
				s = "[JSONPatch{op: 'add', path: '/metadata/labels/team', value: 'a'}]"
			case "variables":
				s = "1"
			default:
				s = pick("true", "object.metadata.name != ''", "request.operation == 'CREATE'", "true", "request.operation ==")
			}
		case "message", "value_expression", "message_expression":
			s = pick("'m'", "m")
		case "reason":
			s = pick("Invalid", "Forbidden")
		case "api_version":
			s = "v1"
		case "kind":
			s = "ConfigMap"
		case "uid":
			s = "8d7c5e0a-1b2c-4d5e-9f00-000000000000"
		case "policy_name":
			s = "policy.example.com"
		case "parameter_not_found_action":
			s = pick("Deny", "Allow")
		case "patch_type":
			s = pick("ApplyConfiguration", "JSONPatch")
		case "create", "read", "update", "delete":
			s = pick("5m", "30s")
		default:
			s = fmt.Sprintf("v%d", g.count)
		}
		return tftypes.NewValue(t, s)
	case t.Is(tftypes.Number):
		n := int64(1 + g.rnd.Intn(30))
		if name == "port" {
			n = 443
		}
		return tftypes.NewValue(t, new(big.Float).SetInt64(n))
	case t.Is(tftypes.Bool):
		return tftypes.NewValue(t, g.rnd.Intn(2) == 0)
	}
	switch t := t.(type) {
	case tftypes.List:
		var elems []string
		switch name {
		case "admission_review_versions", "api_versions":
			elems = []string{"v1"}
		case "operations":
			elems = []string{"CREATE", "UPDATE"}
		case "api_groups":
			elems = []string{[]string{"", "apps"}[g.rnd.Intn(2)]}
		case "resources":
			elems = []string{"pods"}
		case "validation_actions":
			elems = []string{"Deny"}
		case "finalizers":
			elems = []string{"example.com/keep"}
		default:
			elems = []string{"a", "b"}
		}
		vals := make([]tftypes.Value, len(elems))
		for i, e := range elems {
			vals[i] = tftypes.NewValue(t.ElementType, e)
			if g.unknowns && g.rnd.Float64() < 0.04 {
				vals[i] = tftypes.NewValue(t.ElementType, tftypes.UnknownValue)
			}
		}
		return tftypes.NewValue(t, vals)
	case tftypes.Set:
		return tftypes.NewValue(t, []tftypes.Value{tftypes.NewValue(t.ElementType, "a"), tftypes.NewValue(t.ElementType, "b")})
	case tftypes.Map:
		return tftypes.NewValue(t, map[string]tftypes.Value{"team": tftypes.NewValue(t.ElementType, "a")})
	}
	panic("no value generated for " + name + " of type " + t.String())
}

// proposed is the proposed new state Terraform sends with config over
// prior (objchange.ProposedNew, for the schemas here): the configuration,
// where it leaves a computed attribute out the prior value, and blocks
// matched by their index in the list.
func proposed(prior, config tftypes.Value, attrs map[string]schema.Attribute, blocks map[string]schema.Block) tftypes.Value {
	if config.IsNull() || !config.IsKnown() {
		return config
	}
	var cv, pv map[string]tftypes.Value
	if err := config.As(&cv); err != nil {
		panic(err)
	}
	if !prior.IsNull() && prior.IsKnown() {
		if err := prior.As(&pv); err != nil {
			panic(err)
		}
	}
	out := map[string]tftypes.Value{}
	for name, a := range attrs {
		out[name] = cv[name]
		if cv[name].IsNull() && a.IsComputed() && pv != nil {
			out[name] = pv[name]
		}
	}
	for name, b := range blocks {
		c := cv[name]
		var p tftypes.Value
		if pv != nil {
			p = pv[name]
		} else {
			p = tftypes.NewValue(c.Type(), nil)
		}
		switch b := b.(type) {
		case schema.ListNestedBlock:
			if c.IsNull() || !c.IsKnown() {
				out[name] = c
				continue
			}
			var ce, pe []tftypes.Value
			_ = c.As(&ce)
			if !p.IsNull() && p.IsKnown() {
				_ = p.As(&pe)
			}
			lt, ok := c.Type().(tftypes.List)
			if !ok {
				panic(fmt.Sprintf("block %s of type %s", name, c.Type()))
			}
			et := lt.ElementType
			elems := make([]tftypes.Value, len(ce))
			for i, e := range ce {
				pi := tftypes.NewValue(et, nil)
				if i < len(pe) {
					pi = pe[i]
				}
				elems[i] = proposed(pi, e, b.NestedObject.Attributes, b.NestedObject.Blocks)
			}
			out[name] = tftypes.NewValue(c.Type(), elems)
		case schema.SingleNestedBlock:
			out[name] = proposed(p, c, b.Attributes, b.Blocks)
		}
	}
	return tftypes.NewValue(config.Type(), out)
}

// applied is a planned state as the apply leaves it: every value known
// only after apply filled in, as the server does. (tftypes.Value.As hands
// out a value's own maps and lists: they are copied before a change.)
func applied(v tftypes.Value) tftypes.Value {
	if !v.IsKnown() {
		t := v.Type()
		switch {
		case t.Is(tftypes.String):
			return tftypes.NewValue(t, "set-by-the-server")
		case t.Is(tftypes.Number):
			return tftypes.NewValue(t, big.NewFloat(1))
		case t.Is(tftypes.Bool):
			return tftypes.NewValue(t, false)
		}
		return tftypes.NewValue(t, nil)
	}
	if v.IsNull() {
		return v
	}
	switch t := v.Type().(type) {
	case tftypes.Object, tftypes.Map:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := make(map[string]tftypes.Value, len(m))
		for k, e := range m {
			out[k] = applied(e)
		}
		return tftypes.NewValue(t, out)
	case tftypes.List, tftypes.Set:
		var l []tftypes.Value
		_ = v.As(&l)
		out := make([]tftypes.Value, len(l))
		for i, e := range l {
			out[i] = applied(e)
		}
		return tftypes.NewValue(t, out)
	}
	return v
}
