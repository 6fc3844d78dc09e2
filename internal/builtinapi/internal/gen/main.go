// Command gen writes the snapshot of the built-in API that package builtinapi embeds: it starts
// the local control plane of the acceptance tests (etcd and kube-apiserver on 127.0.0.1, with
// every built-in group version served) and takes the snapshot from it.
//
//	go generate ./internal/builtinapi
//
// The binaries are those of ADMISSION_KUBE_APISERVER and ADMISSION_ETCD, else those that
// tools/bin.sh builds and caches.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/discovery"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/builtinapi/snapshot"
)

func main() {
	out := flag.String("o", "builtin.json.gz", "write the snapshot here")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func run(out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{ExtraAPIServerFlags: snapshot.APIServerFlags})
	if err != nil {
		return err
	}
	defer func() { _ = cp.Stop() }()
	dc, err := discovery.NewDiscoveryClientForConfig(cp.RESTConfig())
	if err != nil {
		return err
	}
	snap, err := snapshot.Take(dc)
	if err != nil {
		return err
	}
	data, err := snap.Encode()
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, data, 0o644); err != nil {
		return err
	}
	fmt.Printf("gen: %s: kube-apiserver %s, %d groups, %d schemas, %d bytes\n",
		out, snap.ServerVersion, len(snap.Groups), len(snap.Schemas), len(data))
	return nil
}
