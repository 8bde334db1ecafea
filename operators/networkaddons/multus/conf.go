// Package multus keeps a node's Multus configuration, as upstream's thin
// plugin entrypoint does: 00-multus.conf in the node's CNI configuration
// directory makes Multus the runtime's network, delegating to the
// cluster network's own configuration (the master), and the kubeconfig
// beside it lets the plugin, run by the runtime on the host, read
// NetworkAttachmentDefinitions and write pods' network-status as the multus
// ServiceAccount. Both are rewritten when the master, the account's token or
// its CA changes.
package multus

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ConfFile is the configuration Multus is known by; sorted first, the
// runtime takes it as the pod network.
const ConfFile = "00-multus.conf"

// NetworkName is the network upstream's entrypoint names Multus's
// configuration by.
const NetworkName = "multus-cni-network"

// Dir is Multus's own directory in the CNI configuration directory:
// the kubeconfig and the plugin's cache. The runtime reads no
// subdirectory.
const Dir = "multus.d"

// Paths are where Multus's files go on the node.
type Paths struct {
	// ConfDir is the node's CNI configuration directory.
	ConfDir string
	// BinDir is where the CNI plugins Multus delegates to are installed.
	BinDir string
	// Master is the configuration delegated to; the alphabetically first
	// other .conf or .conflist in ConfDir when empty.
	Master string
}

// Kubeconfig is the kubeconfig's path.
func (p Paths) Kubeconfig() string { return filepath.Join(p.ConfDir, Dir, "multus.kubeconfig") }

// Conf is 00-multus.conf's path.
func (p Paths) Conf() string { return filepath.Join(p.ConfDir, ConfFile) }

// cacheDir keeps the plugin's per-attachment cache with the node's other
// network state rather than in /var/lib/cni.
func (p Paths) cacheDir() string { return filepath.Join(p.ConfDir, Dir, "cache") }

// MasterPath is the configuration Multus delegates to.
func (p Paths) MasterPath() (string, error) {
	if p.Master != "" {
		return filepath.Join(p.ConfDir, p.Master), nil
	}
	entries, err := os.ReadDir(p.ConfDir)
	if err != nil {
		return "", fmt.Errorf("reading the CNI configuration directory %s: %w", p.ConfDir, err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ConfFile) || (filepath.Ext(n) != ".conf" && filepath.Ext(n) != ".conflist") {
			continue
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no CNI configuration to delegate to in %s", p.ConfDir)
	}
	sort.Strings(names)
	return filepath.Join(p.ConfDir, names[0]), nil
}

// Conf renders 00-multus.conf delegating to master, a CNI configuration
// or configuration list: its CNI version, the capabilities its plugins
// take (so the runtime still passes port mappings), the kubeconfig.
func Conf(master []byte, p Paths) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(master, &m); err != nil {
		return nil, fmt.Errorf("reading the master CNI configuration: %w", err)
	}
	version, ok := m["cniVersion"].(string)
	if !ok || version == "" {
		return nil, fmt.Errorf("the master CNI configuration has no cniVersion")
	}
	conf := map[string]any{
		"cniVersion": version, "name": NetworkName, "type": "multus",
		"kubeconfig": p.Kubeconfig(), "binDir": p.BinDir, "cniDir": p.cacheDir(),
		"delegates": []any{m},
	}
	if caps := capabilities(m); len(caps) > 0 {
		conf["capabilities"] = caps
	}
	out, err := json.MarshalIndent(conf, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("writing the Multus configuration: %w", err)
	}
	return out, nil
}

// capabilities are the master's, from its plugins when it is a list.
func capabilities(m map[string]any) map[string]bool {
	caps := map[string]bool{}
	add := func(plugin any) {
		pm, _ := plugin.(map[string]any)
		c, _ := pm["capabilities"].(map[string]any)
		for k, v := range c {
			if b, ok := v.(bool); ok {
				caps[k] = b
			}
		}
	}
	if plugins, ok := m["plugins"].([]any); ok {
		for _, pl := range plugins {
			add(pl)
		}
	} else {
		add(m)
	}
	return caps
}

// Kubeconfig is the plugin's kubeconfig: the API server's address, its CA
// and the ServiceAccount's token, as upstream's entrypoint writes it.
func Kubeconfig(server string, ca, token []byte) []byte {
	return []byte(strings.Join([]string{
		"# Kubeconfig file for Multus CNI plugin.",
		"apiVersion: v1",
		"kind: Config",
		"clusters:",
		"- name: local",
		"  cluster:",
		"    server: " + server,
		"    certificate-authority-data: " + base64.StdEncoding.EncodeToString(ca),
		"users:",
		"- name: multus",
		"  user:",
		"    token: \"" + strings.TrimSpace(string(token)) + "\"",
		"contexts:",
		"- name: multus-context",
		"  context:",
		"    cluster: local",
		"    user: multus",
		"current-context: multus-context",
	}, "\n") + "\n")
}
