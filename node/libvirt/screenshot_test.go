package libvirt

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"testing"

	"github.com/stretchr/testify/require"
)

// ppm builds a P6 file of w x h pixels with header as the text before
// the raster (so a test can add comments) and pixel(x, y) as its colours.
func ppm(header string, w, h int, pixel func(x, y int) [3]byte) []byte {
	out := []byte(header)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := pixel(x, y)
			out = append(out, p[:]...)
		}
	}
	return out
}

func decodePNG(t *testing.T, data []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	return img
}

func TestPPMScreenshotBecomesPNG(t *testing.T) {
	// Three pixels wide, with a comment where QEMU could put one and a
	// raster starting with a whitespace byte, which must stay a pixel.
	data := ppm("P6\n# qemu\n3 2\n255\n", 3, 2, func(x, y int) [3]byte {
		return [3]byte{byte(10 * x), byte(100 * y), 0x0a}
	})
	out, err := asPNG("image/x-portable-pixmap", data)
	require.NoError(t, err)
	img := decodePNG(t, out)
	require.Equal(t, image.Rect(0, 0, 3, 2), img.Bounds())
	r, g, b, a := img.At(2, 1).RGBA()
	require.Equal(t, []uint32{20, 100, 10, 255}, []uint32{r >> 8, g >> 8, b >> 8, a >> 8})
	r, g, b, _ = img.At(0, 0).RGBA()
	require.Equal(t, []uint32{0, 0, 10}, []uint32{r >> 8, g >> 8, b >> 8})
}

func TestPPMWithWideSamplesIsScaled(t *testing.T) {
	data := append([]byte("P6 1 1 65535\n"), 0xff, 0xff, 0x80, 0x00, 0x00, 0x00)
	img, err := decodePPM(bytes.NewReader(data))
	require.NoError(t, err)
	require.Equal(t, color.NRGBA{R: 255, G: 127, B: 0, A: 255}, img.At(0, 0))
}

func TestMalformedPPMIsRefused(t *testing.T) {
	for name, data := range map[string]string{
		"ascii pixmap":   "P3\n1 1\n255\n0 0 0\n",
		"short raster":   "P6\n2 2\n255\n\x00\x00\x00",
		"zero width":     "P6\n0 2\n255\n",
		"huge":           "P6\n100000 100000\n255\n",
		"bad number":     "P6\nx 2\n255\n",
		"empty":          "",
		"too wide depth": "P6\n1 1\n70000\n\x00\x00\x00\x00\x00\x00",
	} {
		_, err := asPNG("image/x-portable-pixmap", []byte(data))
		require.Error(t, err, name)
	}
	_, err := asPNG("image/bmp", []byte("BM"))
	require.ErrorContains(t, err, "unknown format image/bmp")
}

func TestPNGScreenshotPassesThrough(t *testing.T) {
	var want bytes.Buffer
	frame := image.NewNRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			frame.SetNRGBA(x, y, color.NRGBA{R: byte(4 * x), G: byte(5 * y), B: 0x80, A: 255})
		}
	}
	require.NoError(t, png.Encode(&want, frame))
	out, err := asPNG("image/png", want.Bytes())
	require.NoError(t, err)
	require.Equal(t, want.Bytes(), out)
}

// screenshotOf runs a domain on h and checks its screenshot is a PNG.
// libvirtfake's tests run a copy of it on the fake.
func screenshotOf(t *testing.T, h Hypervisor, typ string) image.Image {
	ctx := context.Background()
	_, err := h.Create(ctx, fmt.Sprintf(domXML, typ, "shot"), false)
	require.NoError(t, err)
	defer h.Destroy(ctx, "shot")
	out, err := h.Screenshot(ctx, "shot")
	require.NoError(t, err)
	_, err = h.Screenshot(ctx, "no-such-domain")
	require.ErrorIs(t, err, ErrNotFound)
	return decodePNG(t, out)
}

func TestLibvirtTestDriverScreenshotIsPNG(t *testing.T) {
	h, err := Connect("test:///default")
	require.NoError(t, err)
	defer h.Close()
	require.False(t, screenshotOf(t, h, "test").Bounds().Empty())
}
