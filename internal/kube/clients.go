package kube

import (
	"fmt"
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// others are the clients of the APIs beyond admissionregistration.k8s.io, made once, on first
// use.
type others struct {
	once    sync.Once
	typed   kubernetes.Interface
	dynamic dynamic.Interface
	err     error
}

// Clientset is client-go's typed client of the built-in APIs over the client's connection (its
// credentials, TLS settings, user agent and rate limit), for what the checks at plan read beyond
// the admission objects (Services, EndpointSlices, namespaces: internal/live). It makes no
// request itself. Unlike the client's own calls, client-go may repeat a request the server
// answered with Retry-After, within the request's context: give every call a deadline.
func (c *Client) Clientset() (kubernetes.Interface, error) {
	if err := c.makeOthers(); err != nil {
		return nil, err
	}
	return c.others.typed, nil
}

// Dynamic is client-go's dynamic client over the client's connection, for objects of any
// resource, custom resources included (a policy's params, the objects a policy matches). As
// for Clientset, give every call a deadline.
func (c *Client) Dynamic() (dynamic.Interface, error) {
	if err := c.makeOthers(); err != nil {
		return nil, err
	}
	return c.others.dynamic, nil
}

func (c *Client) makeOthers() error {
	if c.notReady != nil {
		return c.notReady
	}
	if c.rest == nil {
		return fmt.Errorf("%w: no connection", ErrNotReady)
	}
	c.others.once.Do(func() {
		// One HTTP client for both, so that they share connections.
		hc, err := rest.HTTPClientFor(c.rest)
		if err != nil {
			c.others.err = err
			return
		}
		if c.others.typed, err = kubernetes.NewForConfigAndClient(c.rest, hc); err != nil {
			c.others.err = err
			return
		}
		c.others.dynamic, c.others.err = dynamic.NewForConfigAndClient(c.rest, hc)
	})
	return c.others.err
}
