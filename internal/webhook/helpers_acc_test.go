package webhook_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func ptr[T any](v T) *T { return &v }

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func replaceOnce(s, old, new string) string {
	if !strings.Contains(s, old) {
		panic("replaceOnce: " + old + " not found")
	}
	return strings.Replace(s, old, new, 1)
}

func createWithClientGo(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	none := admissionregistrationv1.SideEffectClassNone
	obj := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:                    "minimal.example.com",
			AdmissionReviewVersions: []string{"v1"},
			SideEffects:             &none,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Namespace: "default", Name: "injector"},
			},
		}},
	}
	if _, err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create %s with client-go: %v", name, err)
	}
}

// selfSignedCA makes a CA certificate in PEM, as a webhook's ca_bundle.
func selfSignedCA(cn string) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func deleteWithClientGo(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	if err := cs.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete %s with client-go: %v", name, err)
	}
}
