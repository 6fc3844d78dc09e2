package main

import (
	"flag"
	"log"
	"os"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/seed-a73d233f/terraform-provider-admission/internal/protocol"
	"github.com/seed-a73d233f/terraform-provider-admission/internal/provider"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	quietSDKLogs()
	limitMemory()
	// Read once: every server of this process serves in the same mode.
	mode, err := protocol.ModeFromEnvironment()
	if err != nil {
		log.Fatal(err.Error())
	}
	if mode != protocol.Fast {
		// Terraform logs the provider's standard error at TF_LOG=debug.
		log.Printf("[INFO] %s=%s: every call is served by terraform-plugin-framework's own server", protocol.ModeVariable, mode)
	}
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	if err := tf6server.Serve("registry.terraform.io/seed-a73d233f/admission", provider.NewServerMode(version, mode), opts...); err != nil {
		log.Fatal(err.Error())
	}
}

// quietSDKLogs turns off the plugin SDK's own logs when Terraform logs
// nothing from providers (neither TF_LOG nor TF_LOG_PROVIDER is set): the SDK
// otherwise logs every request at trace level to Terraform, which parses each
// line and drops it, some hundreds of megabytes for a plan of a few hundred
// objects. A level the user set for one of them is kept.
func quietSDKLogs() {
	if os.Getenv("TF_LOG") != "" || os.Getenv("TF_LOG_PROVIDER") != "" {
		return
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_SDK_PROTO"} {
		if _, set := os.LookupEnv(name); !set {
			_ = os.Setenv(name, "OFF")
		}
	}
}

// The provider's garbage collector runs against a memory limit rather than
// at every doubling of the heap. What the provider keeps is small (its
// schema and the CEL environment); nearly all it allocates is the data of
// the requests Terraform sends in parallel, garbage as soon as each is
// answered. With Go's default (GOGC=100) the collector ran every few
// requests and took a quarter of the provider's CPU time; with gcPercent it
// waits for the heap to grow five times what is live, and memoryLimit (a
// soft limit: near it the collector runs sooner, it never fails for want of
// memory) keeps the peak resident size of the process under 150 MiB.
// GOGC and GOMEMLIMIT, when set, take precedence (runtime/debug
// SetGCPercent, SetMemoryLimit).
const (
	gcPercent   = 400
	memoryLimit = 112 << 20
)

func limitMemory() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(gcPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(memoryLimit)
	}
}
