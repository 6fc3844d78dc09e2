package webhook

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// Both our own checks and the server's rejections speak Kubernetes field
// paths; these functions put them on the attribute the user must change.

// addFieldErrors reports validation errors on their attributes, skipping
// those about values not known yet.
func (k *kind[H]) addFieldErrors(diags *diag.Diagnostics, errs field.ErrorList, exp *expansion) {
	for _, e := range errs {
		if exp != nil && exp.unknownAt(e.Field) {
			continue
		}
		k.addAt(diags, e.Field, "Invalid "+k.api.name, validation.Message(e), true)
	}
}

// addWarnings reports advice on the attributes it is about.
func (k *kind[H]) addWarnings(diags *diag.Diagnostics, warnings []validation.Warning, exp *expansion) {
	for _, w := range warnings {
		p := ""
		if w.Path != nil {
			p = w.Path.String()
		}
		if exp != nil && p != "" && exp.unknownAt(p) {
			continue
		}
		k.addAt(diags, p, w.Summary, w.Message, false)
	}
}

func (k *kind[H]) addAt(diags *diag.Diagnostics, apiPath, summary, detail string, isError bool) {
	detail = inOurWords(apiPath, detail)
	if apiPath != "" {
		detail = fmt.Sprintf("%s (API field %s)", detail, apiPath)
	}
	if p, ok := k.paths().AttributePath(apiPath); ok {
		if isError {
			diags.AddAttributeError(p, summary, detail)
		} else {
			diags.AddAttributeWarning(p, summary, detail)
		}
		return
	}
	if isError {
		diags.AddError(summary, detail)
	} else {
		diags.AddWarning(summary, detail)
	}
}

// reportedByTheFramework drops the errors that say a required value is
// missing where the configuration leaves a required argument or block out:
// Terraform reports those itself, on the block that lacks it.
func (k *kind[H]) reportedByTheFramework(ctx context.Context, cfg tfsdk.Config, errs field.ErrorList) field.ErrorList {
	return slices.DeleteFunc(errs, func(e *field.Error) bool {
		if e.Type != field.ErrorTypeRequired {
			return false
		}
		p, ok := k.paths().AttributePath(e.Field)
		if !ok {
			return false
		}
		var v attr.Value
		if diags := cfg.GetAttribute(ctx, p, &v); diags.HasError() {
			return false
		}
		return v == nil || v.IsNull()
	})
}

// The server's words for a few mistakes name what this schema does not have
// (generateName) or leave out what to write; inOurWords puts them in the
// words of this provider's schema. The API field stays beside them.
var ourWords = []struct {
	field  *regexp.Regexp // the API field path
	server string         // the server's words
	ours   string
}{
	{regexp.MustCompile(`^metadata\.name$`), "name or generateName is required", "name is required"},
	{regexp.MustCompile(`^webhooks\[\d+\]\.clientConfig$`), "exactly one of url or service is required",
		"exactly one of url and a service block must be set"},
	{regexp.MustCompile(`\.matchExpressions\[\d+\]\.operator$`), "not a valid selector operator",
		"not a valid selector operator: one of In, NotIn, Exists, DoesNotExist"},
}

func inOurWords(apiPath, message string) string {
	for _, w := range ourWords {
		if w.field.MatchString(apiPath) && strings.Contains(message, w.server) {
			return strings.Replace(message, w.server, w.ours, 1)
		}
	}
	return message
}

// addAPIError reports an error from the API server. A rejection with causes
// is reported cause by cause on the attributes; anything else as one error
// that names the operation and the object.
func (k *kind[H]) addAPIError(diags *diag.Diagnostics, operation, name string, err error) {
	if errors.Is(err, errConflictReported) {
		return
	}
	summary := fmt.Sprintf("Cannot %s %s %q", operation, k.api.name, name)
	var status apierrors.APIStatus
	if errors.As(err, &status) && apierrors.IsInvalid(err) {
		if d := status.Status().Details; d != nil && len(d.Causes) > 0 {
			for _, c := range d.Causes {
				k.addAt(diags, c.Field, summary, c.Message, true)
			}
			return
		}
	}
	diags.AddError(summary, explain(err, k.api.resource))
}

// explain adds what to do to the errors whose fix is the same every time.
func explain(err error, resource string) string {
	msg := err.Error()
	switch {
	case apierrors.IsUnauthorized(err):
		return msg + "\n\nThe API server did not accept the credentials: check token, client_certificate/client_key, exec or the kubeconfig user."
	case apierrors.IsForbidden(err):
		return msg + "\n\nThe identity is authenticated but RBAC does not allow this: it needs get, list, patch and delete on " +
			resource + ".admissionregistration.k8s.io."
	case strings.Contains(msg, "getting credentials: exec"):
		return msg + "\n\nThe credential plugin of the exec block (or of the kubeconfig user) failed: check its command, args and env."
	case strings.Contains(msg, "x509:") || strings.Contains(msg, "tls:"):
		return msg + "\n\nThe server's certificate could not be verified: set cluster_ca_certificate (or the kubeconfig's certificate-authority) to the CA that signed it."
	}
	return msg
}
