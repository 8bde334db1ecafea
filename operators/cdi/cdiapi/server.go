package cdiapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	uploadv1beta1 "kubevirt.io/containerized-data-importer-api/pkg/apis/upload/v1beta1"
)

// GroupVersion of the aggregated API cdi-apiserver serves.
const (
	Group   = "upload.cdi.kubevirt.io"
	Version = "v1beta1"
	prefix  = "/apis/" + Group + "/" + Version
)

// Server serves upload.cdi.kubevirt.io/v1beta1 behind the aggregation
// layer, which has already authenticated the caller and authorized
// "create uploadtokenrequests" in the namespace.
type Server struct {
	Signer Signer
	// Authenticate rejects requests that did not come from the aggregator.
	Authenticate func(*http.Request) error
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix, s.discovery)
	mux.HandleFunc("POST "+prefix+"/namespaces/{ns}/uploadtokenrequests", s.issue)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Authenticate != nil {
			if err := s.Authenticate(r); err != nil {
				writeStatus(w, http.StatusUnauthorized, err.Error())
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

func (s *Server) issue(w http.ResponseWriter, r *http.Request) {
	req := &uploadv1beta1.UploadTokenRequest{}
	if err := json.NewDecoder(r.Body).Decode(req); err != nil {
		writeStatus(w, http.StatusBadRequest, "decoding UploadTokenRequest: "+err.Error())
		return
	}
	if req.Spec.PvcName == "" {
		writeStatus(w, http.StatusBadRequest, "spec.pvcName is required")
		return
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	ns := r.PathValue("ns")
	token, err := s.Signer.Issue(ns, req.Spec.PvcName, now(), TokenTTL)
	if err != nil {
		writeStatus(w, http.StatusInternalServerError, err.Error())
		return
	}
	req.APIVersion, req.Kind = Group+"/"+Version, "UploadTokenRequest"
	req.Namespace = ns
	req.Status.Token = token
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(req)
}

func (s *Server) discovery(w http.ResponseWriter, _ *http.Request) {
	list := metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: Group + "/" + Version,
		APIResources: []metav1.APIResource{{Name: "uploadtokenrequests", Namespaced: true, Kind: "UploadTokenRequest", Verbs: []string{"create"}}},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// writeStatus answers with a metav1.Status, which kubectl and virtctl print.
func writeStatus(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Code: int32(code), Reason: metav1.StatusReason(fmt.Sprint(http.StatusText(code))),
	})
}
