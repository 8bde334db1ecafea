package libvirt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
)

// maxScreenshot bounds what a screenshot stream may carry: an uncompressed
// 8K frame fits, a runaway stream does not exhaust memory.
const maxScreenshot = 128 << 20

// Screenshot captures the domain's primary display as PNG, whatever
// format QEMU produced: callers (upstream's virtctl among them) save it
// as a .png, while the QEMU and libvirt we run write only PPM.
func (h *conn) Screenshot(_ context.Context, name string) ([]byte, error) {
	d, err := h.lookup(name)
	if err != nil {
		return nil, err
	}
	defer d.Free()
	st, err := h.c.NewStream(0)
	if err != nil {
		return nil, fmt.Errorf("opening stream for the screenshot of %s: %w", name, err)
	}
	defer func() { _ = st.Free() }()
	mime, err := d.Screenshot(st, 0, 0)
	if err != nil {
		_ = st.Abort()
		return nil, fmt.Errorf("taking a screenshot of %s: %w", name, err)
	}
	data, err := io.ReadAll(io.LimitReader(&stream{s: st}, maxScreenshot+1))
	if err == nil && len(data) > maxScreenshot {
		err = fmt.Errorf("more than %d bytes", maxScreenshot)
	}
	if err != nil {
		_ = st.Abort()
		return nil, fmt.Errorf("reading the screenshot of %s: %w", name, err)
	}
	if err := st.Finish(); err != nil {
		return nil, fmt.Errorf("finishing the screenshot stream of %s: %w", name, err)
	}
	return asPNG(mime, data)
}

// asPNG returns a screenshot libvirt gave as mime in PNG.
func asPNG(mime string, data []byte) ([]byte, error) {
	switch mime {
	case "image/png":
		return data, nil
	case "image/x-portable-pixmap":
		img, err := decodePPM(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decoding the screenshot: %w", err)
		}
		var out bytes.Buffer
		if err := png.Encode(&out, img); err != nil {
			return nil, fmt.Errorf("encoding the screenshot as PNG: %w", err)
		}
		return out.Bytes(), nil
	}
	return nil, errors.New("the screenshot is in an unknown format " + mime)
}
