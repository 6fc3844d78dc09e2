package webhook

import (
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/core"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/matchschema"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The tests of conversion were written against the mutating kind's model;
// these names keep them short.
type (
	resourceModel        = objectModel[mutatingHook]
	metadataModel        = metadata.Model
	ownerReferenceModel  = metadata.OwnerReferenceModel
	selectorModel        = matchschema.SelectorModel
	matchExpressionModel = matchschema.MatchExpressionModel
	ruleModel            = matchschema.RuleModel
	matchConditionModel  = matchschema.ConditionModel
)

// The server's defaults, as the schema shows them (internal/validation names them once).
const (
	defaultFailurePolicy      = string(validation.DefaultFailurePolicy)
	defaultMatchPolicy        = string(validation.DefaultMatchPolicy)
	defaultReinvocationPolicy = string(validation.DefaultReinvocationPolicy)
	defaultScope              = string(validation.DefaultScope)
	defaultTimeoutSeconds     = int64(validation.DefaultTimeoutSeconds)
	defaultServicePort        = int64(validation.DefaultServicePort)
)

// resourceState is the resource's whole value, as the framework's
// State.Get and State.Set take it: the object and the timeouts block.
type resourceState[H hook] struct {
	objectModel[H]
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

// resourceOf is the resource of the kind k.
func resourceOf[H hook](k *core.Description[objectModel[H], configuration]) *core.Resource[objectModel[H], configuration] {
	r, _ := core.NewResource(k)().(*core.Resource[objectModel[H], configuration]) // what NewResource makes
	return r
}

// expand is the mutating kind's expansion of m.
func expand(m resourceModel) core.Expansion[configuration] { return mutating.ExpandModel(&m) }

// header is the id and metadata of a model.
func header(id types.String, meta ...metadataModel) core.Header {
	return core.Header{ID: id, Metadata: meta}
}

// convertJSON turns one form of an object into another through their JSON.
func convertJSON(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, to)
}
