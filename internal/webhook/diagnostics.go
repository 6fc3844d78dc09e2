package webhook

import (
	"regexp"
	"strings"
)

// Both our own checks and the server's rejections speak Kubernetes field
// paths; these functions put them on the attribute the user must change.

// The server's words for a few mistakes name what this schema does not have
// (generateName) or leave out what to write; inOurWords puts them in the
// words of this provider's schema. The API field stays beside them.
var ourWords = []struct {
	field  *regexp.Regexp // the API field path
	server string         // the server's words
	ours   string
}{
	{regexp.MustCompile(`^metadata\.name$`), "name or generateName is required", "name is required"},
	{regexp.MustCompile(`^webhooks\[\d+\]\.clientConfig$`), "exactly one of url or service is required",
		"exactly one of url and a service block must be set"},
	{regexp.MustCompile(`\.matchExpressions\[\d+\]\.operator$`), "not a valid selector operator",
		"not a valid selector operator: one of In, NotIn, Exists, DoesNotExist"},
}

func inOurWords(apiPath, message string) string {
	for _, w := range ourWords {
		if w.field.MatchString(apiPath) && strings.Contains(message, w.server) {
			return strings.Replace(message, w.server, w.ours, 1)
		}
	}
	return message
}
