package generatesshkeys

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitShellWords(t *testing.T) {
	cases := map[string][]string{
		"":                          nil,
		"  -t   rsa\t-b 2048 ":      {"-t", "rsa", "-b", "2048"},
		`-N '' -C "my key"`:         {"-N", "", "-C", "my key"},
		`-C 'it''s'`:                {"-C", "its"},
		`-C "a \"b\" \$ \x"`:        {"-C", `a "b" $ \x`},
		`-C a\ b`:                   {"-C", "a b"},
		`-C x"y z"'w'`:              {"-C", "xy zw"},
		"-C 'single \"keeps\" \\ '": {"-C", `single "keeps" \ `},
	}
	for in, want := range cases {
		got, err := splitShellWords(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for in, want := range map[string]string{`-C 'x`: "unterminated single quote", `-C "x`: "unterminated double quote", `-C x\`: "backslash at the end"} {
		_, err := splitShellWords(in)
		assert.EqualError(t, err, want, in)
	}
}

func TestKeygenDefaultsAreTheTasks(t *testing.T) {
	spec, err := parseKeygenOptions("", "default")
	require.NoError(t, err)
	assert.Equal(t, keySpec{keyType: "rsa", bits: 4096, comment: "default@generated"}, spec)
}

func TestKeygenOptions(t *testing.T) {
	cases := map[string]keySpec{
		"-t rsa":                        {keyType: "rsa", bits: 4096},
		"-t RSA":                        {keyType: "rsa", bits: 3072}, // only "rsa" gets the task's 4096
		"-t rsa-sha2-512":               {keyType: "rsa", bits: 3072},
		"-t ssh-rsa -b 2048":            {keyType: "rsa", bits: 2048},
		"-b 2048":                       {keyType: "rsa", bits: 2048},
		"-t ecdsa":                      {keyType: "ecdsa", bits: 256},
		"-t ecdsa-sha2-nistp384":        {keyType: "ecdsa", bits: 384},
		"-t ecdsa-sha2-nistp384 -b 521": {keyType: "ecdsa", bits: 521},
		"-qtecdsa -b521":                {keyType: "ecdsa", bits: 521},
		"-t ed25519 -b 1":               {keyType: "ed25519", bits: 256},
		"-t ssh-ed25519":                {keyType: "ed25519", bits: 256},
		"-t rsa -t ed25519":             {keyType: "ed25519", bits: 256}, // the last wins
		"-t ed25519 -f /tmp/key -v":     {keyType: "ed25519", bits: 256},
		"-t ed25519 -m PEM -N pw":       {keyType: "ed25519", bits: 256, format: "PEM", passphrase: "pw"},
		"-m pem -b 1024":                {keyType: "rsa", bits: 1024, format: "PEM"},
		"-m PKCS8 -t ecdsa":             {keyType: "ecdsa", bits: 256, format: "PKCS8"},
		"-m RFC4716 -N 'secret phrase'": {keyType: "rsa", bits: 4096, passphrase: "secret phrase"},
	}
	for in, want := range cases {
		spec, err := parseKeygenOptions(in, "fedora")
		require.NoError(t, err, in)
		want.comment = "fedora@generated"
		assert.Equal(t, want, spec, in)
	}
	spec, err := parseKeygenOptions(`-C "ci key" -t ed25519`, "fedora")
	require.NoError(t, err)
	assert.Equal(t, "ci key", spec.comment)
	// upstream's own case
	spec, err = parseKeygenOptions(`-N "my long passphrase 4515645" -C root@myclient`, "root")
	require.NoError(t, err)
	assert.Equal(t, keySpec{keyType: "rsa", bits: 4096, comment: "root@myclient", passphrase: "my long passphrase 4515645"}, spec)
	spec, err = parseKeygenOptions(`-C '' -t ed25519`, "fedora")
	require.NoError(t, err)
	assert.Equal(t, "", spec.comment)
}

func TestKeygenOptionErrors(t *testing.T) {
	cases := map[string]string{
		"-t dsa":          "key type dsa is not supported: the task generates rsa, ecdsa and ed25519 keys",
		"-t ed25519-sk":   "key type ed25519-sk is not supported: the task generates rsa, ecdsa and ed25519 keys",
		"-t foo":          "unknown key type foo",
		"-t ssh-ED25519":  "unknown key type ssh-ED25519",
		"-b 512":          "Invalid RSA key length: minimum is 1024 bits",
		"-b 20000":        "Invalid RSA key length: maximum is 16384 bits",
		"-b x":            "Bits has bad value x (invalid)",
		"-b 0":            "Bits has bad value 0 (too small)",
		"-t ecdsa -b 300": "Invalid ECDSA key length: valid lengths are 256, 384 or 521 bits",
		"-m ssh2":         `Unsupported conversion format "ssh2"`,
		"-m PEM -N pw":    "a passphrase (-N) is supported only with the OpenSSH private key format, not -m PEM",
		"-a 100":          "ssh-keygen option -a is not supported (supported: -t, -b, -C, -N, -m, -f, -q, -v)",
		"-qy":             "ssh-keygen option -y is not supported (supported: -t, -b, -C, -N, -m, -f, -q, -v)",
		"-t":              "ssh-keygen option -t requires an argument",
		"key":             `unsupported ssh-keygen argument "key": only options are taken`,
		"-- -t":           `unsupported ssh-keygen argument "--": only options are taken`,
		`-C "open`:        `could not parse ssh-keygen options "-C \"open": unterminated double quote`,
	}
	for in, want := range cases {
		_, err := parseKeygenOptions(in, "default")
		assert.EqualError(t, err, want, in)
	}
}
