package acctest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// ChangedKnown lists the attributes that a planned change sets to another
// known value, as dotted paths with list indexes (spec.0.validations.0.reason),
// sorted. Values known only after apply (a resource_version) are left out:
// the server chooses them. An attribute added or removed is listed, and so
// is a map that becomes empty or null.
func ChangedKnown(c *tfjson.Change) []string {
	var out []string
	var walk func(p string, before, after, unknown any)
	walk = func(p string, before, after, unknown any) {
		if u, ok := unknown.(bool); ok && u {
			return
		}
		join := func(k string) string {
			if p == "" {
				return k
			}
			return p + "." + k
		}
		switch a := after.(type) {
		case map[string]any:
			b, ok := before.(map[string]any)
			if !ok {
				out = append(out, p)
				return
			}
			u, _ := unknown.(map[string]any)
			keys := map[string]bool{}
			for k := range a {
				keys[k] = true
			}
			for k := range b {
				keys[k] = true
			}
			for k := range keys {
				walk(join(k), b[k], a[k], u[k])
			}
		case []any:
			b, ok := before.([]any)
			if !ok || len(b) != len(a) {
				out = append(out, p)
				return
			}
			u, _ := unknown.([]any)
			for i := range a {
				var ui any
				if i < len(u) {
					ui = u[i]
				}
				walk(join(strconv.Itoa(i)), b[i], a[i], ui)
			}
		default:
			if !reflect.DeepEqual(before, after) {
				out = append(out, p)
			}
		}
	}
	walk("", c.Before, c.After, c.AfterUnknown)
	slices.Sort(out)
	return out
}

// ExpectChangedOnly checks that the planned change of the resource at addr
// sets exactly the attributes paths (see ChangedKnown) to other known values.
func ExpectChangedOnly(addr string, paths ...string) plancheck.PlanCheck {
	return changedOnly{addr: addr, paths: slices.Sorted(slices.Values(paths))}
}

type changedOnly struct {
	addr  string
	paths []string
}

func (c changedOnly) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		if got := ChangedKnown(rc.Change); !slices.Equal(got, c.paths) {
			resp.Error = fmt.Errorf("%s: the plan changes %v, want %v", c.addr, got, c.paths)
		}
		return
	}
	resp.Error = fmt.Errorf("%s is not in the plan", c.addr)
}
