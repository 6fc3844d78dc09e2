package benchmark

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
)

// The API server writes one audit event (level Metadata) per finished
// request; the harness counts those of each tool between two markers.

// auditPolicy logs every request once, when its response is complete.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: Metadata
`

// AuditFlags are the kube-apiserver flags that write the audit log of
// policyPath to logPath, one JSON event a line, synchronously.
func AuditFlags(policyPath, logPath string) []string {
	return []string{
		"--audit-policy-file=" + policyPath,
		"--audit-log-path=" + logPath,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--audit-log-maxsize=0",
	}
}

// WriteAuditPolicy writes the policy file.
func WriteAuditPolicy(path string) error { return os.WriteFile(path, []byte(auditPolicy), 0o600) }

type auditEvent struct {
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	UserAgent  string `json:"userAgent"`
	ObjectRef  *struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
		Name        string `json:"name"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// Requests counts the requests of one tool in one phase, by kind: for
// mutatingwebhookconfigurations the verb ("get", "patch", "patch (dry-run)",
// "delete", "list", "watch"), for the rest "discovery" (/api, /apis and
// their group versions), "version" (/version), "openapi" (/openapi/...), or
// "other: VERB RESOURCE".
type Requests map[string]int

// Total is the number of requests.
func (r Requests) Total() int {
	n := 0
	for _, v := range r {
		n += v
	}
	return n
}

// Object returns the requests on mutatingwebhookconfigurations.
func (r Requests) Object() int {
	n := 0
	for k, v := range r {
		if !isMeta(k) {
			n += v
		}
	}
	return n
}

// Meta returns the discovery, version and OpenAPI requests.
func (r Requests) Meta() int {
	n := 0
	for k, v := range r {
		if isMeta(k) {
			n += v
		}
	}
	return n
}

func isMeta(kind string) bool {
	return kind == "discovery" || kind == "version" || kind == "openapi" || strings.HasPrefix(kind, "other")
}

// Writes returns the requests that change the object (not dry-run).
func (r Requests) Writes() int {
	return r["patch"] + r["create"] + r["update"] + r["delete"] + r["deletecollection"]
}

// DryRuns returns the dry-run requests.
func (r Requests) DryRuns() int {
	n := 0
	for k, v := range r {
		if strings.HasSuffix(k, "(dry-run)") {
			n += v
		}
	}
	return n
}

// PerObject formats the object requests divided by n, then the meta
// requests as totals: "get 1.00, patch 1.00 | discovery 3".
func (r Requests) PerObject(n int) string {
	var obj, meta []string
	for _, k := range slices.Sorted(maps.Keys(r)) {
		if isMeta(k) {
			meta = append(meta, fmt.Sprintf("%s %d", k, r[k]))
		} else {
			obj = append(obj, fmt.Sprintf("%s %.2f", k, float64(r[k])/float64(n)))
		}
	}
	s := strings.Join(obj, ", ")
	if s == "" {
		s = "none"
	}
	if len(meta) > 0 {
		s += " · total " + strings.Join(meta, ", ")
	}
	return s
}

// classify names the kind of request of an event.
func classify(e auditEvent) string {
	if e.ObjectRef != nil && e.ObjectRef.Resource != "" {
		if e.ObjectRef.Resource != "mutatingwebhookconfigurations" || e.ObjectRef.Subresource != "" {
			return "other: " + e.Verb + " " + e.ObjectRef.Resource
		}
		k := e.Verb
		if u, err := url.Parse(e.RequestURI); err == nil && u.Query().Get("dryRun") != "" {
			k += " (dry-run)"
		}
		return k
	}
	p := e.RequestURI
	if u, err := url.Parse(p); err == nil {
		p = u.Path
	}
	switch {
	case p == "/version":
		return "version"
	case strings.HasPrefix(p, "/openapi"):
		return "openapi"
	case p == "/api" || p == "/apis" || strings.HasPrefix(p, "/api/") || strings.HasPrefix(p, "/apis/"):
		return "discovery"
	}
	return "other: " + e.Verb + " " + p
}

// Agent tells which tool made a request from its User-Agent.
type Agent func(userAgent string) string

// AuditLog reads the audit log as it grows.
type AuditLog struct {
	path   string
	offset int64
}

// NewAuditLog starts reading path at its current end.
func NewAuditLog(path string) (*AuditLog, error) {
	fi, err := os.Stat(path)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	l := &AuditLog{path: path}
	if fi != nil {
		l.offset = fi.Size()
	}
	return l, nil
}

// ReadUntil reads the events written since the last call up to and
// including the request for the object named marker, and counts them by
// agent. found is false when the marker is not in the log yet; the events
// are then not consumed.
func (l *AuditLog) ReadUntil(marker string, agent Agent) (counts map[string]Requests, found bool, err error) {
	f, err := os.Open(l.path)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Seek(l.offset, io.SeekStart); err != nil {
		return nil, false, err
	}
	counts = map[string]Requests{}
	r := bufio.NewReaderSize(f, 1<<20)
	offset := l.offset
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return nil, false, nil // incomplete line or end before the marker
		}
		if err != nil {
			return nil, false, err
		}
		offset += int64(len(line))
		var e auditEvent
		if err := json.Unmarshal(bytes.TrimSpace(line), &e); err != nil {
			return nil, false, fmt.Errorf("audit log %s: %w", l.path, err)
		}
		if e.Stage != "ResponseComplete" {
			continue
		}
		if e.ObjectRef != nil && e.ObjectRef.Name == marker {
			l.offset = offset
			return counts, true, nil
		}
		a := agent(e.UserAgent)
		if a == "" {
			continue
		}
		if counts[a] == nil {
			counts[a] = Requests{}
		}
		counts[a][classify(e)]++
	}
}
