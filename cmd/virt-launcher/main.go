// Command virt-launcher runs one VirtualMachineInstance: inside a launcher
// pod (--pod) from the config virt-handler hands it, or on a simulated
// node from the directory its node agent prepared (--dir). It is `virtflow
// virt-launcher` without the rest of virtflow linked in, so each VM's
// launcher costs less memory.
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
	pod := flag.Bool("pod", false, "run in a launcher pod: wait for virt-handler's config in the pod's private directory")
	flag.Parse()
	if *dir == "" && !*pod {
		fmt.Fprintln(os.Stderr, "virt-launcher: --dir or --pod is required")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	if *pod {
		err = launcher.RunPod(ctx)
	} else {
		err = launcher.Run(ctx, *dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "virt-launcher:", err)
		os.Exit(1)
	}
}
