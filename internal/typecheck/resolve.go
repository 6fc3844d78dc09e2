package typecheck

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// errNoLive is the live error of a Checker made without a cluster.
var errNoLive = errors.New("no cluster to ask")

// liveAPI returns the cluster's API, asking for it on the first call only (Checker.liveOnce):
// nil if it could not be had; with an error too when some of its groups could not be read.
func (c *Checker) liveAPI() (*liveAPI, error) { return c.liveOnce() }

// schemaResolver resolves a kind from the built-in API, else from the cluster; each kind
// once per Checker.
type schemaResolver struct{ c *Checker }

type resolved struct {
	schema *spec.Schema
	err    error
}

func (r schemaResolver) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	c := r.c
	c.mu.Lock()
	got, ok := c.schemas[gvk]
	c.mu.Unlock()
	if ok {
		return got.schema, got.err
	}
	s, err := c.resolveUncached(gvk)
	c.mu.Lock()
	c.schemas[gvk] = resolved{s, err}
	c.mu.Unlock()
	return s, err
}

func (c *Checker) resolveUncached(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	b, err := c.builtin()
	if err != nil {
		return nil, err
	}
	s, err := b.ResolveSchema(gvk)
	if err == nil || !errors.Is(err, resolver.ErrSchemaNotFound) {
		return s, err
	}
	live, lerr := c.liveAPI()
	if live == nil {
		return nil, fmt.Errorf("%w (and the cluster: %v)", err, lerr)
	}
	return live.resolver.ResolveSchema(gvk)
}

// restMapper maps resources with the built-in API, else with the cluster's discovery. It is
// not a meta.ResettableRESTMapper, so the type checker's refresh on a miss
// (k8s.io/apiserver pkg/admission/plugin/policy/validating TypeChecker tryRefreshRESTMapper)
// asks the cluster nothing more.
type restMapper struct{ c *Checker }

var _ meta.RESTMapper = restMapper{}

// mapWith runs f with the built-in mapper, and again with the cluster's when the built-in
// API has no match.
func mapWith[T any](c *Checker, f func(meta.RESTMapper) (T, error)) (T, error) {
	var zero T
	b, err := c.builtin()
	if err != nil {
		return zero, err
	}
	got, err := f(b.RESTMapper())
	if err == nil || !meta.IsNoMatchError(err) {
		return got, err
	}
	live, _ := c.liveAPI()
	if live == nil {
		return zero, err
	}
	return f(live.mapper)
}

func (m restMapper) KindFor(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return mapWith(m.c, func(r meta.RESTMapper) (schema.GroupVersionKind, error) { return r.KindFor(gvr) })
}

func (m restMapper) KindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return mapWith(m.c, func(r meta.RESTMapper) ([]schema.GroupVersionKind, error) { return r.KindsFor(gvr) })
}

func (m restMapper) ResourceFor(gvr schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return mapWith(m.c, func(r meta.RESTMapper) (schema.GroupVersionResource, error) { return r.ResourceFor(gvr) })
}

func (m restMapper) ResourcesFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return mapWith(m.c, func(r meta.RESTMapper) ([]schema.GroupVersionResource, error) { return r.ResourcesFor(gvr) })
}

func (m restMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	return mapWith(m.c, func(r meta.RESTMapper) (*meta.RESTMapping, error) { return r.RESTMapping(gk, versions...) })
}

func (m restMapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	return mapWith(m.c, func(r meta.RESTMapper) ([]*meta.RESTMapping, error) { return r.RESTMappings(gk, versions...) })
}

func (m restMapper) ResourceSingularizer(resource string) (string, error) {
	return mapWith(m.c, func(r meta.RESTMapper) (string, error) { return r.ResourceSingularizer(resource) })
}
