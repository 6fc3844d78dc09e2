package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: one
  cluster: {server: "https://one.example.com:6443"}
- name: two
  cluster: {server: "https://two.example.com:6443"}
users:
- name: alice
  user: {token: alice-token}
- name: bob
  user: {token: bob-token}
contexts:
- name: first
  context: {cluster: one, user: alice}
- name: second
  context: {cluster: two, user: bob}
current-context: first
`

func writeKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(p, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRESTConfigFromKubeconfig(t *testing.T) {
	path := writeKubeconfig(t)
	cases := []struct {
		name               string
		s                  Settings
		wantHost, wantAuth string
	}{
		{"current context", Settings{ConfigPath: path}, "https://one.example.com:6443", "alice-token"},
		{"named context", Settings{ConfigPath: path, ConfigContext: "second"}, "https://two.example.com:6443", "bob-token"},
		{"context with other user", Settings{ConfigPath: path, ConfigContextAuthInfo: "bob"}, "https://one.example.com:6443", "bob-token"},
		{"context with other cluster", Settings{ConfigPath: path, ConfigContextCluster: "two"}, "https://two.example.com:6443", "alice-token"},
		{"host overrides kubeconfig", Settings{ConfigPath: path, Host: "https://three.example.com"}, "https://three.example.com", "alice-token"},
		{"token overrides kubeconfig", Settings{ConfigPath: path, Token: "t"}, "https://one.example.com:6443", "t"},
		{"config_paths", Settings{ConfigPaths: []string{path}}, "https://one.example.com:6443", "alice-token"},
		{"host and token only", Settings{Host: "https://h.example.com", Token: "x"}, "https://h.example.com", "x"},
		{"bare host gets https with a CA", Settings{Host: "h.example.com:6443", ClusterCACertificate: testCA}, "https://h.example.com:6443", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := RESTConfig(c.s)
			if err != nil {
				t.Fatalf("RESTConfig: %v", err)
			}
			if cfg.Host != c.wantHost || cfg.BearerToken != c.wantAuth {
				t.Errorf("host=%q token=%q, want %q %q", cfg.Host, cfg.BearerToken, c.wantHost, c.wantAuth)
			}
		})
	}
}

func TestRESTConfigExec(t *testing.T) {
	cfg, err := RESTConfig(Settings{Host: "https://h", Exec: &ExecSettings{
		APIVersion: "client.authentication.k8s.io/v1", Command: "get-token", Args: []string{"a"}, Env: map[string]string{"K": "V"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ExecProvider == nil || cfg.ExecProvider.Command != "get-token" || cfg.ExecProvider.Env[0].Name != "K" {
		t.Fatalf("exec provider = %+v", cfg.ExecProvider)
	}
}

func TestRESTConfigErrorsNameTheAttribute(t *testing.T) {
	path := writeKubeconfig(t)
	cases := []struct {
		name     string
		s        Settings
		attr     string
		contains string
	}{
		{"missing file", Settings{ConfigPath: "/nonexistent/config"}, "config_path", "/nonexistent/config"},
		{"missing file in paths", Settings{ConfigPaths: []string{path, "/nope"}}, "config_paths", "/nope"},
		{"both paths", Settings{ConfigPath: path, ConfigPaths: []string{path}}, "config_paths", "not both"},
		{"unknown context", Settings{ConfigPath: path, ConfigContext: "third"}, "config_context", `"third"`},
		{"context without kubeconfig", Settings{Host: "https://h", ConfigContext: "first"}, "config_context", "config_path"},
		{"cert without key", Settings{Host: "https://h", ClientCertificate: "c"}, "client_key", "client_key must be set"},
		{"key without cert", Settings{Host: "https://h", ClientKey: "k"}, "client_certificate", "client_certificate must be set"},
		{"password without username", Settings{Host: "https://h", Password: "p"}, "username", "username must be set"},
		{"nothing", Settings{}, "host", "no cluster is configured"},
		{"exec without api_version", Settings{Host: "https://h", Exec: &ExecSettings{Command: "x"}}, "exec", "api_version"},
		{"bad host", Settings{Host: "https://h:notaport/x"}, "host", "not a valid"},
		{"CA that is not PEM", Settings{Host: "https://h", ClusterCACertificate: "not pem"}, "cluster_ca_certificate", "PEM"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := RESTConfig(c.s)
			var se *SettingError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a SettingError", err)
			}
			if se.Attribute != c.attr || !strings.Contains(se.Error(), c.contains) {
				t.Errorf("got %q on %s, want %q on %s", se.Err, se.Attribute, c.contains, c.attr)
			}
		})
	}
}

// testCA is a self-signed CA certificate (only its PEM form matters here).
const testCA = `-----BEGIN CERTIFICATE-----
MIIBdDCCARmgAwIBAgIBATAKBggqhkjOPQQDAjASMRAwDgYDVQQDEwd0ZXN0LWNh
MB4XDTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowEjEQMA4GA1UEAxMHdGVz
-----END CERTIFICATE-----
`
