package apipath

import (
	"regexp"
	"strings"
)

// The server's words for a few mistakes name what the provider's schemas do not have
// (generateName), leave out what to write, or do not say what to change; InOurWords puts them
// in the words of the schemas, for every kind. The API field stays beside them
// (core.Reporter.At).
var ourWords = []struct {
	field  *regexp.Regexp // the API field path
	server string         // the server's words
	ours   string         // what replaces them
	hint   string         // or what is added after the message
}{
	{field: regexp.MustCompile(`^metadata\.name$`), server: "name or generateName is required", ours: "name is required"},
	{field: regexp.MustCompile(`^webhooks\[\d+\]\.clientConfig$`), server: "exactly one of url or service is required",
		ours: "set one of url or a service block"},
	{field: regexp.MustCompile(`\.matchExpressions\[\d+\]\.operator$`), server: "not a valid selector operator",
		ours: "not a valid selector operator: one of In, NotIn, Exists, DoesNotExist"},
	// The compiler declares params only for a policy with a paramKind (k8s.io/apiserver
	// pkg/admission/plugin/cel createEnvForOpts, HasParams).
	{field: regexp.MustCompile(`^spec\.`), server: "undeclared reference to 'params'",
		hint: "params is declared only in a policy with a param_kind: add a param_kind block " +
			"that names the kind of the parameter resources (and a param_ref to the binding), or do not read params."},
}

// InOurWords is message, the server's about the API field apiPath (its error or warning, or a
// check's in the server's words), in the words of the provider's schemas: the one place that
// rewrites what the server says. Applied twice it changes nothing more.
func InOurWords(apiPath, message string) string {
	for _, w := range ourWords {
		if !w.field.MatchString(apiPath) || !strings.Contains(message, w.server) {
			continue
		}
		switch {
		case w.hint != "" && strings.Contains(message, w.hint), w.hint == "" && strings.Contains(message, w.ours):
			return message // already in our words
		case w.hint != "":
			return message + "\n\n" + w.hint
		}
		return strings.Replace(message, w.server, w.ours, 1)
	}
	return message
}
