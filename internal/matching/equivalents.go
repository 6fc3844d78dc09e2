package matching

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
)

// Equivalents tell which resources serve the same objects under another group, version or
// name, as the server's EquivalentResourceMapper does (k8s.io/apiserver pkg/endpoints
// registers each resource with the storage it shares): a rule of a hook with matchPolicy
// Equivalent then matches a request on any of them, and the hook sees the object converted to
// the kind its rule names (deployments in apps/v1 for a rule on apps/v1beta1, the
// horizontalpodautoscalers of autoscaling/v1 and v2, events of core v1 and events.k8s.io/v1, the
// versions of a custom resource).
//
// NewEquivalents makes them from what a server serves: BuiltinServed (kube-apiserver's built-in
// API, embedded), CRDServed (a CustomResourceDefinition's versions) and DiscoveryServed (a
// cluster's discovery, as internal/live reads it). Pass them as Config.Equivalents; the matcher and the
// dispatchers given its ObjectInterfaces then match and convert as the server does (Conversion
// says which kinds convert offline). ServedAs answers "which versions and groups serve this
// resource".
type Equivalents = runtime.EquivalentResourceMapper

// NoEquivalents knows no equivalent resources: a rule matches a request only on the resource
// and version the request names, whatever the match policy.
func NoEquivalents() Equivalents { return runtime.NewEquivalentResourceRegistry() }

// Served is a resource, or one of its subresources, that a server serves at one version, with
// the kind of its objects there (autoscaling/v1 Scale for apps/v1 deployments/scale).
type Served struct {
	Resource    schema.GroupVersionResource
	Subresource string
	Kind        schema.GroupVersionKind
	// Namespaced: the resource's objects are in namespaces.
	Namespaced bool
}

// NewEquivalents are the equivalences of served, registered as the server's API installer
// registers what it serves (k8s.io/apiserver pkg/endpoints APIInstaller.registerResourceHandlers:
// EquivalentResourceRegistry.RegisterKindFor each resource and subresource with its kind) in a
// registry keyed as kube-apiserver keys it (k8s.io/apiserver pkg/server Config.Complete:
// runtime.NewEquivalentResourceRegistryWithIdentity over the storage's resource prefix): the
// versions of one group's resource share their storage, and so do the cohabiting resources of
// other groups (storageIdentity).
func NewEquivalents(served ...Served) Equivalents {
	r := runtime.NewEquivalentResourceRegistryWithIdentity(storageIdentity)
	for _, s := range served {
		r.RegisterKindFor(s.Resource, s.Subresource, s.Kind)
	}
	return r
}

// cohabitants are the resources of different groups that kube-apiserver stores together, so that
// each is served from one storage (k8s.io/kubernetes pkg/kubeapiserver
// completedStorageFactoryConfig.New, its AddCohabitatingResources calls): for each, the resource
// whose storage they share. Of these, kube-apiserver 1.37 serves both groups only for events;
// the rest are the extensions/v1beta1 resources that releases before 1.16 served.
var cohabitants = map[schema.GroupResource]schema.GroupResource{
	{Group: "extensions", Resource: "networkpolicies"}:        {Group: "networking.k8s.io", Resource: "networkpolicies"},
	{Group: "extensions", Resource: "deployments"}:            {Group: "apps", Resource: "deployments"},
	{Group: "extensions", Resource: "daemonsets"}:             {Group: "apps", Resource: "daemonsets"},
	{Group: "extensions", Resource: "replicasets"}:            {Group: "apps", Resource: "replicasets"},
	{Group: "events.k8s.io", Resource: "events"}:              {Group: "", Resource: "events"},
	{Group: "extensions", Resource: "replicationcontrollers"}: {Group: "", Resource: "replicationcontrollers"},
	{Group: "extensions", Resource: "podsecuritypolicies"}:    {Group: "policy", Resource: "podsecuritypolicies"},
	{Group: "extensions", Resource: "ingresses"}:              {Group: "networking.k8s.io", Resource: "ingresses"},
}

// storageIdentity is the key of gr's storage: that of the resource it cohabits with, else its
// own. (The server keys by etcd prefix, which is the resource's name unless a prefix is set; the
// classes are the same.)
func storageIdentity(gr schema.GroupResource) string {
	if to, ok := cohabitants[gr]; ok {
		gr = to
	}
	return gr.String()
}

// ServedAs are the resources under which e serves the objects of gr (its subresource sub, ""
// for the resource itself): every version of gr and of the resources that share its storage,
// gr's own among them, in the order they were registered; none when e does not know gr. More
// than one means that a rule on one of them with matchPolicy Exact misses requests the others
// get, which Equivalent would match.
func ServedAs(e Equivalents, gr schema.GroupResource, sub string) []schema.GroupVersionResource {
	if e == nil {
		return nil
	}
	return slices.Clone(e.EquivalentResourcesFor(gr.WithVersion(""), sub))
}

// BuiltinServed are the resources and subresources built into kube-apiserver, with their kinds:
// its discovery with every group version served (internal/builtinapi) and the
// subresources of builtinSubresources. Alpha and beta versions are among them: a rule that names
// one is read as written for a cluster that serves it.
func BuiltinServed() ([]Served, error) {
	served, err := builtinServed()
	return slices.Clone(served), err
}

var builtinServed = sync.OnceValues(func() ([]Served, error) {
	groups, err := builtinapi.Resources()
	if err != nil {
		return nil, err
	}
	subs, err := parseSubresources(builtinSubresources)
	if err != nil {
		return nil, err
	}
	byGV := map[schema.GroupVersion][]Served{}
	for _, s := range subs {
		byGV[s.Resource.GroupVersion()] = append(byGV[s.Resource.GroupVersion()], s)
	}
	// In discovery's order, which is the order the server installs its group versions in (the
	// preferred version first): the order equivalents are tried in.
	var out []Served
	scope := map[schema.GroupVersionResource]bool{}
	for _, g := range groups {
		for _, v := range g.Group.Versions {
			gv := schema.GroupVersion{Group: g.Group.Name, Version: v.Version}
			for _, r := range g.VersionedResources[v.Version] {
				out = append(out, Served{Resource: gv.WithResource(r.Name), Kind: gv.WithKind(r.Kind), Namespaced: r.Namespaced})
				scope[gv.WithResource(r.Name)] = r.Namespaced
			}
			for _, s := range byGV[gv] {
				s.Namespaced = scope[s.Resource]
				out = append(out, s)
			}
			delete(byGV, gv)
		}
	}
	for _, s := range subs { // of a group version the snapshot lacks
		if _, ok := byGV[s.Resource.GroupVersion()]; ok {
			out = append(out, s)
		}
	}
	return out, nil
})

// BuiltinEquivalents are NewEquivalents of BuiltinServed, made once and shared.
func BuiltinEquivalents() (Equivalents, error) { return builtinEquivalents() }

var builtinEquivalents = sync.OnceValues(func() (Equivalents, error) {
	served, err := builtinServed()
	if err != nil {
		return nil, err
	}
	return NewEquivalents(served...), nil
})

// BuiltinSubresources are the built-in subresources named sub ("status", "scale") whose
// objects are of kind gk, with their parent resource: how a request on a subresource that does
// not name its resource is told from its object (a Pod with "status" is pods/status; a Scale
// with "scale" may be any of four).
func BuiltinSubresources(sub string, gk schema.GroupKind) []Served {
	served, err := builtinServed()
	if err != nil {
		return nil
	}
	var out []Served
	for _, s := range served {
		if s.Subresource == sub && sub != "" && s.Kind.GroupKind() == gk {
			out = append(out, s)
		}
	}
	return out
}

// builtinSubresources are the subresources of kube-apiserver's built-in resources, as the
// discovery of kube-apiserver v1.37.2 lists them with every group version served (the embedded
// snapshot leaves subresources out): "groupVersion resource/subresource [kindGroupVersion] kind",
// the kind's group version left out where it is the resource's. TestAccBuiltinSubresources holds
// it to the local kube-apiserver's discovery.
const builtinSubresources = `
admissionregistration.k8s.io/v1 validatingadmissionpolicies/status ValidatingAdmissionPolicy
apiextensions.k8s.io/v1 customresourcedefinitions/status CustomResourceDefinition
apiregistration.k8s.io/v1 apiservices/status APIService
apps/v1 daemonsets/status DaemonSet
apps/v1 deployments/scale autoscaling/v1 Scale
apps/v1 deployments/status Deployment
apps/v1 replicasets/scale autoscaling/v1 Scale
apps/v1 replicasets/status ReplicaSet
apps/v1 statefulsets/scale autoscaling/v1 Scale
apps/v1 statefulsets/status StatefulSet
autoscaling/v1 horizontalpodautoscalers/status HorizontalPodAutoscaler
autoscaling/v2 horizontalpodautoscalers/status HorizontalPodAutoscaler
batch/v1 cronjobs/status CronJob
batch/v1 jobs/status Job
certificates.k8s.io/v1 certificatesigningrequests/approval CertificateSigningRequest
certificates.k8s.io/v1 certificatesigningrequests/status CertificateSigningRequest
certificates.k8s.io/v1 podcertificaterequests/status PodCertificateRequest
certificates.k8s.io/v1beta1 podcertificaterequests/status PodCertificateRequest
flowcontrol.apiserver.k8s.io/v1 flowschemas/status FlowSchema
flowcontrol.apiserver.k8s.io/v1 prioritylevelconfigurations/status PriorityLevelConfiguration
internal.apiserver.k8s.io/v1alpha1 storageversions/status StorageVersion
lifecycle.k8s.io/v1alpha1 evictionrequests/status EvictionRequest
lifecycle.k8s.io/v1alpha1 evictions/status Eviction
networking.k8s.io/v1 ingresses/status Ingress
networking.k8s.io/v1 servicecidrs/status ServiceCIDR
policy/v1 poddisruptionbudgets/status PodDisruptionBudget
resource.k8s.io/v1 devicetaintrules/status DeviceTaintRule
resource.k8s.io/v1 resourceclaims/status ResourceClaim
resource.k8s.io/v1alpha3 devicetaintrules/status DeviceTaintRule
resource.k8s.io/v1alpha3 resourcepoolstatusrequests/status ResourcePoolStatusRequest
resource.k8s.io/v1beta1 resourceclaims/status ResourceClaim
resource.k8s.io/v1beta2 devicetaintrules/status DeviceTaintRule
resource.k8s.io/v1beta2 resourceclaims/status ResourceClaim
scheduling.k8s.io/v1alpha3 compositepodgroups/status CompositePodGroup
scheduling.k8s.io/v1alpha3 podgroups/status PodGroup
scheduling.k8s.io/v1beta1 podgroups/status PodGroup
storage.k8s.io/v1 csinodes/status CSINode
storage.k8s.io/v1 volumeattachments/status VolumeAttachment
storagemigration.k8s.io/v1 storageversionmigrations/status StorageVersionMigration
storagemigration.k8s.io/v1beta1 storageversionmigrations/status StorageVersionMigration
v1 namespaces/finalize Namespace
v1 namespaces/status Namespace
v1 nodes/proxy NodeProxyOptions
v1 nodes/status Node
v1 persistentvolumeclaims/status PersistentVolumeClaim
v1 persistentvolumes/status PersistentVolume
v1 pods/attach PodAttachOptions
v1 pods/binding Binding
v1 pods/ephemeralcontainers Pod
v1 pods/eviction policy/v1 Eviction
v1 pods/exec PodExecOptions
v1 pods/log Pod
v1 pods/portforward PodPortForwardOptions
v1 pods/proxy PodProxyOptions
v1 pods/resize Pod
v1 pods/status Pod
v1 replicationcontrollers/scale autoscaling/v1 Scale
v1 replicationcontrollers/status ReplicationController
v1 resourcequotas/status ResourceQuota
v1 serviceaccounts/token authentication.k8s.io/v1 TokenRequest
v1 services/proxy ServiceProxyOptions
v1 services/status Service
`

// parseSubresources reads the lines of builtinSubresources.
func parseSubresources(table string) ([]Served, error) {
	var out []Served
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 && len(f) != 4 {
			return nil, fmt.Errorf("subresource table: %q", line)
		}
		gv, err := schema.ParseGroupVersion(f[0])
		if err != nil {
			return nil, fmt.Errorf("subresource table: %q: %w", line, err)
		}
		resource, sub, ok := strings.Cut(f[1], "/")
		if !ok {
			return nil, fmt.Errorf("subresource table: %q: no subresource", line)
		}
		kindGV := gv
		if len(f) == 4 {
			if kindGV, err = schema.ParseGroupVersion(f[2]); err != nil {
				return nil, fmt.Errorf("subresource table: %q: %w", line, err)
			}
		}
		out = append(out, Served{Resource: gv.WithResource(resource), Subresource: sub, Kind: kindGV.WithKind(f[len(f)-1])})
	}
	return out, nil
}

// CRDServed are the resources of a CustomResourceDefinition (in API form), as the server
// registers them when it serves the definition (k8s.io/apiextensions-apiserver pkg/apiserver
// crdHandler.getOrCreateServingInfoFor): every version of spec.versions, with its status and
// scale subresources (the scale's objects are autoscaling/v1 Scale). The resource is the plural
// the server accepted (status.acceptedNames), else the one asked for (spec.names); it is
// namespaced unless spec.scope is Cluster.
func CRDServed(crd *unstructured.Unstructured) ([]Served, error) {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "status", "acceptedNames", "plural")
	kind, _, _ := unstructured.NestedString(crd.Object, "status", "acceptedNames", "kind")
	if plural == "" {
		plural, _, _ = unstructured.NestedString(crd.Object, "spec", "names", "plural")
	}
	if kind == "" {
		kind, _, _ = unstructured.NestedString(crd.Object, "spec", "names", "kind")
	}
	if group == "" || plural == "" || kind == "" {
		return nil, fmt.Errorf("CustomResourceDefinition %q: spec.group, spec.names.plural and spec.names.kind are required", crd.GetName())
	}
	scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
	namespaced := scope != "Cluster"
	versions, _, err := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %q: spec.versions: %w", crd.GetName(), err)
	}
	var out []Served
	for i, v := range versions {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("CustomResourceDefinition %q: spec.versions[%d]: want an object", crd.GetName(), i)
		}
		name, _ := m["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("CustomResourceDefinition %q: spec.versions[%d].name is required", crd.GetName(), i)
		}
		gv := schema.GroupVersion{Group: group, Version: name}
		gvr, gvk := gv.WithResource(plural), gv.WithKind(kind)
		out = append(out, Served{Resource: gvr, Kind: gvk, Namespaced: namespaced})
		subs, _ := m["subresources"].(map[string]any)
		if _, ok := subs["status"]; ok {
			out = append(out, Served{Resource: gvr, Subresource: "status", Kind: gvk, Namespaced: namespaced})
		}
		if _, ok := subs["scale"]; ok {
			out = append(out, Served{Resource: gvr, Subresource: "scale", Kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Namespaced: namespaced})
		}
	}
	return out, nil
}

// DiscoveryServed are the resources and subresources of a server's discovery (as
// discovery.ServerGroupsAndResources lists them: every version of every group), in the order
// the server installs them, which is the order equivalents are tried in: the core group first
// (kube-apiserver installs the legacy API before the groups), then the groups as listed, each
// group's versions by priority (GA, then beta, then alpha, newest first: the scheme's
// PrioritizedVersionsForGroup for the built-in groups).
func DiscoveryServed(lists []*metav1.APIResourceList) []Served {
	lists = slices.Clone(lists)
	rank := map[string]int{"": -1}
	for _, l := range lists {
		if l == nil {
			continue
		}
		if gv, err := schema.ParseGroupVersion(l.GroupVersion); err == nil {
			if _, ok := rank[gv.Group]; !ok {
				rank[gv.Group] = len(rank)
			}
		}
	}
	slices.SortStableFunc(lists, func(a, b *metav1.APIResourceList) int {
		if a == nil || b == nil {
			return 0
		}
		ga, _ := schema.ParseGroupVersion(a.GroupVersion)
		gb, _ := schema.ParseGroupVersion(b.GroupVersion)
		if ga.Group != gb.Group {
			return rank[ga.Group] - rank[gb.Group]
		}
		return -version.CompareKubeAwareVersionStrings(ga.Version, gb.Version)
	})
	var out []Served
	for _, l := range lists {
		if l == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			resource, sub, _ := strings.Cut(r.Name, "/")
			kindGV := gv
			if r.Group != "" || r.Version != "" {
				kindGV = schema.GroupVersion{Group: r.Group, Version: r.Version}
			}
			out = append(out, Served{Resource: gv.WithResource(resource), Subresource: sub, Kind: kindGV.WithKind(r.Kind), Namespaced: r.Namespaced})
		}
	}
	return out
}
