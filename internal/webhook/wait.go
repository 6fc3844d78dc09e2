package webhook

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
)

// The opt-in wait at apply: a configuration applied together with the server behind its
// webhooks (a Deployment and its Service made in the same run) would otherwise be written as
// soon as Terraform gets to it, and while the server is not ready yet every request a
// fail-closed webhook matches is rejected, the server's own pods among them when it matches
// those. With wait_for_endpoints the write waits until the API server can call the webhook.

// waitAttribute is the resource's wait_for_endpoints argument.
func waitAttribute() schema.Attribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Before the apply creates a fail-closed webhook (`failure_policy = \"Fail\"`) that calls a `service`, or widens one " +
			"(makes it fail closed, points it at another service or port, or changes what it matches), wait until that service has a ready " +
			"endpoint on its port, as the API server finds it (the Service, its port, and a ready address in its EndpointSlices), " +
			"within the `create` or `update` timeout. When the time runs out the apply fails with what it waited for, and writes nothing. " +
			"For a configuration applied together with the server behind its webhooks, so that the requests they match are not rejected " +
			"in between. Needs `get` on services and `list` on endpointslices in the services' namespaces. Default: `false`.",
	}
}

// waitsFor reports whether the apply of obj over stored (nil on a create), both with the
// server's defaults, waits for the service of webhook i: a fail-closed webhook with a service
// that is new, or that was not fail closed, called another service or port, or matched other
// requests (rules, selectors, match conditions, match policy) in stored.
func waitsFor(obj, stored *configuration, i int) bool {
	h := &obj.Webhooks[i]
	if h.ClientConfig.Service == nil || !failsClosed(h.FailurePolicy) {
		return false
	}
	if stored == nil {
		return true
	}
	for j := range stored.Webhooks {
		old := &stored.Webhooks[j]
		if old.Name != h.Name {
			continue
		}
		return !failsClosed(old.FailurePolicy) || !sameService(old.ClientConfig.Service, h.ClientConfig.Service) ||
			!reflect.DeepEqual(old.Rules, h.Rules) || !reflect.DeepEqual(old.NamespaceSelector, h.NamespaceSelector) ||
			!reflect.DeepEqual(old.ObjectSelector, h.ObjectSelector) || !reflect.DeepEqual(old.MatchConditions, h.MatchConditions) ||
			!reflect.DeepEqual(old.MatchPolicy, h.MatchPolicy)
	}
	return true
}

func failsClosed(fp *admissionregistrationv1.FailurePolicyType) bool {
	return fp == nil || *fp == admissionregistrationv1.Fail
}

func sameService(a, b *admissionregistrationv1.ServiceReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Namespace == b.Namespace && a.Name == b.Name && portOf(a) == portOf(b)
}

func portOf(s *admissionregistrationv1.ServiceReference) int32 {
	if s.Port == nil {
		return 443
	}
	return *s.Port
}

// waitPoll is how often the wait looks at the service again.
const waitPoll = time.Second

// waitForEndpoints waits, for each webhook of obj the apply waits for (waitsFor), until its
// service has a ready endpoint (live.Reader.Backend), within ctx less a margin for the write
// that follows; each service once. It fails at once when the services may not be read.
func waitForEndpoints(ctx context.Context, c *kube.Client, obj, stored *configuration) diag.Diagnostics {
	var diags diag.Diagnostics
	r, err := live.For(c, live.Limits{})
	if err != nil {
		diags.AddError("Cannot wait for the webhooks' services", err.Error())
		return diags
	}
	if deadline, ok := ctx.Deadline(); ok {
		// Leave the write that follows a tenth of the time left, up to 10 s.
		margin := min(time.Until(deadline)/10, 10*time.Second)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-margin))
		defer cancel()
	}
	start := time.Now()
	type service struct {
		namespace, name string
		port            int32
	}
	waited := map[service]bool{}
	for i := range obj.Webhooks {
		if !waitsFor(obj, stored, i) {
			continue
		}
		h := &obj.Webhooks[i]
		svc, port := h.ClientConfig.Service, portOf(h.ClientConfig.Service)
		key := service{svc.Namespace, svc.Name, port}
		if waited[key] {
			continue
		}
		waited[key] = true
		at := path.Root("webhook").AtListIndex(i).AtName("client_config").AtListIndex(0).AtName("service").AtListIndex(0)
		var last live.Backend
		for {
			last = r.Backend(ctx, svc.Namespace, svc.Name, port)
			if last.State == live.BackendReady {
				tflog.Info(ctx, "the webhook's service has a ready endpoint", map[string]any{"webhook": h.Name, "service": svc.Namespace + "/" + svc.Name,
					"waited": time.Since(start).Round(time.Millisecond).String()})
				break
			}
			var re *live.ReadError
			if errors.As(last.Err, &re) && re.Failure == live.Forbidden {
				diags.AddAttributeError(at, "Cannot wait for the webhook's service", fmt.Sprintf(
					"wait_for_endpoints is set, but the provider may not read the service of webhook %q: %v. "+
						"Nothing was written. Give the provider's credentials get on services and list on endpointslices in namespace %q, "+
						"or leave wait_for_endpoints out.", h.Name, last.Err, svc.Namespace))
				return diags
			}
			select {
			case <-ctx.Done():
				found := "it could not be read: " + fmt.Sprint(last.Err)
				if last.Problem != nil {
					found = last.Problem.Error()
				}
				diags.AddAttributeError(at, "Timed out waiting for the webhook's service", fmt.Sprintf(
					"wait_for_endpoints is set: waited %s for service %q in namespace %q to have a ready endpoint on port %d, so that the API server "+
						"can call the fail-closed webhook %q; the last look found: %s. Nothing was written, so the requests the webhook matches "+
						"are not rejected meanwhile. Start the webhook's server (check its pods and their readiness), or give the wait more time "+
						"(timeouts { create = \"10m\" }, or update).",
					time.Since(start).Round(time.Second), svc.Name, svc.Namespace, port, h.Name, found))
				return diags
			case <-time.After(waitPoll):
			}
		}
	}
	return diags
}
