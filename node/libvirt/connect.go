package libvirt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	golibvirt "libvirt.org/go/libvirt"
	"libvirt.org/go/libvirtxml"
)

// conn is the real Hypervisor over libvirt.org/go/libvirt.
type conn struct {
	c *golibvirt.Connect
}

// Connect opens a libvirt connection, e.g. "qemu:///system",
// "qemu+unix:///session?socket=/path/libvirt-sock" or "test:///default".
func Connect(uri string) (Hypervisor, error) {
	c, err := golibvirt.NewConnect(uri)
	if err != nil {
		return nil, fmt.Errorf("connecting to libvirt at %s: %w", uri, err)
	}
	return &conn{c: c}, nil
}

func (h *conn) Create(_ context.Context, xml string, paused bool) (DomainInfo, error) {
	flags := golibvirt.DOMAIN_NONE
	if paused {
		flags = golibvirt.DOMAIN_START_PAUSED
	}
	d, err := h.c.DomainCreateXML(xml, flags)
	if err != nil {
		name := "?"
		if dom := (&libvirtxml.Domain{}); dom.Unmarshal(xml) == nil {
			name = dom.Name
		}
		return DomainInfo{}, fmt.Errorf("starting domain %s: %w", name, err)
	}
	defer d.Free()
	return info(d)
}

func (h *conn) lookup(name string) (*golibvirt.Domain, error) {
	d, err := h.c.LookupDomainByName(name)
	var lerr golibvirt.Error
	if errors.As(err, &lerr) && lerr.Code == golibvirt.ERR_NO_DOMAIN {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("looking up domain %s: %w", name, err)
	}
	return d, nil
}

func (h *conn) Lookup(_ context.Context, name string) (DomainInfo, error) {
	d, err := h.lookup(name)
	if err != nil {
		return DomainInfo{}, err
	}
	defer d.Free()
	return info(d)
}

func (h *conn) List(context.Context) ([]DomainInfo, error) {
	doms, err := h.c.ListAllDomains(0)
	if err != nil {
		return nil, fmt.Errorf("listing domains: %w", err)
	}
	out := make([]DomainInfo, 0, len(doms))
	for i := range doms {
		if in, err := info(&doms[i]); err == nil {
			out = append(out, in)
		}
		doms[i].Free()
	}
	return out, nil
}

func (h *conn) do(name, verb string, f func(*golibvirt.Domain) error) error {
	d, err := h.lookup(name)
	if err != nil {
		return err
	}
	defer d.Free()
	if err := f(d); err != nil {
		return fmt.Errorf("%s domain %s: %w", verb, name, err)
	}
	return nil
}

func (h *conn) Pause(_ context.Context, name string) error {
	return h.do(name, "pausing", (*golibvirt.Domain).Suspend)
}

func (h *conn) Resume(_ context.Context, name string) error {
	return h.do(name, "resuming", (*golibvirt.Domain).Resume)
}

func (h *conn) Shutdown(_ context.Context, name string) error {
	return h.do(name, "shutting down", (*golibvirt.Domain).Shutdown)
}

func (h *conn) Destroy(_ context.Context, name string) error {
	return h.do(name, "destroying", (*golibvirt.Domain).Destroy)
}

func (h *conn) Console(_ context.Context, name string) (io.ReadWriteCloser, error) {
	d, err := h.lookup(name)
	if err != nil {
		return nil, err
	}
	defer d.Free()
	st, err := h.c.NewStream(0)
	if err != nil {
		return nil, fmt.Errorf("opening stream for %s: %w", name, err)
	}
	if err := d.OpenConsole("", st, golibvirt.DOMAIN_CONSOLE_FORCE); err != nil {
		_ = st.Free()
		return nil, fmt.Errorf("opening console of %s: %w", name, err)
	}
	return &stream{s: st}, nil
}

func (h *conn) Close() error {
	_, err := h.c.Close()
	return err
}

func info(d *golibvirt.Domain) (DomainInfo, error) {
	name, err := d.GetName()
	if err != nil {
		return DomainInfo{}, fmt.Errorf("reading domain name: %w", err)
	}
	uuid, _ := d.GetUUIDString()
	st, reason, err := d.GetState()
	if err != nil {
		return DomainInfo{}, fmt.Errorf("reading state of %s: %w", name, err)
	}
	s, r := stateOf(st, reason)
	return DomainInfo{Name: name, UUID: uuid, State: s, Reason: r}, nil
}

func stateOf(st golibvirt.DomainState, reason int) (State, string) {
	switch st {
	case golibvirt.DOMAIN_RUNNING:
		return Running, ""
	case golibvirt.DOMAIN_PAUSED:
		if golibvirt.DomainPausedReason(reason) == golibvirt.DOMAIN_PAUSED_IOERROR {
			return Paused, "ioerror"
		}
		return Paused, "user"
	case golibvirt.DOMAIN_SHUTDOWN:
		return Shutdown, ""
	case golibvirt.DOMAIN_SHUTOFF:
		if golibvirt.DomainShutoffReason(reason) == golibvirt.DOMAIN_SHUTOFF_CRASHED {
			return Shutoff, "crashed"
		}
		return Shutoff, "shutdown"
	case golibvirt.DOMAIN_CRASHED:
		return Crashed, "crashed"
	}
	return NoState, ""
}

// stream adapts a blocking libvirt stream to io.ReadWriteCloser.
type stream struct {
	s    *golibvirt.Stream
	once sync.Once
}

func (s *stream) Read(b []byte) (int, error) {
	n, err := s.s.Recv(b)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (s *stream) Write(b []byte) (int, error) { return s.s.Send(b) }

func (s *stream) Close() error {
	var err error
	s.once.Do(func() {
		err = s.s.Abort()
		_ = s.s.Free()
	})
	return err
}
