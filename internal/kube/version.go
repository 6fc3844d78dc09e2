package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/version"
)

// serverVersion is the version of the API server, asked for once per client.
type serverVersion struct {
	once sync.Once
	info *version.Info
	err  error
}

// ServerVersion returns what the API server's /version reports (gitVersion such as
// "v1.33.2", major "1", minor "33"). The first call makes the request, with ctx; every later
// call, on any goroutine, returns its answer, a failure included: a plan of many objects
// against a cluster it cannot reach waits for one request, not one per object.
func (c *Client) ServerVersion(ctx context.Context) (*version.Info, error) {
	if c.notReady != nil {
		return nil, c.notReady
	}
	if c.api == nil {
		return nil, fmt.Errorf("%w: no connection", ErrNotReady)
	}
	c.version.once.Do(func() {
		c.version.info, c.version.err = c.getVersion(ctx)
	})
	return c.version.info, c.version.err
}

// getVersion makes the request, once and without retries: the version only
// sharpens the checks at plan, which go on without it.
func (c *Client) getVersion(ctx context.Context) (*version.Info, error) {
	var info version.Info
	body, err := c.api.RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err == nil {
		err = json.Unmarshal(body, &info)
	}
	if err != nil {
		return nil, fmt.Errorf("asking the API server for its version: %w", err)
	}
	return &info, nil
}
