package protocol

// FrameworkModule is the module whose server this package answers for.
const FrameworkModule = "github.com/hashicorp/terraform-plugin-framework"

// FrameworkVersion is the version of terraform-plugin-framework whose
// answers this package was last checked against, behaviour by behaviour
// (FrameworkBehaviours). TestFrameworkVersionIsTheOneChecked fails when
// go.mod requires another: the upgrade is done when each behaviour has been
// read again in the new version's source, the comparison tests pass and
// this constant names it (DESIGN.md, "Upgrading terraform-plugin-framework").
const FrameworkVersion = "v1.19.0"

// FrameworkBehaviours are what this package does as the framework does, by
// the framework's package and function: what to read again in the source
// of a new version.
var FrameworkBehaviours = []string{
	"fromproto6.DynamicValue and fwschemadata.(*Data).NullifyCollectionBlocks: how configuration, plan and state are decoded (empty lists of blocks made null) — tree.go, values.go",
	"toproto6.DynamicValue and fwschemadata.(*Data).ReifyNullCollectionBlocks: how an answer's values are encoded — values.go",
	"fwserver.(*Server).ValidateResourceConfig and fwserver.SchemaValidate: config validators, ValidateConfig, read-only and required checks, attribute and block validators — validate.go",
	"fwserver.(*Server).ReadResource and fwserver.SchemaSemanticEquality: the refresh, the read after an import (privatestate.ImportBeforeReadKey), the identity checks — read.go",
	"fwserver.(*Server).PlanResourceChange: plans that change nothing and destroys (prior state, private state and identity passed on, no replacement), create and update plans — plan.go, unchanged.go",
	"fwschemadata.(*Data).TransformDefaults: defaults, and which defaults are static (stringdefault.StaticString, int64default.StaticInt64, booldefault.StaticBool) — defaults.go, unchanged.go",
	"fwserver.MarkComputedNilsAsUnknown: computed values left out of the configuration planned unknown — plan.go, values.go",
	"fwserver.SchemaModifyPlan, fwserver.AttributePlanModifyString, fwserver.objectAttributeValue and fwserver.listElemObject: what each plan modifier is given, in which order — modifiers.go",
	"the framework's plan modifiers known to keep an unchanged value (UseStateForUnknown, UseNonNullStateForUnknown, RequiresReplace, RequiresReplaceIf, RequiresReplaceIfConfigured of each *planmodifier package) — unchanged.go (frameworkKeepers)",
	"fwserver.NormaliseRequiresReplace: the paths that require a replacement — plan.go",
	"fwserver.(*Server).ApplyResourceChange, CreateResource, UpdateResource and DeleteResource: the applies, their checks of the new state and identity — apply.go",
	"fwserver.(*Server).UpgradeResourceState: a state at the schema's version read from JSON (tftypes.ValueFromJSONWithOpts), attributes no longer in the schema dropped — upgrade.go",
	"privatestate.NewData and (*privatestate.Data).Bytes: how private state is read and written again — private.go",
	"toproto6.Diagnostics: how diagnostics and their attribute paths are encoded — diags.go",
	"proto6server.registerContext: StopProvider cancels the calls in progress — server.go",
	"the framework's schema: the block counts left out of GetProviderSchema (min_items, max_items) — server.go (setBlockCounts)",
}
