package protocol

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// private is private state as the framework holds it
// (privatestate.NewData): its own keys (those with a leading period) and
// the provider's. present is false where the framework holds none (no
// private state, or state that is JSON but not a map of JSON values, which
// it drops).
type private struct {
	present   bool
	framework map[string][]byte
	provider  map[string][]byte
}

// parsePrivate reads private state as privatestate.NewData does; ok is
// false where the framework reports an error (a value that is not JSON),
// whose answer is then the answer.
func parsePrivate(data []byte) (private, bool) {
	if len(data) == 0 {
		return private{}, true
	}
	var m map[string][]byte
	if err := json.Unmarshal(data, &m); err != nil {
		if json.Unmarshal(data, new(map[string]any)) == nil {
			return private{}, true // discarded, with a warning in the log
		}
		return private{}, false
	}
	p := private{present: true, framework: map[string][]byte{}, provider: map[string][]byte{}}
	for k, v := range m {
		if !utf8.Valid(v) || !json.Valid(v) {
			return private{}, false
		}
		if strings.HasPrefix(k, ".") {
			p.framework[k] = v
		} else {
			p.provider[k] = v
		}
	}
	return p, true
}

// bytes is private state as Terraform gets it ((*privatestate.Data).Bytes):
// both sets of keys in one JSON map, without empty values; nil when there
// are none.
func privateBytes(framework, provider map[string][]byte) []byte {
	merged := make(map[string][]byte, len(framework)+len(provider))
	for _, m := range []map[string][]byte{framework, provider} {
		for k, v := range m {
			if len(v) > 0 {
				merged[k] = v
			}
		}
	}
	if len(framework) == 0 && len(provider) == 0 {
		return nil
	}
	out, err := json.Marshal(merged)
	if err != nil {
		return nil // a map of byte slices always encodes
	}
	return out
}

// providerData is what the framework's *privatestate.ProviderData offers a
// provider: the type is in an internal package, so this package holds its
// values only in the framework's own request and response fields, and
// makes new ones with newProviderData. Its keys cannot be listed: the
// provider's are read back with GetKey, under the keys that the resources
// write (their PrivateKeys) and those that came in, and Equal checks that
// there is no other (keysOf).
type providerData[T any] interface {
	*T
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// newProviderData is an empty provider data of like's type, holding the
// keys of keys: what privatestate.EmptyProviderData and NewProviderData
// make (SetKey of an empty value starts the map of keys, as
// EmptyProviderData does, and keeps no key).
func newProviderData[T any, P providerData[T]](ctx context.Context, _ P, keys map[string][]byte) (P, bool) {
	out := P(new(T))
	if out.SetKey(ctx, "k", nil).HasError() {
		return nil, false
	}
	for k, v := range keys {
		if out.SetKey(ctx, k, v).HasError() {
			return nil, false
		}
	}
	return out, true
}

// keysOf are the keys of the provider data pd among names, with their
// values; ok is false when pd holds a key that is not among them (the
// answer would then not be the framework's).
func keysOf[T any, P interface {
	providerData[T]
	Equal(o P) bool
}](ctx context.Context, pd P, names []string) (map[string][]byte, bool) {
	if pd == nil {
		return nil, true
	}
	out := map[string][]byte{}
	for _, k := range names {
		v, diags := pd.GetKey(ctx, k)
		if diags.HasError() {
			return nil, false
		}
		if len(v) > 0 {
			out[k] = v
		}
	}
	check, ok := newProviderData(ctx, pd, out)
	return out, ok && check.Equal(pd)
}
