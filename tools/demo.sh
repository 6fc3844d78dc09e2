#!/usr/bin/env bash
# `make demo`: the provider against a real, local Kubernetes control plane.
#
#   1. builds the provider and starts etcd + kube-apiserver on 127.0.0.1
#      (internal/acctest/controlplane/cmd/localcluster);
#   2. in a copy of examples/quickstart, with a CLI configuration whose
#      dev_overrides point at the built provider (no registry, no init),
#      runs `terraform apply`, prints what the server stored, and shows that
#      a second plan is empty;
#   3. destroys it and stops the control plane.
#
# KEEP=1 skips the destroy and leaves the control plane running, and prints
# how to reach it and how to stop it. ADMISSION_TF=tofu uses OpenTofu.
# Nothing is written into the repository.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
keep=${KEEP:-}
[ "$keep" = 0 ] && keep=

began=$(date +%s)
step() { printf '\n==> [%3ss] %s\n' "$(($(date +%s) - began))" "$*"; }

example=${ADMISSION_DEMO_EXAMPLE:-$root/examples/quickstart}
[ -f "$example/main.tf" ] || {
	echo "demo: $example/main.tf not found" >&2
	exit 1
}

step "tools"
tf=$(bash tools/bin.sh terraform)
ADMISSION_KUBE_APISERVER=${ADMISSION_KUBE_APISERVER:-$(bash tools/bin.sh kube-apiserver)}
ADMISSION_ETCD=${ADMISSION_ETCD:-$(bash tools/bin.sh etcd)}
export ADMISSION_KUBE_APISERVER ADMISSION_ETCD
echo "terraform:      $tf ($(TF_CLI_CONFIG_FILE=/dev/null "$tf" version 2>/dev/null | head -n1))"
echo "kube-apiserver: $ADMISSION_KUBE_APISERVER"
echo "etcd:           $ADMISSION_ETCD"

work=$(mktemp -d "${TMPDIR:-/tmp}/admission-demo.XXXXXX")
cluster_pid=
cleanup() {
	local status=$?
	set +e
	trap - EXIT HUP INT TERM
	trap "" PIPE # the output may be gone; finish the cleanup anyway
	if [ -n "$keep" ] && [ "$status" = 0 ]; then
		return
	fi
	exec 3>&- # the end of localcluster's stdin: it stops
	if [ -n "$cluster_pid" ] && kill -0 "$cluster_pid" 2>/dev/null; then
		echo "==> stopping the control plane" 2>/dev/null
		kill -INT "$cluster_pid" 2>/dev/null
		wait "$cluster_pid" 2>/dev/null
	fi
	rm -rf "$work"
	exit "$status"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

step "building the provider"
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
go build -ldflags "-X main.version=$version" -o "$work/plugins/terraform-provider-admission" .
go build -o "$work/localcluster" ./internal/acctest/controlplane/cmd/localcluster

step "starting a local Kubernetes control plane (etcd + kube-apiserver on 127.0.0.1)"
if [ -n "$keep" ]; then
	# Outlives this script: its own session, no terminal, output to a file.
	setsid nohup "$work/localcluster" -kubeconfig "$work/kubeconfig" -env "$work/cluster.env" \
		</dev/null >"$work/localcluster.log" 2>&1 &
	cluster_pid=$!
else
	# Stops when this script ends however it ends: at the end of its stdin,
	# the pipe that this shell holds open.
	mkfifo "$work/cluster.stdin"
	"$work/localcluster" -stdin -kubeconfig "$work/kubeconfig" -env "$work/cluster.env" \
		<"$work/cluster.stdin" >"$work/localcluster.log" 2>&1 &
	cluster_pid=$!
	exec 3>"$work/cluster.stdin"
	# Programs started from here on must not hold that pipe open too (a
	# provider process outliving a killed terraform would keep the cluster
	# up), hence the 3>&- below.
fi
for _ in $(seq 1 1200); do
	[ -f "$work/cluster.env" ] && break
	if ! kill -0 "$cluster_pid" 2>/dev/null; then
		cat "$work/localcluster.log" >&2
		echo "demo: the control plane did not start" >&2
		exit 1
	fi
	sleep 0.1
done
[ -f "$work/cluster.env" ] || {
	cat "$work/localcluster.log" >&2
	echo "demo: the control plane did not start within 120s" >&2
	exit 1
}
sed -n '/^Local Kubernetes/,$p' "$work/localcluster.log"

cat >"$work/terraformrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/seed-a73d233f/admission"  = "$work/plugins"
    "registry.opentofu.org/seed-a73d233f/admission" = "$work/plugins"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE=$work/terraformrc
export KUBE_CONFIG_PATH=$work/kubeconfig
mkdir "$work/quickstart"
cp -R "$example/." "$work/quickstart/"
rm -rf "$work/quickstart/.terraform" "$work/quickstart/.terraform.lock.hcl" "$work/quickstart/"*.tfstate*
cd "$work/quickstart"
# With dev_overrides there is nothing to install, so no `terraform init`.
# Its warning about the overrides is the only expected one; keep it short.
tf_run() { "$tf" "$@" -no-color -compact-warnings -input=false 3>&-; }
get_webhooks() {
	local kind
	for kind in mutatingwebhookconfigurations validatingwebhookconfigurations \
		mutatingadmissionpolicies mutatingadmissionpolicybindings \
		validatingadmissionpolicies validatingadmissionpolicybindings; do
		"$work/localcluster" -kubeconfig "$KUBE_CONFIG_PATH" -get "$kind" 3>&-
	done
}

step "terraform apply (examples/quickstart)"
tf_run apply -auto-approve

step "what the server stored"
get_webhooks

step "terraform plan -detailed-exitcode: nothing must change"
set +e
tf_run plan -detailed-exitcode
plan_status=$?
set -e
case $plan_status in
0) echo "OK: the plan after apply is empty." ;;
2)
	echo "demo: FAILED: the plan after apply is not empty (see above)" >&2
	exit 1
	;;
*)
	echo "demo: FAILED: terraform plan exited with $plan_status" >&2
	exit 1
	;;
esac

if [ -n "$keep" ]; then
	step "KEEP=1: the control plane keeps running"
	cat <<EOF
  server:      $(sed -n "s/^KUBE_HOST='\(.*\)'$/\1/p" "$work/cluster.env")
  kubeconfig:  $KUBE_CONFIG_PATH   (contexts admin-cert, admin-token, reader, writer, nobody)
  variables:   $work/cluster.env   (KUBE_HOST, KUBE_TOKEN, KUBE_CLUSTER_CA_CERT_DATA, ...)
  objects:     $work/localcluster -kubeconfig $KUBE_CONFIG_PATH -get mutatingwebhookconfigurations   (or validatingwebhookconfigurations, mutatingadmissionpolicies, mutatingadmissionpolicybindings, validatingadmissionpolicies, validatingadmissionpolicybindings)
  terraform:   cd $work/quickstart && TF_CLI_CONFIG_FILE=$TF_CLI_CONFIG_FILE KUBE_CONFIG_PATH=$KUBE_CONFIG_PATH $tf plan
  stop:        kill -INT $cluster_pid && rm -rf $work
EOF
	exit 0
fi

step "terraform destroy"
tf_run destroy -auto-approve
echo
get_webhooks

step "done"
