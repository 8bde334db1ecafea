package addons

import (
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/virtflow/virtflow/embedded/controlplane"
	"github.com/virtflow/virtflow/embedded/images"
)

// Push builds img and publishes it as repository (name:tag, no registry)
// to the node registry's push endpoint at pushAddr with the push identity
// in creds. The registry's readiness may be stale (after a purge its
// Deployment still reports the pod that is gone until the controller
// manager notices), so the push is retried for a minute.
func Push(img images.Image, pushAddr, repository string, creds controlplane.RegistryCredentials) error {
	img.Ref = pushAddr + "/" + repository
	built, err := img.Build()
	if err != nil {
		return fmt.Errorf("packing %s: %w", repository, err)
	}
	ref, err := name.ParseReference(img.Ref, name.StrictValidation)
	if err != nil {
		return fmt.Errorf("naming %s: %w", repository, err)
	}
	transport, err := creds.PushTransport()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		err := remote.Write(ref, built, remote.WithTransport(transport))
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pushing %s to the node's registry: %w", repository, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
