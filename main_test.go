package main

import (
	"math"
	"os"
	"runtime/debug"
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

func TestLimitMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })

	gcBefore := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(gcBefore) })

	unsetForTest(t, "GOMEMLIMIT")
	unsetForTest(t, "GOGC")
	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(100)
	limitMemory()
	if got := debug.SetMemoryLimit(-1); got != memoryLimit {
		t.Errorf("limit = %d, want %d", got, memoryLimit)
	}
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GC percent = %d, want %d", got, gcPercent)
	}

	// The user's settings, applied by the runtime at start.
	t.Setenv("GOMEMLIMIT", "1GiB")
	t.Setenv("GOGC", "50")
	debug.SetMemoryLimit(1 << 30)
	debug.SetGCPercent(50)
	limitMemory()
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("limit = %d with GOMEMLIMIT set, want it left at 1 GiB", got)
	}
	if got := debug.SetGCPercent(50); got != 50 {
		t.Errorf("GC percent = %d with GOGC set, want it left at 50", got)
	}
}
