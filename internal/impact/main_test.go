package impact_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
)

// auditLog is the audit log of the control plane: the Audit action's verdicts are only there.
var auditLog string

// auditPolicy records every write at Metadata, which carries the annotations the Audit action
// writes (k8s.io/apiserver pkg/admission/plugin/policy/validating: validation_failure).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  verbs: ["update"]
- level: None
`

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "impact-audit-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	policy := filepath.Join(dir, "policy.yaml")
	auditLog = filepath.Join(dir, "audit.log")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	acctest.MainWith(m, controlplane.Options{ExtraAPIServerFlags: []string{
		"--audit-policy-file=" + policy, "--audit-log-path=" + auditLog, "--audit-log-format=json", "--audit-log-mode=blocking", "--audit-log-maxsize=0",
	}})
}
