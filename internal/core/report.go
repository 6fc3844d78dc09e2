package core

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// Both our own checks and the server's rejections speak Kubernetes field
// paths; a Reporter puts them on the attribute the user must change.

// Reporter reports the diagnostics of one kind's resource or data source.
type Reporter struct {
	// Kind is the API kind, such as "ValidatingAdmissionPolicy".
	Kind string
	// Resource is its plural resource name, as RBAC rules name it.
	Resource string
	// TypeName is the resource type name without the provider's prefix.
	TypeName string
	// Paths maps the kind's API field paths to attribute paths.
	Paths func() *apipath.Mapper
	// Words, when set, puts a message of the server in the words of the
	// resource's schema (for a field the schema names differently).
	Words func(apiPath, message string) string
}

// At reports one diagnostic on the attribute at apiPath; on the resource
// when no attribute is there.
func (r Reporter) At(diags *diag.Diagnostics, apiPath, summary, detail string, isError bool) {
	if r.Words != nil {
		detail = r.Words(apiPath, detail)
	}
	if apiPath != "" {
		detail = fmt.Sprintf("%s (API field %s)", detail, apiPath)
	}
	if p, ok := r.Paths().AttributePath(apiPath); ok {
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

// FieldErrors reports validation errors on their attributes, skipping those
// about values not known yet.
func (r Reporter) FieldErrors(diags *diag.Diagnostics, errs field.ErrorList, unknownAt func(apiPath string) bool) {
	for _, e := range errs {
		if unknownAt(e.Field) {
			continue
		}
		r.At(diags, e.Field, "Invalid "+r.Kind, validation.Message(e), true)
	}
}

// Warnings reports advice on the attributes it is about; a gated one (warning.Warning.Gated)
// as an error, since the configuration asks that it fail the plan.
func (r Reporter) Warnings(diags *diag.Diagnostics, warnings []warning.Warning, unknownAt func(apiPath string) bool) {
	for _, w := range warnings {
		p := ""
		if w.Path != nil {
			p = w.Path.String()
		}
		if p != "" && unknownAt(p) {
			continue
		}
		r.At(diags, p, w.Summary, w.Message, w.Gated)
	}
}

// LeftToTerraform drops the errors that say a required value is missing
// where Terraform reports the same itself: where the configuration leaves
// out an attribute the schema marks Required, or a block the schema wants at
// least once (reportedByTerraform). Terraform says nothing of any other
// value the server requires (an empty match_constraints block, a policy with
// no validations), so those errors stay, one per mistake (the server reports
// a missing choice of two fields on each of them) and in the words of the
// schema (requiredInOurWords).
func (r Reporter) LeftToTerraform(ctx context.Context, cfg tfsdk.Config, errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	reported := map[string]bool{}
	for _, e := range errs {
		if e.Type != field.ErrorTypeRequired {
			out = append(out, e)
			continue
		}
		p, ok := r.Paths().AttributePath(e.Field)
		if ok && reportedByTerraform(ctx, cfg, p) {
			continue
		}
		if e.Detail != "" {
			parent := e.Field
			if i := strings.LastIndexByte(parent, '.'); i >= 0 {
				parent = parent[:i]
			}
			key := parent + "\x00" + e.Detail
			if reported[key] {
				continue
			}
			reported[key] = true
		}
		if ok {
			ours := *e
			ours.Detail = requiredInOurWords(ctx, cfg, r.Paths(), e)
			e = &ours
		}
		out = append(out, e)
	}
	return out
}

// APIError reports an error from the API server. A rejection with causes is
// reported cause by cause on the attributes; anything else as one error
// that names the operation and the object.
func (r Reporter) APIError(diags *diag.Diagnostics, operation, name string, err error) {
	if errors.Is(err, ErrConflictReported) {
		return
	}
	summary := fmt.Sprintf("Cannot %s %s %q", operation, r.Kind, name)
	var status apierrors.APIStatus
	if errors.As(err, &status) && apierrors.IsInvalid(err) {
		if d := status.Status().Details; d != nil && len(d.Causes) > 0 {
			for _, c := range d.Causes {
				r.At(diags, c.Field, summary, c.Message, true)
			}
			return
		}
	}
	diags.AddError(summary, Explain(err, r.Resource))
}

// AlreadyExists explains why a create stops at an object of the same name.
func (r Reporter) AlreadyExists(name string) string {
	return fmt.Sprintf("A %s named %q already exists in the cluster, so Terraform will not take it over silently. "+
		"To manage it with Terraform, import it:\n\n  terraform import admission_%s.<resource name> %s\n\n"+
		"or add an import block with id = %q. Otherwise choose another name.", r.Kind, name, r.TypeName, name, name)
}

// Explain adds what to do to the errors whose fix is the same every time.
func Explain(err error, resource string) string {
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

// DryRunResult reports what a dry run at plan says of the object named name:
// nothing when it passed, the server's verdict when it judged the object
// (the apply would fail the same way), and otherwise a warning that the plan
// was checked offline only, since a failure that says nothing about the
// object (unreachable, unauthorized, forbidden, not served, throttled) must
// not stop the plan: the apply will tell. A cluster that cannot be reached is said once for
// the whole plan (Unreachable), on whichever resource meets it first.
func (r Reporter) DryRunResult(ctx context.Context, diags *diag.Diagnostics, c *kube.Client, name string, err error) {
	switch {
	case err == nil, errors.Is(err, ErrConflictReported):
	case IsVerdict(err):
		r.APIError(diags, "apply", name, err)
	default:
		if w, first, ok := Unreachable(c, err); ok {
			tflog.Warn(ctx, "dry run at plan failed: the cluster cannot be reached; going on without it", map[string]any{"name": name, "error": err.Error()})
			if first {
				diags.AddWarning(w.Summary, w.Message)
			}
			return
		}
		tflog.Warn(ctx, "dry run at plan failed; going on without it", map[string]any{"name": name, "error": err.Error()})
		diags.AddWarning(SummaryUnreachable,
			fmt.Sprintf("The planned %s %q was checked offline only: the dry run on the API server failed, so what only the server "+
				"can tell will show at apply. Set dry_run_on_plan = false in the provider to plan without it.\n\n%s",
				r.Kind, name, Explain(err, r.Resource)))
	}
}

// IsVerdict reports whether err is the server's verdict on the object sent: an answer
// in the 4xx range other than 401 Unauthorized, 403 Forbidden, 404 Not Found and
// 429 Too Many Requests, which are about the client, the cluster or its load. So
// 422 Invalid, 409 Conflict, 400 Bad Request, 413 Request Entity Too Large (a body
// over kube-apiserver's 3 MiB limit), 415 and the like are verdicts: the apply
// would get the same answer.
func IsVerdict(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := int(status.Status().Code)
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests:
		return false
	}
	return code >= 400 && code < 500
}

// Verdict reports what the checks at plan found beyond those of ValidateConfig
// (validation.AtPlan): errors on their attributes; the server's warnings; and,
// when the version of the server is not known, the verdicts that depend on it
// as warnings that say which versions reject.
func (r Reporter) Verdict(diags *diag.Diagnostics, v validation.Verdict, unknownAt func(apiPath string) bool) {
	r.FieldErrors(diags, v.Errors, unknownAt)
	r.Warnings(diags, v.Warnings, unknownAt)
	for _, n := range v.Notes {
		if unknownAt(n.Error.Field) {
			continue
		}
		r.At(diags, n.Error.Field, "Invalid "+r.Kind+" on some Kubernetes versions", validation.Message(n.Error)+"\n\n"+n.Note, false)
	}
}
