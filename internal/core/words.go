package core

import (
	"regexp"
	"strings"
)

// The server's words for a few mistakes name what the provider's schemas do
// not have (generateName) or leave out what to write; InOurWords puts them
// in the words of the schemas, for every kind. The API field stays beside
// them (Reporter.At).
var ourWords = []struct {
	field  *regexp.Regexp // the API field path
	server string         // the server's words
	ours   string
}{
	{regexp.MustCompile(`^metadata\.name$`), "name or generateName is required", "name is required"},
	{regexp.MustCompile(`^webhooks\[\d+\]\.clientConfig$`), "exactly one of url or service is required",
		"set one of url or a service block"},
	{regexp.MustCompile(`\.matchExpressions\[\d+\]\.operator$`), "not a valid selector operator",
		"not a valid selector operator: one of In, NotIn, Exists, DoesNotExist"},
}

// InOurWords is message, the server's about the API field apiPath, in the
// words of the provider's schemas.
func InOurWords(apiPath, message string) string {
	for _, w := range ourWords {
		if w.field.MatchString(apiPath) && strings.Contains(message, w.server) {
			return strings.Replace(message, w.server, w.ours, 1)
		}
	}
	return message
}
