package validation

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Two limits on the size of an object hold whatever its kind and the server's version:
//
//   - kube-apiserver reads at most 3 MiB of a request's body (k8s.io/apiserver pkg/server
//     Config.MaxRequestBodyBytes, the default of --max-resource-write-bytes), and answers a
//     longer one 413 Request Entity Too Large; the body of a server-side apply is the object
//     as JSON.
//   - etcd refuses a request of more than 1.5 MiB (its --max-request-bytes default), and the
//     object is stored there in protobuf, with its managed fields. A dry run never reaches
//     etcd, so only the apply would fail, after a plan that passed.
const (
	MaxRequestBodyBytes = 3 * 1024 * 1024
	EtcdMaxRequestBytes = 3 * 1024 * 1024 / 2
)

// sized is what the generated API types of k8s.io/api have: the size of their protobuf form.
type sized interface{ Size() int }

// SizeErrors returns an error for each limit obj is over, at the path of the field that makes
// it large (see largestPart). Both sizes are lower bounds of what the server sees: the JSON body
// lacks apiVersion and kind, and the protobuf form the managed fields and the metadata the
// server adds, so an error is certain with the default limits.
func SizeErrors(obj any) field.ErrorList {
	body, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	var errs field.ErrorList
	if len(body) > MaxRequestBodyBytes {
		p, part := largestPart(body)
		errs = append(errs, tooLarge(p, fmt.Sprintf("the object is %s as JSON, more than the %s kube-apiserver accepts in a request "+
			"(the API server answers 413 Request Entity Too Large)%s", mib(len(body)), mib(MaxRequestBodyBytes), share(p, part))))
	}
	if s, ok := obj.(sized); ok && s.Size() > EtcdMaxRequestBytes {
		p, part := largestPart(body)
		errs = append(errs, tooLarge(p, fmt.Sprintf("the object is at least %s as etcd stores it (protobuf), more than the %s etcd accepts "+
			"in a request by default (--max-request-bytes): a dry run does not reach etcd, but the apply would fail%s",
			mib(s.Size()), mib(EtcdMaxRequestBytes), share(p, part))))
	}
	return errs
}

func tooLarge(p *field.Path, detail string) *field.Error {
	at := ""
	if p != nil {
		at = p.String()
	}
	return &field.Error{Type: field.ErrorTypeTooLong, Field: at, BadValue: field.OmitValueType{}, Detail: detail}
}

func share(p *field.Path, part int) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("; %s of it is here", mib(part))
}

func mib(n int) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1024*1024)) }

// opaqueMaps are the fields whose values are maps with keys of the user's: a path stops there
// (Terraform attributes, not blocks).
var opaqueMaps = []string{"labels", "annotations", "matchLabels"}

// largestPart returns the path of the field that makes the JSON object doc large, and its size
// in bytes: from the top, it goes into the field or list element that holds at least half of
// the size of where it is, as long as there is one. A path that ends at an object ends at what
// no single field of it makes large.
func largestPart(doc []byte) (*field.Path, int) {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		return nil, len(doc)
	}
	var p *field.Path
	size := len(doc)
	for {
		var next any
		var nextPath *field.Path
		nextSize := 0
		switch node := v.(type) {
		case map[string]any:
			if p != nil && slices.Contains(opaqueMaps, lastName(p)) {
				return p, size
			}
			for k, child := range node {
				if n := jsonSize(child); n > nextSize {
					next, nextSize = child, n
					nextPath = p.Child(k)
					if p == nil {
						nextPath = field.NewPath(k)
					}
				}
			}
		case []any:
			for i, child := range node {
				if n := jsonSize(child); n > nextSize {
					next, nextSize, nextPath = child, n, p.Index(i)
				}
			}
		}
		if next == nil || 2*nextSize < size {
			return p, size
		}
		v, p, size = next, nextPath, nextSize
	}
}

func lastName(p *field.Path) string {
	s := p.String()
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return s[i+1:]
		}
	}
	return s
}

func jsonSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}
