package executeinvm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/virtflow/virtflow/tasks/stepenv"
)

// dialTimeout bounds one attempt to reach the guest's SSH port.
const dialTimeout = 3 * time.Second

// newExecutor is the executor for the secret's connection type.
func newExecutor(env stepenv.Env, c connection) executor {
	if c.kind == typeConsole {
		return &consoleExecutor{env: env, timing: upstreamTiming, open: openConsole}
	}
	return &sshExecutor{env: env, attrs: c.ssh, timing: upstreamTiming}
}

// sshExecutor runs the script with an SSH client, as upstream's ssh
// command does: `ssh user@ip -- script`.
type sshExecutor struct {
	env    stepenv.Env
	attrs  sshAttributes
	timing timing
	addr   string
}

func (e *sshExecutor) needsIP() bool { return true }

func (e *sshExecutor) close() {}

// connect waits until the guest's SSH port accepts connections.
func (e *sshExecutor) connect(ctx context.Context, target vmTarget) error {
	if len(e.attrs.ignored) > 0 {
		e.env.Logf("ignoring ssh options the built-in client does not support: %s", strings.Join(e.attrs.ignored, " "))
	}
	e.addr = net.JoinHostPort(target.ip, strconv.Itoa(e.attrs.port))
	err := poll(ctx, e.env, e.timing.connection, "waiting for ssh at "+e.addr, func() (bool, error) {
		d := net.Dialer{Timeout: dialTimeout}
		conn, err := d.DialContext(ctx, "tcp", e.addr)
		if err != nil {
			return false, nil
		}
		conn.Close()
		return true, nil
	})
	if err != nil {
		return err
	}
	return sleep(ctx, e.timing.settle)
}

// execute runs script in one session; the guest's output goes to the log.
// The context's end closes the connection, which ends the session.
func (e *sshExecutor) execute(ctx context.Context, script string) error {
	cfg, err := e.clientConfig()
	if err != nil {
		return err
	}
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", e.addr)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", e.addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	err = e.session(conn, cfg, script)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// session authenticates over conn and runs script.
func (e *sshExecutor) session(conn net.Conn, cfg *ssh.ClientConfig, script string) error {
	sc, chans, reqs, err := ssh.NewClientConn(conn, e.addr, cfg)
	if err != nil {
		return fmt.Errorf("ssh to %s@%s: %w", e.attrs.user, e.addr, err)
	}
	client := ssh.NewClient(sc, chans, reqs)
	defer client.Close()
	session, err := client.NewSession()
	if err != nil {
		return fmt.Errorf("opening an ssh session on %s: %w", e.addr, err)
	}
	defer session.Close()
	if e.env.Log != nil {
		log := &lockedWriter{w: e.env.Log}
		session.Stdout, session.Stderr = log, log
	}
	return sshExit(session.Run(script))
}

// sshExit turns the remote exit status into an *ExitError.
func sshExit(err error) error {
	var exit *ssh.ExitError
	if errors.As(err, &exit) {
		return &ExitError{Code: exit.ExitStatus()}
	}
	if err != nil {
		return fmt.Errorf("running the script over ssh: %w", err)
	}
	return nil
}

// clientConfig authenticates with the secret's key and checks the host
// key as StrictHostKeyChecking says: yes needs host-public-key to match,
// accept-new checks it only when given, no never checks.
func (e *sshExecutor) clientConfig() (*ssh.ClientConfig, error) {
	signer, err := ssh.ParsePrivateKey([]byte(e.attrs.privateKey))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", keyPrivateKey, err)
	}
	cfg := &ssh.ClientConfig{User: e.attrs.user, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, Timeout: dialTimeout}
	known, err := hostKeys(e.attrs.hostPublicKey)
	if err != nil {
		return nil, err
	}
	switch {
	case e.attrs.strict == "no", e.attrs.strict == "accept-new" && len(known) == 0:
		cfg.HostKeyCallback = ssh.InsecureIgnoreHostKey()
	default:
		cfg.HostKeyCallback = func(_ string, _ net.Addr, key ssh.PublicKey) error {
			for _, k := range known {
				if k.Type() == key.Type() && string(k.Marshal()) == string(key.Marshal()) {
					return nil
				}
			}
			return fmt.Errorf("host key verification failed: the guest's %s key is not %s", key.Type(), keyHostPublicKey)
		}
		cfg.HostKeyAlgorithms = algorithms(known)
	}
	return cfg, nil
}

// hostKeys parses host-public-key: one key a line, in authorized_keys or
// known_hosts format.
func hostKeys(text string) ([]ssh.PublicKey, error) {
	var keys []ssh.PublicKey
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			_, _, key, _, _, err = ssh.ParseKnownHosts([]byte(line))
		}
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", keyHostPublicKey, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// algorithms asks the server for the kinds of keys we know, so a guest
// with several host keys shows the one we can check.
func algorithms(keys []ssh.PublicKey) []string {
	var algs []string
	for _, k := range keys {
		if k.Type() == ssh.KeyAlgoRSA {
			algs = append(algs, ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256)
		}
		algs = append(algs, k.Type())
	}
	return algs
}

// lockedWriter lets the session's stdout and stderr copiers share a log.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return errWaitTimeout
		}
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
