//go:build mapv1

package main

import (
	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
)

// The mutating policy kinds, in admissionregistration.k8s.io/v1 from 1.36 (the release where
// the MutatingAdmissionPolicy gate went GA, on by default); build with -tags mapv1 there.
func init() {
	kinds["MutatingAdmissionPolicy"] = kindOf{
		func() runtime.Object { return &v1.MutatingAdmissionPolicy{} },
		func() runtime.Object { return &admissionregistration.MutatingAdmissionPolicy{} },
		"mutatingadmissionpolicies", mutatingadmissionpolicy.NewStrategy(nil, noResolver),
	}
	kinds["MutatingAdmissionPolicyBinding"] = kindOf{
		func() runtime.Object { return &v1.MutatingAdmissionPolicyBinding{} },
		func() runtime.Object { return &admissionregistration.MutatingAdmissionPolicyBinding{} },
		"mutatingadmissionpolicybindings", mutatingadmissionpolicybinding.NewStrategy(nil, nil, noResolver),
	}
}
