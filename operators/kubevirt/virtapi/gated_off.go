package virtapi

import (
	"fmt"
	"net/http"
)

// The subresources below belong to feature gates the HyperConverged never
// turns on (SEV needs AMD hardware; the cluster profiler is a debugging
// aid). Upstream answers them, with the gate off, as these do, so clients
// get the answer they would get from a default OpenShift Virtualization.

// sevRoutes are the VMI's AMD SEV attestation subresources.
var sevRoutes = []string{"GET sev/fetchcertchain", "GET sev/querylaunchmeasurement", "PUT sev/setupsession", "PUT sev/injectlaunchsecret"}

// profilerRoutes are the cluster profiler's endpoints and what upstream
// says when its gate is off.
var profilerRoutes = map[string]string{
	"start-cluster-profiler": "Unable to start profiler. \"ClusterProfiler\" feature gate must be enabled",
	"stop-cluster-profiler":  "Unable to stop profiler. \"ClusterProfiler\" feature gate must be enabled",
	"dump-cluster-profiler":  "Unable to dump profiler results. \"ClusterProfiler\" feature gate must be enabled",
}

func gatedOff(mux *http.ServeMux, gv string) {
	for _, route := range sevRoutes {
		method, path := route[:3], route[4:]
		mux.HandleFunc(fmt.Sprintf("%s %s/namespaces/{ns}/virtualmachineinstances/{name}/%s", method, gv, path), func(w http.ResponseWriter, _ *http.Request) {
			writeStatus(w, http.StatusBadRequest, "'WorkloadEncryptionSEV' feature gate is not enabled")
		})
	}
	for path, msg := range profilerRoutes {
		mux.HandleFunc("GET "+gv+"/"+path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(msg))
		})
	}
}
