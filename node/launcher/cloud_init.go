package launcher

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	kubevirtv1 "kubevirt.io/api/core/v1"

	"github.com/virtflow/virtflow/node/libvirt/domain"
	"github.com/virtflow/virtflow/node/podnet"
	"github.com/virtflow/virtflow/wire/launcherpod"
)

// secretsRoot is where the pod mounts secrets; tests move it.
var secretsRoot = launcherpod.SecretsDir

// noCloudMetadata is the NoCloud meta-data upstream writes, as JSON.
type noCloudMetadata struct {
	InstanceID    string            `json:"instance-id"`
	LocalHostname string            `json:"local-hostname,omitempty"`
	PublicSSHKeys map[string]string `json:"public-keys,omitempty"`
}

// cloudInit writes the volume's NoCloud data source as an ISO: its user
// and network data (inline, base64 or from a secret), and meta-data with
// the host name and the SSH keys of the VMI's noCloud access credentials.
func cloudInit(ctx context.Context, cfg Config, disks string, v kubevirtv1.Volume) (domain.Source, error) {
	files, err := noCloudFiles(cfg, v)
	if err != nil {
		return domain.Source{}, err
	}
	src := filepath.Join(disks, v.Name+"-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return domain.Source{}, fmt.Errorf("creating %s: %w", src, err)
	}
	iso := filepath.Join(disks, v.Name+".iso")
	args := []string{"-quiet", "-output", iso, "-volid", "cidata", "-joliet", "-rock"}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			return domain.Source{}, fmt.Errorf("writing %s: %w", name, err)
		}
		args = append(args, filepath.Join(src, name))
	}
	return domain.Source{Path: iso, Format: "raw", ReadOnly: true, CDROM: true}, runTool(ctx, "genisoimage", args...)
}

func noCloudFiles(cfg Config, v kubevirtv1.Volume) (map[string]string, error) {
	ci := v.CloudInitNoCloud
	user, err := decodeData(ci.UserData, ci.UserDataBase64)
	if err != nil {
		return nil, fmt.Errorf("userDataBase64: %w", err)
	}
	network, err := decodeData(ci.NetworkData, ci.NetworkDataBase64)
	if err != nil {
		return nil, fmt.Errorf("networkDataBase64: %w", err)
	}
	if ci.UserDataSecretRef != nil {
		if user, err = readFirstOf(filepath.Join(secretsRoot, launcherpod.CloudInitSecretVolume(v.Name, false)), "userdata", "userData"); err != nil {
			return nil, err
		}
	}
	if ci.NetworkDataSecretRef != nil {
		if network, err = readFirstOf(filepath.Join(secretsRoot, launcherpod.CloudInitSecretVolume(v.Name, true)), "networkdata", "networkData"); err != nil {
			return nil, err
		}
	}
	keys, err := noCloudKeys(cfg.VMI.Spec.AccessCredentials)
	if err != nil {
		return nil, err
	}
	meta, err := json.Marshal(noCloudMetadata{InstanceID: v.Name, LocalHostname: podnet.Hostname(&cfg.VMI), PublicSSHKeys: keys})
	if err != nil {
		return nil, fmt.Errorf("rendering meta-data: %w", err)
	}
	files := map[string]string{"user-data": user, "meta-data": string(meta)}
	if network != "" {
		files["network-config"] = network
	}
	return files, nil
}

// noCloudKeys reads the keys of the access credentials cloud-init
// propagates from their secrets' volumes, numbered as upstream's.
func noCloudKeys(creds []kubevirtv1.AccessCredential) (map[string]string, error) {
	var keys []string
	for _, c := range creds {
		k := c.SSHPublicKey
		if k == nil || k.Source.Secret == nil || k.PropagationMethod.NoCloud == nil {
			continue
		}
		dir := filepath.Join(secretsRoot, launcherpod.AccessCredentialVolume(k.Source.Secret.SecretName))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("reading the keys of secret %s: %w", k.Source.Secret.SecretName, err)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if e.IsDir() || strings.HasPrefix(e.Name(), "..") {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, fmt.Errorf("Unable to read public keys found at volume: %s/%s error: %v", dir, e.Name(), err)
			}
			if key := strings.TrimSpace(string(data)); key != "" {
				keys = append(keys, key)
			}
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for i, k := range keys {
		out[strconv.Itoa(i)] = k
	}
	return out, nil
}

// readFirstOf reads the first of names found in dir.
func readFirstOf(dir string, names ...string) (string, error) {
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err == nil {
			return string(data), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("reading %s: %w", filepath.Join(dir, n), err)
		}
	}
	return "", fmt.Errorf("no cloud-init data-source found at volume: %s", filepath.Base(dir))
}
