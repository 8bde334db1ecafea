package executeinvm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/virtflow/virtflow/tasks/stepenv"
	"github.com/virtflow/virtflow/tasks/subresources"
)

func TestSubresources(t *testing.T) {
	c, err := newSubresources(stepenv.Env{Config: &rest.Config{Host: "https://api.example:6443"}})
	require.NoError(t, err)
	assert.IsType(t, subresources.Client{}, c, "virt-api's start and stop subresources")

	_, err = newSubresources(stepenv.Env{})
	assert.EqualError(t, err, "starting and stopping VMs needs the API server's configuration")
}
