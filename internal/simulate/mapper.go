package simulate

import (
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi"
)

func builtinMapper() (meta.RESTMapper, error) { return builtinapi.RESTMapper() }
