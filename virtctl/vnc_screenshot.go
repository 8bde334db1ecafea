package virtctl

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
)

// vncScreenshot saves a PNG of the VMI's display to --file, or writes it
// to stdout for "-f -", as upstream's vnc screenshot does.
func (c *command) vncScreenshot(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("vnc screenshot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	file := fs.String("file", "", "where to store the PNG; - for stdout")
	fs.StringVar(file, "f", "", "where to store the PNG; - for stdout")
	// Sent because upstream's client sends it; the server ignores it.
	move := fs.Bool("move-cursor", false, "move the cursor to wake up a screensaver")
	fs.BoolVar(move, "m", false, "move the cursor to wake up a screensaver")
	names, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	name, err := one("vnc screenshot", names)
	if err != nil {
		return err
	}
	if *file == "" {
		return errors.New(`required flag(s) "file" not set`)
	}
	img, err := c.client.Get().AbsPath("/apis/subresources.kubevirt.io/v1/namespaces", c.namespace, "virtualmachineinstances", name, "vnc", "screenshot").
		Param("moveCursor", strconv.FormatBool(*move)).Do(ctx).Raw()
	if err != nil {
		return fmt.Errorf("Can't access VMI %s: %v", name, err)
	}
	if *file == "-" {
		if _, err := c.out.Write(img); err != nil {
			return fmt.Errorf("failed to write image to stdout: %v", err)
		}
		return nil
	}
	if err := os.WriteFile(*file, img, 0o644); err != nil {
		return fmt.Errorf("Can't write image to a file: %v", err)
	}
	return nil
}
