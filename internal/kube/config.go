// Package kube builds the connection to the Kubernetes API server and wraps the
// few API calls the provider makes.
package kube

import (
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Settings are the provider's connection settings, after the environment has
// filled what the configuration left out. Empty strings and nil pointers mean
// "not set".
type Settings struct {
	Host                  string
	Username              string
	Password              string
	Token                 string
	Insecure              *bool
	TLSServerName         string
	ClientCertificate     string
	ClientKey             string
	ClusterCACertificate  string
	ConfigPath            string
	ConfigPaths           []string
	ConfigContext         string
	ConfigContextAuthInfo string
	ConfigContextCluster  string
	ProxyURL              string
	Exec                  *ExecSettings
}

// ExecSettings configure a client-go credential plugin.
type ExecSettings struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// SettingError is a problem with one provider setting. Attribute is the
// provider attribute the user must change.
type SettingError struct {
	Attribute string
	Err       error
}

func (e *SettingError) Error() string { return fmt.Sprintf("%s: %v", e.Attribute, e.Err) }
func (e *SettingError) Unwrap() error { return e.Err }

func settingError(attribute, format string, args ...any) error {
	return &SettingError{Attribute: attribute, Err: fmt.Errorf(format, args...)}
}

// RESTConfig turns the settings into a client-go REST config, the way
// hashicorp/kubernetes does: kubeconfig files through clientcmd's loading
// rules, with the static settings as overrides. It reads files but makes no
// request to the API server.
func RESTConfig(s Settings) (*rest.Config, error) {
	if err := s.check(); err != nil {
		return nil, err
	}

	loader := &clientcmd.ClientConfigLoadingRules{}
	overrides := &clientcmd.ConfigOverrides{}

	paths, pathAttr := s.kubeconfigPaths()
	for i, p := range paths {
		expanded, err := expandHome(p)
		if err != nil {
			return nil, settingError(pathAttr, "%v", err)
		}
		if _, err := os.Stat(expanded); err != nil {
			return nil, settingError(pathAttr, "cannot read kubeconfig %q: %v", p, err)
		}
		paths[i] = expanded
	}
	switch len(paths) {
	case 0:
	case 1:
		loader.ExplicitPath = paths[0]
	default:
		loader.Precedence = paths
	}
	if len(paths) > 0 {
		overrides.CurrentContext = s.ConfigContext
		overrides.Context.AuthInfo = s.ConfigContextAuthInfo
		overrides.Context.Cluster = s.ConfigContextCluster
	}

	if s.Insecure != nil {
		overrides.ClusterInfo.InsecureSkipTLSVerify = *s.Insecure
	}
	overrides.ClusterInfo.TLSServerName = s.TLSServerName
	if s.ClusterCACertificate != "" {
		overrides.ClusterInfo.CertificateAuthorityData = []byte(s.ClusterCACertificate)
	}
	if s.ClientCertificate != "" {
		overrides.AuthInfo.ClientCertificateData = []byte(s.ClientCertificate)
	}
	if s.ClientKey != "" {
		overrides.AuthInfo.ClientKeyData = []byte(s.ClientKey)
	}
	if s.Host != "" {
		defaultTLS := s.ClusterCACertificate != "" || s.ClientCertificate != "" || overrides.ClusterInfo.InsecureSkipTLSVerify
		host, _, err := rest.DefaultServerURL(s.Host, "", schema.GroupVersion{}, defaultTLS)
		if err != nil {
			return nil, settingError("host", "%q is not a valid URL or host: %v", s.Host, err)
		}
		overrides.ClusterInfo.Server = host.String()
	}
	overrides.AuthInfo.Username = s.Username
	overrides.AuthInfo.Password = s.Password
	overrides.AuthInfo.Token = s.Token
	if s.Exec != nil {
		overrides.AuthInfo.Exec = s.Exec.clientcmd()
	}
	overrides.ClusterDefaults.ProxyURL = s.ProxyURL

	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loader, overrides)
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, describeClientConfigError(s, paths, err)
	}
	return cfg, nil
}

// check reports settings that contradict each other.
func (s Settings) check() error {
	if s.ConfigPath != "" && len(s.ConfigPaths) > 0 {
		return settingError("config_paths", "set either config_path or config_paths, not both")
	}
	if (s.ClientCertificate == "") != (s.ClientKey == "") {
		if s.ClientCertificate == "" {
			return settingError("client_certificate", "client_key is set, so client_certificate must be set too")
		}
		return settingError("client_key", "client_certificate is set, so client_key must be set too")
	}
	if (s.Username == "") != (s.Password == "") {
		if s.Username == "" {
			return settingError("username", "password is set, so username must be set too")
		}
		return settingError("password", "username is set, so password must be set too")
	}
	if s.Exec != nil && s.Exec.Command == "" {
		return settingError("exec", "command must not be empty")
	}
	if s.Exec != nil && s.Exec.APIVersion == "" {
		return settingError("exec", "api_version must be set, for example \"client.authentication.k8s.io/v1\"")
	}
	if s.ConfigPath == "" && len(s.ConfigPaths) == 0 {
		for attr, v := range map[string]string{
			"config_context":           s.ConfigContext,
			"config_context_auth_info": s.ConfigContextAuthInfo,
			"config_context_cluster":   s.ConfigContextCluster,
		} {
			if v != "" {
				return settingError(attr, "it selects from a kubeconfig file, so config_path or config_paths (or KUBE_CONFIG_PATH) must be set too")
			}
		}
	}
	if s.ClusterCACertificate != "" {
		if block, _ := pem.Decode([]byte(s.ClusterCACertificate)); block == nil || block.Type != "CERTIFICATE" {
			return settingError("cluster_ca_certificate", "it must be PEM certificates (-----BEGIN CERTIFICATE-----), such as a kubeconfig's certificate-authority-data decoded from base64")
		}
	}
	if s.ConfigPath == "" && len(s.ConfigPaths) == 0 && s.Host == "" {
		return settingError("host", "no cluster is configured: set config_path (or KUBE_CONFIG_PATH) to a kubeconfig file, or host (or KUBE_HOST) with credentials")
	}
	return nil
}

func (s Settings) kubeconfigPaths() ([]string, string) {
	if s.ConfigPath != "" {
		return []string{s.ConfigPath}, "config_path"
	}
	return append([]string(nil), s.ConfigPaths...), "config_paths"
}

func (e *ExecSettings) clientcmd() *clientcmdapi.ExecConfig {
	exec := &clientcmdapi.ExecConfig{
		APIVersion:      e.APIVersion,
		Command:         e.Command,
		Args:            e.Args,
		InteractiveMode: clientcmdapi.NeverExecInteractiveMode,
	}
	for k, v := range e.Env {
		exec.Env = append(exec.Env, clientcmdapi.ExecEnvVar{Name: k, Value: v})
	}
	return exec
}

func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot expand %q: %v", p, err)
	}
	return filepath.Join(home, strings.TrimPrefix(p, "~")), nil
}

// describeClientConfigError names the setting behind a clientcmd error.
func describeClientConfigError(s Settings, paths []string, err error) error {
	msg := err.Error()
	switch {
	case s.ConfigContext != "" && (strings.Contains(msg, "context was not found") || strings.Contains(msg, "does not exist")):
		return settingError("config_context", "context %q is not in the kubeconfig (%s)", s.ConfigContext, strings.Join(paths, ", "))
	case s.ConfigContextCluster != "" && strings.Contains(msg, "cluster") && strings.Contains(msg, "not found"):
		return settingError("config_context_cluster", "%v", err)
	case s.ConfigContextAuthInfo != "" && strings.Contains(msg, "auth info") && strings.Contains(msg, "not found"):
		return settingError("config_context_auth_info", "%v", err)
	case clientcmd.IsEmptyConfig(err):
		return settingError("config_path", "the kubeconfig has no current context or cluster: set config_context, or host")
	case len(paths) > 0:
		attr := "config_path"
		if s.ConfigPath == "" {
			attr = "config_paths"
		}
		return settingError(attr, "%v", err)
	}
	var se *SettingError
	if errors.As(err, &se) {
		return err
	}
	return settingError("host", "%v", err)
}
