package libvirt

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"strconv"
)

// maxPPMPixels bounds what a header may claim, so a corrupt one cannot
// make us allocate gigabytes; it is well above any real display.
const maxPPMPixels = 16384 * 16384

// decodePPM reads a binary (P6) portable pixmap, the format QEMU's
// screendump writes when libvirt asks for no other.
func decodePPM(r io.Reader) (image.Image, error) {
	br := bufio.NewReader(r)
	magic, err := ppmToken(br)
	if err != nil {
		return nil, fmt.Errorf("reading PPM magic: %w", err)
	}
	if magic != "P6" {
		return nil, fmt.Errorf("not a binary PPM: magic %q", magic)
	}
	var dims [3]int
	for i, what := range []string{"width", "height", "maxval"} {
		if dims[i], err = ppmNumber(br, what); err != nil {
			return nil, err
		}
	}
	w, h, maxval := dims[0], dims[1], dims[2]
	if w == 0 || h == 0 || w*h > maxPPMPixels || maxval > 65535 {
		return nil, fmt.Errorf("PPM header out of range: %dx%d, maxval %d", w, h, maxval)
	}
	return ppmPixels(br, w, h, maxval)
}

// ppmPixels reads the raster after the header: 3 samples a pixel, of
// one byte when maxval fits one, else two big-endian ones.
func ppmPixels(r io.Reader, w, h, maxval int) (image.Image, error) {
	size := 1
	if maxval > 255 {
		size = 2
	}
	raw := make([]byte, w*h*3*size)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, fmt.Errorf("reading %dx%d PPM pixels: %w", w, h, err)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	sample := func(i int) uint8 {
		v := int(raw[i*size])
		if size == 2 {
			v = v<<8 | int(raw[i*size+1])
		}
		if v > maxval {
			v = maxval
		}
		return uint8(v * 255 / maxval)
	}
	for p := 0; p < w*h; p++ {
		img.SetNRGBA(p%w, p/w, color.NRGBA{R: sample(3 * p), G: sample(3*p + 1), B: sample(3*p + 2), A: 255})
	}
	return img, nil
}

func ppmNumber(br *bufio.Reader, what string) (int, error) {
	tok, err := ppmToken(br)
	if err != nil {
		return 0, fmt.Errorf("reading PPM %s: %w", what, err)
	}
	n, err := strconv.Atoi(tok)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("PPM %s %q is not a positive number", what, tok)
	}
	return n, nil
}

// ppmToken returns the next header token, skipping whitespace and
// comments; it consumes the single whitespace byte that ends the token,
// which for maxval is the one separating the header from the raster.
func ppmToken(br *bufio.Reader) (string, error) {
	var tok []byte
	for {
		c, err := br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(tok) > 0 {
				return string(tok), nil
			}
			return "", err
		}
		switch {
		case c == '#' && len(tok) == 0:
			if _, err := br.ReadString('\n'); err != nil {
				return "", err
			}
		case isPPMSpace(c):
			if len(tok) > 0 {
				return string(tok), nil
			}
		default:
			if len(tok) >= 16 {
				return "", errors.New("header token too long")
			}
			tok = append(tok, c)
		}
	}
}

func isPPMSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
