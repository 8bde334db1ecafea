package handler

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubevirtv1 "kubevirt.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/virtflow/virtflow/contracts/virt"
	"github.com/virtflow/virtflow/kube/mtls"
	kubescheme "github.com/virtflow/virtflow/kube/scheme"
	"github.com/virtflow/virtflow/kube/webhookcert"
	"github.com/virtflow/virtflow/node/launcher"
	"github.com/virtflow/virtflow/node/libvirt"
	"github.com/virtflow/virtflow/node/unixsocket"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// scriptedLauncher answers a launcher's socket as the tests script it.
type scriptedLauncher struct {
	mu        sync.Mutex
	status    launcher.Status
	migration launcher.MigrationStatus
	requests  []launcher.MigrateRequest
	verbs     []string
	// onMigrate runs when a migration is asked for.
	onMigrate func(*scriptedLauncher)
}

func (f *scriptedLauncher) serve(t *testing.T, socket string) {
	require.NoError(t, os.MkdirAll(filepath.Dir(socket), 0o755))
	l, err := unixsocket.Listen(socket)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, _ *http.Request) { f.reply(w, func() any { return f.status }) })
	mux.HandleFunc("GET /v1/migration", func(w http.ResponseWriter, _ *http.Request) { f.reply(w, func() any { return f.migration }) })
	mux.HandleFunc("PUT /v1/migrate", func(w http.ResponseWriter, r *http.Request) {
		var req launcher.MigrateRequest
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		f.mu.Lock()
		f.requests = append(f.requests, req)
		f.migration = launcher.MigrationStatus{ID: req.ID, Phase: launcher.MigrationRunning}
		if f.onMigrate != nil {
			f.onMigrate(f)
		}
		f.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	for _, verb := range []string{"migrate-abort", "migrate-postcopy", "unpause"} {
		mux.HandleFunc("PUT /v1/"+verb, func(w http.ResponseWriter, _ *http.Request) {
			f.mu.Lock()
			f.verbs = append(f.verbs, verb)
			f.mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
		})
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
}

func (f *scriptedLauncher) reply(w http.ResponseWriter, v func() any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_ = json.NewEncoder(w).Encode(v())
}

func (f *scriptedLauncher) set(fn func(*scriptedLauncher)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// agentCerts are a CA's agent certificates, as virt-operator issues them.
func agentCerts(t *testing.T) MigrationTLS {
	server, client := map[string][]byte{}, map[string][]byte{}
	_, _, err := webhookcert.EnsureData(server, []string{handlerServerName}, webhookcert.DefaultPolicy, time.Now())
	require.NoError(t, err)
	_, err = webhookcert.EnsureClientData(client, server, "kubevirt.io:system:client:virt-handler", webhookcert.DefaultPolicy, time.Now())
	require.NoError(t, err)
	server[webhookcert.BundleFile] = client[webhookcert.BundleFile]
	write := func(data map[string][]byte) *mtls.Files {
		dir := t.TempDir()
		for name, b := range data {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o600))
		}
		return &mtls.Files{Cert: filepath.Join(dir, webhookcert.CertFile), Key: filepath.Join(dir, webhookcert.KeyFile), CA: filepath.Join(dir, webhookcert.BundleFile)}
	}
	return MigrationTLS{Server: write(server), Client: write(client)}
}

// migrationWorld is two nodes' agents over one fake cluster: a running
// VMI on node-1 and the migration's target pod on node-2.
type migrationWorld struct {
	c              client.Client
	source, target *Migrations
	srcPod, tgtPod *corev1.Pod
	req            virt.NodeRequest
}

func newMigrationWorld(t *testing.T) *migrationWorld {
	scheme, err := kubescheme.New()
	require.NoError(t, err)
	vmi := &kubevirtv1.VirtualMachineInstance{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vm", UID: "vmi-1"}}
	vmi.Spec.Domain.Devices.Disks = []kubevirtv1.Disk{{Name: "root"}}
	vmi.Spec.Volumes = []kubevirtv1.Volume{{Name: "root", VolumeSource: kubevirtv1.VolumeSource{ContainerDisk: &kubevirtv1.ContainerDiskSource{Image: "x"}}}}
	pod := func(name, node, uid string, labels map[string]string) *corev1.Pod {
		labels[kubevirtv1.CreatedByLabel] = "vmi-1"
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("pod-" + uid), Labels: labels},
			Spec:   corev1.PodSpec{NodeName: node},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.244.0.9"}}
	}
	w := &migrationWorld{
		srcPod: pod("virt-launcher-vm-aaaaa", "node-1", "src", map[string]string{}),
		tgtPod: pod("virt-launcher-vm-bbbbb", "node-2", "tgt", map[string]string{kubevirtv1.MigrationJobLabel: "mig-1"}),
	}
	agent2 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kubevirt-hyperconverged", Name: "virt-handler-b", Labels: map[string]string{"kubevirt.io": "virt-handler"}},
		Spec: corev1.PodSpec{NodeName: "node-2"}, Status: corev1.PodStatus{PodIP: "127.0.0.1"}}
	w.c = fake.NewClientBuilder().WithScheme(scheme).WithObjects(vmi, w.srcPod, w.tgtPod, agent2).Build()
	certs := agentCerts(t)
	agent := func(node string) *Migrations {
		return NewMigrations(w.c, Config{NodeName: node, NodeIP: "127.0.0.1", KubeletRoot: t.TempDir(), UID: os.Getuid(), GID: os.Getgid(),
			Namespace: "kubevirt-hyperconverged"}, certs, nil)
	}
	w.source, w.target = agent("node-1"), agent("node-2")
	w.req = virt.NodeRequest{
		Migration: virt.Ref{Namespace: "ns", Name: "mig", UID: "mig-1"}, VMI: virt.Ref{Namespace: "ns", Name: "vm", UID: "vmi-1"},
		Plan:   virt.MigrationPlan{Source: virt.Side{Node: "node-1", Pod: w.srcPod.Name}, ProgressTimeout: time.Minute, CompletionTimeout: time.Hour, BlockMigration: true},
		Target: virt.Side{Node: "node-2", Pod: w.tgtPod.Name},
	}
	return w
}

// launcherOf serves a fake launcher on the pod's socket, as the agent
// finds it.
func launcherOf(t *testing.T, m *Migrations, pod *corev1.Pod) *scriptedLauncher {
	f := &scriptedLauncher{}
	f.serve(t, m.r.cfg.locate(pod).socket)
	return f
}

func execute(t *testing.T, m *Migrations, name string, req virt.NodeRequest) (converter.EncodedValue, error) {
	t.Helper()
	env := (&testsuite.WorkflowTestSuite{}).NewTestActivityEnvironment()
	virt.RegisterNodeActivities(env, m)
	return env.ExecuteActivity(name, req)
}

func requireNonRetryable(t *testing.T, err error, errType, contains string) {
	t.Helper()
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	require.True(t, app.NonRetryable())
	require.Equal(t, errType, app.Type())
	require.Contains(t, app.Message(), contains)
}

func TestTheTargetAgentPreparesOnlyItsOwnMigrationsTargetPod(t *testing.T) {
	w := newMigrationWorld(t)
	_, err := execute(t, w.source, virt.PrepareTargetName, w.req)
	requireNonRetryable(t, err, virt.ErrTypeMigrationRefused, `runs on node "node-2", not on node-1`)

	other := w.req
	other.Migration.UID = "mig-2"
	_, err = execute(t, w.target, virt.PrepareTargetName, other)
	requireNonRetryable(t, err, virt.ErrTypeMigrationRefused, "is not the target of migration mig")

	other = w.req
	other.Target.Pod = w.srcPod.Name
	_, err = execute(t, w.target, virt.PrepareTargetName, other)
	requireNonRetryable(t, err, virt.ErrTypeMigrationRefused, "is not the target of migration mig")
}

func TestTheTargetLauncherWaitsForTheDomainAndItsPortsReachThePod(t *testing.T) {
	w := newMigrationWorld(t)
	tgt := launcherOf(t, w.target, w.tgtPod)
	tgt.set(func(f *scriptedLauncher) {
		f.status = launcher.Status{State: libvirt.NoState, Reason: launcher.ReasonIncoming}
	})
	l := w.target.r.cfg.locate(w.tgtPod)
	require.NoError(t, os.MkdirAll(l.dir, 0o755))
	// The target's libvirt, as the pod's sockets volume holds it.
	libvirtSock := filepath.Join(launcherpod.HostEmptyDir(w.target.r.cfg.KubeletRoot, "pod-tgt", launcherpod.SocketsVolume), "run", "libvirt", "libvirt-sock")
	require.NoError(t, os.MkdirAll(filepath.Dir(libvirtSock), 0o755))
	ln, err := unixsocket.Listen(libvirtSock)
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err == nil {
			_, _ = conn.Write([]byte("libvirt here"))
			conn.Close()
		}
	}()

	v, err := execute(t, w.target, virt.PrepareTargetName, w.req)
	require.NoError(t, err)
	var ep virt.TargetEndpoint
	require.NoError(t, v.Get(&ep))
	require.Equal(t, "127.0.0.1", ep.Address)
	require.Len(t, ep.Ports, 3, "libvirt, memory and (a block migration) disks")

	cfg, err := launcher.ReadConfig(l.dir)
	require.NoError(t, err)
	require.True(t, cfg.MigrationTarget, "the launcher waits for the domain rather than start the guest")
	require.Equal(t, "vm", cfg.VMI.Name)

	again, err := execute(t, w.target, virt.PrepareTargetName, w.req)
	require.NoError(t, err)
	var ep2 virt.TargetEndpoint
	require.NoError(t, again.Get(&ep2))
	require.Equal(t, ep, ep2, "a retry finds the ports open")

	// Only holders of the agents' client certificate get through.
	var libvirtPort string
	for port, stream := range ep.Ports {
		if stream == 0 {
			libvirtPort = port
		}
	}
	requireRefused(t, net.JoinHostPort("127.0.0.1", libvirtPort), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec
	conn, err := tlsDial(net.JoinHostPort("127.0.0.1", libvirtPort), w.source.tls.Client)
	require.NoError(t, err)
	buf := make([]byte, 64)
	n, _ := conn.Read(buf)
	require.Equal(t, "libvirt here", string(buf[:n]))
	conn.Close()

	// Once the guest arrived the ports close.
	tgt.set(func(f *scriptedLauncher) { f.status = launcher.Status{State: libvirt.Running} })
	v, err = execute(t, w.target, virt.ReadCopyName, w.req)
	require.NoError(t, err)
	var c virt.Copy
	require.NoError(t, v.Get(&c))
	require.Equal(t, virt.CopyRunning, c)
	requireRefused(t, net.JoinHostPort("127.0.0.1", libvirtPort), w.source.tls.Client.Client(handlerServerName))
}

func tlsDial(addr string, files *mtls.Files) (net.Conn, error) {
	return tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", addr, files.Client(handlerServerName))
}

// requireRefused: no connection, or one the server ends before any byte
// (TLS 1.3 clients hear of a refused certificate on their first read).
func requireRefused(t *testing.T, addr string, conf *tls.Config) {
	t.Helper()
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp", addr, conf)
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	require.Error(t, err)
}

func TestTheSourceCopiesOverItsPodsSocketsAndAMigrationThatMovedIsDone(t *testing.T) {
	w := newMigrationWorld(t)
	src := launcherOf(t, w.source, w.srcPod)
	w.req.Endpoint = virt.TargetEndpoint{Address: "127.0.0.1", Ports: map[string]int{"40001": 0, "40002": 49152, "40003": 49153}}
	hostDir := filepath.Join(launcherpod.HostEmptyDir(w.source.r.cfg.KubeletRoot, "pod-src", launcherpod.SocketsVolume), "migrationproxy")
	var socketsDuringCopy []string
	src.onMigrate = func(f *scriptedLauncher) {
		entries, _ := os.ReadDir(hostDir)
		for _, e := range entries {
			socketsDuringCopy = append(socketsDuringCopy, e.Name())
		}
		f.migration.Phase = launcher.MigrationSucceeded
	}
	_, err := execute(t, w.source, virt.MigrateDomainName, w.req)
	require.NoError(t, err)
	require.Len(t, src.requests, 1)
	got := src.requests[0]
	require.Equal(t, "mig-1", got.ID)
	require.Equal(t, "qemu+unix:///session?socket=/var/run/kubevirt/sockets/migrationproxy/vmi-1-source.sock", got.DestURI)
	require.Equal(t, "unix:///var/run/kubevirt/sockets/migrationproxy/vmi-1-49152-source.sock", got.MemoryURI)
	require.Equal(t, []string{"vda"}, got.Disks, "the container disk's overlay moves with the guest")
	require.Equal(t, "unix:///var/run/kubevirt/sockets/migrationproxy/vmi-1-49153-source.sock", got.DisksURI)
	require.ElementsMatch(t, []string{"vmi-1-source.sock", "vmi-1-49152-source.sock", "vmi-1-49153-source.sock"}, socketsDuringCopy)
	left, _ := os.ReadDir(hostDir)
	require.Empty(t, left, "the sockets go with the copy")

	_, err = execute(t, w.source, virt.MigrateDomainName, w.req)
	require.NoError(t, err)
	require.Len(t, src.requests, 1, "a retry finds the copy done and starts none")

	src.set(func(f *scriptedLauncher) {
		f.migration = launcher.MigrationStatus{ID: "mig-1", Phase: launcher.MigrationFailed, Message: "Unsafe migration"}
	})
	_, err = execute(t, w.source, virt.MigrateDomainName, w.req)
	requireNonRetryable(t, err, virt.ErrTypeMigrationFailed, "Live migration failed Unsafe migration")

	src.set(func(f *scriptedLauncher) {
		f.migration = launcher.MigrationStatus{ID: "an-earlier-one", Phase: launcher.MigrationFailed}
		f.onMigrate = func(f *scriptedLauncher) { f.migration.Phase = launcher.MigrationSucceeded }
	})
	_, err = execute(t, w.source, virt.MigrateDomainName, w.req)
	require.NoError(t, err, "an earlier migration's failure is not this one's")
	require.Len(t, src.requests, 2)
}

func TestACopyWithoutProgressIsAbortedWithUpstreamsMessage(t *testing.T) {
	w := newMigrationWorld(t)
	src := launcherOf(t, w.source, w.srcPod)
	w.req.Endpoint = virt.TargetEndpoint{Address: "127.0.0.1", Ports: map[string]int{"40001": 0, "40002": 49152}}
	w.req.Plan.ProgressTimeout = time.Second
	src.onMigrate = func(f *scriptedLauncher) {
		f.migration.Progress = libvirt.JobProgress{Active: true, DataRemaining: 1 << 30}
	}
	_, err := execute(t, w.source, virt.MigrateDomainName, w.req)
	requireNonRetryable(t, err, virt.ErrTypeMigrationFailed, "Live migration stuck for 1 seconds and has been aborted")
	require.Equal(t, []string{"migrate-abort"}, src.verbs)
}

func TestCopiesAreReadFromEachNodesLauncher(t *testing.T) {
	w := newMigrationWorld(t)
	src := launcherOf(t, w.source, w.srcPod)
	read := func(m *Migrations) virt.Copy {
		v, err := execute(t, m, virt.ReadCopyName, w.req)
		require.NoError(t, err)
		var c virt.Copy
		require.NoError(t, v.Get(&c))
		return c
	}
	src.set(func(f *scriptedLauncher) { f.status = launcher.Status{State: libvirt.Paused} })
	require.Equal(t, virt.CopyPaused, read(w.source))
	_, err := execute(t, w.source, virt.ResumeSourceName, w.req)
	require.NoError(t, err)
	require.Equal(t, []string{"unpause"}, src.verbs)

	// The target's launcher never started and its pod went.
	require.NoError(t, w.c.Delete(context.Background(), w.tgtPod))
	require.Equal(t, virt.CopyGone, read(w.target))
}

func TestAbortingWithoutASourcePodIsDoneAndResumingItFails(t *testing.T) {
	w := newMigrationWorld(t)
	require.NoError(t, w.c.Delete(context.Background(), w.srcPod))
	_, err := execute(t, w.source, virt.AbortMigrationName, w.req)
	require.NoError(t, err, "no source pod, no copy to abort")
	_, err = execute(t, w.source, virt.ResumeSourceName, w.req)
	requireNonRetryable(t, err, virt.ErrTypeMigrationFailed, "is gone")
}

// Past its completion budget, a copy allowed post-copy and workload
// disruption switches to post-copy and is no longer timed; without them
// it is aborted with upstream's message.
func TestACopyPastItsBudgetSwitchesToPostCopyOrIsAborted(t *testing.T) {
	for _, tc := range []struct {
		name      string
		postCopy  bool
		wantVerbs []string
		wantErr   string
	}{
		{name: "post-copy", postCopy: true, wantVerbs: []string{"migrate-postcopy"}},
		{name: "pre-copy only", wantVerbs: []string{"migrate-abort"}, wantErr: "Live migration is not completed after 1 seconds and has been aborted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newMigrationWorld(t)
			src := launcherOf(t, w.source, w.srcPod)
			w.req.Endpoint = virt.TargetEndpoint{Address: "127.0.0.1", Ports: map[string]int{"40001": 0, "40002": 49152}}
			w.req.Plan.CompletionTimeout, w.req.Plan.PostCopy, w.req.Plan.WorkloadDisruption = time.Second, tc.postCopy, tc.postCopy
			remaining := uint64(1 << 30)
			src.onMigrate = func(f *scriptedLauncher) {
				go func() {
					// Progress that never converges, then (post-copy) the end.
					for i := 0; i < 60; i++ {
						time.Sleep(50 * time.Millisecond)
						remaining -= 1 << 20
						f.set(func(f *scriptedLauncher) {
							f.migration.Progress = libvirt.JobProgress{Active: true, DataRemaining: remaining}
						})
					}
					f.set(func(f *scriptedLauncher) { f.migration.Phase = launcher.MigrationSucceeded })
				}()
			}
			_, err := execute(t, w.source, virt.MigrateDomainName, w.req)
			if tc.wantErr == "" {
				require.NoError(t, err, "post-copy has no timeouts")
			} else {
				requireNonRetryable(t, err, virt.ErrTypeMigrationFailed, tc.wantErr)
			}
			src.set(func(f *scriptedLauncher) { require.Equal(t, tc.wantVerbs, f.verbs) })
		})
	}
}

func TestACopysJobIsExportedWhileItRuns(t *testing.T) {
	w := newMigrationWorld(t)
	src := launcherOf(t, w.source, w.srcPod)
	w.req.Endpoint = virt.TargetEndpoint{Address: "127.0.0.1", Ports: map[string]int{"40001": 0, "40002": 49152}}
	seen := make(chan float64, 1)
	src.onMigrate = func(f *scriptedLauncher) {
		f.migration.Progress = libvirt.JobProgress{Active: true, DataTotal: 300, DataRemaining: 100, DataProcessed: 200}
		go func() {
			require.Eventually(t, func() bool { return testutil.CollectAndCount(migrationLeft) == 1 }, 5*time.Second, 10*time.Millisecond)
			seen <- testutil.ToFloat64(migrationLeft.WithLabelValues("ns", "vm", "node-1"))
			f.set(func(f *scriptedLauncher) { f.migration.Phase = launcher.MigrationSucceeded })
		}()
	}
	_, err := execute(t, w.source, virt.MigrateDomainName, w.req)
	require.NoError(t, err)
	require.Equal(t, 100.0, <-seen, "kubevirt_vmi_migration_data_remaining_bytes while it ran")
	require.Zero(t, testutil.CollectAndCount(migrationLeft), "its series go with it")
}

// The source sends the guest only to the node agent of the target pod's
// node, whatever address its request names.
func TestTheSourceSendsTheGuestOnlyToTheTargetNodesAgent(t *testing.T) {
	w := newMigrationWorld(t)
	src := launcherOf(t, w.source, w.srcPod)
	w.req.Endpoint = virt.TargetEndpoint{Address: "10.9.9.9", Ports: map[string]int{"40001": 0, "40002": 49152}}
	_, err := execute(t, w.source, virt.MigrateDomainName, w.req)
	requireNonRetryable(t, err, virt.ErrTypeMigrationRefused, `10.9.9.9 is not the node agent of node "node-2"`)
	require.Empty(t, src.requests, "no copy started")
}
