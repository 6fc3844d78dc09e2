package main

import (
	"os"
	"testing"
)

var sdkLogVars = []string{"TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"}

// unsetForTest unsets name for the test; t.Setenv restores it afterwards.
func unsetForTest(t *testing.T, name string) {
	t.Setenv(name, "")
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

func TestQuietSDKLogs(t *testing.T) {
	t.Run("Terraform logs nothing from providers: off", func(t *testing.T) {
		unsetForTest(t, "TF_LOG")
		unsetForTest(t, "TF_LOG_PROVIDER")
		for _, v := range sdkLogVars {
			unsetForTest(t, v)
		}
		t.Setenv("TF_LOG_SDK_PROTO", "debug") // the user's choice stays
		quietSDKLogs()
		want := map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_SDK_PROTO": "debug"}
		for name, w := range want {
			if got := os.Getenv(name); got != w {
				t.Errorf("%s = %q, want %q", name, got, w)
			}
		}
	})
	for _, logVar := range []string{"TF_LOG", "TF_LOG_PROVIDER"} {
		t.Run(logVar+" set: untouched", func(t *testing.T) {
			unsetForTest(t, "TF_LOG")
			unsetForTest(t, "TF_LOG_PROVIDER")
			t.Setenv(logVar, "trace")
			for _, v := range sdkLogVars {
				unsetForTest(t, v)
			}
			quietSDKLogs()
			for _, v := range sdkLogVars {
				if val, set := os.LookupEnv(v); set {
					t.Errorf("%s set to %q", v, val)
				}
			}
		})
	}
}
