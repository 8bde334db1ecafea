package temporal

import (
	"time"

	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	"go.temporal.io/server/common/config"
)

// certRefresh is how often the server re-reads its certificate files, so a
// re-issued certificate takes effect without a restart; a variable for
// the test that re-issues one.
var certRefresh = time.Minute

// tlsConfig has the frontend serve only mTLS with certificates of pki's CA.
// The server's system worker (schedules, batches, namespace deletion)
// dials the frontend with a certificate of its own, which the authorizer
// grants everything: the frontend is the only door in, and the internal
// services, on loopback, stay in plaintext.
func tlsConfig(pki PKI) config.RootTLS {
	return config.RootTLS{
		Frontend: config.GroupTLS{Server: config.ServerTLS{
			CertFile: pki.Cert(frontendName), KeyFile: pki.Key(frontendName),
			ClientCAFiles: []string{pki.CA()}, RequireClientAuth: true,
		}},
		SystemWorker: config.WorkerTLS{
			CertFile: pki.Cert(systemIdentity), KeyFile: pki.Key(systemIdentity),
			Client: config.ClientTLS{ServerName: bindIP, RootCAFiles: []string{pki.CA()}},
		},
		RefreshInterval: certRefresh,
		ExpirationChecks: config.CertExpirationValidation{
			WarningWindow: renewBefore, ErrorWindow: 7 * 24 * time.Hour, CheckInterval: time.Hour,
		},
	}
}

// uiTLS has the Web UI's server dial the frontend as a reader; it re-reads
// its certificate when the file changes.
func uiTLS(pki PKI) uiconfig.TLS {
	return uiconfig.TLS{
		CaFile: pki.CA(), CertFile: pki.Cert(webUIIdentity), KeyFile: pki.Key(webUIIdentity),
		EnableHostVerification: true, ServerName: bindIP,
	}
}
