package templates

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/virtflow/virtflow/console/server/kubeapi"
	"github.com/virtflow/virtflow/console/server/kubeapi/kubeapitest"
	"github.com/virtflow/virtflow/console/server/session"
)

const userToken = "alice-token"

// fedora is a common template cut down to what processing touches: a
// required parameter, a generated one, and a VM labelled with the
// template's name.
const fedora = `{
  "apiVersion": "template.openshift.io/v1", "kind": "Template",
  "metadata": {"name": "fedora", "namespace": "openshift"},
  "objects": [{
    "apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine",
    "metadata": {"name": "${NAME}", "labels": {"vm.kubevirt.io/template": "fedora"}},
    "spec": {"template": {"spec": {"domain": {"memory": {"guest": "${MEMORY}"}}}}}
  }],
  "parameters": [
    {"name": "NAME", "required": true},
    {"name": "MEMORY", "value": "2Gi"},
    {"name": "PASSWORD", "generate": "expression", "from": "[a-z]{8}"}
  ]
}`

// console serves the route as a logged-in alice, against an apiserver
// stand-in holding the template for her only.
func console(t *testing.T) (*httptest.Server, *kubeapitest.APIServer) {
	api := kubeapitest.New(t, map[string]string{userToken: "alice"}, nil)
	api.Mux.HandleFunc("GET /apis/template.openshift.io/v1/namespaces/openshift/templates/fedora", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fedora)
	})
	api.Mux.HandleFunc("GET /apis/template.openshift.io/v1/namespaces/theirs/templates/fedora", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 403, "reason": "Forbidden",
			"message": "templates.template.openshift.io \"fedora\" is forbidden: User \"alice\" cannot get resource"}`)
	})
	up, err := kubeapi.New(api.Config())
	require.NoError(t, err)
	h := &Handler{Kube: up}
	mux := http.NewServeMux()
	mux.Handle("POST /console/templates/{namespace}/{name}/process", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeProcess(w, r.WithContext(session.WithToken(r.Context(), userToken)))
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, api
}

func process(t *testing.T, srv *httptest.Server, path, body string) (int, []byte) {
	resp, err := http.Post(srv.URL+"/console/templates/"+path+"/process", "application/json", bytes.NewBufferString(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

func TestProcessReturnsTheObjectsLabelledWithTheTemplatesNamespace(t *testing.T) {
	srv, api := console(t)
	code, body := process(t, srv, "openshift/fedora", `{"parameters": {"NAME": "vm1", "MEMORY": "4Gi"}}`)
	require.Equal(t, http.StatusOK, code, string(body))

	var list struct {
		Kind, APIVersion string
		Items            []struct {
			Kind     string
			Metadata metav1.ObjectMeta
			Spec     struct {
				Template struct {
					Spec struct {
						Domain struct{ Memory struct{ Guest string } }
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(body, &list))
	assert.Equal(t, "List", list.Kind)
	require.Len(t, list.Items, 1)
	vm := list.Items[0]
	assert.Equal(t, "vm1", vm.Metadata.Name)
	assert.Empty(t, vm.Metadata.Namespace, "the page decides where to create it")
	assert.Equal(t, "4Gi", vm.Spec.Template.Spec.Domain.Memory.Guest)
	assert.Equal(t, map[string]string{"vm.kubevirt.io/template": "fedora", "vm.kubevirt.io/template.namespace": "openshift"}, vm.Metadata.Labels)
	assert.Equal(t, []string{"Bearer " + userToken}, api.Authorizations(), "read once, as the user")
}

func TestProcessRefusesUnknownParametersWithACauseEach(t *testing.T) {
	srv, _ := console(t)
	code, body := process(t, srv, "openshift/fedora", `{"parameters": {"NAME": "vm1", "SIZE": "1", "COLOR": "red"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, code, string(body))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, metav1.StatusReasonInvalid, st.Reason)
	assert.Equal(t, `[unknown parameter name "COLOR", unknown parameter name "SIZE"]`, st.Message)
	require.NotNil(t, st.Details)
	assert.Equal(t, "fedora", st.Details.Name)
	assert.Equal(t, []metav1.StatusCause{
		{Type: metav1.CauseTypeFieldValueNotFound, Field: "parameters[COLOR]", Message: `unknown parameter name "COLOR"`},
		{Type: metav1.CauseTypeFieldValueNotFound, Field: "parameters[SIZE]", Message: `unknown parameter name "SIZE"`},
	}, st.Details.Causes)
}

func TestProcessRefusesAMissingRequiredParameterAsOcDoes(t *testing.T) {
	srv, _ := console(t)
	code, body := process(t, srv, "openshift/fedora", `{}`)
	require.Equal(t, http.StatusUnprocessableEntity, code, string(body))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, metav1.StatusReasonInvalid, st.Reason)
	assert.Equal(t, `Template.template.openshift.io "fedora" is invalid: template.parameters[0]: Required value: template.parameters[0]: parameter NAME is required and must be specified`, st.Message)
	require.NotNil(t, st.Details)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, "template.parameters[0]", st.Details.Causes[0].Field)
}

func TestProcessPassesOnTheApiserversRefusal(t *testing.T) {
	srv, _ := console(t)
	code, body := process(t, srv, "openshift/centos", `{"parameters": {"NAME": "vm1"}}`)
	assert.Equal(t, http.StatusNotFound, code, string(body))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, "Status", st.Kind)
	assert.Equal(t, metav1.StatusReasonNotFound, st.Reason)
}

func TestProcessRefusesABodyThatIsNotJSON(t *testing.T) {
	srv, api := console(t)
	code, _ := process(t, srv, "openshift/fedora", `NAME=vm1`)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Empty(t, api.Authorizations())
}

func TestProcessPassesOnTheApiserversMessage(t *testing.T) {
	srv, _ := console(t)
	code, body := process(t, srv, "theirs/fedora", `{}`)
	assert.Equal(t, http.StatusForbidden, code, string(body))
	var st metav1.Status
	require.NoError(t, json.Unmarshal(body, &st))
	assert.Equal(t, `templates.template.openshift.io "fedora" is forbidden: User "alice" cannot get resource`, st.Message)
}
