package advice

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// ScopeResolver tells whether a resource is namespaced: the built-in resources from the
// embedded discovery snapshot, custom resources from the live server's discovery when the
// cluster can be reached. known is false for a resource it has never heard of; the lockout
// check then makes no claim about it.
type ScopeResolver interface {
	ResourceScope(gr schema.GroupResource) (namespaced, known bool)
}

// Summaries of the lockout warnings, one per kind of harm.
const (
	SummaryFailClosedSystem   = "Fail-closed webhook intercepts kube-system"
	SummaryFailClosedOwn      = "Fail-closed webhook intercepts its own namespace"
	SummaryFailClosedNodes    = "Fail-closed webhook intercepts the nodes' own requests"
	SummaryFailClosedRBAC     = "Fail-closed webhook intercepts what kube-apiserver itself writes"
	SummaryFailClosedTimeouts = "Fail-closed webhooks' timeouts add up to the request deadline"

	SummaryPolicyFailClosedSystem = "Fail-closed policy intercepts kube-system"
	SummaryPolicyFailClosedNodes  = "Fail-closed policy intercepts the nodes' own requests"
	SummaryPolicyFailClosedRBAC   = "Fail-closed policy intercepts what kube-apiserver itself writes"
)

// requestDeadlineSeconds is the time after which a request that waits for its webhooks in turn
// is lost: 30 s is the most the API allows one webhook (timeoutSeconds, k8s.io/kubernetes
// pkg/apis/admissionregistration/validation validateWebhook), and clients with deadlines of
// their own (leader election renews within 10 s, kube-controller-manager
// --leader-elect-renew-deadline) give up before kube-apiserver's 60 s --request-timeout.
const requestDeadlineSeconds = 30

// The harms a critical request belongs to; each is one warning per webhook.
type harm int

const (
	harmSystem harm = iota // kube-system's workloads and leader election
	harmNodes              // the nodes' heartbeats, status and certificates
	harmRBAC               // kube-apiserver's own RBAC reconciliation
	harmOwn                // the webhook's own backend
)

// criticalRequest is one synthetic admission request that keeps the cluster alive.
type criticalRequest struct {
	harm harm
	// what names the request, why says what fails when it is rejected.
	what, why string
	gvr       schema.GroupVersionResource
	kind      string
	sub       string
	namespace string
	name      string
	op        admission.Operation
	user      user.Info
}

func sa(ns, name string) user.Info {
	return &user.DefaultInfo{Name: "system:serviceaccount:" + ns + ":" + name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, user.AllAuthenticated}}
}

var (
	nodeUser       = &user.DefaultInfo{Name: "system:node:node-1", Groups: []string{user.NodesGroup, user.AllAuthenticated}}
	bootstrapUser  = &user.DefaultInfo{Name: "system:bootstrap:abcdef", Groups: []string{"system:bootstrappers", "system:bootstrappers:kubeadm:default-node-token", user.AllAuthenticated}}
	clusterAdmin   = &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}
	apiserverUser  = &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}
	controllerUser = &user.DefaultInfo{Name: user.KubeControllerManager, Groups: []string{user.AllAuthenticated}}
	schedulerUser  = &user.DefaultInfo{Name: user.KubeScheduler, Groups: []string{user.AllAuthenticated}}
)

var (
	podsGVR           = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	servicesGVR       = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	endpointsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "endpoints"}
	endpointSlicesGVR = schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}
	deploymentsGVR    = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	daemonsetsGVR     = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}
	replicasetsGVR    = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	leasesGVR         = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	nodesGVR          = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	csrGVR            = schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}
	rolesGVR          = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
	bindingsGVR       = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}
)

// systemRequests are the requests whose rejection takes the cluster down. Sources, one per
// rule:
//   - kube-system workloads and leader election: Kubernetes docs, Dynamic Admission Control,
//     "Avoiding operating on the kube-system namespace"; GKE's unsafe webhooks
//     (K8S_ADMISSION_WEBHOOK_UNSAFE: pods and leases in kube-system); clusterlint
//     checks/doks/admission_controller_webhook_replacement.go (fail-closed webhooks that apply
//     to kube-system); leases are the locks of k8s.io/client-go tools/leaderelection.
//   - the endpoints of default/kubernetes: k8s.io/kubernetes pkg/controlplane/reconcilers
//     (the lease endpoint reconciler of each kube-apiserver, user system:apiserver, writes the
//     Endpoints and EndpointSlice "kubernetes" in default as API servers come and go).
//   - node heartbeats and status: GKE's unsafe webhooks (leases in kube-node-lease, Nodes);
//     k8s.io/kubernetes pkg/kubelet/nodelease (lease UPDATEs in kube-node-lease) and
//     kubelet_node_status.go (nodes/status PATCH, which admission sees as UPDATE).
//   - certificates: GKE's unsafe webhooks (CertificateSigningRequests); k8s.io/kubernetes
//     pkg/kubelet/certificate (kubelets create CertificateSigningRequests to rotate their
//     certificates; joining nodes with bootstrap tokens).
//   - control-plane RBAC: k8s.io/kubernetes pkg/registry/rbac/rest PolicyData.EnsureRBACPolicy,
//     the post-start hook rbac/bootstrap-roles that reconciles the system:* roles and bindings
//     as user system:apiserver at every start; the server is not ready until it succeeds.
var systemRequests = []criticalRequest{
	{harmSystem, "CREATE pods in kube-system (by the replica set and daemon set controllers)",
		"system components (DNS, kube-proxy, the network plugin) cannot be started or restarted",
		podsGVR, "Pod", "", "kube-system", "coredns-1", admission.Create, sa("kube-system", "replicaset-controller")},
	{harmSystem, "UPDATE pods/status in kube-system (by kubelets)",
		"kubelets cannot report the state of system pods",
		podsGVR, "Pod", "status", "kube-system", "coredns-1", admission.Update, nodeUser},
	{harmSystem, "CREATE deployments in kube-system",
		"system add-ons cannot be installed or upgraded",
		deploymentsGVR, "Deployment", "", "kube-system", "coredns", admission.Create, clusterAdmin},
	{harmSystem, "CREATE daemonsets in kube-system",
		"system add-ons cannot be installed or upgraded",
		daemonsetsGVR, "DaemonSet", "", "kube-system", "kube-proxy", admission.Create, clusterAdmin},
	{harmSystem, "CREATE services in kube-system (kube-dns and other add-ons)",
		"system add-ons cannot be installed or upgraded, and cluster DNS cannot be restored once its service is gone",
		servicesGVR, "Service", "", "kube-system", "kube-dns", admission.Create, clusterAdmin},
	{harmSystem, "CREATE replicasets in kube-system (by the deployment controller)",
		"rollouts of system deployments stop",
		replicasetsGVR, "ReplicaSet", "", "kube-system", "coredns-1", admission.Create, sa("kube-system", "deployment-controller")},
	{harmSystem, "UPDATE leases in kube-system by kube-controller-manager (its leader election)",
		"the controller manager loses its leadership and stops",
		leasesGVR, "Lease", "", "kube-system", "kube-controller-manager", admission.Update, controllerUser},
	{harmSystem, "UPDATE leases in kube-system by kube-scheduler (its leader election)",
		"the scheduler loses its leadership and stops",
		leasesGVR, "Lease", "", "kube-system", "kube-scheduler", admission.Update, schedulerUser},
	{harmNodes, "UPDATE leases in kube-node-lease (node heartbeats, by kubelets)",
		"node heartbeats fail, every node turns NotReady and its pods are evicted",
		leasesGVR, "Lease", "", "kube-node-lease", "node-1", admission.Update, nodeUser},
	{harmNodes, "UPDATE nodes/status (by kubelets)",
		"kubelets cannot report their nodes' status, and the nodes turn NotReady",
		nodesGVR, "Node", "status", "", "node-1", admission.Update, nodeUser},
	{harmNodes, "UPDATE nodes (by kubelets)",
		"kubelets cannot report their nodes' status, and the nodes turn NotReady",
		nodesGVR, "Node", "", "", "node-1", admission.Update, nodeUser},
	{harmNodes, "CREATE certificatesigningrequests by kubelets",
		"kubelets cannot renew their certificates",
		csrGVR, "CertificateSigningRequest", "", "", "csr-1", admission.Create, nodeUser},
	{harmNodes, "CREATE certificatesigningrequests by joining nodes (bootstrap tokens)",
		"new nodes cannot join",
		csrGVR, "CertificateSigningRequest", "", "", "csr-2", admission.Create, bootstrapUser},
	{harmRBAC, "UPDATE of the Endpoints of the service default/kubernetes (by kube-apiserver, user system:apiserver)",
		"kube-apiserver cannot publish its addresses, so pods lose their way to it when the API servers change",
		endpointsGVR, "Endpoints", "", "default", "kubernetes", admission.Update, apiserverUser},
	{harmRBAC, "UPDATE of the EndpointSlice of the service default/kubernetes (by kube-apiserver, user system:apiserver)",
		"kube-apiserver cannot publish its addresses, so pods lose their way to it when the API servers change",
		endpointSlicesGVR, "EndpointSlice", "", "default", "kubernetes", admission.Update, apiserverUser},
	{harmRBAC, "UPDATE of the system:* clusterroles (by kube-apiserver, user system:apiserver, at start)",
		"kube-apiserver reconciles them at every start and upgrade (post-start hook rbac/bootstrap-roles) and does not become ready until it can",
		rolesGVR, "ClusterRole", "", "", "system:node", admission.Update, apiserverUser},
	{harmRBAC, "CREATE of the system:* clusterroles (by kube-apiserver, user system:apiserver, at start)",
		"kube-apiserver reconciles them at every start and upgrade (post-start hook rbac/bootstrap-roles) and does not become ready until it can",
		rolesGVR, "ClusterRole", "", "", "system:node", admission.Create, apiserverUser},
	{harmRBAC, "UPDATE of the system:* clusterrolebindings (by kube-apiserver, user system:apiserver, at start)",
		"kube-apiserver reconciles them at every start and upgrade (post-start hook rbac/bootstrap-roles) and does not become ready until it can",
		bindingsGVR, "ClusterRoleBinding", "", "", "system:node", admission.Update, apiserverUser},
	{harmRBAC, "CREATE of the system:* clusterrolebindings (by kube-apiserver, user system:apiserver, at start)",
		"kube-apiserver reconciles them at every start and upgrade (post-start hook rbac/bootstrap-roles) and does not become ready until it can",
		bindingsGVR, "ClusterRoleBinding", "", "", "system:node", admission.Create, apiserverUser},
}

// ownRequests are the requests that bring back a webhook's own backend in its service's
// namespace: its pods, created by the replica set controller, and the replica sets of its
// deployment. Source: Kubernetes docs, Dynamic Admission Control, "Avoiding deadlocks in
// self-hosted webhooks"; clusterlint admission_controller_webhook_replacement.go (webhooks that
// apply to their own namespace).
func ownRequests(ns string) []criticalRequest {
	return []criticalRequest{
		{harmOwn, "CREATE pods", "its own pods cannot be created, so it cannot recover by itself",
			podsGVR, "Pod", "", ns, "webhook-1", admission.Create, sa("kube-system", "replicaset-controller")},
		{harmOwn, "CREATE replicasets", "its own pods cannot be created, so it cannot recover by itself",
			replicasetsGVR, "ReplicaSet", "", ns, "webhook-1", admission.Create, sa("kube-system", "deployment-controller")},
	}
}

// attributes is the synthetic admission request of r: an object with no labels (system
// components carry none of the opt-in labels that object selectors ask for), and as old object
// the same on an update.
func (r criticalRequest) attributes() admission.Attributes {
	gvk := r.gvr.GroupVersion().WithKind(r.kind)
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	obj.SetName(r.name)
	obj.SetNamespace(r.namespace)
	var old runtime.Object
	if r.op == admission.Update {
		old = obj.DeepCopy()
	}
	return admission.NewAttributesRecord(obj, old, gvk, r.namespace, r.name, r.gvr, r.sub, r.op, nil, false, r.user)
}

// verdict is what the server would do with a webhook or a policy on a request.
type verdict int

const (
	notCalled verdict = iota
	called
	unknown // a match condition errors on the synthetic request, or needs what it lacks
)

// newMatcher is the matcher the lockout check asks: k8s.io/apiserver's predicates over
// namespaces that carry only their name label, no equivalent resources, no authorizer (a
// match condition that asks it cannot be evaluated: unknown). Nil when it cannot be made: no
// claim then.
func newMatcher() *matching.Matcher {
	m, err := matching.New(matching.Config{Namespaces: matching.SyntheticNamespaces()})
	if err != nil {
		return nil
	}
	return m
}

// hookCalled asks the matcher whether the webhook is called for attr. An answer that failed
// (a match condition that fails on the synthetic request, or reads the authorizer, which is
// not there) is no claim either way.
func hookCalled(m *matching.Matcher, h matching.Webhook, attr admission.Attributes) verdict {
	if m == nil {
		return unknown
	}
	return verdictOf(m.Webhook(context.Background(), h, attr).Outcome)
}

func verdictOf(o matching.Outcome) verdict {
	switch o {
	case matching.Called:
		return called
	case matching.NotCalled:
		return notCalled
	}
	return unknown
}

// probesOf are the requests tried on a webhook: the system ones, and those of its own backend
// when it has a service outside kube-system and no object selector (which may leave out its
// own pods by their labels, not known here: no claim about its own backend).
func probesOf(h *admissionregistrationv1.MutatingWebhook) []criticalRequest {
	requests := systemRequests
	if svc := h.ClientConfig.Service; svc != nil && svc.Namespace != "" && svc.Namespace != "kube-system" &&
		(h.ObjectSelector == nil || len(h.ObjectSelector.MatchLabels)+len(h.ObjectSelector.MatchExpressions) == 0) {
		requests = append(slices.Clip(requests), ownRequests(svc.Namespace)...)
	}
	return requests
}

// failsClosed reports whether a webhook's or a policy's failurePolicy is Fail (the default).
func failsClosed(fp *admissionregistrationv1.FailurePolicyType) bool {
	return fp == nil || *fp == admissionregistrationv1.Fail
}

// lockoutWarnings are the warnings of the webhooks of obj that fail closed and intercept what
// keeps the cluster alive (systemRequests, ownRequests), at webhooks[i].failurePolicy, and the
// warning on fail-closed mutating webhooks whose timeouts on one request add up to
// requestDeadlineSeconds (serial: the mutating ones are called one after another; validating
// webhooks are called in parallel, k8s.io/apiserver pkg/admission/plugin/webhook/validating
// dispatcher).
func lockoutWarnings(obj *admissionregistrationv1.MutatingWebhookConfiguration, scopes ScopeResolver, serial bool) []warning.Warning {
	var warnings []warning.Warning
	m := newMatcher()
	hooks := matching.MutatingWebhooks(obj)
	for i := range obj.Webhooks {
		h := &obj.Webhooks[i]
		if !failsClosed(h.FailurePolicy) {
			continue
		}
		hit := map[harm][]criticalRequest{}
		for _, r := range probesOf(h) {
			if hookCalled(m, hooks[i], r.attributes()) == called {
				if !slices.ContainsFunc(hit[r.harm], func(o criticalRequest) bool { return o.what == r.what }) {
					hit[r.harm] = append(hit[r.harm], r)
				}
			}
		}
		p := field.NewPath("webhooks").Index(i).Child("failurePolicy")
		var ns string
		if h.ClientConfig.Service != nil {
			ns = h.ClientConfig.Service.Namespace
		}
		warnings = append(warnings, harmWarnings(p, webhookWording, hit, ns)...)
	}
	if serial {
		warnings = append(warnings, timeoutWarnings(obj, m, hooks, scopes)...)
	}
	return warnings
}

// wording is how a warning names what intercepts, when the requests are rejected, the
// setting that stops it, and the summaries of its harms.
type wording struct {
	subject, when, ignore string
	summaries             map[harm]string
}

var webhookWording = wording{"failurePolicy Fail on a webhook", "While the webhook is unavailable", "use failurePolicy Ignore",
	map[harm]string{harmSystem: SummaryFailClosedSystem, harmNodes: SummaryFailClosedNodes, harmRBAC: SummaryFailClosedRBAC, harmOwn: SummaryFailClosedOwn}}

// harmWarnings words one warning per harm: what is intercepted, why it hurts, and the way out.
func harmWarnings(p *field.Path, wd wording, hit map[harm][]criticalRequest, ownNamespace string) []warning.Warning {
	var warnings []warning.Warning
	list := func(rs []criticalRequest) (string, string) {
		var whats, whys []string
		for _, r := range rs {
			whats = append(whats, r.what)
			if !slices.Contains(whys, r.why) {
				whys = append(whys, r.why)
			}
		}
		return strings.Join(whats, "; "), strings.Join(whys, "; ")
	}
	if rs := hit[harmSystem]; len(rs) > 0 {
		w, y := list(rs)
		warnings = append(warnings, warning.Warning{Path: p, Kind: warning.Lockout, Summary: wd.summaries[harmSystem], Message: fmt.Sprintf(
			"%s that intercepts what system components do in namespace \"kube-system\": %s. %s, these are rejected: %s, "+
				"which can break the cluster; exclude the namespace in the namespace selector (kubernetes.io/metadata.name NotIn [kube-system]) or %s",
			wd.subject, w, wd.when, y, wd.ignore)})
	}
	if rs := hit[harmNodes]; len(rs) > 0 {
		w, y := list(rs)
		warnings = append(warnings, warning.Warning{Path: p, Kind: warning.Lockout, Summary: wd.summaries[harmNodes], Message: fmt.Sprintf(
			"%s that intercepts the nodes' own requests: %s. %s, these are rejected: %s; "+
				"leave these resources out of the rules, exclude the nodes with a match condition (!('system:nodes' in request.userInfo.groups)), "+
				"or %s", wd.subject, w, wd.when, y, wd.ignore)})
	}
	if rs := hit[harmRBAC]; len(rs) > 0 {
		w, y := list(rs)
		warnings = append(warnings, warning.Warning{Path: p, Kind: warning.Lockout, Summary: wd.summaries[harmRBAC], Message: fmt.Sprintf(
			"%s that intercepts what kube-apiserver itself writes: %s. %s, these are rejected: %s; "+
				"exclude kube-apiserver's own user with a match condition (request.userInfo.username != 'system:apiserver') or %s", wd.subject, w, wd.when, y, wd.ignore)})
	}
	if rs := hit[harmOwn]; len(rs) > 0 {
		var ops []string
		for _, r := range rs {
			ops = append(ops, r.what)
		}
		warnings = append(warnings, warning.Warning{Path: p, Kind: warning.Lockout, Summary: wd.summaries[harmOwn], Message: fmt.Sprintf(
			"%s that intercepts its own service's namespace %q (%s there): "+
				"while the webhook is unavailable, its own pods cannot be created there, so it cannot recover by itself; "+
				"exclude it in the namespace selector (kubernetes.io/metadata.name NotIn [%s]), leave its pods out with an object selector, "+
				"or %s", wd.subject, ownNamespace, strings.Join(ops, ", "), ownNamespace, wd.ignore)})
	}
	return warnings
}

// timeoutWarnings warns once, at the timeoutSeconds of the first webhook concerned, when the
// fail-closed webhooks of obj that one request calls in turn wait together for
// requestDeadlineSeconds or more. The requests tried are the critical ones and, for each
// resource a rule names whose scope is known, one of each operation the rule names, in
// kube-system, in each namespace a selector names, and in a namespace none names.
// Source: IBM Cloud Kubernetes Service, webhook best practices (mutating webhooks run one after
// another and together may exceed the time allotted to all); clusterlint
// checks/doks/admission_controller_webhook_timeout.go (30 s and more blocks upgrades).
func timeoutWarnings(obj *admissionregistrationv1.MutatingWebhookConfiguration, m *matching.Matcher, hooks []matching.Webhook,
	scopes ScopeResolver) []warning.Warning {
	var reqs []func() admission.Attributes
	for _, r := range systemRequests {
		reqs = append(reqs, r.attributes)
	}
	namespaces := []string{"kube-system", "default", "lockout-check-any"}
	for i := range obj.Webhooks {
		namespaces = append(namespaces, selectorNamespaces(obj.Webhooks[i].NamespaceSelector)...)
		if svc := obj.Webhooks[i].ClientConfig.Service; svc != nil {
			namespaces = append(namespaces, svc.Namespace)
		}
	}
	slices.Sort(namespaces)
	namespaces = slices.Compact(namespaces)
	seen := map[string]bool{}
	for i := range obj.Webhooks {
		for _, rule := range obj.Webhooks[i].Rules {
			for _, g := range rule.APIGroups {
				for _, v := range rule.APIVersions {
					for _, res := range rule.Resources {
						if g == "*" || v == "*" || strings.Contains(res, "*") || scopes == nil {
							continue
						}
						base, sub, _ := strings.Cut(res, "/")
						namespaced, known := scopes.ResourceScope(schema.GroupResource{Group: g, Resource: base})
						if !known {
							continue // no claim about a resource whose scope is not known
						}
						for _, op := range rule.Operations {
							ops := []admission.Operation{admission.Operation(op)}
							if op == admissionregistrationv1.OperationAll {
								ops = []admission.Operation{admission.Create, admission.Update, admission.Delete}
							}
							nss := []string{""}
							if namespaced {
								nss = namespaces
							}
							for _, o := range ops {
								for _, ns := range nss {
									key := fmt.Sprint(g, v, res, o, ns)
									if seen[key] {
										continue
									}
									seen[key] = true
									r := criticalRequest{gvr: schema.GroupVersionResource{Group: g, Version: v, Resource: base},
										kind: "Object", sub: sub, namespace: ns, name: "object-1", op: o,
										user: &user.DefaultInfo{Name: "someone", Groups: []string{user.AllAuthenticated}}}
									reqs = append(reqs, r.attributes)
								}
							}
						}
					}
				}
			}
		}
	}
	var worst []int
	worstSum := int32(0)
	var worstAttr admission.Attributes
	for _, mk := range reqs {
		attr := mk()
		var callers []int
		sum := int32(0)
		for i := range obj.Webhooks {
			h := &obj.Webhooks[i]
			if !failsClosed(h.FailurePolicy) || hookCalled(m, hooks[i], attr) != called {
				continue
			}
			callers = append(callers, i)
			sum += timeoutOf(h)
		}
		if len(callers) > 1 && sum > worstSum {
			worst, worstSum, worstAttr = callers, sum, attr
		}
	}
	if worstSum < requestDeadlineSeconds {
		return nil
	}
	names := make([]string, len(worst))
	for k, i := range worst {
		names[k] = fmt.Sprintf("%s (%ds)", obj.Webhooks[i].Name, timeoutOf(&obj.Webhooks[i]))
	}
	sort.Strings(names)
	where := ""
	if worstAttr.GetNamespace() != "" {
		where = " in namespace " + worstAttr.GetNamespace()
	}
	res := worstAttr.GetResource().Resource
	if worstAttr.GetSubresource() != "" {
		res += "/" + worstAttr.GetSubresource()
	}
	return []warning.Warning{{Path: field.NewPath("webhooks").Index(worst[0]).Child("timeoutSeconds"), Kind: warning.Timeout,
		Summary: SummaryFailClosedTimeouts, Message: fmt.Sprintf(
			"the fail-closed webhooks %s are called one after another for the same requests (for example %s %s%s), "+
				"and their timeouts add up to %d s: while they do not answer, such a request waits up to that long and then fails, "+
				"past the deadlines of most clients (leader election renews within 10 s); give them short timeouts (a few seconds each)",
			strings.Join(names, ", "), worstAttr.GetOperation(), res, where, worstSum)}}
}

// timeoutOf is a webhook's timeoutSeconds, the server's default when it has none.
func timeoutOf(h *admissionregistrationv1.MutatingWebhook) int32 {
	if h.TimeoutSeconds == nil {
		return validation.DefaultTimeoutSeconds
	}
	return *h.TimeoutSeconds
}

// selectorNamespaces are the namespaces a selector names by their name label.
func selectorNamespaces(sel *metav1.LabelSelector) []string {
	if sel == nil {
		return nil
	}
	var out []string
	if v, ok := sel.MatchLabels[corev1.LabelMetadataName]; ok {
		out = append(out, v)
	}
	for _, e := range sel.MatchExpressions {
		if e.Key == corev1.LabelMetadataName {
			out = append(out, e.Values...)
		}
	}
	return out
}
