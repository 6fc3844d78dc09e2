package faultproxy

import (
	"net/http"
	"strings"
)

// Count is the number of records that match.
func Count(rs []Record, match func(Record) bool) int {
	n := 0
	for _, r := range rs {
		if match(r) {
			n++
		}
	}
	return n
}

// IsGet matches a read.
func IsGet(r Record) bool { return r.Method == http.MethodGet }

// IsDryRun matches a dry run.
func IsDryRun(r Record) bool { return strings.Contains(r.Query, "dryRun") }

// IsWrite matches a request that changes the cluster: neither a read nor a
// dry run.
func IsWrite(r Record) bool { return r.Method != http.MethodGet && !IsDryRun(r) }
