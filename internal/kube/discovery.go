package kube

import (
	"fmt"

	"k8s.io/client-go/discovery"
)

// Discovery returns a discovery client (API groups and resources, OpenAPI v3 documents) over
// the client's connection: its credentials, TLS settings, user agent and rate limit. Like every
// request of the client, its requests are not retried by client-go. It makes no request itself.
func (c *Client) Discovery() (discovery.DiscoveryInterface, error) {
	if c.notReady != nil {
		return nil, c.notReady
	}
	if c.api == nil {
		return nil, fmt.Errorf("%w: no connection", ErrNotReady)
	}
	// The discovery client asks for absolute paths (/api, /apis, /openapi/v3) and decodes the
	// answers itself, so the REST client of any group of the same server serves it.
	return discovery.NewDiscoveryClient(c.api.RESTClient()), nil
}
