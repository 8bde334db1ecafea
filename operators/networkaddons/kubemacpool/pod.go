package kubemacpool

// What kubemacpool's pod is given, as upstream's Deployment gives it; the
// operator renders them and the command reads them.
const (
	// RangeStartEnv and RangeEndEnv carry the range, from the operator's
	// range ConfigMap.
	RangeStartEnv = "RANGE_START"
	RangeEndEnv   = "RANGE_END"
	// CertDir is where the serving certificate is mounted.
	CertDir = "/tmp/k8s-webhook-server/serving-certs"
)
