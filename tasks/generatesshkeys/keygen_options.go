package generatesshkeys

import (
	"fmt"
	"strconv"
	"strings"
)

// keySpec is what ssh-keygen's options ask for.
type keySpec struct {
	// keyType is "rsa", "ecdsa" or "ed25519".
	keyType string
	// bits is the RSA modulus or the ECDSA curve size.
	bits       int
	comment    string
	passphrase string
	// format is the private key's: "" (OpenSSH), "PEM" or "PKCS8".
	format string
}

// Key sizes as ssh-keygen has them.
const (
	// taskRSABits is the task's RSA size when -t is absent or "rsa".
	taskRSABits     = 4096
	keygenRSABits   = 3072
	keygenECDSABits = 256
	minRSABits      = 1024
	maxRSABits      = 16384
)

// optionsWithValue are the ssh-keygen options the task takes that have a
// value.
const optionsWithValue = "tbCNfm"

// keygenOptions are all of ssh-keygen's option letters; others are
// unknown to it.
const keygenOptions = "ABHKLQUXceghiklopquvyCDEFIMNOPRVYZabfgjmnrstwz"

// keyTypes are ssh-keygen's key type names (-t) for the kinds the task
// generates; short names match in any case, full names exactly.
var keyTypes = map[string]struct {
	keyType string
	bits    int
}{
	"ssh-rsa": {"rsa", 0}, "rsa-sha2-256": {"rsa", 0}, "rsa-sha2-512": {"rsa", 0},
	"ssh-ed25519":         {"ed25519", 0},
	"ecdsa-sha2-nistp256": {"ecdsa", 256}, "ecdsa-sha2-nistp384": {"ecdsa", 384}, "ecdsa-sha2-nistp521": {"ecdsa", 521},
}

// unsupportedTypes are key types ssh-keygen knows and the task cannot make
// (no DSA in the SSH library, no security keys in a pod).
var unsupportedTypes = []string{"dsa", "ssh-dss", "ecdsa-sk", "ed25519-sk", "xmss", "ssh-xmss@openssh.com",
	"sk-ecdsa-sha2-nistp256@openssh.com", "sk-ssh-ed25519@openssh.com"}

// parseKeygenOptions reads additionalSSHKeygenOptions as ssh-keygen would
// for generating a key, with the task's defaults (RSA 4096, no passphrase,
// "<user>@generated" as comment).
func parseKeygenOptions(text, user string) (keySpec, error) {
	args, err := splitShellWords(text)
	if err != nil {
		return keySpec{}, fmt.Errorf("could not parse ssh-keygen options %q: %v", text, err)
	}
	values, err := readKeygenArgs(args)
	if err != nil {
		return keySpec{}, err
	}
	spec := keySpec{comment: user + "@generated"}
	if c, ok := values['C']; ok {
		spec.comment = c
	}
	spec.passphrase = values['N']
	if err := spec.setFormat(values); err != nil {
		return keySpec{}, err
	}
	if err := spec.setTypeAndBits(values); err != nil {
		return keySpec{}, err
	}
	// ssh-keygen writes ed25519 keys in its own format whatever -m says.
	if spec.format != "" && spec.keyType != "ed25519" && spec.passphrase != "" {
		return keySpec{}, fmt.Errorf("a passphrase (-N) is supported only with the OpenSSH private key format, not -m %s", values['m'])
	}
	return spec, nil
}

// readKeygenArgs reads getopt style short options: the last value of each
// option wins, as in ssh-keygen.
func readKeygenArgs(args []string) (map[byte]string, error) {
	values := map[byte]string{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if len(arg) < 2 || arg[0] != '-' || arg == "--" {
			return nil, fmt.Errorf("unsupported ssh-keygen argument %q: only options are taken", arg)
		}
		for j := 1; j < len(arg); j++ {
			opt := arg[j]
			switch {
			case opt == 'q' || opt == 'v':
				continue // quiet, verbose: nothing to do
			case !strings.ContainsRune(keygenOptions, rune(opt)):
				return nil, fmt.Errorf("unknown option -- %c", opt) // getopt's words, as ssh-keygen prints them
			case !strings.ContainsRune(optionsWithValue, rune(opt)):
				return nil, fmt.Errorf("ssh-keygen option -%c is not supported (supported: -t, -b, -C, -N, -m, -f, -q, -v)", opt)
			}
			value := arg[j+1:]
			if value == "" {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("ssh-keygen option -%c requires an argument", opt)
				}
				i++
				value = args[i]
			}
			// -f names the key file, which the task chooses itself.
			values[opt] = value
			break
		}
	}
	return values, nil
}

func (s *keySpec) setFormat(values map[byte]string) error {
	format, ok := values['m']
	if !ok {
		return nil
	}
	switch strings.ToUpper(format) {
	case "RFC4716":
	case "PEM", "PKCS8":
		s.format = strings.ToUpper(format)
	default:
		return fmt.Errorf("Unsupported conversion format %q", format)
	}
	return nil
}

// setTypeAndBits resolves -t and -b with ssh-keygen's defaults and limits.
func (s *keySpec) setTypeAndBits(values map[byte]string) error {
	name, typed := values['t']
	if !typed {
		name = "rsa"
	}
	bits := 0
	if b, ok := values['b']; ok {
		n, err := strconv.ParseUint(b, 10, 32)
		switch {
		case err != nil:
			return fmt.Errorf("Bits has bad value %s (invalid)", b)
		case n == 0:
			return fmt.Errorf("Bits has bad value %s (too small)", b)
		}
		bits = int(n)
	} else if name == "rsa" {
		bits = taskRSABits // the task's default, as upstream adds -b 4096
	}
	keyType, nameBits, err := resolveKeyType(name)
	if err != nil {
		return err
	}
	s.keyType = keyType
	return s.setBits(bits, nameBits)
}

func resolveKeyType(name string) (string, int, error) {
	switch lower := strings.ToLower(name); lower {
	case "rsa", "ecdsa", "ed25519":
		return lower, 0, nil
	}
	if t, ok := keyTypes[name]; ok {
		return t.keyType, t.bits, nil
	}
	for _, u := range unsupportedTypes {
		if strings.EqualFold(name, u) {
			return "", 0, fmt.Errorf("key type %s is not supported: the task generates rsa, ecdsa and ed25519 keys", name)
		}
	}
	return "", 0, fmt.Errorf("unknown key type %s", name)
}

func (s *keySpec) setBits(bits, nameBits int) error {
	switch s.keyType {
	case "rsa":
		if bits == 0 {
			bits = keygenRSABits
		}
		if bits < minRSABits {
			return fmt.Errorf("Invalid RSA key length: minimum is %d bits", minRSABits)
		}
		if bits > maxRSABits {
			return fmt.Errorf("Invalid RSA key length: maximum is %d bits", maxRSABits)
		}
	case "ecdsa":
		if bits == 0 {
			bits = max(nameBits, keygenECDSABits)
		}
		if bits != 256 && bits != 384 && bits != 521 {
			return fmt.Errorf("Invalid ECDSA key length: valid lengths are 256, 384 or 521 bits")
		}
	default:
		bits = 256 // ed25519 has one size; ssh-keygen ignores -b
	}
	s.bits = bits
	return nil
}
