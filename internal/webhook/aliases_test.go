package webhook

import (
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matchblocks"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/object"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
)

// The tests of conversion were written against the mutating kind's model;
// these names keep them short.
type (
	resourceModel        = objectModel[mutatingHook]
	metadataModel        = metadata.Model
	ownerReferenceModel  = metadata.OwnerReferenceModel
	selectorModel        = matchblocks.SelectorModel
	matchExpressionModel = matchblocks.MatchExpressionModel
	ruleModel            = matchblocks.RuleModel
	matchConditionModel  = matchblocks.ConditionModel
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
func resourceOf[H hook](k *object.Description[objectModel[H], configuration]) *object.Resource[objectModel[H], configuration] {
	r, _ := object.NewResource(k)().(*object.Resource[objectModel[H], configuration]) // what NewResource makes
	return r
}

// expand is the mutating kind's expansion of m.
func expand(m resourceModel) object.Expansion[configuration] { return mutating.ExpandModel(&m) }

// header is the id and metadata of a model.
func header(id types.String, meta ...metadataModel) object.Header {
	return object.Header{ID: id, Metadata: meta}
}

// convertJSON turns one form of an object into another through their JSON.
func convertJSON(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, to)
}
