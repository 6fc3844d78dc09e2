package webhook

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/matching"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
)

// The tests of conversion were written against the mutating kind's model;
// these names keep them short.
type (
	resourceModel        = objectModel[mutatingHook]
	metadataModel        = metadata.Model
	ownerReferenceModel  = metadata.OwnerReferenceModel
	selectorModel        = matching.SelectorModel
	matchExpressionModel = matching.MatchExpressionModel
	ruleModel            = matching.RuleModel
	matchConditionModel  = matching.ConditionModel
)

const (
	defaultReinvocationPolicy = string(admissionregistrationv1.NeverReinvocationPolicy)
	defaultScope              = matching.DefaultScope
)
