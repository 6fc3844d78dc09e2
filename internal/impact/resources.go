package impact

import (
	"slices"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
)

// Served is what discovery says the cluster serves: per group, its preferred version and the
// resources of each version.
type Served struct {
	Groups []*metav1.APIGroup
	// Resources are the resource lists of every group version served.
	Resources []*metav1.APIResourceList
	// Failed names the group versions discovery could not read (an aggregated API that is
	// down): their objects are not examined.
	Failed []string
}

// matchedResources are the resources whose objects the rules may match on an UPDATE of the
// main resource: each group and resource once (its versions serve the same objects), in the
// version a rule names, the preferred one when the rule names it; those that cannot be listed
// and updated, and those the server never shows to admission policies, left out. The matcher
// decides for each object after; this only keeps from listing what no rule can match.
func (s *Served) matchedResources(rules ...[]admissionregistrationv1.NamedRuleWithOperations) []Resource {
	preferred := map[string]string{}
	for _, g := range s.Groups {
		preferred[g.Name] = g.PreferredVersion.Version
	}
	type key struct{ group, resource string }
	chosen := map[key]Resource{}
	for _, list := range s.Resources {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, ar := range list.APIResources {
			if strings.Contains(ar.Name, "/") || !slices.Contains(ar.Verbs, "list") || !slices.Contains(ar.Verbs, "update") {
				continue
			}
			gvr := gv.WithResource(ar.Name)
			if matching.ExcludedFromPolicies(gvr.GroupResource()) {
				continue
			}
			covered := true
			for _, rs := range rules {
				if rs != nil && !slices.ContainsFunc(rs, func(r admissionregistrationv1.NamedRuleWithOperations) bool {
					return covers(r.RuleWithOperations, gvr, ar.Namespaced)
				}) {
					covered = false
				}
			}
			if !covered {
				continue
			}
			k := key{gv.Group, ar.Name}
			if have, ok := chosen[k]; ok && have.GVR.Version == preferred[gv.Group] {
				continue
			}
			kind := gv.WithKind(ar.Kind)
			if ar.Group != "" || ar.Version != "" {
				kind = schema.GroupVersionKind{Group: ar.Group, Version: ar.Version, Kind: ar.Kind}
			}
			if _, ok := chosen[k]; !ok || gv.Version == preferred[gv.Group] {
				chosen[k] = Resource{GVR: gvr, Kind: kind, Namespaced: ar.Namespaced}
			}
		}
	}
	out := make([]Resource, 0, len(chosen))
	for _, r := range chosen {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// covers reports whether rule r can match an UPDATE of the main resource gvr, of the scope
// namespaced, as the server's rule matcher reads a rule (k8s.io/apiserver
// pkg/admission/plugin/webhook/predicates/rules Matcher: operation, group, version, resource
// with "*" and "*/*", scope).
func covers(r admissionregistrationv1.RuleWithOperations, gvr schema.GroupVersionResource, namespaced bool) bool {
	any := func(list []string, v string) bool { return slices.Contains(list, "*") || slices.Contains(list, v) }
	ops := make([]string, len(r.Operations))
	for i, o := range r.Operations {
		ops[i] = string(o)
	}
	if !any(ops, string(admissionregistrationv1.Update)) || !any(r.APIGroups, gvr.Group) || !any(r.APIVersions, gvr.Version) {
		return false
	}
	if !slices.Contains(r.Resources, "*") && !slices.Contains(r.Resources, "*/*") && !slices.Contains(r.Resources, gvr.Resource) {
		return false
	}
	if r.Scope != nil {
		switch *r.Scope {
		case admissionregistrationv1.ClusterScope:
			return !namespaced
		case admissionregistrationv1.NamespacedScope:
			return namespaced
		}
	}
	return true
}

// rulesOf are the resource rules of match resources, nil for none given (no constraint).
func rulesOf(mr *admissionregistrationv1.MatchResources) []admissionregistrationv1.NamedRuleWithOperations {
	if mr == nil || len(mr.ResourceRules) == 0 {
		return nil
	}
	return mr.ResourceRules
}
