package typecheck

import (
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// maxKindsToCheck is the server's limit on the kinds a policy is type-checked against
// (k8s.io/apiserver pkg/admission/plugin/policy/validating maxTypesToCheck).
const maxKindsToCheck = 10

// matchedKinds returns the kinds that resource rules select, sorted by group, version and kind,
// as the server's TypeChecker finds them for a validating policy (typesToCheck): rules with a
// wildcard group or version are skipped, wildcard resources and subresources too, and at most
// maxKindsToCheck kinds are taken.
func (c *Checker) matchedKinds(rules []admissionregistrationv1.NamedRuleWithOperations) []schema.GroupVersionKind {
	gvks := sets.New[schema.GroupVersionKind]()
	mapper := restMapper{c}
	count := 0
	for _, rule := range rules {
		groups, versions, resources := ruleParts(&rule.Rule)
		for _, group := range groups {
			for _, version := range versions {
				for _, resource := range resources {
					kinds, err := mapper.KindsFor(schema.GroupVersionResource{Group: group, Version: version, Resource: resource})
					if err != nil {
						continue
					}
					for _, k := range kinds {
						if k.Empty() {
							continue
						}
						gvks.Insert(k)
						if count++; count == maxKindsToCheck {
							return sortedKinds(gvks)
						}
					}
				}
			}
		}
	}
	return sortedKinds(gvks)
}

// ruleParts returns the sorted groups, versions and resources of a rule, nil when any group or
// version is a wildcard (extractGroups, extractVersions, extractResources).
func ruleParts(r *admissionregistrationv1.Rule) (groups, versions, resources []string) {
	if slices.ContainsFunc(r.APIGroups, hasWildcard) || slices.ContainsFunc(r.APIVersions, hasWildcard) {
		return nil, nil, nil
	}
	resources = slices.DeleteFunc(slices.Clone(r.Resources), func(s string) bool { return strings.ContainsAny(s, "*/") })
	return slices.Sorted(slices.Values(r.APIGroups)), slices.Sorted(slices.Values(r.APIVersions)), slices.Sorted(slices.Values(resources))
}

func hasWildcard(s string) bool { return strings.Contains(s, "*") }

// sortedKinds sorts by group, version and kind (sortGVKList).
func sortedKinds(set sets.Set[schema.GroupVersionKind]) []schema.GroupVersionKind {
	return slices.SortedFunc(func(yield func(schema.GroupVersionKind) bool) {
		for k := range set {
			if !yield(k) {
				return
			}
		}
	}, func(a, b schema.GroupVersionKind) int {
		if c := strings.Compare(a.Group, b.Group); c != 0 {
			return c
		}
		if c := strings.Compare(a.Version, b.Version); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
}
