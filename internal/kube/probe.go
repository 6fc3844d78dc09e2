package kube

import (
	"context"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// DynamicWithWarnings is a dynamic client over the client's connection, as Dynamic, whose
// requests hand each warning of the server's answers (the Warning headers: a Warn action of
// an admission policy) to warn, with the request's context. It makes no request itself.
func (c *Client) DynamicWithWarnings(warn func(ctx context.Context, text string)) (dynamic.Interface, error) {
	if err := c.makeOthers(); err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(c.rest)
	cfg.WarningHandler = nil
	cfg.WarningHandlerWithContext = warningFunc(warn)
	return dynamic.NewForConfig(cfg)
}

// warningFunc is a rest.WarningHandlerWithContext.
type warningFunc func(ctx context.Context, text string)

func (f warningFunc) HandleWarningHeaderWithContext(ctx context.Context, code int, _ string, text string) {
	if code == 299 {
		f(ctx, text)
	}
}
