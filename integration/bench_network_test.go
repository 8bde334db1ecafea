//go:build integration && bench

package integration

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
	kubevirtv1 "kubevirt.io/api/core/v1"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/virtflow/virtflow/embedded/platform"
	"github.com/virtflow/virtflow/operands"
)

// sinkPort is where a sink counts what it receives: busybox nc running
// `wc -c` on the connection, in the guest as on the floor, so both sides
// run the same program and the count proves every byte arrived.
const sinkPort = 5001

// netTarget is something the host sends to: its address, and how to start
// its sink for one connection.
type netTarget struct {
	ip   string
	sink func() (stop func())
}

// networkRows measures host → guest TCP throughput and HTTP request
// latency through each pod network binding on the real node, against a
// process in a plain network namespace on the same node bridge (the
// floor), and names the best binding each is compared with.
func (u *upRun) networkRows(t *testing.T) []benchRow {
	size := envInt("BENCH_NET_MB", 32) << 20
	requests := envInt("BENCH_NET_REQUESTS", 30)
	floor := startFloor(t, u.dataDir)
	floorPut, floorLat := measureTarget(t, floor, size, requests)

	setHCOAnnotation(t, u.c, operands.JSONPatchKubeVirtAnnotation, passtGateOn)
	defer setHCOAnnotation(t, u.c, operands.JSONPatchKubeVirtAnnotation, "")
	key := sshKey(t)
	bindings := []string{"masquerade", "bridge", "passt"}
	put, lat := map[string]time.Duration{}, map[string]time.Duration{}
	for _, b := range bindings {
		// One guest at a time, gone before the next: each has the CPUs.
		ns := u.namespaceNamed(t, "bench-net-"+b)
		target, vm := u.benchGuest(t, ns, b, key)
		put[b], lat[b] = measureTarget(t, target, size, requests)
		deleteVM(t, u.c, vm)
	}
	bestPut, bestLat := best(put), best(lat)
	mbps := func(d time.Duration) float64 { return float64(size) / d.Seconds() / (1 << 20) }
	var rows []benchRow
	for _, b := range bindings {
		rows = append(rows, benchRow{
			name: fmt.Sprintf("host → guest TCP, %d MiB through %s", size>>20, b), ours: put[b], baseline: floorPut,
			note: fmt.Sprintf("%.0f MiB/s vs %.0f MiB/s; %.2fx the best binding (%s); baseline: busybox nc in a plain netns on the node bridge",
				mbps(put[b]), mbps(floorPut), float64(put[b])/float64(put[bestPut]), bestPut),
		}, benchRow{
			name: "host → guest HTTP request (new connection) through " + b, ours: lat[b], baseline: floorLat,
			note: fmt.Sprintf("median of %d; %.2fx the best binding (%s); baseline: busybox httpd in a plain netns on the node bridge",
				requests, float64(lat[b])/float64(lat[bestLat]), bestLat),
		})
	}
	return rows
}

func best(ds map[string]time.Duration) string {
	name := ""
	for k, d := range ds {
		if name == "" || d < ds[name] {
			name = k
		}
	}
	return name
}

// measureTarget sends size bytes to the target's sink (the median of three)
// and times requests GETs of its web server's root (the median).
func measureTarget(t *testing.T, target netTarget, size, requests int) (time.Duration, time.Duration) {
	httpGet(t, "http://"+target.ip+"/") // it answers before it is timed
	var puts []time.Duration
	for i := 0; i < 3; i++ {
		stop := target.sink()
		puts = append(puts, push(t, net.JoinHostPort(target.ip, strconv.Itoa(sinkPort)), size))
		stop()
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var lats []time.Duration
	for i := 0; i < requests; i++ {
		start := time.Now()
		resp, err := c.Get("http://" + target.ip + "/")
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		lats = append(lats, time.Since(start))
	}
	return median(puts), median(lats)
}

// push writes size zero bytes to the sink at addr and waits for its
// count, which must be all of them.
func push(t *testing.T, addr string, size int) time.Duration {
	conn := dialSink(t, addr)
	defer conn.Close()
	start := time.Now()
	_, err := io.CopyN(conn, zeros{}, int64(size))
	require.NoError(t, err)
	require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Minute)))
	count, err := io.ReadAll(conn)
	took := time.Since(start)
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(size), strings.TrimSpace(string(count)), "the sink got every byte")
	return took
}

// dialSink connects to a sink that may still be starting in a guest busy
// with its own work (emulated CPUs are slow).
func dialSink(t *testing.T, addr string) net.Conn {
	var err error
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var conn net.Conn
		if conn, err = net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
			return conn
		}
	}
	require.NoError(t, err, "dialling the sink %s", addr)
	return nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// floorNetns is the plain network namespace of the floor, on the node
// bridge at an address the node's pod IPAM never hands out (reserved in
// its store, as host-local keeps its leases).
const (
	floorNetns = "vfbench-floor"
	floorAddr  = "10.244.0.254"
)

// startFloor runs busybox httpd and nc in a network namespace with a veth
// on the node bridge: the same programs the guest runs, with no guest,
// launcher or binding between them and the host.
func startFloor(t *testing.T, dataDir string) netTarget {
	lease := filepath.Join(dataDir, "node", "cni", "networks", "virtflow", floorAddr)
	require.NoError(t, os.MkdirAll(filepath.Dir(lease), 0o755))
	require.NoError(t, os.WriteFile(lease, []byte("virtflow-bench-floor\neth0"), 0o644))
	t.Cleanup(func() { _ = os.Remove(lease) })
	run := func(args ...string) {
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		require.NoError(t, err, "%v: %s", args, out)
	}
	_ = exec.Command("ip", "netns", "del", floorNetns).Run()
	run("ip", "netns", "add", floorNetns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", floorNetns).Run() })
	run("ip", "link", "add", "vfbench-host", "type", "veth", "peer", "name", "vfbench-ns", "netns", floorNetns)
	run("ip", "link", "set", "vfbench-host", "master", platform.NodeBridge.Name, "up")
	for _, a := range [][]string{{"link", "set", "lo", "up"}, {"addr", "add", floorAddr + "/24", "dev", "vfbench-ns"}, {"link", "set", "vfbench-ns", "up"}} {
		run(append([]string{"ip", "-n", floorNetns}, a...)...)
	}
	www := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(www, "index.html"), []byte("VIRTFLOW-GUEST-HTTP floor\n"), 0o644))
	httpd := exec.Command("ip", "netns", "exec", floorNetns, "busybox", "httpd", "-f", "-p", "80", "-h", www)
	require.NoError(t, httpd.Start())
	t.Cleanup(func() { _ = httpd.Process.Kill(); _ = httpd.Wait() })
	return netTarget{ip: floorAddr, sink: func() func() {
		nc := exec.Command("ip", "netns", "exec", floorNetns, "busybox", "nc", "-l", "-p", strconv.Itoa(sinkPort), "-e", "busybox", "wc", "-c")
		require.NoError(t, nc.Start())
		return func() { _ = nc.Process.Kill(); _ = nc.Wait() }
	}}
}

// benchGuest runs the test guest with its pod network interface bound as
// binding, and reaches its sink over ssh; the caller deletes the VM.
func (u *upRun) benchGuest(t *testing.T, ns, binding, key string) (netTarget, *kubevirtv1.VirtualMachine) {
	ctx := context.Background()
	vm := testGuestVM("net-"+binding, kubevirtv1.RunStrategyAlways)
	vm.Namespace = ns
	withAuthorizedKey(vm, key)
	iface := kubevirtv1.Interface{Name: "default", Ports: []kubevirtv1.Port{{Port: 80}, {Port: 22}, {Port: sinkPort}}}
	switch binding {
	case "masquerade":
		iface.Masquerade = &kubevirtv1.InterfaceMasquerade{}
	case "bridge":
		iface.Bridge, iface.Ports = &kubevirtv1.InterfaceBridge{}, nil
	case "passt":
		iface.PasstBinding = &kubevirtv1.InterfacePasstBinding{}
	}
	spec := &vm.Spec.Template.Spec
	spec.Domain.Devices.Interfaces = []kubevirtv1.Interface{iface}
	spec.Networks = []kubevirtv1.Network{{Name: "default", NetworkSource: kubevirtv1.NetworkSource{Pod: &kubevirtv1.PodNetwork{}}}}
	require.Eventually(t, func() bool { return u.c.Create(ctx, vm.DeepCopy(), crclient.DryRunAll) == nil }, time.Minute, time.Second)
	require.NoError(t, u.c.Create(ctx, vm))
	vmi := runningVMI(t, u.c, crclient.ObjectKeyFromObject(vm))
	ip := launcherPodOf(t, u.c, vmi).Status.PodIP
	return netTarget{ip: ip, sink: func() func() {
		// A connection of its own each time: dropbear ends a connection
		// whose session was closed under a running command.
		client := guestSSH(t, ip, key)
		s, err := client.NewSession()
		require.NoError(t, err)
		stdin, _ := io.Pipe() // nc keeps reading the connection while its stdin stays open
		s.Stdin = stdin
		require.NoError(t, s.Start(fmt.Sprintf("nc -l -p %d -e wc -c", sinkPort)))
		time.Sleep(time.Second) // listening; a connection made before would be refused or reset
		return func() { _ = s.Close(); _ = client.Close() }
	}}, vm
}

// guestSSH connects to the guest's dropbear as root with the key.
func guestSSH(t *testing.T, ip, key string) *ssh.Client {
	pem, err := os.ReadFile(key)
	require.NoError(t, err)
	signer, err := ssh.ParsePrivateKey(pem)
	require.NoError(t, err)
	cfg := &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second}
	var c *ssh.Client
	require.Eventually(t, func() bool { c, err = ssh.Dial("tcp", net.JoinHostPort(ip, "22"), cfg); return err == nil },
		2*time.Minute, time.Second, "ssh to the guest at %s: %v", ip, err)
	return c
}
