package advice

import (
	"fmt"
	"strings"

	celcommon "github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// Hints on policies: mistakes the server does not see at all.

// SummaryJSONPatchPath is the summary of JSONPatchPathWarnings.
const SummaryJSONPatchPath = "JSON patch path is not a JSON pointer"

// JSONPatchPathWarnings warns of each JSON patch operation of a mutating policy whose path is
// a string literal that is not a JSON pointer (RFC 6901: empty, or "/" and the tokens), such as
// "spec/replicas". The server accepts the policy; at admission the patch library
// (gopkg.in/evanphx/json-patch.v4, findObject) drops what comes before the first "/" of the
// path, so "spec/replicas" names /replicas, and a path without "/" names nothing: the
// mutation fails, or changes another field, on every request it applies to.
func JSONPatchPathWarnings(p *admissionregistrationv1.MutatingAdmissionPolicy) []warning.Warning {
	if p == nil {
		return nil
	}
	var out []warning.Warning
	for i, m := range p.Spec.Mutations {
		if m.PatchType != admissionregistrationv1.PatchTypeJSONPatch || m.JSONPatch == nil {
			continue
		}
		at := field.NewPath("spec", "mutations").Index(i).Child("jsonPatch", "expression")
		for _, lit := range jsonPatchPathLiterals(m.JSONPatch.Expression) {
			if isJSONPointer(lit.path) {
				continue
			}
			suggestion := fmt.Sprintf(" Write %q.", "/"+lit.path)
			out = append(out, warning.Warning{
				Path:    at,
				Kind:    warning.Hint,
				Summary: SummaryJSONPatchPath,
				Message: fmt.Sprintf("At %s the path %q of a JSONPatch is not a JSON pointer: it must start with \"/\", as in \"/spec/replicas\".%s "+
					"The API server accepts the policy, but applying the patch drops what comes before the first \"/\" of the path "+
					"(%s), so the mutation fails, or changes another field, on every request it applies to.",
					lit.where, lit.path, suggestion, pathMeaning(lit.path)),
			})
		}
	}
	return out
}

// pathMeaning says what the patch library makes of a path that is not a JSON pointer.
func pathMeaning(path string) string {
	if i := strings.IndexByte(path, '/'); i >= 0 {
		return fmt.Sprintf("%q names %q", path, path[i:])
	}
	return fmt.Sprintf("%q names no field", path)
}

// isJSONPointer reports whether s starts as a JSON pointer does (RFC 6901): empty, or "/" and
// the tokens. A "~" that is not "~0" or "~1" is left to the patch library, which keeps it as
// written: the path still names the field it reads as.
func isJSONPointer(s string) bool {
	return s == "" || s[0] == '/'
}

// pathLiteral is a string literal given as the path of a JSONPatch, and where it is
// ("line:column").
type pathLiteral struct {
	path, where string
}

// jsonPatchPathLiterals are the string literals of the path fields of the JSONPatch objects
// that expr creates (JSONPatch{op: "replace", path: "/spec/replicas", value: 3}). An expression
// that does not parse has none: the server's compile reports it.
func jsonPatchPathLiterals(expr string) []pathLiteral {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.EnableOptionalSyntax(true))
	if err != nil {
		return nil
	}
	parsed, errs := p.Parse(celcommon.NewTextSource(expr))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return nil
	}
	var out []pathLiteral
	ast.PreOrderVisit(parsed.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() != ast.StructKind || e.AsStruct().TypeName() != "JSONPatch" {
			return
		}
		for _, f := range e.AsStruct().Fields() {
			if f.Kind() != ast.StructFieldKind || f.AsStructField().Name() != "path" {
				continue
			}
			v := f.AsStructField().Value()
			if v.Kind() != ast.LiteralKind {
				continue
			}
			s, ok := v.AsLiteral().(types.String)
			if !ok {
				continue
			}
			loc := parsed.SourceInfo().GetStartLocation(v.ID())
			out = append(out, pathLiteral{path: string(s), where: fmt.Sprintf("%d:%d", loc.Line(), loc.Column()+1)})
		}
	}))
	return out
}
