package kube

import (
	"context"
	"fmt"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	admissionregistrationv1ac "k8s.io/client-go/applyconfigurations/admissionregistration/v1"
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
	MutatingWebhookConfigurations = Kind[admissionregistrationv1.MutatingWebhookConfiguration,
		admissionregistrationv1.MutatingWebhookConfigurationList,
		admissionregistrationv1ac.MutatingWebhookConfigurationApplyConfiguration]{
		Name:     "MutatingWebhookConfiguration",
		Resource: "mutatingwebhookconfigurations",
		api: func(c admissionregistrationv1client.AdmissionregistrationV1Interface) API[admissionregistrationv1.MutatingWebhookConfiguration,
			admissionregistrationv1.MutatingWebhookConfigurationList, admissionregistrationv1ac.MutatingWebhookConfigurationApplyConfiguration] {
			return c.MutatingWebhookConfigurations()
		},
		items: func(l *admissionregistrationv1.MutatingWebhookConfigurationList) []admissionregistrationv1.MutatingWebhookConfiguration {
			return l.Items
		},
	}
	ValidatingWebhookConfigurations = Kind[admissionregistrationv1.ValidatingWebhookConfiguration,
		admissionregistrationv1.ValidatingWebhookConfigurationList,
		admissionregistrationv1ac.ValidatingWebhookConfigurationApplyConfiguration]{
		Name:     "ValidatingWebhookConfiguration",
		Resource: "validatingwebhookconfigurations",
		api: func(c admissionregistrationv1client.AdmissionregistrationV1Interface) API[admissionregistrationv1.ValidatingWebhookConfiguration,
			admissionregistrationv1.ValidatingWebhookConfigurationList, admissionregistrationv1ac.ValidatingWebhookConfigurationApplyConfiguration] {
			return c.ValidatingWebhookConfigurations()
		},
		items: func(l *admissionregistrationv1.ValidatingWebhookConfigurationList) []admissionregistrationv1.ValidatingWebhookConfiguration {
			return l.Items
		},
	}

	ValidatingAdmissionPolicies = Kind[admissionregistrationv1.ValidatingAdmissionPolicy,
		admissionregistrationv1.ValidatingAdmissionPolicyList,
		admissionregistrationv1ac.ValidatingAdmissionPolicyApplyConfiguration]{
		Name:     "ValidatingAdmissionPolicy",
		Resource: "validatingadmissionpolicies",
		api: func(c admissionregistrationv1client.AdmissionregistrationV1Interface) API[admissionregistrationv1.ValidatingAdmissionPolicy,
			admissionregistrationv1.ValidatingAdmissionPolicyList, admissionregistrationv1ac.ValidatingAdmissionPolicyApplyConfiguration] {
			return c.ValidatingAdmissionPolicies()
		},
		items: func(l *admissionregistrationv1.ValidatingAdmissionPolicyList) []admissionregistrationv1.ValidatingAdmissionPolicy {
			return l.Items
		},
	}
	ValidatingAdmissionPolicyBindings = Kind[admissionregistrationv1.ValidatingAdmissionPolicyBinding,
		admissionregistrationv1.ValidatingAdmissionPolicyBindingList,
		admissionregistrationv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration]{
		Name:     "ValidatingAdmissionPolicyBinding",
		Resource: "validatingadmissionpolicybindings",
		api: func(c admissionregistrationv1client.AdmissionregistrationV1Interface) API[admissionregistrationv1.ValidatingAdmissionPolicyBinding,
			admissionregistrationv1.ValidatingAdmissionPolicyBindingList, admissionregistrationv1ac.ValidatingAdmissionPolicyBindingApplyConfiguration] {
			return c.ValidatingAdmissionPolicyBindings()
		},
		items: func(l *admissionregistrationv1.ValidatingAdmissionPolicyBindingList) []admissionregistrationv1.ValidatingAdmissionPolicyBinding {
			return l.Items
		},
	}
	MutatingAdmissionPolicies = Kind[admissionregistrationv1.MutatingAdmissionPolicy,
		admissionregistrationv1.MutatingAdmissionPolicyList,
		admissionregistrationv1ac.MutatingAdmissionPolicyApplyConfiguration]{
		Name:     "MutatingAdmissionPolicy",
		Resource: "mutatingadmissionpolicies",
		api: func(c admissionregistrationv1client.AdmissionregistrationV1Interface) API[admissionregistrationv1.MutatingAdmissionPolicy,
			admissionregistrationv1.MutatingAdmissionPolicyList, admissionregistrationv1ac.MutatingAdmissionPolicyApplyConfiguration] {
			return c.MutatingAdmissionPolicies()
		},
		items: func(l *admissionregistrationv1.MutatingAdmissionPolicyList) []admissionregistrationv1.MutatingAdmissionPolicy {
			return l.Items
		},
	}
	MutatingAdmissionPolicyBindings = Kind[admissionregistrationv1.MutatingAdmissionPolicyBinding,
		admissionregistrationv1.MutatingAdmissionPolicyBindingList,
		admissionregistrationv1ac.MutatingAdmissionPolicyBindingApplyConfiguration]{
		Name:     "MutatingAdmissionPolicyBinding",
		Resource: "mutatingadmissionpolicybindings",
		api: func(c admissionregistrationv1client.AdmissionregistrationV1Interface) API[admissionregistrationv1.MutatingAdmissionPolicyBinding,
			admissionregistrationv1.MutatingAdmissionPolicyBindingList, admissionregistrationv1ac.MutatingAdmissionPolicyBindingApplyConfiguration] {
			return c.MutatingAdmissionPolicyBindings()
		},
		items: func(l *admissionregistrationv1.MutatingAdmissionPolicyBindingList) []admissionregistrationv1.MutatingAdmissionPolicyBinding {
			return l.Items
		},
	}
)

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
