// Package temporal runs a real Temporal server (frontend, history, matching
// and worker services) with its Web UI inside the calling process, persisting
// to a SQLite file. It is the embedded default of `virtflow up` and the server
// the integration tests stand on. Its frontend is a guarded control plane:
// it requires a client certificate of its own CA (PKI) and lets each
// identity make only its own calls (authorizer, contracts/temporalauth).
package temporal

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uioptions "github.com/temporalio/ui-server/v2/server/server_options"
	"go.temporal.io/sdk/client"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/virtflow/virtflow/commands/temporalclient"
	"github.com/virtflow/virtflow/contracts/temporalauth"
)

const (
	clusterName = "active"
	bindIP      = "127.0.0.1"
	// historyShards is above one because a single shard serialises every
	// task hop and costs about 50 ms per activity on a 2-core machine.
	historyShards = 4
)

// Config says where the server keeps its state and which ports it serves.
type Config struct {
	// DatabaseFile is the SQLite file; empty means in memory (tests).
	DatabaseFile string
	// FrontendPort is the gRPC port clients dial; 0 picks a free port.
	FrontendPort int
	// UIPort is the Web UI port; 0 picks a free port, -1 disables the UI.
	UIPort int
	// Namespaces are registered before the server starts serving.
	Namespaces []string
	// LogLevel is the server's zap level ("warn" unless set).
	LogLevel string
	// LogFile receives the server's log; empty means stdout.
	LogFile string
	// PKIDir keeps the Temporal CA and every certificate (EnsurePKI); it
	// is required: the frontend serves only mTLS.
	PKIDir string
	// Hosts are the addresses and names clients reach the frontend by
	// beyond 127.0.0.1 and localhost (the node bridge's address), which
	// its certificate carries.
	Hosts []string
}

// Server is a running Temporal server with an optional Web UI.
type Server struct {
	server       temporal.Server
	ui           *uiserver.Server
	pki          PKI
	frontendAddr string
	uiAddr       string
	uiLog        io.Closer
}

// Start issues the certificates and builds the schema on first use,
// registers the namespaces and starts every service bound to 127.0.0.1.
func Start(cfg Config) (*Server, error) {
	if cfg.PKIDir == "" {
		return nil, errors.New("the Temporal server needs a PKI directory: its frontend serves only mTLS")
	}
	pki, err := EnsurePKI(cfg.PKIDir, cfg.Hosts)
	if err != nil {
		return nil, err
	}
	if cfg.FrontendPort == 0 {
		cfg.FrontendPort = mustFreePort()
	}
	if cfg.LogLevel == "" {
		cfg.LogLevel = "warn"
	}
	serverCfg := buildConfig(cfg)
	serverCfg.Global.TLS = tlsConfig(pki)
	sqlCfg := serverCfg.Persistence.DataStores[sqliteplugin.PluginName].SQL
	if err := prepareDatabase(cfg, sqlCfg); err != nil {
		return nil, err
	}
	// A stopped server's background goroutines may log Fatal (e.g. its
	// membership listener failing to serve once closed). In an embedded
	// server that must end the goroutine, not the whole virtflow process.
	zl := log.BuildZapLogger(log.Config{Stdout: cfg.LogFile == "", OutputFile: cfg.LogFile, Level: cfg.LogLevel}).
		WithOptions(zap.WithFatalHook(zapcore.WriteThenGoexit))
	logger := log.NewZapLogger(zl)
	srv, err := temporal.NewServer(
		temporal.WithConfig(serverCfg),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithLogger(logger),
		temporal.WithDynamicConfigClient(dynamicConfig()),
		// Without a claim mapper the authorizer is never asked.
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper{} }),
		temporal.WithAuthorizer(newAuthorizer(cfg.Namespaces, logger)),
	)
	if err != nil {
		return nil, fmt.Errorf("creating temporal server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("starting temporal server: %w", err)
	}
	s := &Server{server: srv, pki: pki, frontendAddr: serverCfg.PublicClient.HostPort}
	if cfg.UIPort >= 0 {
		if err := s.startUI(cfg); err != nil {
			_ = srv.Stop()
			return nil, err
		}
	}
	return s, nil
}

// FrontendAddress is the host:port SDK clients and the temporal CLI dial.
func (s *Server) FrontendAddress() string { return s.frontendAddr }

// PKI is where the CA and the clients' certificates are.
func (s *Server) PKI() PKI { return s.pki }

// UIAddress is the Web UI URL, empty when the UI is off.
func (s *Server) UIAddress() string { return s.uiAddr }

// Stop shuts down the UI and every server service.
func (s *Server) Stop() error {
	if s.ui != nil {
		s.ui.Stop()
	}
	err := s.server.Stop()
	if s.uiLog != nil {
		err = errors.Join(err, s.uiLog.Close())
	}
	return err
}

// AdminTLS is how the admin reaches the frontend.
func (s *Server) AdminTLS() temporalclient.TLS {
	return temporalclient.TLS{Cert: s.pki.Cert(temporalauth.Admin), Key: s.pki.Key(temporalauth.Admin), CA: s.pki.CA()}
}

// WaitReady dials the frontend, as the admin, until it answers a health
// check.
func (s *Server) WaitReady(ctx context.Context, namespace string) error {
	opts, err := s.AdminTLS().Options(s.frontendAddr, namespace)
	if err != nil {
		return err
	}
	opts.Logger = quietLogger{}
	for {
		c, err := client.Dial(opts)
		if err == nil {
			_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
			c.Close()
			if err == nil {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for temporal frontend %s: %w", s.frontendAddr, errors.Join(ctx.Err(), err))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (s *Server) startUI(cfg Config) error {
	port := cfg.UIPort
	if port == 0 {
		port = mustFreePort()
	}
	defaultNS := "default"
	if len(cfg.Namespaces) > 0 {
		defaultNS = cfg.Namespaces[0]
	}
	uiCfg := &uiconfig.Config{
		TemporalGRPCAddress: s.frontendAddr,
		Host:                bindIP,
		Port:                port,
		EnableUI:            true,
		DefaultNamespace:    defaultNS,
		// The machine may have no internet; the UI must not phone home.
		DisableNewsFetch: true,
		HideLogs:         true,
		CORS:             uiconfig.CORS{CookieInsecure: true},
		TLS:              uiTLS(s.pki),
	}
	var err error
	if s.uiLog, err = redirectUILog(cfg.LogFile); err != nil {
		return err
	}
	s.ui = uiserver.NewServer(uioptions.WithConfigProvider(uiCfg))
	errCh := make(chan error, 1)
	go func() { errCh <- s.ui.Start() }()
	s.uiAddr = fmt.Sprintf("http://%s:%d", bindIP, port)
	select {
	case err := <-errCh:
		return fmt.Errorf("starting temporal web ui on port %d: %w", port, err)
	case <-time.After(200 * time.Millisecond):
		return nil
	}
}

func prepareDatabase(cfg Config, sqlCfg *config.SQL) error {
	if cfg.DatabaseFile != "" {
		if err := os.MkdirAll(filepath.Dir(cfg.DatabaseFile), 0o755); err != nil {
			return fmt.Errorf("creating temporal data directory: %w", err)
		}
		if _, err := os.Stat(cfg.DatabaseFile); os.IsNotExist(err) {
			if err := sqlite.SetupSchema(sqlCfg); err != nil {
				return fmt.Errorf("setting up temporal schema in %s: %w", cfg.DatabaseFile, err)
			}
		}
	}
	// An in-memory database gets its schema from the SQLite plugin itself.
	var nsCfgs []*sqlite.NamespaceConfig
	for _, ns := range cfg.Namespaces {
		nsCfg, err := sqlite.NewNamespaceConfig(clusterName, ns, false, nil)
		if err != nil {
			return fmt.Errorf("describing namespace %s: %w", ns, err)
		}
		nsCfgs = append(nsCfgs, nsCfg)
	}
	if err := sqlite.CreateNamespaces(sqlCfg, nsCfgs...); err != nil {
		return fmt.Errorf("registering namespaces %v: %w", cfg.Namespaces, err)
	}
	return nil
}

func dynamicConfig() dynamicconfig.StaticClient {
	return dynamicconfig.StaticClient{
		// The default phones home to a version service on every start.
		dynamicconfig.EnableServerVersionCheck.Key(): false,
		// Visibility is read back right after writes by the reconcilers.
		dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): true,
	}
}

func sqlConfig(cfg Config) *config.SQL {
	sqlCfg := &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		ConnectAttributes: map[string]string{"mode": "rwc", "_journal_mode": "wal", "_synchronous": "normal"},
		DatabaseName:      cfg.DatabaseFile,
	}
	if cfg.DatabaseFile == "" {
		sqlCfg.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
		sqlCfg.DatabaseName = fmt.Sprintf("virtflow-%d", mustFreePort())
	}
	return sqlCfg
}

func buildConfig(cfg Config) *config.Config {
	frontend := fmt.Sprintf("%s:%d", bindIP, cfg.FrontendPort)
	c := &config.Config{}
	c.Global.Membership = config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: bindIP}
	c.Global.Metrics = &metrics.Config{Prometheus: &metrics.PrometheusConfig{
		ListenAddress: fmt.Sprintf("%s:%d", bindIP, mustFreePort()), HandlerPath: "/metrics",
	}}
	c.Persistence = config.Persistence{
		DefaultStore: sqliteplugin.PluginName, VisibilityStore: sqliteplugin.PluginName,
		NumHistoryShards: historyShards,
		DataStores:       map[string]config.DataStore{sqliteplugin.PluginName: {SQL: sqlConfig(cfg)}},
	}
	c.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10, MasterClusterName: clusterName, CurrentClusterName: clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			clusterName: {Enabled: true, InitialFailoverVersion: 1, RPCAddress: frontend},
		},
	}
	c.DCRedirectionPolicy = config.DCRedirectionPolicy{Policy: "noop"}
	c.Services = map[string]config.Service{
		"frontend": service(cfg.FrontendPort), "history": service(0),
		"matching": service(0), "worker": service(0),
	}
	c.Archival = config.Archival{
		History:    config.HistoryArchival{State: "disabled"},
		Visibility: config.VisibilityArchival{State: "disabled"},
	}
	c.NamespaceDefaults = config.NamespaceDefaults{Archival: config.ArchivalNamespaceDefaults{
		History:    config.HistoryArchivalNamespaceDefaults{State: "disabled"},
		Visibility: config.VisibilityArchivalNamespaceDefaults{State: "disabled"},
	}}
	c.PublicClient = config.PublicClient{HostPort: frontend}
	return c
}

func service(port int) config.Service {
	if port == 0 {
		port = mustFreePort()
	}
	return config.Service{RPC: config.RPC{GRPCPort: port, MembershipPort: mustFreePort(), BindOnIP: bindIP}}
}

// mustFreePort asks the kernel for an unused loopback port that this
// process has not handed out before: the probe's listener is closed at
// once, so the kernel may offer the same port to the next probe, and two
// of the server's eight services on one port kill it at start. A race with
// another process remains possible; the server then fails with a bind
// error.
func mustFreePort() int {
	portsMu.Lock()
	defer portsMu.Unlock()
	for i := 0; i < 100; i++ {
		l, err := net.Listen("tcp", bindIP+":0")
		if err != nil {
			panic(fmt.Sprintf("finding a free port: %v", err))
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !handedOut[port] {
			handedOut[port] = true
			return port
		}
	}
	panic("finding a free port: the kernel kept offering ports already handed out")
}

var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)
