package kube

import (
	"fmt"
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// The clients of the rest of the cluster, for what the plan reads beyond the admission objects
// (the namespaces, params and objects a policy matches): over the client's connection, its
// credentials, TLS settings, user agent and rate limit. Their requests are not retried here:
// the reads at plan are bounded, and a read that fails says what it could not see.

// Clientset is a clientset of the built-in groups, made once.
func (c *Client) Clientset() (kubernetes.Interface, error) {
	l, err := c.liveClients()
	if err != nil {
		return nil, err
	}
	return l.clientset, l.err
}

// Dynamic is a client of any resource, custom resources included, made once.
func (c *Client) Dynamic() (dynamic.Interface, error) {
	l, err := c.liveClients()
	if err != nil {
		return nil, err
	}
	return l.dynamic, l.err
}

type liveClients struct {
	clientset kubernetes.Interface
	dynamic   dynamic.Interface
	err       error
}

// live holds the clients of each Client, made on first use.
var live sync.Map // *Client -> func() liveClients

func (c *Client) liveClients() (liveClients, error) {
	if c.notReady != nil {
		return liveClients{}, c.notReady
	}
	if c.rest == nil {
		return liveClients{}, fmt.Errorf("%w: no connection", ErrNotReady)
	}
	once, _ := live.LoadOrStore(c, sync.OnceValue(func() liveClients {
		cs, err := kubernetes.NewForConfig(c.rest)
		if err != nil {
			return liveClients{err: err}
		}
		dc, err := dynamic.NewForConfig(c.rest)
		return liveClients{clientset: cs, dynamic: dc, err: err}
	}))
	return once.(func() liveClients)(), nil
}
