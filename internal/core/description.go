package core

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/apipath"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/kube"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/live"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/metadata"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/tfconv"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/validation"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/warning"
)

// Description is what one kind of object is to the provider: everything
// its resource, its two data sources and its list resource need to know
// beyond what they share (Resource, DataSource, ListDataSource,
// ListResource). M is the model of one object (see Model), T the API type
// the kind's family holds its objects in.
//
// A family's kind is one such value; the family writes what its kinds share
// (blocks, conversions) once, beside them.
type Description[M Model, T any] struct {
	// TypeName follows the provider's name in the type names of the resource,
	// the data source and the list resource: "mutating_webhook_configuration".
	// The list data source is its plural.
	TypeName string
	// API is the kind's API: its names and the calls on its objects.
	API API[T]
	// Description describes the resource, GenerationDoc says what changes the
	// object's generation ("the webhooks").
	Description, GenerationDoc string
	// Schema is the kind's attributes and blocks beside id and metadata.
	Schema func() (map[string]schema.Attribute, map[string]schema.Block)
	// Renames are the API field names that the schema names otherwise
	// ("webhooks": "webhook"), for the path mapper (apipath.New).
	Renames map[string]string
	// ImportExample and SelectorExample are a name and a label selector to
	// show in the documentation and errors.
	ImportExample, SelectorExample string

	// Meta is the metadata of an object.
	Meta func(*T) *metav1.ObjectMeta
	// Expand sets obj from m, all but the metadata, recording on x the API
	// paths of the values not known yet.
	Expand func(x *tfconv.Expander, m *M, obj *T)
	// Flatten is the model of obj, whose id and metadata are h. prior, when
	// not nil, is the state or plan the object is read for: it keeps the shape
	// the user wrote where the API cannot tell two forms apart (an empty
	// block and none) and limits what Terraform manages to what it wrote.
	Flatten func(h Header, obj *T, prior *M) M

	// Imported, when set, completes the model that the read after an
	// import makes of obj (FlattenObject with no prior state) with what obj
	// says of the configuration it was made from: a value the server stores
	// as none, read in that configuration's spelling where a configuration
	// that leaves the value out plans no change either (a ca_bundle that the
	// configuration kubectl apply last applied spells as "").
	Imported func(obj *T, m *M)

	// Default is the object with the server's defaults (internal/validation),
	// which the checks and the advice judge; nil when the kind has none.
	Default func(*T) *T
	// Check is the server's validation of a create of obj (old nil) or of an
	// update of old to obj, both defaulted, at each version
	// (internal/validation).
	Check func(obj, old *T) validation.Check
	// Advise is the advice the plan gives on obj (defaulted), beyond the
	// server's rules: what the server accepts but will hurt. It may use the
	// cluster when env has a client. Nil for none.
	Advise func(ctx context.Context, env PlanEnv, obj *T) []warning.Warning

	// BeforeWrite, when set, runs before a create (stored nil) or an update
	// writes obj, the planned object with the server's defaults, within the
	// write's timeout, with c: what the write must wait for. plan is the
	// planned model; stored is the object the state holds, with its defaults.
	// An error stops the write.
	BeforeWrite func(ctx context.Context, c *kube.Client, plan *M, obj, stored *T) diag.Diagnostics

	// AfterWrite, when set, runs after a create or an update wrote obj (what the
	// server stored; its state is saved already), within the write's timeout,
	// with c: what the apply must wait for before it returns. Its diagnostics
	// are the apply's; an error fails the apply with the object written.
	AfterWrite func(ctx context.Context, c *kube.Client, obj *T) diag.Diagnostics

	// Fields that other controllers may write, for kinds that have such
	// fields (a webhook's caBundle, which cert-manager injects). Both nil for
	// the other kinds.
	//
	// LeaveToOthers drops from the plan of a write what the configuration
	// cfg leaves out and others own, so that the apply leaves it to them.
	LeaveToOthers func(plan *M, cfg *M)
	// Ownership is what the resource keeps beside the state about those
	// fields, in its private state under key, which the schema's plan
	// modifiers read.
	Ownership func(cfg *M) (key string, value any)

	// StateMovers, when set, are the resource's state movers: the resources
	// of other providers whose state moves to this one with a `moved` block
	// (resource.ResourceWithMoveState). write sets a state from an API object
	// as an import reads it (no prior state), for movers that read the source
	// state as the object it describes.
	StateMovers func(ctx context.Context, write StateWriter[T]) []resource.StateMover

	init    sync.Once
	paths   func() *apipath.Mapper
	report  Reporter
	schemas struct{ resource, dataSource, listDataSource, form schemaTypes }
}

// PlanEnv is what advice at plan may use: the provider's client when the
// cluster can be reached, nil otherwise.
type PlanEnv struct {
	Client *kube.Client
	// Unknown are the API paths of the planned object whose values are not
	// known yet (Expansion.Unknown): the object has zero values there.
	Unknown []*field.Path
	// Version is the version of the API server the checks are for
	// (ClientHolder.KubernetesVersion), asked only when called; the zero
	// Version when it is not known. Nil is not known either.
	Version func() validation.Version
	// Plan is the planned model (a *M of the kind), for advice that weighs
	// the resource's own settings; Stored is the object the server stores,
	// with its defaults (a *T), nil on a create.
	Plan, Stored any
	// Provider is the provider's client also when it cannot make requests
	// (Client is then nil): its settings (kube.Options), and the key of what
	// a check keeps for the rest of the run (PerClient). Nil without a
	// configured provider.
	Provider *kube.Client
}

// Settings are the provider's settings, the zero Options without a
// configured provider.
func (e PlanEnv) Settings() kube.Options {
	if e.Provider == nil {
		return kube.Options{}
	}
	return e.Provider.Options
}

// readers are the bounded readers of the provider's clients (PlanEnv.Live).
var readers PerClient[*live.Reader]

// Live is the bounded reader of the plan's cluster (internal/live), one per
// provider client, so that what a check could not read is said once per
// run; nil without a cluster.
func (e PlanEnv) Live() *live.Reader {
	if e.Client == nil {
		return nil
	}
	return readers.Get(e.Client, func() (*live.Reader, bool) {
		r, err := live.For(e.Client, live.Limits{})
		return r, err == nil
	})
}

// ServerVersion is Version's answer, the zero Version when there is none.
func (e PlanEnv) ServerVersion() validation.Version {
	if e.Version == nil {
		return validation.Version{}
	}
	return e.Version()
}

// PerClient holds one value per provider client, made on first use: what advice at plan keeps
// of a cluster (its resource scopes, its type checker) for the next plans with that client.
// The zero value is ready; it is safe for concurrent use.
type PerClient[V any] struct {
	mu     sync.Mutex
	values map[*kube.Client]V
}

// Get is c's value, made by make the first time c asks; a value make says not to keep (a
// fallback while the cluster cannot be reached) is made again the next time.
func (p *PerClient[V]) Get(c *kube.Client, make func() (v V, keep bool)) V {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.values[c]; ok {
		return v
	}
	v, keep := make()
	if !keep {
		return v
	}
	if p.values == nil {
		p.values = map[*kube.Client]V{}
	}
	p.values[c] = v
	return v
}

// UnknownUnder reports whether a value at or under the API path prefix is
// not known yet, leaving out unknown paths that end in one of ignore: advice
// that weighs a whole part of the object (what a webhook intercepts) says
// nothing while a part it weighs is not known.
func (e PlanEnv) UnknownUnder(prefix string, ignore ...string) bool {
	for _, u := range e.Unknown {
		us := u.String()
		if us != prefix && !hasPathPrefix(us, prefix) {
			continue
		}
		if !slices.ContainsFunc(ignore, func(suffix string) bool { return strings.HasSuffix(us, suffix) }) {
			return true
		}
	}
	return false
}

// StateWriter sets state from the API object obj, as the refresh after an
// import reads it: with no prior state, and a null timeouts block.
type StateWriter[T any] func(ctx context.Context, obj *T, state *tfsdk.State) diag.Diagnostics

// Header is the part of every model that all kinds share: the object's id
// and its metadata block. A Model embeds it.
type Header struct {
	ID       types.String     `tfsdk:"id"`
	Metadata []metadata.Model `tfsdk:"metadata"`
}

// Model is the model of one object of a kind: a struct that embeds Header
// and has a field per other attribute and block of the resource's schema
// (the timeouts block aside), with blocks as slices.
type Model interface{ header() Header }

func (h Header) header() Header { return h }

// Name is the object's name: its id, or the name in its metadata.
func (h Header) Name() string {
	if n := h.ID.ValueString(); n != "" {
		return n
	}
	if len(h.Metadata) > 0 {
		return h.Metadata[0].Name.ValueString()
	}
	return ""
}

// ready completes d on first use: the path mapper, derived from its schema
// and API type, and the reporter of its diagnostics.
func (d *Description[M, T]) ready() *Description[M, T] {
	d.init.Do(func() {
		d.paths = sync.OnceValue(func() *apipath.Mapper {
			return apipath.New(d.ResourceSchema(), reflect.TypeFor[T](), d.Renames)
		})
		d.report = Reporter{Kind: d.API.Kind, Resource: d.API.Resource, TypeName: d.TypeName, Paths: d.paths, Words: apipath.InOurWords}
	})
	return d
}

// Paths is the mapping of the kind's API field paths to attribute paths.
func (d *Description[M, T]) Paths() *apipath.Mapper { return d.ready().paths() }

// Report reports the kind's diagnostics.
func (d *Description[M, T]) Report() Reporter { return d.ready().report }

// ResourceSchema is the resource's schema without the timeouts block: id,
// the metadata block, and the kind's own attributes and blocks.
func (d *Description[M, T]) ResourceSchema() schema.Schema {
	attrs, blocks := d.Schema()
	s := schema.Schema{
		MarkdownDescription: d.Description,
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The object's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		},
		Blocks: map[string]schema.Block{"metadata": metadata.Block(d.GenerationDoc)},
	}
	maps.Copy(s.Attributes, attrs)
	maps.Copy(s.Blocks, blocks)
	return s
}

// Expansion is a model turned into an API object. Unknown holds the API
// paths whose values are not known yet (during plan); the object carries
// zero values there.
type Expansion[T any] struct {
	Object  *T
	Unknown []*field.Path
}

// UnknownAt reports whether the API path p is, contains, or lies under an
// unknown value: a check at such a path would judge a value we do not have.
func (e *Expansion[T]) UnknownAt(p string) bool {
	for _, u := range e.Unknown {
		us := u.String()
		if us == p || hasPathPrefix(p, us) || hasPathPrefix(us, p) {
			return true
		}
	}
	return false
}

// hasPathPrefix reports whether the API path p lies under prefix.
func hasPathPrefix(p, prefix string) bool {
	return len(p) > len(prefix) && p[:len(prefix)] == prefix && (p[len(prefix)] == '.' || p[len(prefix)] == '[')
}

// ExpandModel turns a model (a plan, state or configuration) into an API
// object.
func (d *Description[M, T]) ExpandModel(m *M) Expansion[T] {
	x := &tfconv.Expander{}
	obj := new(T)
	if h := (*m).header(); len(h.Metadata) > 0 {
		*d.Meta(obj) = metadata.Expand(x, h.Metadata[0], field.NewPath("metadata"))
	}
	d.Expand(x, m, obj)
	return Expansion[T]{Object: obj, Unknown: x.Unknown}
}

// FlattenObject turns an API object into a model; prior as for Flatten.
func (d *Description[M, T]) FlattenObject(obj *T, prior *M) M {
	var pm *metadata.Model
	if prior != nil {
		if h := (*prior).header(); len(h.Metadata) > 0 {
			pm = &h.Metadata[0]
		}
	}
	meta := d.Meta(obj)
	h := Header{ID: types.StringValue(meta.Name), Metadata: []metadata.Model{metadata.Flatten(*meta, pm)}}
	return d.Flatten(h, obj, prior)
}

// FlattenStored turns an API object into a model with every label and
// annotation the object has (metadata.FlattenStored), as a data source reads
// it.
func (d *Description[M, T]) FlattenStored(obj *T) M {
	meta := d.Meta(obj)
	h := Header{ID: types.StringValue(meta.Name), Metadata: []metadata.Model{metadata.FlattenStored(*meta)}}
	return d.Flatten(h, obj, nil)
}

// defaulted is obj with the server's defaults.
func (d *Description[M, T]) defaulted(obj *T) *T {
	if d.Default == nil || obj == nil {
		return obj
	}
	return d.Default(obj)
}

// API is a kind's API as the resources reach it: its names and the calls
// on its objects.
type API[T any] struct {
	// Kind is the API kind, such as "ValidatingAdmissionPolicy"; Resource its
	// plural resource name, as RBAC rules name it.
	Kind, Resource string
	// Objects are the calls on its objects through a client.
	Objects func(*kube.Client) Objects[T]
}

// Objects are the calls on the objects of one kind, with the objects in
// the form T that the kind's family holds them in.
type Objects[T any] interface {
	// Get reads one object; a missing object is (nil, nil).
	Get(ctx context.Context, name string) (*T, error)
	// List lists the objects matching a label selector.
	List(ctx context.Context, labelSelector string) ([]T, error)
	// Apply writes obj with server-side apply (see kube.Objects.Apply).
	Apply(ctx context.Context, obj *T, dryRun, force bool) (*T, error)
	// Delete deletes an object and waits until it is gone; a missing
	// object is not an error.
	Delete(ctx context.Context, name string) error
}

// KubeAPI is the API of the kube client's kind k with its objects in the
// form T: the kind's own type, or one with the same JSON that a family
// holds several kinds in (a ValidatingWebhookConfiguration as a
// MutatingWebhookConfiguration whose webhooks have no reinvocationPolicy).
func KubeAPI[T, O, L, AC any](k kube.Kind[O, L, AC]) API[T] {
	return API[T]{
		Kind:     k.Name,
		Resource: k.Resource,
		Objects:  func(c *kube.Client) Objects[T] { return kubeObjects[T, O, L, AC]{kube.For(c, k), k.Name} },
	}
}

// kubeObjects are the calls of the kube client on objects of type O, with
// the objects converted to and from T.
type kubeObjects[T, O, L, AC any] struct {
	typed kube.Objects[O, L, AC]
	kind  string
}

func (o kubeObjects[T, O, L, AC]) Get(ctx context.Context, name string) (*T, error) {
	obj, err := o.typed.Get(ctx, name)
	if err != nil || obj == nil {
		return nil, err
	}
	return As[T](obj)
}

func (o kubeObjects[T, O, L, AC]) List(ctx context.Context, labelSelector string) ([]T, error) {
	items, err := o.typed.List(ctx, labelSelector)
	if err != nil {
		return nil, err
	}
	if same, ok := any(items).([]T); ok {
		return same, nil
	}
	out := make([]T, len(items))
	for i := range items {
		c, err := As[T](&items[i])
		if err != nil {
			return nil, err
		}
		out[i] = *c
	}
	return out, nil
}

func (o kubeObjects[T, O, L, AC]) Apply(ctx context.Context, obj *T, dryRun, force bool) (*T, error) {
	ac, err := ApplyConfiguration[AC](obj, o.kind)
	if err != nil {
		return nil, err
	}
	stored, err := o.typed.Apply(ctx, ac, dryRun, force)
	if err != nil {
		return nil, err
	}
	return As[T](stored)
}

func (o kubeObjects[T, O, L, AC]) Delete(ctx context.Context, name string) error {
	return o.typed.Delete(ctx, name)
}

// ApplyConfiguration is the apply configuration of obj as an object of the
// kind kind: exactly the fields that are set. An object and its apply
// configuration have the same JSON; the object's apiVersion and kind, empty
// in the objects the provider makes, are put in front.
func ApplyConfiguration[AC, T any](obj *T, kind string) (*AC, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	typeMeta := `{"apiVersion":"` + admissionregistrationv1.SchemeGroupVersion.String() + `","kind":` + strconv.Quote(kind)
	if len(data) > 2 { // more than {}
		typeMeta += ","
	}
	ac := new(AC)
	return ac, json.Unmarshal(append([]byte(typeMeta), data[1:]...), ac)
}

// As is obj in the form T, through their JSON; obj itself when it is a T.
func As[T, O any](obj *O) (*T, error) {
	if same, ok := any(obj).(*T); ok {
		return same, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	out := new(T)
	return out, json.Unmarshal(data, out)
}
