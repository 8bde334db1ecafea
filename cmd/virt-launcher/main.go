// Command virt-launcher runs one VirtualMachineInstance from the directory
// a node agent prepared (--dir). It is `virtflow virt-launcher` without the
// rest of virtflow linked in, so each VM's launcher costs less memory.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/virtflow/virtflow/node/launcher"
)

func main() {
	dir := flag.String("dir", "", "the launcher directory holding config.json")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "virt-launcher: --dir is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := launcher.Run(ctx, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "virt-launcher:", err)
		os.Exit(1)
	}
}
