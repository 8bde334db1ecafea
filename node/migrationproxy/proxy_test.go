package migrationproxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pki issues a CA and leaf certificates for the tests.
type pki struct {
	ca   *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newPKI(t *testing.T) *pki {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &pki{ca: ca, key: key, pool: pool}
}

func (p *pki) leaf(t *testing.T, name string) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func (p *pki) server(t *testing.T) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.leaf(t, "migration")}, ClientCAs: p.pool, ClientAuth: tls.RequireAndVerifyClientCert}
}

func (p *pki) client(t *testing.T) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{p.leaf(t, "virt-handler")}, RootCAs: p.pool, ServerName: "migration"}
}

// shoutServer answers each connection with what it read, upper-cased, once
// the peer finished writing: it stands for the target's libvirt or QEMU.
// It returns how many connections it took.
func shoutServer(t *testing.T, path string) *atomic.Int32 {
	l, err := net.Listen("unix", path)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	var taken atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			taken.Add(1)
			go func() {
				defer c.Close()
				in, _ := io.ReadAll(c)
				_, _ = c.Write([]byte(strings.ToUpper(string(in))))
			}()
		}
	}()
	return &taken
}

// errs collects what the proxies report.
type errs struct {
	mu  sync.Mutex
	all []error
}

func (e *errs) add(err error) { e.mu.Lock(); e.all = append(e.all, err); e.mu.Unlock() }
func (e *errs) list() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]error(nil), e.all...)
}

func send(t *testing.T, socket, msg string) (string, error) {
	c, err := net.Dial("unix", socket)
	require.NoError(t, err)
	defer c.Close()
	// A proxy that refuses its peer closes this end at any moment, so a
	// write may fail; the caller decides whether that is an error.
	if _, err := c.Write([]byte(msg)); err != nil {
		return "", fmt.Errorf("writing to %s: %w", socket, err)
	}
	if err := c.(*net.UnixConn).CloseWrite(); err != nil {
		return "", fmt.Errorf("closing the write side of %s: %w", socket, err)
	}
	out, err := io.ReadAll(c)
	return string(out), err
}

func TestEachStreamReachesItsSocketInTheTargetPodOverMutualTLS(t *testing.T) {
	p := newPKI(t)
	targetPod, sourcePod := t.TempDir(), t.TempDir()
	sockets := map[int]string{}
	for _, s := range []int{LibvirtStream, MemoryStream} {
		sockets[s] = filepath.Join(targetPod, SocketPath("", "uid", s))
		shoutServer(t, sockets[s])
	}
	var reported errs
	target, err := ListenTarget("127.0.0.1", p.server(t), sockets, reported.add)
	require.NoError(t, err)
	defer target.Close()
	require.Len(t, target.Ports, 2)
	var streams []int
	for _, s := range target.Ports {
		streams = append(streams, s)
	}
	require.ElementsMatch(t, []int{LibvirtStream, MemoryStream}, streams, "a port per stream")

	source, err := ListenSource(sourcePod, "uid", "127.0.0.1", target.Ports, p.client(t), Owner{}, reported.add)
	require.NoError(t, err)
	big := strings.Repeat("guest memory page ", 1<<16)
	got, err := send(t, SocketPath(sourcePod, "uid", MemoryStream), big)
	require.NoError(t, err)
	require.Equal(t, strings.ToUpper(big), got, "every byte crosses, both ways, and each side's end reaches the other")
	got, err = send(t, SocketPath(sourcePod, "uid", LibvirtStream), "hello libvirt")
	require.NoError(t, err)
	require.Equal(t, "HELLO LIBVIRT", got)
	require.Empty(t, reported.list())

	require.NoError(t, source.Close())
	_, err = net.Dial("unix", SocketPath(sourcePod, "uid", MemoryStream))
	require.Error(t, err, "the source's sockets go with it")
}

func keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestTheTargetTakesNoConnectionWithoutAClientCertificateOfItsCA(t *testing.T) {
	p := newPKI(t)
	socket := filepath.Join(t.TempDir(), "memory.sock")
	taken := shoutServer(t, socket)
	var reported errs
	target, err := ListenTarget("127.0.0.1", p.server(t), map[int]string{MemoryStream: socket}, reported.add)
	require.NoError(t, err)
	defer target.Close()
	addr := "127.0.0.1:" + keys(target.Ports)[0]

	anonymous := &tls.Config{RootCAs: p.pool, ServerName: "migration"}
	stranger := newPKI(t).client(t)
	stranger.RootCAs = p.pool
	for name, conf := range map[string]*tls.Config{"no certificate": anonymous, "another CA's certificate": stranger} {
		c, err := tls.Dial("tcp", addr, conf)
		if err == nil {
			_, err = c.Write([]byte("x"))
			if err == nil {
				_, err = c.Read(make([]byte, 1))
			}
			c.Close()
		}
		require.Error(t, err, name)
	}
	require.Eventually(t, func() bool { return len(reported.list()) == 2 }, 5*time.Second, 10*time.Millisecond)
	require.Zero(t, taken.Load(), "the pod's socket is never dialled for a peer that did not prove who it is")

	_, err = ListenTarget("127.0.0.1", &tls.Config{Certificates: []tls.Certificate{p.leaf(t, "migration")}}, map[int]string{MemoryStream: socket}, reported.add)
	require.ErrorContains(t, err, "must require and verify client certificates")
}

func TestTheSourceRefusesATargetItCannotVerify(t *testing.T) {
	p, other := newPKI(t), newPKI(t)
	socket := filepath.Join(t.TempDir(), "memory.sock")
	shoutServer(t, socket)
	var reported errs
	target, err := ListenTarget("127.0.0.1", other.server(t), map[int]string{MemoryStream: socket}, reported.add)
	require.NoError(t, err)
	defer target.Close()
	sourcePod := t.TempDir()
	source, err := ListenSource(sourcePod, "uid", "127.0.0.1", target.Ports, p.client(t), Owner{}, reported.add)
	require.NoError(t, err)
	defer source.Close()
	got, _ := send(t, SocketPath(sourcePod, "uid", MemoryStream), "secret")
	require.Empty(t, got, "nothing reaches a target of another CA")
	require.Eventually(t, func() bool { return len(reported.list()) > 0 }, 5*time.Second, 20*time.Millisecond)
	require.ErrorContains(t, reported.list()[0], "certificate")

	_, err = ListenSource(sourcePod, "uid", "127.0.0.1", target.Ports, &tls.Config{RootCAs: p.pool}, Owner{}, reported.add)
	require.ErrorContains(t, err, "must present a client certificate")
}

func TestSocketNamesAreUpstreams(t *testing.T) {
	require.Equal(t, "/run/kubevirt/migrationproxy/u1-source.sock", SocketPath("/run/kubevirt/migrationproxy", "u1", LibvirtStream))
	require.Equal(t, "/run/kubevirt/migrationproxy/u1-49152-source.sock", SocketPath("/run/kubevirt/migrationproxy", "u1", MemoryStream))
	require.Equal(t, "/run/kubevirt/migrationproxy/u1-49153-source.sock", SocketPath("/run/kubevirt/migrationproxy", "u1", BlockStream))
}
