package generatesshkeys

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParamsFromEnvAndArgs(t *testing.T) {
	env := map[string]string{
		"PUBLIC_KEY_SECRET_NAME": "pub", "PUBLIC_KEY_SECRET_NAMESPACE": "",
		"PRIVATE_KEY_SECRET_NAME": "priv", "PRIVATE_KEY_SECRET_NAMESPACE": "ns",
		"ADDITIONAL_SSH_KEYGEN_OPTIONS": "-t ed25519", "OTHER": "x",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	params, err := paramsFrom(lookup, []string{"--debug", "--", "user:root", "--debug", "additional-ssh-options:-p 22"})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		ParamPublicKeySecretName: "pub", ParamPublicKeySecretNamespace: "",
		ParamPrivateKeySecretName: "priv", ParamPrivateKeySecretNamespace: "ns",
		ParamAdditionalSSHKeygenOptions: "-t ed25519",
	}, params.Strings)
	assert.Equal(t, []string{"user:root", "--debug", "additional-ssh-options:-p 22"}, params.Arrays[ParamPrivateKeyConnectionOptions])

	params, err = paramsFrom(lookup, []string{"user:root"})
	require.NoError(t, err)
	assert.Equal(t, []string{"user:root"}, params.Arrays[ParamPrivateKeyConnectionOptions])

	_, err = paramsFrom(lookup, []string{"--public-key-secret-name=x"})
	assert.EqualError(t, err, "unknown argument --public-key-secret-name=x")
}

// Bad input fails before the step needs a cluster.
func TestMainReportsBadInputFirst(t *testing.T) {
	t.Setenv("PUBLIC_KEY_SECRET_NAME", "Bad")
	assert.ErrorContains(t, Main(context.Background(), nil), "invalid public-key-secret-name value: ")

	t.Setenv("PUBLIC_KEY_SECRET_NAME", "")
	assert.EqualError(t, Main(context.Background(), []string{"--", "novalue"}),
		`invalid private-key connection options: no key found before "novalue"; pair should be in "KEY:VAL" format`)

	t.Setenv("ADDITIONAL_SSH_KEYGEN_OPTIONS", "-t foo")
	assert.EqualError(t, Main(context.Background(), nil), "unknown key type foo")
}
