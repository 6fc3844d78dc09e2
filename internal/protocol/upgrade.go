package protocol

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"slices"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/vmihailenco/msgpack/v5"
)

// UpgradeResourceState answers, for a state stored at the schema's version,
// what the framework answers (fwserver.(*Server).UpgradeResourceState: the
// stored JSON read with the schema's type, attributes the schema no longer
// has left out, and encoded as MessagePack), in one pass over the JSON.
// Terraform asks it for every resource in the state before each refresh,
// plan and destroy; tftypes.ValueFromJSONWithOpts reads every nested value
// again from its own copy of the JSON (jsonUnmarshalObject decodes each
// attribute into a json.RawMessage and starts a new decoder on it), which
// for a webhook configuration's nested blocks is most of the call. Any
// other request (another version, a flatmap state, a type this package does
// not know, JSON it does not take) goes to the framework, which also words
// the errors.
func (s *Server) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	if resp := s.upgrade(ctx, req); resp != nil {
		s.answered.upgrades.Add(1)
		return resp, nil
	}
	return s.ProviderServer.UpgradeResourceState(ctx, req)
}

func (s *Server) upgrade(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) *tfprotov6.UpgradeResourceStateResponse {
	if req == nil || req.RawState == nil || req.RawState.JSON == nil || req.RawState.Flatmap != nil {
		return nil
	}
	rt := s.resourceTypes(ctx)[req.TypeName]
	if rt == nil || rt.tree == nil || req.Version != rt.schema.Version {
		return nil
	}
	data, err := upgradeJSON(req.RawState.JSON, rt.tree)
	if err != nil {
		return nil
	}
	return &tfprotov6.UpgradeResourceStateResponse{UpgradedState: &tfprotov6.DynamicValue{MsgPack: data}}
}

// errUpgrade is JSON that upgradeJSON leaves to the framework.
var errUpgrade = errors.New("protocol: a stored state left to the framework")

// upgradeJSON is the MessagePack of the stored JSON state data read with
// the type of the schema's tree o, as tfprotov6.RawState.UnmarshalWithOpts (with
// IgnoreUndefinedAttributes) and tfprotov6.NewDynamicValue make it: null for
// a JSON null of any type, an object's attributes in the order of their
// names with those the JSON lacks null and those the type lacks left out,
// and strings, numbers and bools read in the spellings tftypes takes
// (jsonUnmarshalString, jsonUnmarshalNumber, jsonUnmarshalBool). A map's
// keys are written in order, where tftypes writes them in the order of a Go
// map: the same value either way. A list of blocks that is null (or left
// out) is an empty list, as the framework makes it in every value it
// encodes (toproto6.DynamicValue: fwschemadata.(*Data).ReifyNullCollectionBlocks).
// Sets, tuples and dynamic values, which no resource here has, are left to
// the framework (errUpgrade).
func upgradeJSON(data []byte, o *object) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, errUpgrade
	}
	reifyStored(v, o)
	var buf bytes.Buffer
	buf.Grow(len(data))
	enc := msgpack.NewEncoder(&buf)
	if err := encodeStored(enc, v, o.typ); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// reifyStored makes every null list of blocks in the decoded JSON object v
// of o an empty list, at every depth where its parent is not null (reify).
// A value of another shape than o's is left for encodeStored to refuse.
func reifyStored(v any, o *object) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	for _, b := range o.blocks {
		switch bv := m[b.name].(type) {
		case nil:
			if b.list {
				m[b.name] = []any{}
			}
		case map[string]any:
			if !b.list {
				reifyStored(bv, b.obj)
			}
		case []any:
			if b.list {
				for _, e := range bv {
					reifyStored(e, b.obj)
				}
			}
		}
	}
}

func encodeStored(enc *msgpack.Encoder, v any, typ tftypes.Type) error {
	if v == nil {
		return enc.EncodeNil()
	}
	switch t := typ.(type) {
	case tftypes.Object:
		m, ok := v.(map[string]any)
		if !ok || len(t.OptionalAttributes) > 0 {
			return errUpgrade
		}
		names := make([]string, 0, len(t.AttributeTypes))
		for name := range t.AttributeTypes {
			names = append(names, name)
		}
		slices.Sort(names)
		if err := enc.EncodeMapLen(len(names)); err != nil {
			return err
		}
		for _, name := range names {
			if err := enc.EncodeString(name); err != nil {
				return err
			}
			if err := encodeStored(enc, m[name], t.AttributeTypes[name]); err != nil {
				return err
			}
		}
		return nil
	case tftypes.List:
		l, ok := v.([]any)
		if !ok || t.ElementType.Is(tftypes.DynamicPseudoType) {
			return errUpgrade
		}
		if err := enc.EncodeArrayLen(len(l)); err != nil {
			return err
		}
		for _, e := range l {
			if err := encodeStored(enc, e, t.ElementType); err != nil {
				return err
			}
		}
		return nil
	case tftypes.Map:
		m, ok := v.(map[string]any)
		if !ok || t.ElementType.Is(tftypes.DynamicPseudoType) {
			return errUpgrade
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if err := enc.EncodeMapLen(len(keys)); err != nil {
			return err
		}
		for _, k := range keys {
			if err := enc.EncodeString(k); err != nil {
				return err
			}
			if err := encodeStored(enc, m[k], t.ElementType); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case typ.Is(tftypes.String):
		switch s := v.(type) {
		case string:
			return enc.EncodeString(s)
		case json.Number:
			return enc.EncodeString(string(s))
		case bool:
			if s {
				return enc.EncodeString("true")
			}
			return enc.EncodeString("false")
		}
	case typ.Is(tftypes.Number):
		var text string
		switch n := v.(type) {
		case json.Number:
			text = string(n)
		case string:
			text = n
		default:
			return errUpgrade
		}
		f, _, err := big.ParseFloat(text, 10, 512, big.ToNearestEven)
		if err != nil {
			return errUpgrade
		}
		return encodeNumber(enc, f)
	case typ.Is(tftypes.Bool):
		switch b := v.(type) {
		case bool:
			return enc.EncodeBool(b)
		case string:
			switch b {
			case "true", "1":
				return enc.EncodeBool(true)
			case "false", "0":
				return enc.EncodeBool(false)
			}
		case json.Number:
			switch b {
			case "1":
				return enc.EncodeBool(true)
			case "0":
				return enc.EncodeBool(false)
			}
		}
	}
	return errUpgrade
}

// encodeNumber writes n as tftypes writes a number (marshalMsgPackNumber):
// an integer if it is one within int64, a float64 if it is one exactly,
// else its decimal text.
func encodeNumber(enc *msgpack.Encoder, n *big.Float) error {
	if n.IsInf() {
		return enc.EncodeFloat64(math.Inf(n.Sign()))
	}
	if iv, acc := n.Int64(); acc == big.Exact {
		return enc.EncodeInt(iv)
	}
	if fv, acc := n.Float64(); acc == big.Exact && !n.IsInt() {
		return enc.EncodeFloat64(fv)
	}
	return enc.EncodeString(n.Text('f', -1))
}
