package controlplane

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// startForTest starts a control plane, or skips the test when the binaries
// are not built and CI is unset. Under CI a missing binary is built, and a
// failure to build or start fails the test.
func startForTest(t *testing.T) *ControlPlane {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	began := time.Now()
	cp, err := Start(ctx, Options{NoBuild: os.Getenv("CI") == "", Log: testLog{t}})
	if errors.Is(err, ErrBinariesMissing) {
		t.Skipf("skipping: %v; CI=true builds them", err)
	}
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("control plane started in %s at %s", time.Since(began).Round(time.Millisecond), cp.Host)
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return cp
}

// testLog sends the control plane's messages to the test log, but not the
// output of etcd and kube-apiserver, which stays in their log files.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	s := string(b)
	if strings.HasPrefix(s, "controlplane: ") || strings.HasPrefix(s, "building ") || strings.HasPrefix(s, "built ") {
		l.t.Log(strings.TrimRight(s, "\n"))
	}
	return len(b), nil
}

// wantVersion is the version of kube-apiserver in tools/kube-apiserver/go.mod.
func wantVersion(t *testing.T) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "tools", "kube-apiserver", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "require" && fields[1] == "k8s.io/kubernetes" {
			return fields[2]
		}
		if len(fields) >= 2 && fields[0] == "k8s.io/kubernetes" && !strings.Contains(sc.Text(), "=>") {
			return fields[1]
		}
	}
	t.Fatal("no k8s.io/kubernetes version in tools/kube-apiserver/go.mod")
	return ""
}

func webhookConfig(name string) *admissionregistrationv1.MutatingWebhookConfiguration {
	none := admissionregistrationv1.SideEffectClassNone
	url := "https://127.0.0.1:9/mutate"
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "example.admission.test",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			// Matches nothing that exists, so it never calls the URL.
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule: admissionregistrationv1.Rule{
					APIGroups:   []string{"example.test"},
					APIVersions: []string{"v1"},
					Resources:   []string{"widgets"},
				},
			}},
		}},
	}
}

func TestControlPlane(t *testing.T) {
	cp := startForTest(t)
	ctx := context.Background()

	certClient := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	tokenClient := kubernetes.NewForConfigOrDie(cp.TokenRESTConfig(cp.AdminToken))

	t.Run("version", func(t *testing.T) {
		v, err := certClient.Discovery().ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		if want := wantVersion(t); v.GitVersion != want {
			t.Errorf("server version %q, want %q", v.GitVersion, want)
		}
	})

	t.Run("admin cert and token", func(t *testing.T) {
		for name, client := range map[string]kubernetes.Interface{"cert": certClient, "token": tokenClient} {
			api := client.AdmissionregistrationV1().MutatingWebhookConfigurations()
			obj := "controlplane-test-" + name
			created, err := api.Create(ctx, webhookConfig(obj), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("%s: create: %v", name, err)
			}
			if created.UID == "" || *created.Webhooks[0].FailurePolicy != admissionregistrationv1.Fail {
				t.Errorf("%s: server did not store the object with its defaults: %+v", name, created)
			}
			list, err := api.List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatalf("%s: list: %v", name, err)
			}
			found := false
			for _, item := range list.Items {
				found = found || item.Name == obj
			}
			if !found {
				t.Errorf("%s: %s not in list", name, obj)
			}
		}
	})

	t.Run("kubeconfig", func(t *testing.T) {
		for _, context := range []string{"admin-cert", "admin-token"} {
			cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
				&clientcmd.ClientConfigLoadingRules{ExplicitPath: cp.KubeconfigPath},
				&clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
			if err != nil {
				t.Fatalf("%s: %v", context, err)
			}
			if _, err := kubernetes.NewForConfigOrDie(cfg).AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{}); err != nil {
				t.Errorf("%s: list: %v", context, err)
			}
		}
	})

	t.Run("nobody is forbidden", func(t *testing.T) {
		token := cp.UserToken("nobody")
		if token == "" || cp.UserToken("reader") == "" || cp.UserToken("writer") == "" {
			t.Fatal("missing token of a pre-declared user")
		}
		if cp.UserToken("admin") != cp.AdminToken || cp.UserToken("someone") != "" {
			t.Error("UserToken of admin or of an unknown user")
		}
		nobody := kubernetes.NewForConfigOrDie(cp.TokenRESTConfig(token))
		_, err := nobody.AdmissionregistrationV1().MutatingWebhookConfigurations().List(ctx, metav1.ListOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("list as nobody: got %v, want forbidden", err)
		}
		_, err = nobody.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, webhookConfig("by-nobody"), metav1.CreateOptions{})
		if !apierrors.IsForbidden(err) {
			t.Errorf("create as nobody: got %v, want forbidden", err)
		}
		// A wrong token is not a user at all.
		_, err = kubernetes.NewForConfigOrDie(cp.TokenRESTConfig("wrong")).Discovery().ServerVersion()
		if !apierrors.IsUnauthorized(err) {
			t.Errorf("wrong token: got %v, want unauthorized", err)
		}
	})

	t.Run("stop leaves nothing", func(t *testing.T) {
		pids := []int{cp.etcd.pid(), cp.apiserver.pid()}
		began := time.Now()
		if err := cp.Stop(); err != nil {
			t.Fatalf("Stop: %v", err)
		}
		t.Logf("stopped in %s", time.Since(began).Round(time.Millisecond))
		if err := cp.Stop(); err != nil {
			t.Errorf("second Stop: %v", err)
		}
		for _, pid := range pids {
			// Each ran in its own process group, led by itself.
			if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("process group %d still exists (kill: %v)", pid, err)
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("process %d still exists (kill: %v)", pid, err)
			}
		}
		if _, err := os.Stat(cp.Dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists (stat: %v)", cp.Dir, err)
		}
		if _, err := kubernetes.NewForConfigOrDie(withTimeout(cp.RESTConfig())).Discovery().ServerVersion(); err == nil {
			t.Error("server still answers after Stop")
		}
	})
}

func withTimeout(cfg *rest.Config) *rest.Config {
	cfg.Timeout = 2 * time.Second
	return cfg
}

func TestRemoveStaleDirs(t *testing.T) {
	tmp := t.TempDir()
	// A directory whose owner is this process stays.
	live := filepath.Join(tmp, dirPrefix+"live")
	if err := os.Mkdir(live, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeOwner(live); err != nil {
		t.Fatal(err)
	}
	// A directory whose owner PID now belongs to another process (a
	// different start time) goes.
	stale := filepath.Join(tmp, dirPrefix+"stale")
	if err := os.Mkdir(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, ownerFile), []byte("1 999999999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A directory without owner that is new stays (it may be being made).
	fresh := filepath.Join(tmp, dirPrefix+"fresh")
	if err := os.Mkdir(fresh, 0o700); err != nil {
		t.Fatal(err)
	}
	removeStaleDirs(tmp)
	for dir, want := range map[string]bool{live: true, stale: false, fresh: true} {
		_, err := os.Stat(dir)
		if got := err == nil; got != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(dir), got, want)
		}
	}
}

func TestFailedChecks(t *testing.T) {
	body := "[+]ping ok\n[-]etcd failed: reason withheld\n[+]log ok\n[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\nreadyz check failed\n"
	if got, want := failedChecks(body), "failed etcd, poststarthook/rbac/bootstrap-roles"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
