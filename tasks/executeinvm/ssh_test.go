package executeinvm

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/pem"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// sshGuest is an SSH server in the test: it accepts the client key and
// answers an exec of "exit N" with status N and anything else by echoing
// it on stdout and on stderr; "sleep" never answers.
type sshGuest struct {
	addr       string
	hostKey    ssh.PublicKey
	clientKey  string
	listener   net.Listener
	authorized ssh.PublicKey
}

func newSSHGuest(t *testing.T) *sshGuest {
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	require.NoError(t, err)
	clientPub, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	block, err := ssh.MarshalPrivateKey(clientPriv, "")
	require.NoError(t, err)
	authorized, err := ssh.NewPublicKey(clientPub)
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	g := &sshGuest{addr: l.Addr().String(), hostKey: hostSigner.PublicKey(), clientKey: string(pem.EncodeToMemory(block)),
		listener: l, authorized: authorized}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
		if bytes.Equal(key.Marshal(), g.authorized.Marshal()) {
			return nil, nil
		}
		return nil, assert.AnError
	}}
	cfg.AddHostKey(hostSigner)
	go g.serve(cfg)
	return g
}

func (g *sshGuest) serve(cfg *ssh.ServerConfig) {
	for {
		conn, err := g.listener.Accept()
		if err != nil {
			return
		}
		go func() {
			_, chans, reqs, err := ssh.NewServerConn(conn, cfg)
			if err != nil {
				conn.Close()
				return
			}
			go ssh.DiscardRequests(reqs)
			for nc := range chans {
				ch, chReqs, err := nc.Accept()
				if err != nil {
					continue
				}
				go g.session(ch, chReqs)
			}
		}()
	}
}

func (g *sshGuest) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "exec" {
			_ = req.Reply(false, nil)
			continue
		}
		_ = req.Reply(true, nil)
		command := string(req.Payload[4:])
		if command == "sleep" {
			time.Sleep(time.Minute)
		}
		status := 0
		if n, ok := strings.CutPrefix(command, "exit "); ok {
			status, _ = strconv.Atoi(n)
		} else {
			_, _ = ch.Write([]byte("out: " + command + "\n"))
			_, _ = ch.Stderr().Write([]byte("err: " + command + "\n"))
		}
		b := make([]byte, 4)
		binary.BigEndian.PutUint32(b, uint32(status))
		_, _ = ch.SendRequest("exit-status", false, b)
		return
	}
}

func (g *sshGuest) executor(t *testing.T, log *bytes.Buffer, attrs sshAttributes) *sshExecutor {
	host, port, err := net.SplitHostPort(g.addr)
	require.NoError(t, err)
	attrs.port, _ = strconv.Atoi(port)
	attrs.user = "fedora"
	attrs.privateKey = g.clientKey
	e := &sshExecutor{env: stepenv.Env{Log: log}, attrs: attrs, timing: fastTiming}
	require.NoError(t, e.connect(context.Background(), vmTarget{ip: host}))
	return e
}

func TestSSHRunsTheScript(t *testing.T) {
	g := newSSHGuest(t)
	var log bytes.Buffer
	known := string(ssh.MarshalAuthorizedKey(g.hostKey))
	e := g.executor(t, &log, sshAttributes{strict: "yes", hostPublicKey: "# the guest\n" + known})
	require.NoError(t, e.execute(context.Background(), "systemctl start db"))
	assert.Contains(t, log.String(), "out: systemctl start db\n")
	assert.Contains(t, log.String(), "err: systemctl start db\n")

	err := e.execute(context.Background(), "exit 4")
	assert.EqualError(t, err, "exit status 4")
}

func TestSSHChecksTheHostKey(t *testing.T) {
	g := newSSHGuest(t)
	other, _, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	otherKey, err := ssh.NewPublicKey(other)
	require.NoError(t, err)
	wrong := string(ssh.MarshalAuthorizedKey(otherKey))

	e := g.executor(t, &bytes.Buffer{}, sshAttributes{strict: "yes", hostPublicKey: wrong})
	err = e.execute(context.Background(), "true")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "host key verification failed")

	e = g.executor(t, &bytes.Buffer{}, sshAttributes{strict: "no", hostPublicKey: wrong})
	assert.NoError(t, e.execute(context.Background(), "true"), "not checked")
	e = g.executor(t, &bytes.Buffer{}, sshAttributes{strict: "accept-new"})
	assert.NoError(t, e.execute(context.Background(), "true"), "nothing known yet")
	e = g.executor(t, &bytes.Buffer{}, sshAttributes{strict: "yes", hostPublicKey: "[" + g.addr + "] " + string(ssh.MarshalAuthorizedKey(g.hostKey))})
	assert.NoError(t, e.execute(context.Background(), "true"), "known_hosts format")
}

func TestSSHEndsWithTheContext(t *testing.T) {
	g := newSSHGuest(t)
	e := g.executor(t, &bytes.Buffer{}, sshAttributes{strict: "no"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, e.execute(ctx, "sleep"), context.DeadlineExceeded)
}

func TestSSHWaitsForThePort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	e := &sshExecutor{env: stepenv.Env{}, attrs: sshAttributes{port: port}, timing: fastTiming}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	assert.Equal(t, errWaitTimeout, e.connect(ctx, vmTarget{ip: "127.0.0.1"}))
}

func TestSSHRejectsABadKey(t *testing.T) {
	e := &sshExecutor{attrs: sshAttributes{privateKey: "not a key", strict: "no"}}
	err := e.execute(context.Background(), "true")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "parsing ssh-privatekey")
}
