package kube

import (
	"context"
	"fmt"
	"time"

	v1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
	admissionregistrationv1client "k8s.io/client-go/kubernetes/typed/admissionregistration/v1"
)

// API is the part of a client-go typed client of one cluster-scoped kind
// that the provider uses: T is the object, L its list and AC its apply
// configuration. Every typed client of admissionregistration.k8s.io/v1
// (k8s.io/client-go/kubernetes/typed/admissionregistration/v1) has it.
type API[T, L, AC any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*T, error)
	List(ctx context.Context, opts metav1.ListOptions) (*L, error)
	Apply(ctx context.Context, ac *AC, opts metav1.ApplyOptions) (*T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Kind describes one cluster-scoped kind of admissionregistration.k8s.io/v1:
// its names and how to reach its typed client.
type Kind[T, L, AC any] struct {
	// Name is the API kind, such as "MutatingWebhookConfiguration".
	Name string
	// Resource is the plural resource name, as RBAC rules name it.
	Resource string
	api      func(admissionregistrationv1client.AdmissionregistrationV1Interface) API[T, L, AC]
	items    func(*L) []T
}

// The kinds this provider manages.
var (
	MutatingWebhookConfigurations = kindOf[v1.MutatingWebhookConfiguration, v1.MutatingWebhookConfigurationList, ac.MutatingWebhookConfigurationApplyConfiguration](
		"MutatingWebhookConfiguration", "mutatingwebhookconfigurations", client.MutatingWebhookConfigurations,
		func(l *v1.MutatingWebhookConfigurationList) []v1.MutatingWebhookConfiguration { return l.Items })
	ValidatingWebhookConfigurations = kindOf[v1.ValidatingWebhookConfiguration, v1.ValidatingWebhookConfigurationList, ac.ValidatingWebhookConfigurationApplyConfiguration](
		"ValidatingWebhookConfiguration", "validatingwebhookconfigurations", client.ValidatingWebhookConfigurations,
		func(l *v1.ValidatingWebhookConfigurationList) []v1.ValidatingWebhookConfiguration { return l.Items })
	ValidatingAdmissionPolicies = kindOf[v1.ValidatingAdmissionPolicy, v1.ValidatingAdmissionPolicyList, ac.ValidatingAdmissionPolicyApplyConfiguration](
		"ValidatingAdmissionPolicy", "validatingadmissionpolicies", client.ValidatingAdmissionPolicies,
		func(l *v1.ValidatingAdmissionPolicyList) []v1.ValidatingAdmissionPolicy { return l.Items })
	ValidatingAdmissionPolicyBindings = kindOf[v1.ValidatingAdmissionPolicyBinding, v1.ValidatingAdmissionPolicyBindingList, ac.ValidatingAdmissionPolicyBindingApplyConfiguration](
		"ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings", client.ValidatingAdmissionPolicyBindings,
		func(l *v1.ValidatingAdmissionPolicyBindingList) []v1.ValidatingAdmissionPolicyBinding { return l.Items })
	MutatingAdmissionPolicies = kindOf[v1.MutatingAdmissionPolicy, v1.MutatingAdmissionPolicyList, ac.MutatingAdmissionPolicyApplyConfiguration](
		"MutatingAdmissionPolicy", "mutatingadmissionpolicies", client.MutatingAdmissionPolicies,
		func(l *v1.MutatingAdmissionPolicyList) []v1.MutatingAdmissionPolicy { return l.Items })
	MutatingAdmissionPolicyBindings = kindOf[v1.MutatingAdmissionPolicyBinding, v1.MutatingAdmissionPolicyBindingList, ac.MutatingAdmissionPolicyBindingApplyConfiguration](
		"MutatingAdmissionPolicyBinding", "mutatingadmissionpolicybindings", client.MutatingAdmissionPolicyBindings,
		func(l *v1.MutatingAdmissionPolicyBindingList) []v1.MutatingAdmissionPolicyBinding { return l.Items })
)

// client is the group's client interface; its methods, as method
// expressions, give each kind's typed client.
type client = admissionregistrationv1client.AdmissionregistrationV1Interface

// kindOf describes a kind by its names, the method of the group's client
// that gives its typed client (of type C), and the items of its list.
func kindOf[T, L, AC any, C API[T, L, AC]](name, resource string, typed func(client) C, items func(*L) []T) Kind[T, L, AC] {
	return Kind[T, L, AC]{
		Name:     name,
		Resource: resource,
		api:      func(c client) API[T, L, AC] { return typed(c) },
		items:    items,
	}
}

// Objects is the client's one path to the objects of a kind: every call is
// retried by Client.retry, and reports a client that is not ready yet.
type Objects[T, L, AC any] struct {
	c    *Client
	kind Kind[T, L, AC]
}

// For gives the client's access to the objects of kind.
func For[T, L, AC any](c *Client, kind Kind[T, L, AC]) Objects[T, L, AC] {
	return Objects[T, L, AC]{c: c, kind: kind}
}

func (o Objects[T, L, AC]) api() API[T, L, AC] { return o.kind.api(o.c.api) }

// Get reads one object. A missing object is reported as (nil, nil).
func (o Objects[T, L, AC]) Get(ctx context.Context, name string) (*T, error) {
	if o.c.notReady != nil {
		return nil, o.c.notReady
	}
	var obj *T
	err := o.c.retry(ctx, func(ctx context.Context) (err error) {
		obj, err = o.api().Get(ctx, name, metav1.GetOptions{})
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}

// List lists the objects matching a label selector.
func (o Objects[T, L, AC]) List(ctx context.Context, labelSelector string) ([]T, error) {
	if o.c.notReady != nil {
		return nil, o.c.notReady
	}
	var list *L
	err := o.c.retry(ctx, func(ctx context.Context) (err error) {
		list, err = o.api().List(ctx, metav1.ListOptions{LabelSelector: labelSelector})
		return err
	})
	if err != nil {
		return nil, err
	}
	return o.kind.items(list), nil
}

// Apply writes the fields in ac with server-side apply under the client's
// field manager; force takes over fields that other managers own even when
// the provider's force_conflicts is off. With dryRun the server validates and
// defaults the object but stores nothing.
func (o Objects[T, L, AC]) Apply(ctx context.Context, ac *AC, dryRun, force bool) (*T, error) {
	if o.c.notReady != nil {
		return nil, o.c.notReady
	}
	opts := metav1.ApplyOptions{FieldManager: o.c.FieldManager, Force: force || o.c.ForceConflicts}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var obj *T
	err := o.c.retry(ctx, func(ctx context.Context) (err error) {
		obj, err = o.api().Apply(ctx, ac, opts)
		return err
	})
	return obj, err
}

// Delete deletes the object and waits until it is gone. A missing object is
// not an error.
//
// The server says in its answer whether the object is gone: a Status
// "Success" when it was removed at once, the object itself (with its
// deletionTimestamp) when finalizers or a grace period keep it
// (k8s.io/apiserver's registry Store.Delete and handlers/delete.go). Only
// then does Delete poll with GETs until the object is gone.
func (o Objects[T, L, AC]) Delete(ctx context.Context, name string) error {
	if o.c.notReady != nil {
		return o.c.notReady
	}
	var removed bool
	err := o.c.retry(ctx, func(ctx context.Context) error {
		answer, err := o.c.api.RESTClient().Delete().Resource(o.kind.Resource).Name(name).
			Body(&metav1.DeleteOptions{}).Do(ctx).Get()
		status, ok := answer.(*metav1.Status)
		removed = err == nil && ok && status.Status == metav1.StatusSuccess
		return err
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || removed {
		return err
	}
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		obj, err := o.Get(ctx, name)
		return obj == nil && err == nil, err
	})
	if err != nil {
		if finalizers := o.finalizers(context.WithoutCancel(ctx), name); len(finalizers) > 0 {
			return fmt.Errorf("%q is marked for deletion but still has finalizers %v; it is deleted once whoever owns them removes them: %w", name, finalizers, err)
		}
		return fmt.Errorf("waiting for %q to be deleted: %w", name, err)
	}
	return nil
}

// finalizers reads the object's finalizers once, without retrying.
func (o Objects[T, L, AC]) finalizers(ctx context.Context, name string) []string {
	obj, err := o.api().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	return m.GetFinalizers()
}
