// Command localcluster runs the local Kubernetes control plane (etcd and
// kube-apiserver on 127.0.0.1) of the acceptance tests until it is told to
// stop, for `make demo` and for trying the provider by hand.
//
//	go run ./internal/acctest/controlplane/cmd/localcluster -kubeconfig /tmp/kubeconfig
//
// It writes the kubeconfig (and with -env, a shell file of KUBE_* variables),
// prints how to reach the server, and stops it cleanly on SIGINT or SIGTERM,
// or at the end of its standard input with -stdin.
//
// With -get RESOURCE/NAME (or -get RESOURCE for all of them) it instead
// prints objects of a running cluster as YAML, using -kubeconfig to reach it,
// and exits:
//
//	localcluster -kubeconfig /tmp/kubeconfig -get mutatingwebhookconfigurations/demo
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/acctest/controlplane"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "write a copy of the kubeconfig here (with -get: the kubeconfig to use)")
	envFile := flag.String("env", "", "write a shell file of KUBE_* variables here")
	stdin := flag.Bool("stdin", false, "also stop at the end of standard input")
	verbose := flag.Bool("v", false, "show the output of etcd and kube-apiserver")
	get := flag.String("get", "", "print the object RESOURCE/NAME (e.g. mutatingwebhookconfigurations/demo), or all objects of RESOURCE, of a running cluster as YAML and exit")
	showManaged := flag.Bool("show-managed-fields", false, "with -get: keep metadata.managedFields")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "localcluster: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}

	var err error
	if *get != "" {
		err = getObject(*kubeconfig, *get, *showManaged)
	} else {
		err = run(*kubeconfig, *envFile, *stdin, *verbose)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "localcluster: %v\n", err)
		os.Exit(1)
	}
}

func run(kubeconfig, envFile string, stdin, verbose bool) error {
	// Take the signals before starting, so that one that comes during the
	// start still stops the cluster cleanly.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
		}
	}()

	var log io.Writer = progressOnly{os.Stderr}
	if verbose {
		log = os.Stderr
	}
	began := time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{Log: log, NoSignalHandler: true})
	if err != nil {
		return err
	}
	defer func() { _ = cp.Stop() }()
	elapsed := time.Since(began)

	var written []writtenFile
	defer func() {
		for _, f := range written {
			f.removeIfUnchanged()
		}
	}()
	kubeconfigPath := cp.KubeconfigPath
	if kubeconfig != "" {
		data, err := os.ReadFile(cp.KubeconfigPath)
		if err != nil {
			return err
		}
		f, err := writeAtomic(kubeconfig, data)
		if err != nil {
			return err
		}
		written = append(written, f)
		kubeconfigPath = f.path
	}
	if envFile != "" {
		f, err := writeAtomic(envFile, []byte(envText(cp, kubeconfigPath)))
		if err != nil {
			return err
		}
		written = append(written, f)
	}

	fmt.Printf(`Local Kubernetes control plane ready in %s (pid %d).
  server:      %s
  kubeconfig:  %s   (contexts admin-cert, admin-token, reader, writer, nobody)
  try:         KUBECONFIG=%s kubectl get mutatingwebhookconfigurations
  provider:    KUBE_CONFIG_PATH=%s terraform apply
  stop:        kill -INT %d   (or Ctrl-C)
`, elapsed.Round(100*time.Millisecond), os.Getpid(), cp.Host, kubeconfigPath, kubeconfigPath, kubeconfigPath, os.Getpid())

	if stdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			cancel()
		}()
	}
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "localcluster: stopping")
	err = cp.Stop()
	for _, f := range written {
		f.removeIfUnchanged()
	}
	written = nil
	return err
}

// progressOnly passes on the control plane's own messages and those of the
// builds, not the output of etcd and kube-apiserver.
type progressOnly struct{ w io.Writer }

func (p progressOnly) Write(b []byte) (int, error) {
	s := string(b)
	if strings.HasPrefix(s, "[etcd] ") || strings.HasPrefix(s, "[kube-apiserver] ") {
		return len(b), nil
	}
	return p.w.Write(b)
}

type writtenFile struct {
	path string
	data []byte
}

// removeIfUnchanged removes a file this program wrote, as it points to a
// server that is gone, unless someone has changed it since.
func (f writtenFile) removeIfUnchanged() {
	if data, err := os.ReadFile(f.path); err == nil && string(data) == string(f.data) {
		_ = os.Remove(f.path)
	}
}

// writeAtomic writes the file through a temporary file and a rename, so a
// reader that waits for the file never sees half of it.
func writeAtomic(path string, data []byte) (writtenFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return writtenFile{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".tmp*")
	if err != nil {
		return writtenFile{}, err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return writtenFile{}, err
	}
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return writtenFile{}, err
	}
	if err := tmp.Close(); err != nil {
		return writtenFile{}, err
	}
	if err := os.Rename(tmp.Name(), abs); err != nil {
		return writtenFile{}, err
	}
	return writtenFile{path: abs, data: data}, nil
}

// envText is a shell file of the variables that the provider (like
// hashicorp/kubernetes) reads, and a few more for tests and scripts.
func envText(cp *controlplane.ControlPlane, kubeconfig string) string {
	vars := map[string]string{
		"KUBE_CONFIG_PATH":           kubeconfig,
		"KUBE_HOST":                  cp.Host,
		"KUBE_CLUSTER_CA_CERT_DATA":  string(cp.CAPEM),
		"KUBE_CLIENT_CERT_DATA":      string(cp.AdminCertPEM),
		"KUBE_CLIENT_KEY_DATA":       string(cp.AdminKeyPEM),
		"KUBE_TOKEN":                 cp.AdminToken,
		"ADMISSION_READER_TOKEN":     cp.UserToken("reader"),
		"ADMISSION_WRITER_TOKEN":     cp.UserToken("writer"),
		"ADMISSION_NOBODY_TOKEN":     cp.UserToken("nobody"),
		"ADMISSION_LOCALCLUSTER_PID": fmt.Sprint(os.Getpid()),
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("# Local control plane of terraform-provider-admission; valid while localcluster runs.\n")
	b.WriteString("# Set either KUBE_CONFIG_PATH, or KUBE_HOST with the CA and a token or client certificate.\n")
	for _, k := range names {
		fmt.Fprintf(&b, "%s=%s\n", k, shellQuote(vars[k]))
	}
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// getObject prints one object of the cluster as YAML.
func getObject(kubeconfig, ref string, showManaged bool) error {
	resource, name, _ := strings.Cut(ref, "/")
	if resource == "" {
		return fmt.Errorf("-get wants RESOURCE or RESOURCE/NAME, got %q", ref)
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if kubeconfig != "" {
		rules.ExplicitPath = kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return err
	}
	cfg.Timeout = 30 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		return err
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDiscoveryRESTMapper(groups), dc, nil)
	gvr, err := mapper.ResourceFor(schema.ParseGroupResource(resource).WithVersion(""))
	if err != nil {
		return err
	}
	gvk, err := mapper.KindFor(gvr)
	if err != nil {
		return err
	}
	mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var ri dynamic.ResourceInterface = client.Resource(gvr)
	if mapping.Scope.Name() == "namespace" {
		ns, _, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).Namespace()
		if err != nil {
			return err
		}
		ri = client.Resource(gvr).Namespace(ns)
	}
	var obj map[string]any
	if name != "" {
		o, err := ri.Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		obj = o.Object
	} else {
		list, err := ri.List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		items := make([]any, 0, len(list.Items))
		for _, item := range list.Items {
			items = append(items, item.Object)
		}
		obj = map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	}
	if !showManaged {
		removeManagedFields(obj)
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}

// removeManagedFields drops metadata.managedFields of an object or of the
// items of a list, to keep the output short.
func removeManagedFields(obj map[string]any) {
	unstructured.RemoveNestedField(obj, "metadata", "managedFields")
	if items, ok := obj["items"].([]any); ok {
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				unstructured.RemoveNestedField(m, "metadata", "managedFields")
			}
		}
	}
}
