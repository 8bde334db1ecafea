// Command registry is the OCI registry that runs on the embedded node:
// distribution's registry with only the filesystem and in-memory storage
// drivers (upstream's command also links the cloud drivers, whose SDKs the
// node never needs).
package main

import (
	"os"

	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

func main() {
	if err := registry.RootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}
