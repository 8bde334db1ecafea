package libvirtfake

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"

	"github.com/virtflow/virtflow/node/libvirt"
)

// fakeScreen is what the fake's display shows when Screens has no entry
// for a domain: a 640x480 frame, dark with a lighter band of "text", so
// that it is neither blank nor one colour.
func fakeScreen() image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, 640, 480))
	for y := 0; y < 480; y++ {
		for x := 0; x < 640; x++ {
			c := color.NRGBA{A: 255}
			if y >= 16 && y < 32 && x < 320 {
				c = color.NRGBA{R: 170, G: 170, B: 170, A: 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// Screenshot renders the domain's entry in Screens, or a default frame,
// as PNG; the domain must be running or paused, as for QEMU.
func (f *Hypervisor) Screenshot(ctx context.Context, name string) ([]byte, error) {
	d, err := f.Lookup(ctx, name)
	if err != nil {
		return nil, err
	}
	if d.State != libvirt.Running && d.State != libvirt.Paused {
		return nil, fmt.Errorf("domain %s is not running", name)
	}
	f.mu.Lock()
	img, ok := f.Screens[name]
	f.mu.Unlock()
	if !ok {
		img = fakeScreen()
	}
	var out bytes.Buffer
	if err := png.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("encoding the fake screen of %s: %w", name, err)
	}
	return out.Bytes(), nil
}
