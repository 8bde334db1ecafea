// Command virtflow is the all-in-one binary: `virtflow up` runs the
// embedded platform, `virtflow status` reports on it, `virtflow worker` runs
// a Temporal worker on its own.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/virtflow/virtflow/embedded/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := cli.Main(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "virtflow:", err)
		os.Exit(1)
	}
}
